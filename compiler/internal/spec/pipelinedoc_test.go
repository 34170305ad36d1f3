package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue"

	"github.com/google/go-cmp/cmp"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// TestPipelineStepsInBatches checks that checking the steps a batch at a
// time gives the diagnostics, and the step values, of one unification of
// the whole file, for every pipeline file of the examples and of the bad
// corpus, and for mistakes in steps that the corpus does not hold. Batch
// by batch may find more: a required field left out of one step, which
// the whole file's walk does not reach when another step has an error.
func TestPipelineStepsInBatches(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*/pipeline.yaml")
	bad, _ := filepath.Glob("../../../testdata/bad/*/pipeline.yaml")
	files = append(files, bad...)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"unknown-field.yaml": "steps:\n  a: {task: x, argz: [1]}\n  b: {task: y, retries: {}}\n",
		"wrong-types.yaml":   "name: p\nsteps:\n  a: {inputs: [x], env: {A: [1]}}\n  b: 3\n  c: null\n",
		"top-and-steps.yaml": "name: 5\nparams: {p: {required: yes}}\nsteps:\n  a: {mpi: {workers: x}}\n",
		"not-a-mapping.yaml": "steps: [a, b]\n",
		"batches.yaml":       manyStepsWithMistakes(3*stepBatch + 5),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	s, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	s.Do(func(sc *schema.Context) {
		for _, file := range files {
			compareBatches(t, sc, file)
		}
	})
}

// compareBatches checks one pipeline file as a whole and in batches, and
// compares the two.
func compareBatches(t *testing.T, sc *schema.Context, file string) {
	f, _ := source.New(nil).ReadYAML(file, source.Flag("--task"))
	if f == nil {
		return
	}
	doc, whole := checkDocument(sc, f, schema.Pipeline)
	wholeOK := !whole.HasErrors()
	l := newLoader(sc, source.New(nil))
	_, steps, aloneUsable := l.checkPipeline(f)
	alone := l.diags
	if len(whole)+len(alone) == 0 && !wholeOK {
		t.Errorf("%s: invalid with no diagnostics", file)
	}
	if doc.usable != aloneUsable {
		t.Errorf("%s: usable as a whole %v, in batches %v", file, doc.usable, aloneUsable)
	}
	if missing, extra := compareDiagnostics(whole, alone); len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s: in batches, missing:\n%s\nextra:\n%s", file, missing.Error(), extra.Error())
	}
	if !wholeOK {
		return
	}
	var names []string
	forFields(doc.data.LookupPath(pathOf("steps")), func(name string, v cue.Value) {
		names = append(names, name+" "+fmt.Sprint(v))
	})
	var got []string
	for _, st := range steps {
		got = append(got, st.name+" "+fmt.Sprint(st.data))
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("%s: steps (-as a whole +in batches):\n%s", file, diff)
	}
}

// compareDiagnostics returns what whole reports and alone does not, and
// what alone reports beyond whole other than a missing required field.
func compareDiagnostics(whole, alone diag.Diagnostics) (missing, extra diag.Diagnostics) {
	seen := map[string]bool{}
	for _, d := range alone {
		seen[d.String()] = true
	}
	for _, d := range whole {
		if !seen[d.String()] {
			missing = append(missing, d)
		}
		delete(seen, d.String())
	}
	for _, d := range alone {
		if seen[d.String()] && d.Message != "missing required field" {
			extra = append(extra, d)
		}
	}
	return missing, extra
}

// manyStepsWithMistakes is a pipeline of n steps, a schema mistake in
// every seventh, so that every batch holds some.
func manyStepsWithMistakes(n int) string {
	var b strings.Builder
	b.WriteString("steps:\n")
	for i := 0; i < n; i++ {
		switch {
		case i%14 == 0:
			fmt.Fprintf(&b, "  s%d: {task: stage, retries: {limit: -1}}\n", i)
		case i%7 == 0:
			fmt.Fprintf(&b, "  s%d: {task: stage, unknown: x}\n", i)
		default:
			fmt.Fprintf(&b, "  s%d: {task: stage, inputs: {src: d%d/}}\n", i, i)
		}
	}
	return b.String()
}
