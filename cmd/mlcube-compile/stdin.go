package main

import (
	"fmt"
	"io"

	"github.com/mlcube-compile/mlcube-compile/compiler"
)

// maxStdinBytes bounds a spec read from standard input, as the compiler
// bounds a spec file.
const maxStdinBytes = 4 << 20

// readStdin gives --task - or --platform - the spec on standard input,
// named compiler.StdinName; one of them at most, since standard input is
// read once.
func readStdin(opts *compiler.Options, stdin io.Reader) error {
	task, platform := opts.Task == "-", opts.Platform == "-"
	switch {
	case !task && !platform:
		return nil
	case task && platform:
		return usageError{fmt.Errorf("--task - and --platform - both read standard input; give one of them a file")}
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxStdinBytes+1))
	if err != nil {
		return fmt.Errorf("reading standard input: %w", err)
	}
	if len(data) > maxStdinBytes {
		return usageError{fmt.Errorf("standard input is larger than the %d-byte limit for a spec", maxStdinBytes)}
	}
	opts.FS = compiler.WithStdin(opts.FS, data)
	if task {
		opts.Task = compiler.StdinName
	} else {
		opts.Platform = compiler.StdinName
	}
	return nil
}
