package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/render"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/urfave/cli/v2"
)

// completionCommand prints a shell's completion script. Each script asks
// the binary itself for the words that fit, through urfave/cli's hidden
// --generate-bash-completion flag, so it never falls behind the flags.
func completionCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		UsageText: "mlcube-compile completion bash|zsh|fish\n  bash: source <(mlcube-compile completion bash)\n  zsh:  source <(mlcube-compile completion zsh)\n  fish: mlcube-compile completion fish | source",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError{fmt.Errorf("completion needs one shell: %s", strings.Join(shells, ", "))}
			}
			var script string
			switch c.Args().First() {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				script = s + fishValues(c.App)
			default:
				return usageError{fmt.Errorf("unknown shell %q (shells: %s)", c.Args().First(), strings.Join(shells, ", "))}
			}
			_, err := io.WriteString(stdout, script)
			return err
		},
	}
}

// bashCompletion completes commands, flags and their file arguments: the
// words typed so far go back to the binary, which prints what may come
// next; where it offers nothing, bash completes file names.
const bashCompletion = `# bash completion for mlcube-compile
_mlcube_compile_complete() {
  local cur words
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == -* ]]; then
    words=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  else
    words=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD-1}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o bashdefault -o default -F _mlcube_compile_complete mlcube-compile
`

// zshCompletion does the same for zsh.
const zshCompletion = `#compdef mlcube-compile
_mlcube_compile_complete() {
  local -a words_next
  local cur=${words[CURRENT]}
  if [[ "$cur" == -* ]]; then
    words_next=(${(f)"$(${words[1]} ${words[2,CURRENT]} --generate-bash-completion 2>/dev/null)"})
  else
    words_next=(${(f)"$(${words[1]} ${words[2,CURRENT-1]} --generate-bash-completion 2>/dev/null)"})
  fi
  if (( ${#words_next} )); then
    compadd -- $words_next
  else
    _files
  fi
}
compdef _mlcube_compile_complete mlcube-compile
`

// shells are the shells completion writes a script for.
var shells = []string{"bash", "zsh", "fish"}

// completeValue answers the completion scripts when the word asked for
// is a flag's value (--backend <TAB>) or completion's shell: the values
// that flag of that command takes, one a line. It reports whether it
// answered; otherwise urfave/cli offers commands and flags.
func completeValue(app *cli.App, args []string, stdout io.Writer) bool {
	n := len(args)
	if n < 2 || args[n-1] != "--generate-bash-completion" {
		return false
	}
	command, prev := commandOf(app, args), strings.TrimLeft(args[n-2], "-")
	if command == "completion" && prev == "completion" {
		prev = "shell"
	}
	values, ok := flagValues(command)[prev]
	if !ok {
		return false
	}
	fmt.Fprintln(stdout, strings.Join(values, "\n"))
	return true
}

// flagValues are the values each flag of command takes, under each of
// its names.
func flagValues(command string) map[string][]string {
	formats := diagnosticFormats
	switch command {
	case "lint":
		return map[string][]string{"backend": driver.Backends(), "b": driver.Backends(), "format": formats, "error-format": formats}
	case "graph":
		return map[string][]string{"format": render.Formats, "error-format": formats}
	case "schema":
		return map[string][]string{"format": schemaFormats, "kind": schemaKinds()}
	case "completion":
		return map[string][]string{"shell": shells}
	}
	backends := append(driver.Backends(), driver.AllBackends)
	return map[string][]string{
		"backend": backends, "b": backends, "kind": driver.KindNames(), "error-format": formats,
		"concurrency-policy": {"Allow", "Forbid", "Replace"},
	}
}

// fishValues are fish's completions of the flag values flagValues gives,
// which urfave/cli's fish script leaves out: a line per flag name of
// more than one letter, under the condition its command's flags have.
func fishValues(app *cli.App) string {
	var b strings.Builder
	for _, command := range append([]string{""}, "lint", "graph", "schema") {
		cond := "__fish_" + app.Name + "_no_subcommand"
		if command != "" {
			cond = "__fish_seen_subcommand_from " + command
		}
		values := flagValues(command)
		for _, name := range slices.Sorted(maps.Keys(values)) {
			if len(name) > 1 && name != "shell" {
				fmt.Fprintf(&b, "complete -c %s -n '%s' -f -l %s -xa '%s'\n", app.Name, cond, name, strings.Join(values[name], " "))
			}
		}
	}
	fmt.Fprintf(&b, "complete -c %s -n '__fish_seen_subcommand_from completion' -f -a '%s'\n", app.Name, strings.Join(shells, " "))
	return b.String()
}
