package passes

import (
	"slices"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// pinnedImage is an image pinned by digest.
var pinnedImage = "python:3.12@sha256:" + strings.Repeat("a", 64)

// cachedRun is a run of steps on per-pod volumes, with a cache that
// keys images by their tags when tags says; a step with no image runs
// pinnedImage.
func cachedRun(tags bool, steps ...*ir.Step) *ir.Pipeline {
	for _, s := range steps {
		if s.Image == "" {
			s.Image = pinnedImage
		}
		if s.Uploads == nil {
			s.Uploads = []ir.Upload{{Name: "out", Path: ir.Lit("/mnt/ws/out")}}
		}
	}
	return &ir.Pipeline{Steps: steps, Volumes: []ir.Volume{{Name: "ws", PerPod: true}},
		ObjectStore: &ir.ObjectStore{S3: &ir.S3Bucket{Bucket: "b"}, Cache: &ir.Cache{Prefix: "c", ImageTags: tags}}}
}

// A step's key changes with what it runs (an argument, a param it refers
// to) and not with what leaves its outputs as they are (its resources);
// it lists the params whose values complete it.
func TestCacheKeysFollowTheRecipe(t *testing.T) {
	key := func(mod func(s *ir.Step)) *ir.StepKey {
		t.Helper()
		s := step("train", []string{"ws"})
		s.Args = []ir.Arg{{Prefix: "--lr=", Value: ir.Text{{Param: "lr"}}}}
		mod(s)
		if d := CacheKeys(cachedRun(true, s)); len(d) > 0 {
			t.Fatalf("diagnostics: %v", d)
		}
		return s.Key
	}
	base := key(func(*ir.Step) {})
	if base == nil || !slices.Equal(base.Params, []string{"lr"}) {
		t.Fatalf("the key is %+v, want one holding the param lr", base)
	}
	if k := key(func(s *ir.Step) { s.Resources.CPU = "4" }); k.Recipe != base.Recipe {
		t.Error("more CPU changed the recipe")
	}
	if k := key(func(s *ir.Step) { s.Args[0].Prefix = "--rate=" }); k.Recipe == base.Recipe {
		t.Error("another argument left the recipe as it was")
	}
	if k := key(func(s *ir.Step) { s.Image = "python:3.12@sha256:" + strings.Repeat("b", 64) }); k.Recipe == base.Recipe {
		t.Error("another image left the recipe as it was")
	}
	if k := key(func(s *ir.Step) { s.Args[0].Value = ir.Text{{Literal: "0."}, {Literal: "1"}} }); k.Params != nil {
		t.Errorf("a literal argument left params %v", k.Params)
	}
	split := key(func(s *ir.Step) { s.Args[0] = ir.Arg{Prefix: "--lr=0.", Value: ir.Lit("1")} })
	whole := key(func(s *ir.Step) { s.Args[0] = ir.Arg{Prefix: "", Value: ir.Lit("--lr=0.1")} })
	if split.Recipe != whole.Recipe {
		t.Error("one argument split in two pieces has another recipe")
	}
}

// A step that reads a claim is keyed by what the claim holds where it
// is mounted, which the key task digests: its read-only claim mounts,
// by path, in the key; a step that writes to one is not cached.
func TestCacheKeysOfClaimReads(t *testing.T) {
	s := step("a", []string{"ws"})
	s.Mounts = append(s.Mounts,
		ir.Mount{Volume: "data", MountPath: "/mnt/ws/raw", SubPath: ir.Lit("raw"), ReadOnly: true},
		ir.Mount{Volume: "data", MountPath: "/mnt/ws/labels.csv", SubPath: ir.Lit("labels.csv"), ReadOnly: true,
			File: true})
	// A part of the claim inside another is the same data, twice.
	s.Mounts = append(s.Mounts, ir.Mount{Volume: "data", MountPath: "/mnt/ws/raw/sub", SubPath: ir.Lit("raw/sub"),
		ReadOnly: true})
	p := cachedRun(false, s)
	p.Volumes = append(p.Volumes, ir.Volume{Name: "data", ClaimName: "datasets"})
	if d := CacheKeys(p); len(d) > 0 {
		t.Fatalf("diagnostics: %v", d)
	}
	if s.Key == nil {
		t.Fatal("a step that reads a claim is not cached")
	}
	var paths []string
	for _, m := range s.Key.Claims {
		paths = append(paths, m.MountPath)
	}
	if want := []string{"/mnt/ws/labels.csv", "/mnt/ws/raw", "/mnt/ws/raw/sub"}; !slices.Equal(paths, want) {
		t.Errorf("the key's claims are %v, want %v", paths, want)
	}
}

// tagged gives s an image named by its tag alone.
func tagged(s *ir.Step) *ir.Step {
	s.Image = "python:3.12"
	return s
}

// What the cache cannot key runs every time, with a warning that says
// why; cache: false quietly; a cache setting with no cache warns; two
// steps with one key, or a step named as a key task, are refused.
func TestCacheKeysRefusals(t *testing.T) {
	off := false
	cases := []struct {
		name string
		run  func() *ir.Pipeline
		want []string
	}{
		{"tag", func() *ir.Pipeline { return cachedRun(false, tagged(step("a", []string{"ws"}))) },
			[]string{"MLC505 step a is not cached: its image python:3.12 is a tag alone"}},
		{"by-tag", func() *ir.Pipeline { return cachedRun(true, tagged(step("a", []string{"ws"}))) },
			[]string{"MLC507 step a is cached by image python:3.12's tag"}},
		{"claim", func() *ir.Pipeline {
			p := cachedRun(true, step("a", []string{"data"}))
			p.Volumes = append(p.Volumes, ir.Volume{Name: "data", ClaimName: "data"})
			return p
		}, []string{"MLC505 step a is not cached: it writes to the claim of volume data at /mnt/data"}},
		{"inside-claim", func() *ir.Pipeline {
			s := step("a", []string{"ws"})
			s.Mounts = append(s.Mounts, ir.Mount{Volume: "data", MountPath: "/mnt/ws/raw", ReadOnly: true},
				ir.Mount{Volume: "ws", MountPath: "/mnt/ws/raw/labels", SubPath: ir.Lit("labels")})
			p := cachedRun(true, s)
			p.Volumes = append(p.Volumes, ir.Volume{Name: "data", ClaimName: "data"})
			return p
		}, []string{"MLC505 step a is not cached: its mount at /mnt/ws/raw/labels is inside the claim's at /mnt/ws/raw"}},
		{"off", func() *ir.Pipeline {
			s := step("a", []string{"ws"})
			s.CacheSetting = &off
			p := cachedRun(false, s)
			return p
		}, nil},
		{"nothing-to-keep", func() *ir.Pipeline {
			s := step("a", []string{"ws"})
			s.Uploads = []ir.Upload{}
			return cachedRun(false, s)
		}, nil},
		{"same-digest", func() *ir.Pipeline {
			a, b := step("a", []string{"ws"}), step("b", []string{"ws"})
			a.Fetches = []ir.Fetch{{Name: "raw", URL: &ir.URL{Raw: "s3://x/raw/", SHA256: strings.Repeat("1", 64)}}}
			b.Fetches = []ir.Fetch{{Name: "raw", URL: &ir.URL{Raw: "s3://x/mirror/", SHA256: strings.Repeat("1", 64)}}}
			return cachedRun(true, a, b)
		}, []string{"MLC560 steps a and b would have one cache key"}},
		{"unused", func() *ir.Pipeline {
			s := step("a", []string{"ws"})
			s.CacheSetting = &off
			return &ir.Pipeline{Steps: []*ir.Step{s}}
		}, []string{"MLC506 step a says whether the cache keeps it"}},
		{"same", func() *ir.Pipeline { return cachedRun(true, step("a", []string{"ws"}), step("b", []string{"ws"})) },
			[]string{"MLC560 steps a and b would have one cache key"}},
		{"named", func() *ir.Pipeline {
			b := step("a-cache-key", []string{"ws"})
			b.Args = []ir.Arg{{Value: ir.Lit("x")}}
			return cachedRun(true, step("a", []string{"ws"}), b)
		}, []string{"MLC560 step a-cache-key has the name of step a's key task"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, d := range CacheKeys(c.run()) {
				got = append(got, string(d.Code)+" "+d.Message)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("got %q, want it to start %q", got[i], c.want[i])
				}
			}
		})
	}
}
