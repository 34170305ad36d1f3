package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Output never lands on an input: -o naming a file the compile reads
// would replace the spec with what was compiled from it. Files are
// compared as the system knows them (os.SameFile), so that ./x, x, a
// symbolic link and a hard link to it are one file.

// input is a file a compile reads, and what it is to the compile.
type input struct {
	path string
	// role is what the file is, "the pipeline file"; for one the
	// compile opened that no flag names, what it is by its kind (a
	// pipeline's cubes), else "a file" (an env file, a legacy cube's
	// task files).
	role string
}

// namedInputs are the files opts names: the cube (a folder's cube
// file, whichever of its names it has), the platform, the pipeline and
// the values files.
func namedInputs(opts compiler.Options) []input {
	var out []input
	cube := cmp.Or(opts.MLCube, ".")
	if info, err := os.Stat(cube); err == nil && info.IsDir() {
		for _, name := range []string{"mlcube.yaml", compiler.CompactCubeFile, "container_config.yaml"} {
			out = append(out, input{filepath.Join(cube, name), "the cube"})
		}
	} else {
		out = append(out, input{cube, "the cube"})
	}
	if opts.Platform != "" {
		out = append(out, input{opts.Platform, "the platform file"})
	}
	if opts.Task != "" {
		role := "the pipeline file"
		if compiler.SchemaType(opts.Task) == "mlcube_invoke" {
			role = "the run file of the 1.0 layout"
		}
		out = append(out, input{opts.Task, role})
	}
	for _, v := range opts.Values {
		out = append(out, input{v, "the values file"})
	}
	return out
}

// inputs are the files the workspace read, each with its role.
func inputs(w *compiler.Workspace) []input {
	var out []input
	for _, name := range w.Files() {
		out = append(out, input{name, readRole(w, name)})
	}
	return out
}

// readRoles10 are the files of MLCube's 1.0 layout, by schema_type:
// a run file (run/*.yaml) is no pipeline file, a task file
// (tasks/*.yaml) no mere file.
var readRoles10 = map[string]string{
	"mlcube_invoke":          "a run file of the 1.0 layout",
	"mlcube_task":            "a task file of the 1.0 layout",
	"mlcube_platform":        "a platform file of the 1.0 layout",
	"mlcommons_box_platform": "a platform file of the 1.0 layout",
}

// readRole is what a file the compile read is: a 1.0 layout's file by
// its schema_type, else by its kind (compiler.Classify), each read from
// the workspace w.
func readRole(w *compiler.Workspace, path string) string {
	if role, ok := readRoles10[w.SchemaType(path)]; ok {
		return role
	}
	switch w.Classify(path) {
	case compiler.CubeFile:
		return "a cube"
	case compiler.TaskFile:
		return "a pipeline file"
	case compiler.PlatformFile:
		return "a platform file"
	}
	return "a file"
}

// outputOnInput refuses, as a usage error, writing path (what -o
// output writes) when it is one of inputs: suggest is the file name to
// write instead, as a folder's output is named. A path that is not there
// is no input.
func outputOnInput(output, path string, inputs []input, suggest string) error {
	in, ok := inputAt(path, inputs)
	if !ok {
		return nil
	}
	what := in.role
	if filepath.Clean(path) != filepath.Clean(in.path) {
		what = in.path + ", " + in.role
	}
	written := output
	if path != output {
		written = path
	}
	return usageError{fmt.Errorf("-o %s is %s this compile reads: writing there would replace it; %s", written, what,
		elsewhere(output, path, inputs, suggest))}
}

// inputAt is the input that path is, by os.SameFile; none when path is
// not there.
func inputAt(path string, inputs []input) (input, bool) {
	if path == "" {
		return input{}, false
	}
	out, err := os.Stat(path)
	if err != nil {
		return input{}, false
	}
	for _, in := range inputs {
		info, err := os.Stat(in.path)
		if err == nil && info.Mode().IsRegular() && os.SameFile(out, info) {
			return in, true
		}
	}
	return input{}, false
}

// elsewhere says where to write in place of path, which -o output
// names and is an input: with -o DIR/ (path is in the folder), another
// folder; else the file suggest, or, when that is the refused file or
// another input, suggest with -compiled before its extension. Never the
// refused file.
func elsewhere(output, path string, inputs []input, suggest string) string {
	if filepath.Clean(path) != filepath.Clean(output) {
		name := filepath.Base(path)
		for _, dir := range []string{"out", "compiled", "manifests"} {
			if info, err := os.Stat(dir); filepath.Clean(dir) == filepath.Clean(output) || err == nil && !info.IsDir() {
				continue
			}
			if _, ok := inputAt(filepath.Join(dir, name), inputs); !ok {
				return "name another folder, such as -o " + dir + "/"
			}
		}
	}
	ext := filepath.Ext(suggest)
	for _, file := range []string{suggest, strings.TrimSuffix(suggest, ext) + "-compiled" + ext} {
		if _, ok := inputAt(file, inputs); !ok && filepath.Clean(file) != filepath.Clean(path) {
			return "name another file, such as -o " + file
		}
	}
	return "name another file"
}

// candidateOutput is the file -o output names for one output called
// name, as outputFile decides it, without creating a folder.
func candidateOutput(output, name string) string {
	if output == "" {
		return ""
	}
	if info, err := os.Stat(output); err == nil && info.IsDir() || strings.HasSuffix(output, "/") {
		return filepath.Join(output, name)
	}
	return output
}

// emptiedWithin is how recent an empty spec's last change is for the
// error to say that something written onto it may have emptied it.
const emptiedWithin = 5 * time.Second

// explainEmptied adds to err's "file is empty" errors why the file may
// be empty: the shell empties a spec the output is redirected onto
// (> pipeline.yaml) before the compile reads it. stdout is the command's
// standard output; suggest a file name to write instead.
func explainEmptied(err error, stdout io.Writer, suggest string) {
	var diags diag.Diagnostics
	if !errors.As(err, &diags) {
		return
	}
	var out fs.FileInfo
	if f, ok := stdout.(*os.File); ok {
		out, _ = f.Stat()
	}
	for i, d := range diags {
		if d.Severity != diag.Error || d.Code != diag.FileUnreadable || d.Pos.Line != 0 || d.Pos.File == "" ||
			d.Pos.File == compiler.StdinName {
			continue
		}
		info, err := os.Stat(d.Pos.File)
		if err != nil || !info.Mode().IsRegular() || info.Size() != 0 {
			continue
		}
		name, suggest := d.Pos.File, suggest
		if _, same := inputAt(suggest, []input{{path: name}}); same {
			suggest = strings.TrimSuffix(suggest, filepath.Ext(suggest)) + "-compiled" + filepath.Ext(suggest)
		}
		switch {
		case out != nil && os.SameFile(out, info):
			diags[i].Message += fmt.Sprintf(": the output was redirected onto it (> %s), and the shell emptied it before the "+
				"compile could read it; restore it (git checkout -- %s) and write the output to another file, such "+
				"as > %s or -o %s", name, name, suggest, suggest)
		case time.Since(info.ModTime()) < emptiedWithin:
			diags[i].Message += fmt.Sprintf(", and was emptied moments ago: if the output was sent to it (> %s, tee %s), the "+
				"shell emptied it before the compile could read it; restore it (git checkout -- %s) and write the output to "+
				"another file, such as > %s or -o %s", name, name, name, suggest, suggest)
		}
	}
}
