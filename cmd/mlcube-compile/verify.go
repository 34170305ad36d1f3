package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// The statement verify reads: an in-toto v1 Statement of SLSA v1
// provenance, as a run's provenance task writes it.
const (
	inTotoStatement = "https://in-toto.io/Statement/v1"
	slsaProvenance  = "https://slsa.dev/provenance/v1"
	// folderDigestKey names a folder's digest in a subject, which the
	// compiler's ir.FolderDigestKey writes.
	folderDigestKey = "mlcube-folder-sha256"
)

// verifyCommand checks a result against the provenance statement its run
// wrote: its sha256, a file's or a folder's (ir.FolderDigest), must be a
// subject's.
func verifyCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check a run's result against the provenance statement the run wrote beside it",
		UsageText: "mlcube-compile verify RESULT STATEMENT",
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usageError{fmt.Errorf("verify takes a result (a file or folder) and a statement, got %d arguments",
					c.NArg())}
			}
			result, file := c.Args().Get(0), c.Args().Get(1)
			subjects, err := readStatement(file)
			if err != nil {
				return err
			}
			digest, folder, err := resultDigest(result)
			if err != nil {
				return diag.Diagnostics{diag.Errorf(diag.CommandFailed, diag.At(diag.Pos{File: result}),
					"cannot read the result: %v", err)}
			}
			key := "sha256"
			if folder {
				key = folderDigestKey
			}
			var names []string
			for _, s := range subjects {
				if s.Digest[key] == digest {
					fmt.Fprintf(stdout, "%s: %s %s is subject %s of %s\n", result, key, digest, s.Name, file)
					return nil
				}
				names = append(names, s.Name)
			}
			return diag.Diagnostics{diag.Errorf(diag.ResultUnproven, diag.At(diag.Pos{File: result}),
				"%s %s is no subject's of %s (%s)", key, digest, file, strings.Join(names, ", "))}
		},
	}
}

// subject is a statement's subject: a result and its digests.
type subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// readStatement reads the subjects of the statement in file, refusing
// what is no in-toto v1 Statement of SLSA v1 provenance, at its line.
func readStatement(file string) ([]subject, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, diag.Diagnostics{diag.Errorf(diag.CommandFailed, diag.At(diag.Pos{File: file}),
			"cannot read the statement: %v", bareError(err))}
	}
	var st struct {
		Type          string    `json:"_type"`
		Subject       []subject `json:"subject"`
		PredicateType string    `json:"predicateType"`
	}
	bad := func(offset int64, field, format string, args ...any) error {
		at := diag.At(offsetPos(file, data, offset))
		if field != "" {
			at = at.Field(field)
		}
		return diag.Diagnostics{diag.Errorf(diag.BadStatement, at, format, args...)}
	}
	if err := json.Unmarshal(data, &st); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			return nil, bad(syntax.Offset-1, "", "not JSON: %v", syntax)
		case errors.As(err, &typ):
			return nil, bad(typ.Offset, typ.Field, "is a %s, where an in-toto v1 Statement holds another kind", typ.Value)
		}
		return nil, bad(0, "", "not a statement: %v", err)
	}
	switch {
	case st.Type != inTotoStatement:
		return nil, bad(fieldOffset(data, "_type"), "_type", "is %q, want %q (an in-toto v1 Statement)", st.Type,
			inTotoStatement)
	case st.PredicateType != slsaProvenance:
		return nil, bad(fieldOffset(data, "predicateType"), "predicateType", "is %q, want %q", st.PredicateType,
			slsaProvenance)
	case len(st.Subject) == 0:
		return nil, bad(fieldOffset(data, "subject"), "subject", "names no result")
	}
	return st.Subject, nil
}

// fieldOffset is where the first key name is written in data; 0 when it
// is not.
func fieldOffset(data []byte, name string) int64 {
	return int64(max(bytes.Index(data, []byte(`"`+name+`"`)), 0))
}

// offsetPos is the line and column of byte offset in data, of file.
func offsetPos(file string, data []byte, offset int64) diag.Pos {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	return diag.Pos{File: file, Line: line, Col: len(before) - bytes.LastIndexByte(before, '\n')}
}

// resultDigest is the sha256 of a file's bytes, or of a folder as the
// compiler's ir.FolderDigest says: of the sha256sum line of each file below it, as
// ./path, by path in byte order.
func resultDigest(path string) (string, bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", false, bareError(err)
	}
	if !info.IsDir() {
		sum, err := fileDigest(path)
		return sum, false, err
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(path, p)
			files = append(files, "./"+filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return "", true, bareError(err)
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		sum, err := fileDigest(filepath.Join(path, filepath.FromSlash(f)))
		if err != nil {
			return "", true, err
		}
		fmt.Fprintf(h, "%s  %s\n", sum, f)
	}
	return hex.EncodeToString(h.Sum(nil)), true, nil
}

// fileDigest is the hex sha256 of a file's bytes.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", bareError(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// bareError is err without the path a *fs.PathError repeats: the
// message names the file already.
func bareError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
