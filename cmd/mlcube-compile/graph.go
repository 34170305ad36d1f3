package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/backends/graph"
)

// graphCommand prints the pipeline's DAG, to see before submitting it.
func graphCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "print the pipeline's DAG as Mermaid or Graphviz DOT",
		UsageText: "mlcube-compile graph [--format mermaid|dot] [--mlcube PATH] [--platform FILE] [--task FILE] [-f VALUES] [--set K=V]",
		Flags: append(specFlags(),
			&cli.StringFlag{Name: "format", Value: graph.Formats[0], Usage: "mermaid (for Markdown) or dot (for Graphviz)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` atomically instead of stdout"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{fmt.Errorf("unexpected argument %q", c.Args().First())}
			}
			format := c.String("format")
			if !slices.Contains(graph.Formats, format) {
				return usageError{fmt.Errorf("unknown --format %q (formats: %s)", format, strings.Join(graph.Formats, ", "))}
			}
			opts, err := compilerOptions(c)
			if err != nil {
				return err
			}
			p, err := compileSpecs(opts, stderr)
			if err != nil {
				return err
			}
			out, err := graph.Render(p, format)
			if err != nil {
				return internalError{input: describe(opts), err: err}
			}
			return writeOutput(c.String("output"), []byte(out), stdout)
		},
	}
}
