package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/backends/render"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// graphFile is a file name for each format of graph's, to suggest
// instead of a spec -o names.
var graphFile = map[string]string{"mermaid": "graph.md", "dot": "graph.dot"}

// graphCommand prints the pipeline's DAG, to see before submitting it.
func graphCommand(s *session) *cli.Command {
	return &cli.Command{
		Name:  "graph",
		Usage: "print the pipeline's DAG as Mermaid or Graphviz DOT",
		UsageText: "mlcube-compile graph [--format mermaid|dot] [--mlcube PATH] [--platform FILE|-] [--task FILE|-] " +
			"[-f VALUES]... [--set NAME=VALUE]... [--disable CODE]... [-o FILE] [--error-format text|json|github] [-v] " +
			"[PATH|NAME=PATH]...",
		Flags: append(specFlags(),
			&cli.StringFlag{Name: "format", Value: render.Formats[0], Usage: "mermaid (for Markdown) or dot (for Graphviz)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"},
				Usage: "write to `FILE` atomically instead of stdout; -o mermaid and -o dot print that format"},
			errorFormatFlag(),
			verboseFlag(),
		),
		Action: func(c *cli.Context) error {
			if err := s.readFormat(c); err != nil {
				return err
			}
			output, format, err := outputFormat(c.String("output"), c.String("format"), c.IsSet("format"), render.Formats)
			if err == nil {
				err = checkGraphOutput(output)
			}
			if err != nil {
				return err
			}
			if !slices.Contains(render.Formats, format) {
				return usageError{fmt.Errorf("unknown --format %q (formats: %s)", format, strings.Join(render.Formats, ", "))}
			}
			w, err := workspace(c, s)
			if err != nil {
				return err
			}
			opts := w.Options()
			name := graphFile[format]
			if err := outputOnInput(output, output, namedInputs(opts), name); err != nil {
				return err
			}
			out, err := driver.Graph(w, format)
			s.warnings = append(s.warnings, out.Warnings...)
			if err != nil {
				explainEmptied(err, s.stdout, name)
				return err
			}
			if err := outputOnInput(output, output, inputs(w), name); err != nil {
				return err
			}
			return writeOutput(output, out.Bytes, s.stdout)
		},
	}
}
