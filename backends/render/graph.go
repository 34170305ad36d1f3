package render

import (
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// Formats are the formats Render takes, the default first.
var Formats = []string{"mermaid", "dot"}

// Render draws p in format, one of Formats.
func Render(p *ir.Pipeline, format string) (string, error) {
	switch format {
	case "mermaid":
		return mermaidChart(p), nil
	case "dot":
		return dotGraph(p), nil
	}
	return "", fmt.Errorf("unknown format %q (formats: %s)", format, strings.Join(Formats, ", "))
}

// mermaidChart writes a flowchart, top to bottom. Node ids are the step names
// behind a prefix, so that no step name is read as a Mermaid keyword.
func mermaidChart(p *ir.Pipeline) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart TD\n", p.Name)
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "  %s[\"%s<br/>%s\"]\n", mermaidID(s.Name), mermaidText(s.Name), mermaidText(stepDetail(s)))
	}
	for _, s := range p.Steps {
		for _, d := range s.Dependencies {
			fmt.Fprintf(&b, "  %s --> %s\n", mermaidID(d), mermaidID(s.Name))
		}
	}
	return b.String()
}

// dotGraph writes a Graphviz digraph, left to right.
func dotGraph(p *ir.Pipeline) string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n  rankdir=LR;\n  node [shape=box];\n", dotString(p.Name))
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "  %s [label=%s];\n", dotString(s.Name), dotString(s.Name+"\n"+stepDetail(s)))
	}
	for _, s := range p.Steps {
		for _, d := range s.Dependencies {
			fmt.Fprintf(&b, "  %s -> %s;\n", dotString(d), dotString(s.Name))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// stepDetail says what a step runs: its cube and task, and how.
func stepDetail(s *ir.Step) string {
	switch s.Kind {
	case ir.MPI:
		return fmt.Sprintf("%s: %s (MPI, %d workers)", s.Cube, s.Task, s.MPI.Workers)
	case ir.Torch:
		return fmt.Sprintf("%s: %s (torchrun, %d nodes × %d processes)", s.Cube, s.Task, s.Train.Nodes, s.Train.ProcsPerNode)
	case ir.Dask:
		return "dask: " + s.Dask.Function
	}
	return s.Cube + ": " + s.Task
}

// mermaidID is a node id: step names are DNS labels, so turning '-' into
// '_' keeps them distinct.
func mermaidID(name string) string {
	return "step_" + strings.ReplaceAll(name, "-", "_")
}

// mermaidText escapes text inside a quoted Mermaid label.
var mermaidText = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "&", "#amp;",
	"\n", " ", "\r", " ").Replace

// dotString quotes s as a DOT string.
func dotString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
