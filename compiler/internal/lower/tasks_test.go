package lower

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A --task list that runs a task before a later one that writes what it
// reads (or a path inside it) is warned of once, at the reader, with the
// list that runs the writer first; an output that holds the read path
// says nothing, and nor does a pipeline of steps.
func TestListOrder(t *testing.T) {
	step := func(name string, line int) *spec.Step {
		return &spec.Step{Name: name, Task: &spec.Task{Name: strings.ReplaceAll(name, "-", "_")},
			Loc: diag.At(diag.Pos{File: "mlcube.yaml", Line: line, Col: 3})}
	}
	ps := &spec.Pipeline{Tasks: spec.InOrder,
		Steps: []*spec.Step{step("train", 3), step("evaluate", 5), step("download-data", 7), step("fetch", 9)}}
	io := []graph.IO{
		{Reads: []string{"workspace:/data"}, Writes: []string{"workspace:/model"}},
		{Writes: []string{"workspace:/"}},
		{Writes: []string{"workspace:/data/x"}},
		{Writes: []string{"workspace:/data"}},
	}
	diags := listOrder(ps, io)
	if len(diags) != 1 || diags[0].Code != diag.TaskBeforeWriter || diags[0].Pos.Line != 3 ||
		!strings.Contains(diags[0].Message, "task train reads data, which task download_data (mlcube.yaml:7) writes") ||
		!strings.Contains(diags[0].String(), "(--task download_data,train,evaluate,fetch)") {
		t.Errorf("got %v", diags)
	}
	ps.Tasks = spec.PipelineSteps
	if diags := listOrder(ps, io); diags != nil {
		t.Errorf("a pipeline's steps: %v", diags)
	}
	if got := writerFirst(ps.Steps, 1, 3); got != "train,fetch,evaluate,download_data" {
		t.Errorf("writerFirst = %q", got)
	}
	if got := shown("workspace:/"); got != "the whole volume" {
		t.Errorf("shown = %q", got)
	}
}
