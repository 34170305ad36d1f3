package kube

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// moverPair is a step that uploads the folder at dir as "data" and one
// that fetches it to out, and a Mover whose fetches want the digests
// that recorded holds.
func moverPair(sb sandbox, dir, out string, recorded map[string]string) (*ir.Pipeline, Mover) {
	prod := &ir.Step{Name: "prod", Uploads: []ir.Upload{{Name: "data", Path: ir.Lit(dir), Folder: true}}}
	cons := &ir.Step{Name: "cons",
		Fetches: []ir.Fetch{{Name: "prod-data", From: &ir.Output{Step: "prod", Name: "data"}, Path: ir.Lit(out)}}}
	p := &ir.Pipeline{Steps: []*ir.Step{prod, cons},
		ObjectStore: &ir.ObjectStore{ToolImage: "rclone", S3: &ir.S3Bucket{Bucket: "b"}}}
	return p, Mover{
		RunID:      "run-1",
		Ref:        func(param string) string { return param },
		Want:       func(f ir.Fetch) string { return recorded[f.From.Name] },
		DigestFile: func(u ir.Upload) string { return filepath.Join(sb.dir, "digests", u.Name) },
	}
}

// upload runs the upload container of p's first step and records the
// digest it wrote.
func (sb sandbox) upload(p *ir.Pipeline, m Mover, recorded map[string]string) {
	sb.t.Helper()
	if log, ok := sb.run(m.UploadContainer(p, p.Steps[0], "upload"), nil); !ok {
		sb.t.Fatalf("the upload failed:\n%s", log)
	}
	got, err := os.ReadFile(filepath.Join(sb.dir, "digests", "data"))
	if err != nil {
		sb.t.Fatal(err)
	}
	recorded["data"] = string(got)
}

// listing is the files below dir, by path.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A retried step's upload leaves at its key only what the attempt that
// succeeded wrote: an earlier attempt's upload, cut short, left a file
// the retry did not write, and the consumer's fetch, checked against the
// retry's digest, finds only the retry's files (issue 49, point 1).
func TestMoverRetryLeavesNoStaleFiles(t *testing.T) {
	sb := newSandbox(t)
	dir, out := filepath.Join(sb.dir, "work", "data"), filepath.Join(sb.dir, "out", "data")
	recorded := map[string]string{}
	p, m := moverPair(sb, dir, out, recorded)
	write(t, dir, map[string]string{"a.txt": "attempt 0\n", "partial.txt": "attempt 0\n"})
	sb.upload(p, m, recorded)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	retry := map[string]string{"a.txt": "attempt 1\n"}
	write(t, dir, retry)
	sb.upload(p, m, recorded)
	if got := listing(t, filepath.Join(sb.dir, "s3/b/run-1/prod/data")); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("the bucket holds %v after the retry's upload, want [a.txt]", got)
	}
	if log, ok := sb.run(m.FetchContainer(p, p.Steps[1], "fetch"), nil); !ok {
		t.Fatalf("the consumer's fetch failed:\n%s", log)
	}
	if got := listing(t, out); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("the consumer got %v, want [a.txt]", got)
	}
}

// An empty output folder uploads no object, and the consumer gets an
// empty folder, its digest checked; a folder that nothing was uploaded
// to but whose producer recorded files fails the fetch (issue 49,
// point 9).
func TestMoverEmptyFolder(t *testing.T) {
	sb := newSandbox(t)
	dir, out := filepath.Join(sb.dir, "work", "data"), filepath.Join(sb.dir, "out", "data")
	recorded := map[string]string{}
	p, m := moverPair(sb, dir, out, recorded)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sb.upload(p, m, recorded)
	if recorded["data"] != sha("") {
		t.Fatalf("an empty folder's digest is %q, want %s", recorded["data"], sha(""))
	}
	if log, ok := sb.run(m.FetchContainer(p, p.Steps[1], "fetch"), nil); !ok {
		t.Fatalf("the fetch of an empty folder failed:\n%s", log)
	}
	if fi, err := os.Stat(out); err != nil || !fi.IsDir() || len(listing(t, out)) != 0 {
		t.Errorf("the consumer's folder is %v (%v), want an empty folder", fi, err)
	}
	recorded["data"] = folderDigest(map[string]string{"a.txt": "lost\n"})
	if log, ok := sb.run(m.FetchContainer(p, p.Steps[1], "fetch"), nil); ok ||
		!strings.Contains(log, "want "+recorded["data"]) {
		t.Errorf("a fetch of a lost upload succeeded (%v) or said otherwise:\n%s", ok, log)
	}
}

// The folders of a step's outputs are made before it runs, as MLCube
// makes them: an output folder, and the folder of an output file; by
// its own container, or by the fetch container when it fetches (issue
// 49, point 10).
func TestFolders(t *testing.T) {
	sb := newSandbox(t)
	work := filepath.Join(sb.dir, "work")
	s := &ir.Step{Name: "s", Folders: []ir.Folder{
		{Param: "out", Path: ir.Lit(filepath.Join(work, "out"))},
		{Param: "log", Path: ir.Lit(filepath.Join(work, "logs", "2026", "run.log")), File: true},
	}}
	check := func(how string) {
		t.Helper()
		for _, d := range []string{"out", "logs", "logs/2026"} {
			if fi, err := os.Stat(filepath.Join(work, d)); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o777 {
				t.Errorf("%s: %s is not a folder every user writes (%v, %v)", how, d, fi, err)
			}
		}
		if fi, err := os.Stat(work); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: the folder that was there changed: %v (%v)", how, fi, err)
		}
		if _, err := os.Stat(filepath.Join(work, "logs", "2026", "run.log")); err == nil {
			t.Errorf("%s: the output file was made", how)
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	c := FoldersContainer(&ir.Pipeline{KubectlImage: "tool"}, s, nil,
		func(f ir.Folder) string { return f.Path.RenderContainer(nil) })
	if log, ok := sb.run(*c, nil); !ok {
		t.Fatalf("the folders container failed:\n%s", log)
	}
	check("folders container")
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(sb.dir, "in"), map[string]string{"x": "x\n"})
	s.Fetches = []ir.Fetch{{Name: "in", URL: &ir.URL{Raw: "file://" + filepath.Join(sb.dir, "in", "x"), Scheme: "https"},
		Path: ir.Lit(filepath.Join(sb.dir, "x"))}}
	p := &ir.Pipeline{Steps: []*ir.Step{s}, ObjectStore: &ir.ObjectStore{ToolImage: "rclone"}}
	m := Mover{Ref: func(param string) string { return param }}
	if log, ok := sb.run(m.FetchContainer(p, s, "fetch"), nil); !ok {
		t.Fatalf("the fetch container failed:\n%s", log)
	}
	check("fetch container")
	if FoldersContainer(&ir.Pipeline{KubectlImage: "tool"}, &ir.Step{}, nil, nil) != nil {
		t.Error("a step without folders has a folders container")
	}
}
