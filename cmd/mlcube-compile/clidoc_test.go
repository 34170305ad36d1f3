package main

// docs/cli.md, the CLI reference, is rendered from the app's own commands
// and flags (newApp), so it cannot drift from what the command takes.
// TestCLIDoc fails when the committed file is stale; -update (make
// golden) rewrites it.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/internal/golden"
	"github.com/urfave/cli/v2"
)

func TestCLIDoc(t *testing.T) {
	want := renderCLIDoc()
	golden.Compare(t, []byte(want), filepath.Join(repoRoot, "docs", "cli.md"), *update)
}

func renderCLIDoc() string {
	app := newApp(&session{stdout: io.Discard, format: diagnosticFormats[0]}, io.Discard)
	app.Setup() // adds --help and --version as the command shows them
	var b strings.Builder
	b.WriteString("<!-- Generated from the command's own flags by TestCLIDoc (cmd/mlcube-compile/clidoc_test.go); do " +
		"not edit. Rewrite with make golden. -->\n\n")
	b.WriteString("# CLI reference\n\n")
	fmt.Fprintf(&b, "`%s`: %s.\n\n", app.Name, app.Usage)
	b.WriteString("Manifests go to stdout; notes, warnings and errors to stderr. Exit codes: 0 compiled (or no error),\n")
	b.WriteString("1 a spec is bad, 2 a usage error. The [user guide](guide.md) explains the flags in context.\n")
	b.WriteString("A flag that takes one value is given once (twice is a usage error that names both " +
		"values); those marked\n")
	b.WriteString("repeatable take one value each time, and `--set` and `NAME=PATH` each name once. Other tools' " +
		"flags (argo's\n")
	b.WriteString("--serviceaccount and -l, kubectl's -l, --node-selector, MLCube's --workspace and -Pkey=value), and " +
		"flags spelled\n")
	b.WriteString("like a platform key (--queue, --image, --storage-class), are usage errors that name the spec key " +
		"doing their job.\n")
	b.WriteString("`-o` never names a file the compile reads (a spec, a values or env file, by any path or link to it): " +
		"that is a usage\n")
	b.WriteString("error, and nothing is written. Output redirected onto a spec with `>` empties it before the " +
		"compile reads it;\n")
	b.WriteString("the error then says so.\n\n")
	writeUsage(&b, app.UsageText)
	writeFlags(&b, app.Flags)
	for _, c := range app.VisibleCommands() {
		writeCommand(&b, app.Name, c)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func writeCommand(b *strings.Builder, parent string, c *cli.Command) {
	name := parent + " " + c.Name
	fmt.Fprintf(b, "## `%s`\n\n", name)
	if c.Usage != "" {
		b.WriteString(strings.TrimSpace(c.Usage) + "\n\n")
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(b, "Also: %s.\n\n", "`"+strings.Join(c.Aliases, "`, `")+"`")
	}
	usage := c.UsageText
	if usage == "" {
		usage = name + " [flags]"
		if c.ArgsUsage != "" {
			usage += " " + c.ArgsUsage
		}
	}
	writeUsage(b, usage)
	if c.Description != "" {
		b.WriteString(strings.TrimSpace(c.Description) + "\n\n")
	}
	writeFlags(b, c.VisibleFlags())
	for _, sub := range c.VisibleCommands() {
		writeCommand(b, name, sub)
	}
}

func writeUsage(b *strings.Builder, usage string) {
	if usage != "" {
		b.WriteString("```\n" + strings.TrimSpace(usage) + "\n```\n\n")
	}
}

func writeFlags(b *strings.Builder, flags []cli.Flag) {
	if len(flags) == 0 {
		return
	}
	b.WriteString("| flag | value | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		var names []string
		for _, n := range f.Names() {
			if len(n) == 1 {
				names = append(names, "`-"+n+"`")
			} else {
				names = append(names, "`--"+n+"`")
			}
		}
		value, def, usage := "", "", ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
			if d.TakesValue() {
				value = "yes"
				def = d.GetDefaultText()
				if def == "" {
					def = d.GetValue()
				}
			}
		}
		if def != "" {
			def = "`" + def + "`"
		}
		if m, ok := f.(interface{ IsSliceFlag() bool }); ok && m.IsSliceFlag() {
			value = "repeatable"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", strings.Join(names, ", "), value, def, strings.ReplaceAll(usage, "|", `\|`))
	}
	b.WriteString("\n")
}
