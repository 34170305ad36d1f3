package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// outputName is the file a backend's output is written to in a folder:
// BACKEND.yaml, or BACKEND.json for --format json.
func outputName(backend, format string) string {
	return backend + "." + cmp.Or(format, driver.OutputFormats[0])
}

// outputFile is where -o puts one backend's output: the file it names,
// or name (outputName) in a folder, one that is there or one ending in /
// that it creates, as --backend all writes each backend's.
func outputFile(output, name string) (string, error) {
	info, err := os.Stat(output)
	isDir := err == nil && info.IsDir()
	if output == "" || !isDir && !strings.HasSuffix(output, "/") {
		return output, nil
	}
	if err := os.MkdirAll(output, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", output, err)
	}
	return filepath.Join(output, name), nil
}

// compileEach is --backend all: one file per backend (outputName), in the
// folder dir, which -o names.
func compileEach(s *session, req driver.Request, dir string) error {
	if dir == "" {
		return usageError{fmt.Errorf("--backend %s writes one file per backend: name their folder with -o DIR/",
			driver.AllBackends)}
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return usageError{fmt.Errorf("--backend %s writes one file per backend into a folder, and -o %s is a file",
			driver.AllBackends, dir)}
	} else if err != nil && !strings.HasSuffix(dir, "/") {
		return usageError{fmt.Errorf("--backend %s writes one file per backend: -o %s does not exist; end it with / to "+
			"create the folder", driver.AllBackends, dir)}
	}
	for _, backend := range driver.Backends() {
		name := outputName(backend, req.Format)
		if err := outputOnInput(dir, filepath.Join(dir, name), namedInputs(req.Compiler), name); err != nil {
			return err
		}
	}
	outs, warnings, err := driver.Each(req)
	s.warnings = append(s.warnings, warnings...)
	if err != nil {
		explainEmptied(err, s.stdout, outputName(driver.Backends()[0], req.Format))
		return err
	}
	for _, o := range outs {
		name := outputName(o.Backend, req.Format)
		if err := outputOnInput(dir, filepath.Join(dir, name), inputs(req.Workspace), name); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	written := map[string]bool{}
	for _, o := range outs {
		if err := writeOutput(filepath.Join(dir, outputName(o.Backend, req.Format)), o.Bytes, s.stdout); err != nil {
			return err
		}
		written[o.Backend] = true
	}
	s.warnings = append(s.warnings, compiler.Silence(nil, staleOutputs(dir, req.Format, written), req.Compiler.Disable)...)
	return nil
}

// staleOutputs warns of each backend's file in dir (outputName, in either
// format) that this compile did not write, a backend's output from an
// earlier one: kubectl create -f DIR/ would apply it with the new ones.
func staleOutputs(dir, format string, written map[string]bool) diag.Diagnostics {
	var out diag.Diagnostics
	for _, backend := range driver.Backends() {
		for _, f := range driver.OutputFormats {
			path := filepath.Join(dir, outputName(backend, f))
			why := "which emits nothing for " + backend
			if written[backend] {
				why = "which writes " + outputName(backend, format)
			}
			current := written[backend] && f == cmp.Or(format, driver.OutputFormats[0])
			if _, err := os.Stat(path); err == nil && !current {
				out = append(out, diag.Warnf(diag.OutputStale, diag.Flag("--output").At(diag.Pos{File: path}),
					"not written by this compile, %s: it is an earlier compile's; remove it before applying the folder", why))
			}
		}
	}
	return out
}
