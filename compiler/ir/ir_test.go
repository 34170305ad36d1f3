package ir

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestDNSName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"train", 40, "train"},
		{"Sanity_Check", 40, "sanity-check"},
		{"--a__b..c--", 40, "a-b-c"},
		{"MedPerf: Chest X-Ray (CNN)", 40, "medperf-chest-x-ray-cnn"},
		{"données", 40, "donn-es"},
		{"___", 40, ""},
		{"", 40, ""},
		// Cut at max, then no dash left at the end.
		{"abcd-efgh", 5, "abcd"},
		{"abcdefgh", 5, "abcde"},
	} {
		if got := DNSName(tc.in, tc.max); got != tc.want {
			t.Errorf("DNSName(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestKubeLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"$HOME":              "$HOME",   // no $( nor $$: Kubernetes leaves it
		"cost $5":            "cost $5", // idem
		"$(HOME)":            "$$(HOME)",
		"a $$ b":             "a $$$$ b",
		"$x and $(y)":        "$$x and $$(y)",
		"echo $((1+2)) done": "echo $$((1+2)) done",
	} {
		if got := KubeLiteral(in); got != want {
			t.Errorf("KubeLiteral(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextRender(t *testing.T) {
	text := Text{{Literal: "--epochs=$(N)/"}, {Param: "epochs"}, {Literal: "-x"}}
	ref := func(p string) string { return "{{" + p + "}}" }
	if got, want := text.Render(ref), "--epochs=$(N)/{{epochs}}-x"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	// In a container only the literals are escaped, not what ref writes.
	ref = func(p string) string { return "$(params." + p + ")" }
	if got, want := text.RenderContainer(ref), "--epochs=$$(N)/$(params.epochs)-x"; got != want {
		t.Errorf("RenderContainer = %q, want %q", got, want)
	}
	if got := Lit("a").Render(nil); got != "a" {
		t.Errorf("Lit(a).Render = %q", got)
	}
}

func TestKindText(t *testing.T) {
	for _, k := range []Kind{Container, MPI, Dask, Torch} {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatalf("%d: %v", k, err)
		}
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%s: read back as %d (%v)", b, back, err)
		}
	}
	if _, err := Kind(len(kindNames)).MarshalText(); err == nil {
		t.Error("an unknown kind marshals")
	}
	var k Kind
	if err := k.UnmarshalText([]byte("spark")); err == nil || !strings.Contains(err.Error(), `"spark"`) {
		t.Errorf("unknown kind read: %v", err)
	}
	// The JSON of a step writes its kind by name.
	b, err := json.Marshal(struct{ Kind Kind }{MPI})
	if err != nil || string(b) != `{"Kind":"mpi"}` {
		t.Errorf("JSON %s (%v)", b, err)
	}
}

// steps builds a pipeline's steps in topological order, each written
// "name" or "name<dep,dep": a name ending in "*" mounts vol, one starting
// with "!" is an MPI step, with "~" a Dask step.
func steps(specs ...string) []*Step {
	var out []*Step
	for _, spec := range specs {
		s := &Step{}
		if rest, ok := strings.CutPrefix(spec, "!"); ok {
			s.Kind, spec = MPI, rest
		}
		if rest, ok := strings.CutPrefix(spec, "~"); ok {
			s.Kind, spec = Dask, rest
		}
		name, deps, _ := strings.Cut(spec, "<")
		if rest, ok := strings.CutSuffix(name, "*"); ok {
			s.Mounts, name = []Mount{{Volume: "vol", MountPath: "/mnt"}}, rest
		}
		s.Name = name
		if deps != "" {
			s.Dependencies = strings.Split(deps, ",")
		}
		out = append(out, s)
	}
	return out
}

func TestMountUse(t *testing.T) {
	for _, tc := range []struct {
		name        string
		steps       []*Step
		distributed string
		pair        []string
	}{
		{"none mount", steps("a", "b<a"), "", nil},
		{"one", steps("a*", "b<a"), "", nil},
		{"a chain", steps("a*", "b*<a", "c*<b"), "", nil},
		// c comes after a through b, which does not mount the volume.
		{"ordered through a step that does not mount", steps("a*", "b<a", "c*<b"), "", nil},
		{"parallel", steps("a", "b*<a", "c*<a"), "", []string{"b", "c"}},
		{"parallel, the first pair", steps("a*", "b*", "c*"), "", []string{"a", "b"}},
		{"a join after parallel branches", steps("a*", "b<a", "c*<a", "d*<b,c"), "", nil},
		{"distributed", steps("a*", "!b*<a", "!c*<b"), "b", nil},
		{"distributed, not mounting", steps("a*", "!b<a"), "", nil},
		// Only a Dask step's client mounts the volume, on one node.
		{"a Dask step", steps("a*", "~b*<a", "c*<b"), "", nil},
	} {
		distributed, pair := MountUse(tc.steps, "vol")
		if distributed != tc.distributed || !slices.Equal(pair, tc.pair) {
			t.Errorf("%s: MountUse = %q, %v; want %q, %v", tc.name, distributed, pair, tc.distributed, tc.pair)
		}
	}
}

func TestAccessModes(t *testing.T) {
	if Writable("ReadOnlyMany") || !Writable("ReadWriteOnce") || !Writable("ReadWriteMany") ||
		!Writable("ReadWriteOncePod") {
		t.Error("Writable: only ReadOnlyMany is not")
	}
	for _, tc := range []struct {
		modes []string
		one   bool
	}{
		{[]string{"ReadWriteOnce"}, true},
		{[]string{"ReadWriteOncePod"}, true},
		{nil, true},
		{[]string{"ReadWriteOnce", "ReadWriteMany"}, false},
		{[]string{"ReadOnlyMany"}, false},
	} {
		if got := OneNode(tc.modes); got != tc.one {
			t.Errorf("OneNode(%v) = %v, want %v", tc.modes, got, tc.one)
		}
	}
}

func TestUsesDRA(t *testing.T) {
	claim := &GPUClaim{Template: "gpus"}
	for _, tc := range []struct {
		r    Resources
		want bool
	}{
		{Resources{GPU: 1, GPUClaim: claim}, true},
		{Resources{GPU: 1}, false},
		{Resources{GPUClaim: claim}, false},
	} {
		if got := tc.r.UsesDRA(); got != tc.want {
			t.Errorf("%+v: UsesDRA = %v, want %v", tc.r, got, tc.want)
		}
	}
}
