package lint

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// globs are lint's --platform, --task and --exclude globs, matched as
// .gitignore matches its patterns, relative to each path lint was given
// (a root): a glob with a / in it against the file's path from the root
// (clusters/*.yaml is root/clusters/*.yaml; ** stands for any number of
// folders), one without against the file's or folder's name, at any
// depth. A glob also matches the path as typed (root/clusters/*.yaml).
// Each remembers whether it matched, so that lint can say which matched
// nothing.
type globs struct {
	matched map[string]bool
}

func newGlobs() *globs { return &globs{matched: map[string]bool{}} }

// match reports whether glob matches file, found under root, and keeps
// that it did.
func (g *globs) match(glob, root, file string) bool {
	if glob == "" || !globMatch(glob, root, file) {
		return false
	}
	g.matched[glob] = true
	return true
}

// globMatch is match without the record.
func globMatch(glob, root, file string) bool {
	if ok, _ := filepath.Match(glob, file); ok {
		return true
	}
	pattern := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(glob, "./"), "/"))
	if !strings.Contains(strings.TrimSuffix(pattern, "/"), "/") {
		ok, _ := filepath.Match(glob, filepath.Base(file))
		return ok
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	return segmentsMatch(strings.Split(pattern, "/"), strings.Split(filepath.ToSlash(rel), "/"))
}

// segmentsMatch matches a glob's segments against a path's, one for one,
// where a ** segment stands for any number of them, none included.
func segmentsMatch(glob, parts []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(parts); i++ {
				if segmentsMatch(glob[1:], parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], parts[0]); !ok {
			return false
		}
		glob, parts = glob[1:], parts[1:]
	}
	return len(parts) == 0
}

// unmatched warns of each glob of opts that matched no file or folder
// under paths, at the flag that gave it: a glob written for the path
// from somewhere else, or mistyped, would otherwise change nothing
// without a word.
func (g *globs) unmatched(opts Options, paths []string) diag.Diagnostics {
	flags := []struct {
		flag  string
		globs []string
	}{{"--platform", []string{opts.PlatformGlob}}, {"--task", []string{opts.TaskGlob}}, {"--exclude", opts.Exclude}}
	var out diag.Diagnostics
	for _, f := range flags {
		for _, glob := range f.globs {
			if glob != "" && !g.matched[glob] {
				out = append(out, diag.Diagnostic{Pos: diag.Pos{File: f.flag}, Severity: diag.Warning, Code: diag.GlobUnmatched,
					Message: fmt.Sprintf("%q matched no file under %s; a glob with a / is matched from each path linted, as "+
						".gitignore matches (clusters/*.yaml, **/platform-*.yaml), one without against names", glob,
						strings.Join(paths, ", "))})
			}
		}
	}
	return out
}
