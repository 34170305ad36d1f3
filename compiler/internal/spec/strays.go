package spec

import (
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// ignoredKey says why a key of an mlcube.yaml that MLCube does not read
// is accepted.
const ignoredKey = "not read: MLCube ignores keys it does not use, and so does mlcube-compile"

// ignoredKeyDetail says how MLCube comes to ignore it.
const ignoredKeyDetail = "MLCube reads the file with OmegaConf and looks up only its own keys."

// dropStrayKeys finds, in an mlcube.yaml, each key that the schema's
// closed struct at its place has no field for, and takes it out of the
// file before the schema sees it. MLCube reads a cube with OmegaConf and
// looks up only the keys it uses, so it ignores the others: metadata such
// as an author's institution, platform.CUDA_version, a task's
// description. Such a key gets a warning. A key within a few letters of
// one that is read there (outpus for outputs) is an error with the key
// it means: MLCube would drop what it holds without a word. Each key is
// judged by itself, so a near miss keeps its "did you mean" whatever
// else the file gets wrong.
func (d *document) dropStrayKeys(sc *schema.Context, f *ast.File) diag.Diagnostics {
	var diags diag.Diagnostics
	f.Decls = d.strays(sc, sc.Def(schema.MLCube), f.Decls, d.top(), &diags)
	return diags
}

// strays reports the stray keys of one struct, whose schema is sv, and
// returns its declarations without them; it walks into every value that
// is kept.
func (d *document) strays(sc *schema.Context, sv cue.Value, decls []ast.Decl, at diag.Loc,
	diags *diag.Diagnostics) []ast.Decl {
	closed := closedStruct(sv)
	names := structFields(sv)
	return source.KeepFields(decls, func(name string, field *ast.Field) bool {
		child := schemaChild(sv, cue.Str(name))
		if closed && !child.Exists() {
			if runner, ok := runnerSections[at.Path()]; ok {
				*diags = append(*diags, runnerKeyUnknown(runner, name, names, at.Field(name)))
				return false
			}
			if near := diag.Nearest(name, names); near != "" {
				*diags = append(*diags, diag.Errorf(diag.UnknownField, at.Field(name), "unknown field").WithSuggestion(name, names))
				d.meant = append(d.meant, at.Field(near).Path())
			} else {
				*diags = append(*diags, diag.Warnf(diag.KeyIgnored, at.Field(name), "%s", ignoredKey).
					WithDetail(ignoredKeyDetail))
			}
			return false
		}
		d.straysIn(sc, child, field.Value, at.Field(name), diags)
		return true
	})
}

// straysIn walks into a value: the fields of a mapping, the items of a
// list, each against its schema.
func (d *document) straysIn(sc *schema.Context, sv cue.Value, x ast.Expr, at diag.Loc, diags *diag.Diagnostics) {
	if !sv.Exists() {
		return
	}
	switch x := x.(type) {
	case *ast.StructLit:
		x.Elts = d.strays(sc, sv.Unify(sc.CUE().CompileString("{}")), x.Elts, at, diags)
	case *ast.ListLit:
		item := sv.LookupPath(cue.MakePath(cue.AnyIndex))
		for i, e := range x.Elts {
			d.straysIn(sc, item, e, at.Index(i), diags)
		}
	}
}

// closedStruct reports whether sv is a mapping with fixed fields: not any
// value (_), and no pattern that takes every key.
func closedStruct(sv cue.Value) bool {
	if !sv.Exists() || sv.IncompleteKind() != cue.StructKind {
		return false
	}
	return !sv.LookupPath(cue.MakePath(cue.AnyString)).Exists()
}

// runnerSections are the sections of an mlcube.yaml that an MLCube
// runner checks key by key before it starts a container, by the runner's
// source: the runner merges the section into its settings and refuses a
// key its defaults do not have, with "Unknown keys" (Validate's
// check_unknown_keys, mlcube/validate.py, called by Config.validate in
// runners/mlcube_docker/mlcube_docker/docker_run.py and
// runners/mlcube_singularity/mlcube_singularity/singularity_run.py). The
// schema's #Docker and #Singularity have exactly those keys.
var runnerSections = map[string]string{
	"docker":      "MLCube's docker runner (docker_run.py) refuses a key it does not know.",
	"singularity": "MLCube's singularity runner (singularity_run.py) refuses a key it does not know.",
}

// runnerKeyUnknown refuses a key of a runner section, as the runner does.
func runnerKeyUnknown(runner, name string, names []string, at diag.Loc) diag.Diagnostic {
	d := diag.Errorf(diag.RunnerKeyUnknown, at,
		"unknown key: mlcube run stops before the container starts (\"Unknown keys: ['%s']\")", name).WithDetail("%s", runner)
	if diag.Nearest(name, names) != "" {
		return d.WithSuggestion(name, names)
	}
	return d.WithFix("its keys: " + strings.Join(names, ", "))
}
