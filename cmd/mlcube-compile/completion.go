package main

import (
	"fmt"
	"io"
	"strings"

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
			shells := []string{"bash", "zsh", "fish"}
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
				script = s
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
