package lint

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A cube in a folder with a pipeline file is compiled twice by lint: as
// the pipeline compiles it, and alone, every task of it in the file's
// order, as mlcube-compile -m DIR would. The folder is what the pipeline
// runs, so an error that only the compile of the cube alone finds (an
// input the pipeline gives as a URL, which alone nothing gives) is not
// the folder's: it is a note that says so (diag.CompiledAlone). An error
// a pipeline that reads the cube reports too stays an error, once.

// absPath is path made absolute and clean, so that two compilations
// name one file alike whatever path reached it; path itself when it
// cannot be made absolute.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// sameDiag is what makes two compilations' diagnostics one.
type sameDiag struct {
	pos            diag.Pos
	field, message string
	code           diag.Code
	severity       diag.Severity
}

func keyOf(d diag.Diagnostic) sameDiag {
	return sameDiag{d.Pos, d.Field, d.Message, d.Code, d.Severity}
}

// aloneNotes turns each error of a cube compiled alone (unit.alone) that
// no unit compiling a pipeline that read the cube's file reported into a
// note (diag.CompiledAlone), unless disabled holds its code (then it is
// dropped). A cube no pipeline read keeps its errors: alone is how it is
// compiled.
func aloneNotes(units []unit, results []result, disabled []diag.Code) {
	for i, u := range units {
		if !u.alone || !results[i].Diagnostics.HasErrors() {
			continue
		}
		cube := cubeFileRead(u, results[i].Silenced.Files)
		var readers []string
		found := map[sameDiag]bool{}
		for j, v := range units {
			if v.alone || v.platformOnly != "" || v.opts.Task == "" ||
				!slices.ContainsFunc(results[j].Silenced.Files, func(f string) bool { return absPath(f) == cube }) {
				continue
			}
			if !slices.Contains(readers, v.opts.Task) {
				readers = append(readers, v.opts.Task)
			}
			for _, d := range results[j].Diagnostics {
				found[keyOf(d)] = true
			}
		}
		if len(readers) > 0 {
			results[i].Diagnostics = noteAlone(results[i].Diagnostics, found, readers, disabled)
		}
	}
}

// cubeFileRead is the cube file a unit of a cube alone read, absolute:
// the one its --mlcube names, or, for a folder, the file of it that was
// read.
func cubeFileRead(u unit, files []string) string {
	folder := absPath(u.opts.MLCube)
	for _, f := range files {
		if r := absPath(f); r == folder || filepath.Dir(r) == folder {
			return r
		}
	}
	return folder
}

// noteAlone is ds with each error that found does not hold as a note
// that says it is the cube's compiled alone, and how readers compile it.
func noteAlone(ds diag.Diagnostics, found map[sameDiag]bool, readers []string, disabled []diag.Code) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range ds {
		if d.Severity != diag.Error || found[keyOf(d)] {
			out = append(out, d)
			continue
		}
		if slices.Contains(disabled, diag.CompiledAlone) {
			continue
		}
		d.Message = fmt.Sprintf("compiled alone (every task, as mlcube-compile -m %s compiles it), not as %s "+
			"compiles it: %s (%s)", filepath.Dir(d.Pos.File), readers[0], d.Message, d.Code)
		d.Code, d.Severity = diag.CompiledAlone, diag.Note
		out = append(out, d)
	}
	return out
}

// unusedComments warns (compiler.UnusedComments) of each disable comment
// that silenced nothing in any unit: judged on everything lint reported
// for its file, every engine's and every platform's beside. A file read
// by a unit with errors is not judged, as its warnings are not all known
// (a cube's errors compiled alone, now notes, leave it unjudged by that
// unit only); the command's codes are never judged, nor an engine's when
// --backend leaves engines out.
func unusedComments(results []result, hadErrors []bool, opts Options) diag.Diagnostics {
	var all compiler.Silenced
	broken := map[string]bool{}
	for i, r := range results {
		all.Used = append(all.Used, r.Silenced.Used...)
		switch {
		case r.Diagnostics.HasErrors():
			for _, f := range r.Silenced.Files {
				broken[f] = true
			}
		case !hadErrors[i]:
			all.Files = append(all.Files, r.Silenced.Files...)
		}
	}
	all.Files = slices.DeleteFunc(all.Files, func(f string) bool { return broken[f] })
	skip := func(c diag.Code) bool {
		return compiler.CommandCode(c) || len(opts.Backends) > 0 && compiler.EngineCode(c)
	}
	return compiler.UnusedComments(nil, []compiler.Silenced{all}, opts.Disable, skip)
}
