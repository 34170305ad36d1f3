package lower

import (
	"slices"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/graph"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// flowOf is the flow of steps named names, written in that order, each
// reading and writing the workspace paths given.
func flowOf(names []string, io []graph.IO, after map[string][]string) *flow {
	fl := &flow{io: io, data: map[string]*stepData{}}
	for i, n := range names {
		fl.specs = append(fl.specs, &spec.Step{Name: n, After: after[n],
			Loc: diag.At(diag.Pos{File: "pipeline.yaml", Line: 2 + i, Col: 3}).Field("steps").Field(n)})
		fl.steps = append(fl.steps, &ir.Step{Name: n, Written: n})
	}
	return fl
}

// ws is a workspace path as path flow names it.
func ws(rel string) string { return graph.Qualify(workspaceVolume, rel) }

// Steps run after the steps that write what they read and those their
// after: names, in a topological order; a cycle leaves the written order;
// a --task list runs as listed, ordered by after: alone.
func TestOrder(t *testing.T) {
	order := func(fl *flow, tasks spec.TaskOrder) ([]string, map[string][]string, diag.Diagnostics) {
		steps, diags := fl.order(tasks)
		var names []string
		deps := map[string][]string{}
		for _, s := range steps {
			names = append(names, s.Name)
			deps[s.Name] = s.Dependencies
		}
		return names, deps, diags
	}
	io := []graph.IO{{Reads: []string{ws("model")}}, {Writes: []string{ws("data")}},
		{Reads: []string{ws("data")}, Writes: []string{ws("model")}}}
	names, deps, diags := order(flowOf([]string{"eval", "fetch", "train"}, io, nil), spec.PipelineSteps)
	if !slices.Equal(names, []string{"fetch", "train", "eval"}) || !slices.Equal(deps["eval"], []string{"train"}) ||
		!slices.Equal(deps["train"], []string{"fetch"}) || diags != nil {
		t.Errorf("path flow: %v %v %v", names, deps, diags)
	}
	names, deps, _ = order(flowOf([]string{"eval", "fetch", "train"}, io, map[string][]string{"fetch": {"eval"}}),
		spec.PipelineSteps)
	if !slices.Equal(names, []string{"eval", "fetch", "train"}) || !slices.Equal(deps["fetch"], []string{"eval"}) {
		t.Errorf("after:: %v %v", names, deps)
	}
	cycle := []graph.IO{{Reads: []string{ws("b")}, Writes: []string{ws("a")}},
		{Reads: []string{ws("a")}, Writes: []string{ws("b")}}}
	names, deps, _ = order(flowOf([]string{"x", "y"}, cycle, nil), spec.PipelineSteps)
	if !slices.Equal(names, []string{"x", "y"}) || !slices.Equal(deps["x"], []string{"y"}) ||
		!slices.Equal(deps["y"], []string{"x"}) {
		t.Errorf("a cycle: %v %v", names, deps)
	}
	// In a cycle each step comes after every step it touches, the
	// implied ones too.
	cycle = []graph.IO{{Reads: []string{ws("r")}, Writes: []string{ws("p")}}, {Writes: []string{ws("p")}},
		{Reads: []string{ws("p")}, Writes: []string{ws("r")}}}
	if _, deps, _ = order(flowOf([]string{"x", "y", "z"}, cycle, nil), spec.PipelineSteps); !slices.Equal(deps["z"],
		[]string{"x", "y"}) {
		t.Errorf("a cycle of three: %v", deps)
	}
	names, deps, _ = order(flowOf([]string{"eval", "fetch", "train"}, io, nil), spec.InOrder)
	if !slices.Equal(names, []string{"eval", "fetch", "train"}) || deps["eval"] != nil || deps["train"] != nil {
		t.Errorf("a --task list: %v %v", names, deps)
	}
}

// A step that reads what two steps write, ordered by the file alone, is
// refused; two steps that write one path no step reads are warned of.
func TestWriters(t *testing.T) {
	io := []graph.IO{{Writes: []string{ws("data")}}, {Writes: []string{ws("data")}}, {Reads: []string{ws("data")}}}
	_, diags := flowOf([]string{"a", "b", "c"}, io, nil).order(spec.PipelineSteps)
	if len(diags) != 1 || diags[0].Code != diag.MixedWriters || diags[0].Field != "steps.c" {
		t.Errorf("mixed writers: %v", diags)
	}
	_, diags = flowOf([]string{"a", "b", "c"}, io, map[string][]string{"b": {"a"}}).order(spec.PipelineSteps)
	if diags != nil {
		t.Errorf("ordered writers: %v", diags)
	}
	_, diags = flowOf([]string{"a", "b"}, io[:2], nil).order(spec.PipelineSteps)
	if len(diags) != 1 || diags[0].Code != diag.Overwritten || diags[0].Field != "steps.b" {
		t.Errorf("overwritten: %v", diags)
	}
	if _, diags = flowOf([]string{"a", "b"}, io[:2], nil).order(spec.EveryTask); diags != nil {
		t.Errorf("a cube's tasks: %v", diags)
	}
}
