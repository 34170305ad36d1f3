package source

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Disabled is what a spec file's disable comments silence: warnings by
// code in the whole file, or at one line.
type Disabled struct {
	File  map[diag.Code]bool
	Lines map[int]map[diag.Code]bool
	// Unknown are the comments' words that are no code, for a warning.
	Unknown diag.Diagnostics
}

// disableComment is "# mlcube-compile: disable CODE[,CODE...]" (the
// warnings at its line, or, alone on its line, at the next one) or
// "# mlcube-compile: disable-file CODE[,...]" (the whole file).
var disableComment = regexp.MustCompile(`(^|\s)#\s*mlcube-compile:\s*(disable|disable-file)\s+([^#]+)`)

// codeWord is one word of a disable comment's list of codes.
var codeWord = regexp.MustCompile(`[^,\s]+`)

// ReadDisabled reads the disable comments of the spec file path; a file
// that cannot be read has none (its reading reported why).
func (fl *Files) ReadDisabled(path string) Disabled {
	out := Disabled{File: map[diag.Code]bool{}, Lines: map[int]map[diag.Code]bool{}}
	src, diags := fl.readSpecFile(path, diag.At(diag.Pos{File: path}), "a spec file")
	if diags != nil {
		return out
	}
	for i, line := range strings.Split(string(src), "\n") {
		m := disableComment.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		n := i + 1
		if strings.TrimSpace(line[:m[3]]) == "" {
			n++ // a comment alone on its line is about the next one
		}
		for _, wm := range codeWord.FindAllStringIndex(line[m[6]:m[7]], -1) {
			w := line[m[6]+wm[0] : m[6]+wm[1]]
			code := diag.Code(w)
			if !diag.Known(code) {
				at := diag.At(diag.Pos{File: path, Line: i + 1, Col: m[6] + wm[0] + 1}).Field("mlcube-compile")
				msg := fmt.Sprintf("%q is no warning's code", w)
				if diag.IsError(code) {
					msg = fmt.Sprintf("%q is an error's code, and errors cannot be silenced", w)
				}
				out.Unknown = append(out.Unknown, diag.Warnf(diag.UnknownCode, at, "%s", msg).WithHint(diag.DidYouMean(w, diag.CodeNames())))
				continue
			}
			if line[m[4]:m[5]] == "disable-file" {
				out.File[code] = true
				continue
			}
			if out.Lines[n] == nil {
				out.Lines[n] = map[diag.Code]bool{}
			}
			out.Lines[n][code] = true
		}
	}
	return out
}
