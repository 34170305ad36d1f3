package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// outputFile is where -o puts one backend's output: the file it names,
// or BACKEND.yaml in a folder, one that is there or one ending in / that
// it creates, as --backend all writes each backend's.
func outputFile(output, backend string) (string, error) {
	info, err := os.Stat(output)
	isDir := err == nil && info.IsDir()
	if output == "" || !isDir && !strings.HasSuffix(output, "/") {
		return output, nil
	}
	if err := os.MkdirAll(output, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", output, err)
	}
	return filepath.Join(output, backend+".yaml"), nil
}

// compileEach is --backend all: one file per backend, BACKEND.yaml, in the
// folder -o names.
func compileEach(c *cli.Context, s *session, req driver.Request) error {
	dir := c.String("output")
	if dir == "" {
		return usageError{fmt.Errorf("--backend %s writes one file per backend: name their folder with -o DIR/", driver.AllBackends)}
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return usageError{fmt.Errorf("--backend %s writes one file per backend into a folder, and -o %s is a file", driver.AllBackends, dir)}
	} else if err != nil && !strings.HasSuffix(dir, "/") {
		return usageError{fmt.Errorf("--backend %s writes one file per backend: -o %s does not exist; end it with / to create the folder", driver.AllBackends, dir)}
	}
	outs, warnings, err := driver.Each(req)
	s.warnings = append(s.warnings, warnings...)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	written := map[string]bool{}
	for _, o := range outs {
		if err := writeOutput(filepath.Join(dir, o.Backend+".yaml"), o.Bytes, s.stdout); err != nil {
			return err
		}
		written[o.Backend] = true
	}
	s.warnings = append(s.warnings, compiler.Silence(nil, staleOutputs(dir, written), req.Compiler.Disable)...)
	return nil
}

// staleOutputs warns of each BACKEND.yaml in dir that this compile did
// not write, a backend's output from an earlier one: kubectl create -f
// DIR/ would apply it with the new ones.
func staleOutputs(dir string, written map[string]bool) diag.Diagnostics {
	var out diag.Diagnostics
	for _, backend := range driver.Backends() {
		path := filepath.Join(dir, backend+".yaml")
		if _, err := os.Stat(path); err == nil && !written[backend] {
			out = append(out, diag.Warnf(diag.OutputStale, diag.At(diag.Pos{File: path}).Field("--output"), "not written by this compile, which emits nothing for %s: it is an earlier compile's; remove it before applying the folder", backend))
		}
	}
	return out
}
