package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// stepFlag is --step: only these steps of the pipeline file compile.
func stepFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "step",
		Usage: "compile only step `NAME` of the pipeline file, as it writes it (repeatable or comma-separated), in the " +
			"pipeline's order, without the edges to the steps left out: a Job of one step of a pipeline whose other steps " +
			"a Job cannot run"}
}

// pickedSteps reads --step: names, split at commas, each a step of the
// pipeline file the workspace w names (paired). A name that is no step,
// and --step with no pipeline file, are usage errors.
func pickedSteps(c *cli.Context, w *compiler.Workspace) ([]string, error) {
	var names []string
	for _, arg := range c.StringSlice("step") {
		for _, n := range strings.Split(arg, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	steps, file := w.Steps()
	switch {
	case !file:
		return nil, usageError{errors.New("--step picks steps of a pipeline file, and none is given: a cube's tasks are " +
			"named with --task a,b")}
	case steps == nil:
		// The file cannot be read: the compile says why.
		return names, nil
	}
	for _, n := range names {
		if !slices.Contains(steps, n) {
			return nil, usageError{fmt.Errorf("--step %q: %s has no step of that name (steps: %s)%s", n, w.Options().Task,
				strings.Join(steps, ", "), diag.Suggest(n, steps))}
		}
	}
	return names, nil
}

// stepWords are what --step may take for the pipeline file the line so
// far names (by --task or as an argument): its steps, each after the
// list typed so far in cur, but those listed; nothing when there is no
// pipeline file to read.
func stepWords(line typedLine, cur string) []string {
	steps, _ := line.workspace().Steps()
	return listWords(steps, cur)
}

// paramWords are what --set may take for the pipeline file the line so
// far names: NAME= for each of its params; nothing when there is no
// pipeline file to read.
func paramWords(line typedLine) []string {
	var out []string
	for _, name := range line.workspace().Params() {
		out = append(out, name+"=")
	}
	return out
}

// workspace is of the files the line so far names (by --mlcube, --task
// or as arguments), paired as a compilation pairs them.
func (line typedLine) workspace() *compiler.Workspace {
	opts := compiler.Options{MLCube: line.seen["mlcube"], Task: line.seen["task"]}
	for _, a := range line.args {
		if kind, path := compiler.PathAlone(a); kind == compiler.TaskFile && opts.Task == "" {
			opts.Task = path
		}
	}
	w := compiler.Load(opts)
	w.Pair()
	return w
}
