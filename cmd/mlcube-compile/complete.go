package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/backends/render"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// completeCommand is the hidden first argument the completion scripts
// call the binary with: mlcube-compile __complete WORD... CURRENT.
const completeCommand = "__complete"

// complete is what may stand in place of the last of words (the word
// under the cursor, "" when it is empty), the words before it being the
// command line so far: the values of the flag before it (nothing, for
// file names, where a flag takes a path), flag names when it starts with
// -, commands before any command, completion's shells, the cube's task
// names after --task, the pipeline's steps after --step, NAME= for its
// params after --set; nothing else, so that the shell completes file
// names.
func complete(app *cli.App, words []string) []string {
	cur, before := words[len(words)-1], words[:len(words)-1]
	line := readLine(app, before)
	switch {
	case line.pending == "task" && line.command != "lint":
		return taskWords(line.seen["mlcube"], cur)
	case line.pending == "step" && line.command == "":
		return stepWords(line, cur)
	case line.pending == "set" && (line.command == "" || line.command == "graph"):
		return paramWords(line)
	case line.pending != "":
		return flagValues(line.command, line.seen["backend"])[line.pending]
	case strings.HasPrefix(cur, "-"):
		return flagNames(app, line.command)
	case line.command == "" && len(line.args) == 0:
		return append([]string{"help", "version"}, commandNames(app)...)
	case line.command == "completion":
		return shells
	}
	return nil
}

// taskWords are what --task may take for the cube mlcube names (the
// current folder's when ""): its task names, each after the list typed
// so far in cur (train,<TAB> offers train,evaluate), but those listed;
// nothing when there is no cube to read, so that file names complete.
func taskWords(mlcube, cur string) []string {
	return listWords(compiler.Load(compiler.Options{MLCube: mlcube}).Tasks(), cur)
}

// listWords are names, each after the comma-separated list typed so far
// in cur, but those listed.
func listWords(names []string, cur string) []string {
	cut := strings.LastIndex(cur, ",") + 1
	listed := strings.Split(cur[:cut], ",")
	var out []string
	for _, n := range names {
		if !slices.Contains(listed, n) {
			out = append(out, cur[:cut]+n)
		}
	}
	return out
}

// typedLine is a command line as far as it is typed: its command, the
// flag values given, its arguments, and the flag whose value comes next.
type typedLine struct {
	command string
	seen    map[string]string
	args    []string
	pending string
}

// readLine reads words as normalizeArgs would, by the flags of the
// command they reach.
func readLine(app *cli.App, words []string) typedLine {
	line := typedLine{seen: map[string]string{}}
	specs := flagSpecs(app.Flags, true)
	for _, w := range words {
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case line.pending != "":
			line.seen[line.pending], line.pending = w, ""
		case strings.HasPrefix(w, "-") && w != "-":
			spec, ok := specs[name]
			switch {
			case !ok || !spec.value:
			case hasValue:
				line.seen[spec.name] = value
			default:
				line.pending = spec.name
			}
		case line.command == "" && len(line.args) == 0 && app.Command(w) != nil:
			line.command, specs = w, flagSpecs(app.Command(w).Flags, false)
		default:
			line.args = append(line.args, w)
		}
	}
	return line
}

// flagNames are the flags of command ("" for the compile), --name and
// -n for each name, with --help (and the compile's --version).
func flagNames(app *cli.App, command string) []string {
	flags := app.Flags
	out := []string{"--help"}
	if command == "" {
		out = append(out, "--version")
	} else if c := app.Command(command); c != nil {
		flags = c.Flags
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) == 1 {
				out = append(out, "-"+n)
			} else {
				out = append(out, "--"+n)
			}
		}
	}
	return out
}

// flagValues are the values each flag of command takes, by the flag's
// own name; --kind's are backend's when one is given.
func flagValues(command, backend string) map[string][]string {
	formats := diagnosticFormats
	switch command {
	case "lint":
		return map[string][]string{"backend": driver.Backends(), "format": formats}
	case "graph":
		return map[string][]string{"format": render.Formats, "error-format": formats}
	case "schema":
		return map[string][]string{"format": schemaFormats, "kind": schemaKinds()}
	}
	return map[string][]string{
		"backend": append(driver.Backends(), driver.AllBackends), "kind": driver.KindNames(backend),
		"error-format": formats, "concurrency-policy": {"Allow", "Forbid", "Replace"},
	}
}
