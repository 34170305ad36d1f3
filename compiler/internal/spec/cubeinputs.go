package spec

import (
	"fmt"
	"path"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// keepCubeInputs keeps each cube's own files apart in a pipeline whose
// cubes: names several cubes, as MLCube and MedPerf run each cube with
// its own workspace: when steps of two cubes read one path (or paths one
// inside the other), and no step writes it, the input a step reads there
// by its cube's default, with no inputs: entry, is the cube's own file
// (its parameters file, a model's weights), and lives under the cube's
// name as cubes: calls it (cube cnn's parameters.yaml at
// cnn/parameters.yaml), whether the other cube's step reads the path by
// its default too or by an inputs: entry. A path some step writes is the
// data that flows between them and stays where it is; so does one only
// one cube reads, and one the pipeline maps a step's inputs: to. A moved
// input that lands on what a step writes is an error at the step:
// inputs: must give it a place.
func keepCubeInputs(p *Pipeline, cubes int) diag.Diagnostics {
	if cubes < 2 {
		return nil
	}
	var written []string
	for _, st := range p.Steps {
		written = append(written, stepWrites(st)...)
	}
	reads, readers := cubeReads(p, written)
	shared := sharedPaths(readers)
	var diags diag.Diagnostics
	for _, r := range reads {
		if !shared[r.rel] {
			continue
		}
		st, prm := r.st, r.prm
		moved := path.Join(st.CubeKey, r.rel)
		if w := touchingOne(moved, written); w != "" {
			diags = append(diags, diag.Errorf(diag.CubeFileClash, st.Loc.Field("inputs").Field(prm.Name),
				"input %s is cube %s's own file, kept at %s, where a step writes %s",
				prm.Name, st.CubeKey, keepSlash(moved, prm), w).
				WithFix(fmt.Sprintf("give it a place with inputs: (%s: %s)", prm.Name,
					keepSlash(path.Join(st.CubeKey+"-files", r.rel), prm))).
				WithDetail("The file (%s by default) is one that other cubes of the pipeline read too and no step writes, so "+
					"it is kept under the cube's name.", prm.Path))
			continue
		}
		if st.CubeInputs == nil {
			st.CubeInputs = map[string]string{}
		}
		st.CubeInputs[prm.Name] = keepSlash(moved, prm)
	}
	return diags
}

// cubeRead is an input a step reads at its cube's default place.
type cubeRead struct {
	st  *Step
	prm *Param
	rel string
}

// cubeReads are the inputs steps of cubes read by their defaults at
// workspace paths no step writes (written), and, for those paths and the
// ones inputs: entries name, the cubes whose steps read each.
func cubeReads(p *Pipeline, written []string) ([]cubeRead, map[string]map[string]bool) {
	var reads []cubeRead
	readers := map[string]map[string]bool{}
	for _, st := range p.Steps {
		if st.Cube == nil || st.Task == nil || st.CubeKey == "" {
			continue
		}
		for _, prm := range st.Task.Inputs {
			mapped := st.Inputs[prm.Name]
			if mapped == "" && prm.Claim != "" {
				continue
			}
			raw := prm.Path
			if mapped != "" {
				raw = mapped
			}
			rel, ok := workspacePath(raw)
			if !ok || rel == "" || touchesAny(rel, written) {
				continue
			}
			if mapped == "" {
				reads = append(reads, cubeRead{st, prm, rel})
			}
			if readers[rel] == nil {
				readers[rel] = map[string]bool{}
			}
			readers[rel][st.CubeKey] = true
		}
	}
	return reads, readers
}

// sharedPaths are the paths of readers that cubes share: read by two,
// or one inside another that a different cube reads.
func sharedPaths(readers map[string]map[string]bool) map[string]bool {
	shared := map[string]bool{}
	for rel, cubes := range readers {
		if len(cubes) > 1 {
			shared[rel] = true
		}
		for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
			if outer := readers[dir]; outer != nil && !sameKeys(outer, cubes) {
				shared[rel], shared[dir] = true, true
			}
		}
	}
	return shared
}

// sameKeys says whether a and b are one cube, the same in both.
func sameKeys(a, b map[string]bool) bool {
	if len(a) != 1 || len(b) != 1 {
		return false
	}
	for k := range a {
		return b[k]
	}
	return false
}

// stepWrites are the workspace paths a step writes, cleaned.
func stepWrites(st *Step) []string {
	var out []string
	if st.Dask != nil {
		if rel, ok := workspacePath(st.Dask.Output.Path); ok && st.Dask.Output.Bucket == "" {
			out = append(out, rel)
		}
		return out
	}
	if st.Task == nil {
		return nil
	}
	for _, prm := range st.Task.Outputs {
		raw := prm.Path
		if o := st.Outputs[prm.Name]; o != "" {
			raw = o
		} else if prm.Claim != "" {
			continue
		}
		if rel, ok := workspacePath(raw); ok {
			out = append(out, rel)
		}
	}
	return out
}

// workspacePath is raw cleaned, when it is a place in the workspace: not
// a URL, not absolute, not leaving it; "" is the whole workspace.
func workspacePath(raw string) (string, bool) {
	if raw == "" || strings.Contains(raw, "://") || strings.HasPrefix(raw, "/") {
		return "", false
	}
	rel := path.Clean(raw)
	switch {
	case rel == ".":
		return "", true
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return "", false
	}
	return rel, true
}

// touchesAny says whether rel is one of paths, inside one, or holds one.
func touchesAny(rel string, paths []string) bool { return touchingOne(rel, paths) != "" }

// touchingOne is the first of paths that rel touches, written with a
// trailing /; "" for none.
func touchingOne(rel string, paths []string) string {
	for _, w := range paths {
		if w == "" || rel == w || strings.HasPrefix(rel, w+"/") || strings.HasPrefix(w, rel+"/") {
			return w + "/"
		}
	}
	return ""
}

// keepSlash writes rel as a folder when the parameter is one.
func keepSlash(rel string, prm *Param) string {
	if prm.Dir || strings.HasSuffix(prm.Path, "/") {
		return rel + "/"
	}
	return rel
}
