package lint

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A cube in a folder with a pipeline file is compiled twice by lint: as
// the pipeline compiles it, and alone, every task of it in the file's
// order, as mlcube-compile -m DIR would. The folder is what the pipeline
// runs, so an error that only the compile of the cube alone finds (an
// input the pipeline gives as a URL, which alone nothing gives) is not
// the folder's: it is a note that says so (diag.CompiledAlone). An error
// a pipeline that reads the cube reports too stays an error, once.

// readWhole are the paths of the files in inputs that were read to their
// end, each cleaned, for aloneNotes to compare.
func readWhole(inputs []input) []string {
	var out []string
	for _, in := range inputs {
		if in.Sum != "" {
			out = append(out, absPath(in.Path))
		}
	}
	return out
}

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
func aloneNotes(units []unit, results []diag.Diagnostics, reads [][]string, disabled []diag.Code) []diag.Diagnostics {
	for i, u := range units {
		if !u.alone || !results[i].HasErrors() {
			continue
		}
		cube := absPath(cubeFileRead(u, reads[i]))
		var readers []string
		found := map[sameDiag]bool{}
		for j, v := range units {
			if v.alone || v.platformOnly != "" || v.opts.Task == "" || !slices.Contains(reads[j], cube) {
				continue
			}
			if !slices.Contains(readers, v.opts.Task) {
				readers = append(readers, v.opts.Task)
			}
			for _, d := range results[j] {
				found[keyOf(d)] = true
			}
		}
		if len(readers) > 0 {
			results[i] = noteAlone(results[i], found, readers, disabled)
		}
	}
	return results
}

// cubeFileRead is the cube file a unit of a cube alone read: the one its
// --mlcube names, or, for a folder, the file of it that was read.
func cubeFileRead(u unit, reads []string) string {
	folder := absPath(u.opts.MLCube)
	for _, r := range reads {
		if r == folder || filepath.Dir(r) == folder {
			return r
		}
	}
	return u.opts.MLCube
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
		d.Message = fmt.Sprintf("compiled alone (every task, as mlcube-compile -m %s compiles it), not as %s compiles it: %s (%s)", filepath.Dir(d.Pos.File), readers[0], d.Message, d.Code)
		d.Code, d.Severity = diag.CompiledAlone, diag.Note
		out = append(out, d)
	}
	return out
}
