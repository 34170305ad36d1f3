package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionCommand prints a shell's completion script. The bash and zsh
// scripts ask the binary itself for the words that fit, through its
// hidden __complete (complete.go), so they never fall behind the flags;
// fish's is urfave/cli's, with the flags' values added.
func completionCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "completion",
		Usage: "print the shell completion script for bash, zsh or fish",
		UsageText: "mlcube-compile completion bash|zsh|fish\n  bash: source <(mlcube-compile completion bash)\n" +
			"  zsh:  source <(mlcube-compile completion zsh)\n  fish: mlcube-compile completion fish | source",
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

// bashCompletion completes commands, flags and their values: the words
// typed so far, the one under the cursor last (empty when it is), go to
// the binary's hidden __complete, which prints what may come there;
// where it offers nothing, bash completes file names.
const bashCompletion = `# bash completion for mlcube-compile
_mlcube_compile_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" words
  words=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o bashdefault -o default -F _mlcube_compile_complete mlcube-compile
`

// zshCompletion does the same for zsh: file names where no word offered
// fits what is typed.
const zshCompletion = `#compdef mlcube-compile
_mlcube_compile_complete() {
  local -a words_next
  words_next=(${(f)"$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)"})
  compadd -- $words_next || _files
}
compdef _mlcube_compile_complete mlcube-compile
`

// shells are the shells completion writes a script for.
var shells = []string{"bash", "zsh", "fish"}

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
		values := flagValues(command, "")
		for _, name := range slices.Sorted(maps.Keys(values)) {
			{
				fmt.Fprintf(&b, "complete -c %s -n '%s' -f -l %s -xa '%s'\n", app.Name, cond, name, strings.Join(values[name], " "))
			}
		}
	}
	fmt.Fprintf(&b, "complete -c %s -n '__fish_seen_subcommand_from completion' -f -a '%s'\n", app.Name,
		strings.Join(shells, " "))
	return b.String()
}
