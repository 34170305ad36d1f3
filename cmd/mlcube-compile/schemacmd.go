package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// schemaCommand prints the embedded schemas, as CUE or as JSON Schema for
// editors (yaml-language-server).
func schemaCommand(stdout io.Writer) *cli.Command {
	kinds := schemaKinds()
	return &cli.Command{
		Name:  "schema",
		Usage: "print the schemas spec files are checked with, as CUE or JSON Schema",
		UsageText: "mlcube-compile schema [--format " + strings.Join(schemaFormats, "|") +
			"] [--kind " + strings.Join(kinds, "|") + "]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "cue",
				Usage: "cue (every definition, for cue vet) or jsonschema (one kind, for editors)"},
			&cli.StringFlag{Name: "kind", Value: "mlcube",
				Usage: "with jsonschema, the kind of file: " + strings.Join(kinds, ", ")},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{fmt.Errorf("unexpected argument %q", c.Args().First())}
			}
			kind := -1
			for i, e := range schema.Export {
				if e.Name == c.String("kind") {
					kind = i
				}
			}
			if kind < 0 {
				return usageError{fmt.Errorf("unknown --kind %q (kinds: %s)%s", c.String("kind"), strings.Join(kinds, ", "),
					diag.Suggest(c.String("kind"), kinds))}
			}
			var out []byte
			switch c.String("format") {
			case "cue":
				src, err := schema.CUESource()
				if err != nil {
					return driver.InternalError{Input: "schema", Err: err}
				}
				out = []byte(src)
			case "jsonschema":
				s, err := schema.Load()
				if err != nil {
					return driver.InternalError{Input: "schema", Err: err}
				}
				e := schema.Export[kind]
				out, err = s.JSONSchema(e.Kind, e.Title)
				if err != nil {
					return driver.InternalError{Input: "schema --kind " + e.Name, Err: err}
				}
			default:
				return usageError{fmt.Errorf("unknown --format %q (formats: cue, jsonschema)", c.String("format"))}
			}
			_, err := stdout.Write(out)
			return err
		},
	}
}

// schemaFormats are the values of schema's --format.
var schemaFormats = []string{"cue", "jsonschema"}

// schemaKinds are the values of schema's --kind: each exported schema's
// name.
func schemaKinds() []string {
	var kinds []string
	for _, e := range schema.Export {
		kinds = append(kinds, e.Name)
	}
	return kinds
}
