package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// cachedPair is moverPair with a cache: prod uploads the folder at dir
// as "data", cons fetches it to out and uploads the file at result; both
// are cached, cons's key holding the param "lr". keys holds each step's
// key once its key container made it.
func cachedPair(sb sandbox, dir, out, result string, keys map[string]string) (*ir.Pipeline, Mover) {
	prod := &ir.Step{Name: "prod", Key: &ir.StepKey{Recipe: strings.Repeat("a", 64)},
		Uploads: []ir.Upload{{Name: "data", Path: ir.Lit(dir), Folder: true}}}
	cons := &ir.Step{Name: "cons", Key: &ir.StepKey{Recipe: strings.Repeat("b", 64), Params: []string{"lr"}},
		Fetches: []ir.Fetch{{Name: "prod-data", From: &ir.Output{Step: "prod", Name: "data"}, Path: ir.Lit(out)}},
		Uploads: []ir.Upload{{Name: "result", Path: ir.Lit(result), Final: true}}}
	p := &ir.Pipeline{Steps: []*ir.Step{prod, cons}, ObjectStore: &ir.ObjectStore{ToolImage: "rclone",
		S3: &ir.S3Bucket{Bucket: "b"}, Cache: &ir.Cache{Prefix: "cache"}}}
	return p, Mover{
		RunID:      "run-1",
		Ref:        func(param string) string { return map[string]string{"lr": "0.1"}[param] },
		Key:        func(step string) string { return keys[step] },
		DigestFile: func(u ir.Upload) string { return filepath.Join(sb.dir, "digests", u.Name) },
		Attempt:    "0",
	}
}

// key runs the key container of step s, records its key in keys, and
// says whether it found it in the cache. Its answers stay in
// keyout-<step> of the sandbox, which answers reads.
func (sb sandbox) key(p *ir.Pipeline, m Mover, s *ir.Step, keys map[string]string) bool {
	sb.t.Helper()
	out := filepath.Join(sb.dir, "keyout-"+s.Name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		sb.t.Fatal(err)
	}
	log, ok := sb.run(m.KeyContainer(p, s, "key", out), nil)
	if !ok {
		sb.t.Fatalf("the key container of %s failed:\n%s", s.Name, log)
	}
	keys[s.Name] = sb.answer(s, "key")
	hit := sb.answer(s, "hit")
	if hit != "true" && hit != "false" {
		sb.t.Fatalf("the key container of %s answered %q:\n%s", s.Name, hit, log)
	}
	return hit == "true"
}

// answer is what the key container of s answered as name, as an engine
// gives it to the step's containers.
func (sb sandbox) answer(s *ir.Step, name string) string {
	data, _ := os.ReadFile(filepath.Join(sb.dir, "keyout-"+s.Name, name))
	return string(data)
}

// keyOf is a key as ir.KeyText defines it, of lines after the version.
func keyOf(lines ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(append([]string{ir.KeyText}, lines...), "\n") + "\n"))
	return hex.EncodeToString(sum[:])
}

// A cached output whose key has no manifest, or whose manifest records
// no such output, fails the key container, the fetch and the provenance
// at once, saying which.
func TestCacheManifestMissing(t *testing.T) {
	sb := newSandbox(t)
	keys := map[string]string{"prod": strings.Repeat("c", 64)}
	p, m := cachedPair(sb, filepath.Join(sb.dir, "data"), filepath.Join(sb.dir, "out"), filepath.Join(sb.dir, "r"), keys)
	cons := p.Steps[1]
	out := filepath.Join(sb.dir, "keyout-cons")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	m.Want = func(ir.Fetch) string { return strings.Repeat("0", 64) }
	containers := map[string]func() corev1.Container{
		"key":        func() corev1.Container { return m.KeyContainer(p, cons, "key", out) },
		"fetch":      func() corev1.Container { return m.FetchContainer(p, cons, "fetch") },
		"provenance": func() corev1.Container { return m.ProvenanceContainer(p, "argo", "provenance") },
	}
	// The provenance reads prod's manifest.
	p.Steps[1].Uploads[0].Final, p.Steps[0].Uploads[0].Final = false, true
	p.Provenance = &ir.Provenance{Specs: strings.Repeat("3", 64)}
	for name, c := range containers {
		if log, ok := sb.run(c(), nil); ok || !strings.Contains(log, "the cache has no manifest at b/cache/"+keys["prod"]) {
			t.Errorf("%s, with no manifest: succeeded %v, or said otherwise:\n%s", name, ok, log)
		}
	}
	write(t, filepath.Join(sb.dir, "s3", "b", "cache", keys["prod"]), map[string]string{
		"manifest": ir.CacheManifest + "\nentry run-1.prod.0\noutput other " + strings.Repeat("1", 64) + "\n"})
	for name, c := range containers {
		if log, ok := sb.run(c(), nil); ok || !strings.Contains(log, "records no output data") {
			t.Errorf("%s, with no output data in the manifest: succeeded %v, or said otherwise:\n%s", name, ok, log)
		}
	}
}

// A cached step's key is what ir.KeyText says; the first run finds it
// missing, uploads into its entry and writes its manifest; the next
// finds it; a step after it keys on the digest the manifest records,
// and fetches from the entry, checked against that digest: a byte
// changed in the entry fails the fetch. A param's value changes the key.
func TestCacheRoundTrip(t *testing.T) {
	sb := newSandbox(t)
	work := filepath.Join(sb.dir, "work")
	dir, out, result := filepath.Join(work, "data"), filepath.Join(sb.dir, "out", "data"), filepath.Join(work, "r.txt")
	tree := map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n"}
	write(t, dir, tree)
	keys := map[string]string{}
	p, m := cachedPair(sb, dir, out, result, keys)
	prod, cons := p.Steps[0], p.Steps[1]
	if sb.key(p, m, prod, keys) {
		t.Fatal("an empty cache holds prod's key")
	}
	if want := keyOf("recipe " + prod.Key.Recipe); keys["prod"] != want {
		t.Errorf("prod's key is %s, want %s (ir.KeyText)", keys["prod"], want)
	}
	if log, ok := sb.run(m.UploadContainer(p, prod, "upload"), nil); !ok {
		t.Fatalf("prod's upload failed:\n%s", log)
	}
	entry := filepath.Join(sb.dir, "s3", "b", "cache", keys["prod"])
	manifest, err := os.ReadFile(filepath.Join(entry, "manifest"))
	if err != nil {
		t.Fatal(err)
	}
	digest := folderDigest(tree)
	if want := ir.CacheManifest + "\nentry run-1.prod.0\noutput data " + digest + "\n"; string(manifest) != want {
		t.Errorf("the manifest is\n%s\nwant\n%s", manifest, want)
	}
	if got := listing(t, filepath.Join(entry, "run-1.prod.0", "data")); len(got) != 2 {
		t.Errorf("the entry holds %v, want a.txt and sub/b.txt", got)
	}
	if !sb.key(p, m, prod, keys) {
		t.Error("prod's key is not found once its manifest is written")
	}

	if sb.key(p, m, cons, keys) {
		t.Fatal("the cache holds cons's key before it ran")
	}
	lr := sha256.Sum256([]byte("0.1"))
	want := keyOf("recipe "+cons.Key.Recipe, "param lr "+hex.EncodeToString(lr[:]), "input prod-data "+digest)
	if keys["cons"] != want {
		t.Errorf("cons's key is %s, want %s: its recipe, its param's value and prod's digest", keys["cons"], want)
	}
	// Another run writes prod's key again, other data in an entry of its
	// own, before cons's pod fetches: cons, cached, fetches what its key
	// holds, the entry and digest its key task read; a step that is not
	// cached fetches what the manifest names now. Both check the digest.
	other := filepath.Join(entry, "run-2.prod.0", "data")
	write(t, other, map[string]string{"a.txt": "other\n"})
	write(t, entry, map[string]string{"manifest": ir.CacheManifest + "\nentry run-2.prod.0\noutput data " +
		folderDigest(map[string]string{"a.txt": "other\n"}) + "\n"})
	keyed := m
	keyed.KeyOut = func(name string) string { return sb.answer(cons, name) }
	if log, ok := sb.run(keyed.FetchContainer(p, cons, "fetch"), nil); !ok {
		t.Fatalf("cons's fetch from the cache failed:\n%s", log)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "sub", "b.txt")); string(got) != "beta\n" {
		t.Errorf("cons fetched %q, want beta: the entry its key holds", got)
	}
	fresh := func() { // a new pod: its scratch folder, and what it fetched, are gone
		t.Helper()
		if err := errors.Join(os.RemoveAll(out), os.RemoveAll(filepath.Join(sb.dir, "scratch"))); err != nil {
			t.Fatal(err)
		}
	}
	fresh()
	if log, ok := sb.run(m.FetchContainer(p, cons, "fetch"), nil); !ok {
		t.Fatalf("a fetch by the manifest failed:\n%s", log)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "a.txt")); string(got) != "other\n" {
		t.Errorf("a step that is not cached fetched %q, want the entry the manifest names now", got)
	}
	write(t, filepath.Join(entry, "run-1.prod.0", "data"), map[string]string{"a.txt": "alphA\n"})
	fresh()
	if log, ok := sb.run(keyed.FetchContainer(p, cons, "fetch"), nil); ok || !strings.Contains(log, "want "+digest) {
		t.Errorf("a fetch of a changed entry succeeded (%v), or said otherwise:\n%s", ok, log)
	}

	m.Ref = func(string) string { return "0.2" }
	sb.key(p, m, cons, keys)
	if keys["cons"] == want {
		t.Error("another value of the param lr left cons's key as it was")
	}
}

// A URL written without a digest is fetched by the key container, and
// its digest enters the key; one written with a digest enters as it is.
func TestCacheKeyOfURLs(t *testing.T) {
	sb := newSandbox(t)
	file := filepath.Join(sb.dir, "raw.csv")
	write(t, sb.dir, map[string]string{"raw.csv": "1,2\n"})
	sum := sha256.Sum256([]byte("1,2\n"))
	digest := hex.EncodeToString(sum[:])
	s := &ir.Step{Name: "s", Key: &ir.StepKey{Recipe: strings.Repeat("c", 64)}, Fetches: []ir.Fetch{
		{Name: "b-pinned", URL: &ir.URL{Raw: "https://example.com/x", Scheme: "https", SHA256: strings.Repeat("d", 64)}},
		{Name: "a-raw", URL: &ir.URL{Raw: "file://" + file, Scheme: "https"}},
	}}
	p := &ir.Pipeline{Steps: []*ir.Step{s}, ObjectStore: &ir.ObjectStore{ToolImage: "rclone",
		S3: &ir.S3Bucket{Bucket: "b"}, Cache: &ir.Cache{Prefix: "cache"}}}
	keys := map[string]string{}
	sb.key(p, Mover{}, s, keys)
	want := keyOf("recipe "+s.Key.Recipe, "input a-raw "+digest, "input b-pinned "+strings.Repeat("d", 64))
	if keys["s"] != want {
		t.Errorf("the key is %s, want %s: the fetched URL's digest, then the written one, by name", keys["s"], want)
	}
	// The data changes between the key task's fetch and the step's: the
	// step's fetch is checked against the digest its key holds.
	write(t, sb.dir, map[string]string{"raw.csv": "1,3\n"})
	s.Fetches = s.Fetches[1:]
	m := Mover{Ref: func(p string) string { return p }, KeyOut: func(name string) string { return sb.answer(s, name) }}
	if log, ok := sb.run(m.FetchContainer(p, s, "fetch"), nil); ok || !strings.Contains(log, "want "+digest) {
		t.Errorf("a URL's data changed since its key was made was fetched (%v), or the fetch said otherwise:\n%s", ok, log)
	}
	// An object that is not there is no input with an empty digest.
	s.Fetches = []ir.Fetch{{Name: "gone", URL: &ir.URL{Raw: "s3://b/gone/", Scheme: "s3", Bucket: "b", Key: "gone/"}}}
	keyFile := filepath.Join(sb.dir, "keyout-s", "key")
	if log, ok := sb.run(Mover{}.KeyContainer(p, s, "key", filepath.Dir(keyFile)), nil); ok ||
		!strings.Contains(log, "nothing was fetched") {
		t.Errorf("a key was made of a missing object (%v):\n%s", ok, log)
	}
}

// A claim the step reads is digested by the key container where it is
// mounted, a folder's and a file's, after the inputs, and enters the
// key; the step's upload keeps its outputs only when the claim still
// holds what the key says: data changed while it ran fails it before
// any upload, and no manifest is written.
func TestCacheKeyOfClaims(t *testing.T) {
	sb := newSandbox(t)
	claim, work := filepath.Join(sb.dir, "claim"), filepath.Join(sb.dir, "work")
	raw := map[string]string{"images.csv": "id\n1\n", "more/notes.md": "notes\n"}
	write(t, filepath.Join(claim, "raw"), raw)
	write(t, claim, map[string]string{"labels.csv": "1,cat\n"})
	write(t, work, map[string]string{"metrics.json": "{}"})
	labels := sha256.Sum256([]byte("1,cat\n"))
	s := &ir.Step{Name: "s", Key: &ir.StepKey{Recipe: strings.Repeat("c", 64), Claims: []ir.Mount{
		{Volume: "data", MountPath: filepath.Join(claim, "labels.csv"), ReadOnly: true, File: true},
		{Volume: "data", MountPath: filepath.Join(claim, "raw"), ReadOnly: true},
	}}, Fetches: []ir.Fetch{{Name: "pinned", URL: &ir.URL{Raw: "https://example.com/x", Scheme: "https",
		SHA256: strings.Repeat("d", 64)}}},
		Uploads: []ir.Upload{{Name: "metrics", Path: ir.Lit(filepath.Join(work, "metrics.json")), Final: true}}}
	p := &ir.Pipeline{Steps: []*ir.Step{s}, ObjectStore: &ir.ObjectStore{ToolImage: "rclone",
		S3: &ir.S3Bucket{Bucket: "b"}, Cache: &ir.Cache{Prefix: "cache"}}}
	keys := map[string]string{}
	sb.key(p, Mover{}, s, keys)
	want := keyOf("recipe "+s.Key.Recipe, "input pinned "+strings.Repeat("d", 64),
		"claim "+filepath.Join(claim, "labels.csv")+" "+hex.EncodeToString(labels[:]),
		"claim "+filepath.Join(claim, "raw")+" "+folderDigest(raw))
	if keys["s"] != want {
		t.Errorf("the key is %s, want %s: the input, then each claim's digest, in the order of the key's claims",
			keys["s"], want)
	}
	m := Mover{RunID: "run-1", Attempt: "0", Key: func(string) string { return keys["s"] },
		KeyOut:     func(name string) string { return sb.answer(s, name) },
		DigestFile: func(u ir.Upload) string { return filepath.Join(sb.dir, "digests", u.Name) }}
	manifest := filepath.Join(sb.dir, "s3", "b", "cache", keys["s"], "manifest")
	write(t, filepath.Join(claim, "raw"), map[string]string{"more/notes.md": "changed\n"})
	log, ok := sb.run(m.UploadContainer(p, s, "upload"), nil)
	if ok || !strings.Contains(log, "changed while the step ran") {
		t.Errorf("a step whose claim changed while it ran kept its outputs (%v), or said otherwise:\n%s", ok, log)
	}
	if _, err := os.Stat(filepath.Join(sb.dir, "s3", "b", "cache", keys["s"])); !os.IsNotExist(err) {
		t.Errorf("a step whose claim changed uploaded into its key's folder: %v", err)
	}
	write(t, filepath.Join(claim, "raw"), raw)
	if log, ok := sb.run(m.UploadContainer(p, s, "upload"), nil); !ok {
		t.Fatalf("the upload of a step whose claim is unchanged failed:\n%s", log)
	}
	if _, err := os.Stat(manifest); err != nil {
		t.Errorf("the step's manifest: %v", err)
	}

	// A link in the claim is followed, as the step follows it: what it
	// points to enters the key under the link's path. A link out of the
	// mounted folder (which another pod sees apart), a loop of links, or
	// nothing where the step mounts the claim is no digest: the key task
	// fails.
	sb.key(p, Mover{}, s, keys)
	before := keys["s"]
	if err := os.Symlink(filepath.Join(claim, "raw", "more"), filepath.Join(claim, "raw", "linked")); err != nil {
		t.Fatal(err)
	}
	if sb.key(p, Mover{}, s, keys); keys["s"] == before {
		t.Error("a link to a folder of the claim left the key as it was")
	}
	keyOut := filepath.Join(sb.dir, "keyout-s")
	for _, c := range []struct{ link, to, says string }{
		{"out", filepath.Join(sb.dir, "work"), "outside"},
		{"more/loop", filepath.Join(claim, "raw"), "a loop"},
	} {
		at := filepath.Join(claim, "raw", c.link)
		if err := os.Symlink(c.to, at); err != nil {
			t.Fatal(err)
		}
		log, ok = sb.run(Mover{}.KeyContainer(p, s, "key", keyOut), nil)
		if ok || !strings.Contains(log, c.says) || !strings.Contains(log, "cannot digest all") {
			t.Errorf("a key was made of a claim with a link %s to %s (%v), or it did not say %q:\n%s", c.link, c.to, ok,
				c.says, log)
		}
		if err := os.Remove(at); err != nil {
			t.Fatal(err)
		}
	}
	s.Key.Claims[0].MountPath = filepath.Join(claim, "gone.csv")
	if log, ok := sb.run(Mover{}.KeyContainer(p, s, "key", keyOut), nil); ok || !strings.Contains(log, "nothing is at") {
		t.Errorf("a key was made of a claim with nothing where it is mounted (%v):\n%s", ok, log)
	}
}

// The provenance task fills the statement's placeholders: the run's id,
// each result's sha256, as its step recorded it or, for a cached step,
// as its key's manifest records it; it uploads it to the run's folder.
// A digest that is not one fails it. The cached step's output is named
// entry, as the manifest's line of the entry is.
// A Job's upload container writes the statement after its uploads, each
// subject's sha256 read from the file DigestScript wrote it to.
func TestProvenancePhase(t *testing.T) {
	sb := newSandbox(t)
	work := filepath.Join(sb.dir, "work")
	write(t, work, map[string]string{"metrics.json": `{"acc": 1}`})
	s := &ir.Step{Name: "evaluate", Image: "python:3.12",
		Uploads: []ir.Upload{{Name: "metrics", Path: ir.Lit(filepath.Join(work, "metrics.json")), Final: true}}}
	p := &ir.Pipeline{Name: "run", Steps: []*ir.Step{s},
		ObjectStore: &ir.ObjectStore{ToolImage: "rclone", S3: &ir.S3Bucket{Bucket: "b"}},
		Provenance:  &ir.Provenance{Specs: strings.Repeat("3", 64), Version: "v1.0.0", Commit: "abc"}}
	m := Mover{RunID: "job-1", Ref: func(string) string { return "" },
		DigestFile: func(u ir.Upload) string { return filepath.Join(sb.dir, "digests", u.Name) }}
	if log, ok := sb.run(m.UploadContainer(p, s, "upload", m.ProvenancePhase(p, "job")), nil); !ok {
		t.Fatalf("the upload container failed:\n%s", log)
	}
	data, err := os.ReadFile(filepath.Join(sb.dir, "s3", "b", "job-1", ir.ProvenanceFile))
	if err != nil {
		t.Fatal(err)
	}
	var st Statement
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("the statement is no JSON: %v\n%s", err, data)
	}
	sum := sha256.Sum256([]byte(`{"acc": 1}`))
	want := []Descriptor{{Name: "evaluate/metrics", Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}}}
	if !reflect.DeepEqual(st.Subject, want) || st.Predicate.BuildDefinition.ExternalParameters["engine"] != "job" ||
		st.Predicate.RunDetails.Metadata.InvocationID != "job-1" {
		t.Errorf("the statement is %s; want subjects %+v, engine job, invocation job-1", data, want)
	}
}

func TestProvenanceStatement(t *testing.T) {
	sb := newSandbox(t)
	keys := map[string]string{"cached": strings.Repeat("e", 64)}
	cachedStep := &ir.Step{Name: "cached", Image: "python:3.12", Key: &ir.StepKey{Recipe: "r"},
		Uploads: []ir.Upload{{Name: "entry", Path: ir.Lit("/m"), Folder: true, Final: true}}}
	plain := &ir.Step{Name: "plain", Image: "python@sha256:" + strings.Repeat("1", 64),
		Fetches: []ir.Fetch{{Name: "raw",
			URL: &ir.URL{Raw: "s3://b/raw.csv", Scheme: "s3", SHA256: strings.Repeat("2", 64)}}},
		Uploads: []ir.Upload{{Name: "metrics", Path: ir.Lit("/x"), Final: true}, {Name: "tmp", Path: ir.Lit("/y")}}}
	p := &ir.Pipeline{Name: "run", Steps: []*ir.Step{cachedStep, plain},
		ObjectStore: &ir.ObjectStore{ToolImage: "rclone", S3: &ir.S3Bucket{Bucket: "b"}, Cache: &ir.Cache{Prefix: "cache"}},
		Provenance:  &ir.Provenance{Specs: strings.Repeat("3", 64), Version: "v1.0.0", Commit: "abc"}}
	write(t, filepath.Join(sb.dir, "s3", "b", "cache", keys["cached"]), map[string]string{
		"manifest": ir.CacheManifest + "\nentry run-0\noutput entry " + strings.Repeat("4", 64) + "\n"})
	// Each param's value's sha256, and the value when it holds nothing
	// JSON or sed would read.
	// A value that names a variable of the container is no reference
	// to it: the bucket's secret key stays out of the statement.
	values := map[string]string{"lr": "0.1", "note": `a "b" & c|d \ @@param0@@`, "empty": "",
		"sly": "$(RCLONE_S3_SECRET_ACCESS_KEY)"}
	for _, name := range []string{"lr", "note", "empty", "sly"} {
		p.Params = append(p.Params, ir.Param{Name: name})
	}
	recorded := map[string]string{"metrics": strings.Repeat("5", 64)}
	m := Mover{RunID: "run-1", Key: func(step string) string { return keys[step] },
		Want: func(f ir.Fetch) string { return recorded[f.From.Name] },
		Ref:  func(param string) string { return values[param] }}
	secret := map[string]string{"RCLONE_S3_SECRET_ACCESS_KEY": "s3cr3t"}
	if log, ok := sb.run(m.ProvenanceContainer(p, "argo", "provenance"), secret); !ok {
		t.Fatalf("the provenance container failed:\n%s", log)
	}
	data, err := os.ReadFile(filepath.Join(sb.dir, "s3", "b", "run-1", ir.ProvenanceFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cr3t") {
		t.Errorf("the statement holds the bucket's secret key:\n%s", data)
	}
	var st Statement
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("the statement is no JSON: %v\n%s", err, data)
	}
	want := []Descriptor{
		{Name: "cached/entry", URI: "s3://b/cache/" + keys["cached"] + "/run-0/entry",
			Digest: map[string]string{ir.FolderDigestKey: strings.Repeat("4", 64)}},
		{Name: "plain/metrics", Digest: map[string]string{"sha256": strings.Repeat("5", 64)}},
	}
	if !reflect.DeepEqual(st.Subject, want) {
		t.Errorf("subjects %+v, want %+v", st.Subject, want)
	}
	deps := st.Predicate.BuildDefinition.ResolvedDependencies
	if len(deps) != 4 || deps[0].Digest["sha256"] != p.Provenance.Specs ||
		deps[2].Digest["sha256"] != strings.Repeat("1", 64) ||
		deps[3].URI != "s3://b/raw.csv" || deps[1].Digest != nil {
		t.Errorf("resolved dependencies %+v: want the specs, the tag alone, the pinned image, the URL with its digest", deps)
	}
	wantParams := map[string]any{}
	for name, v := range values {
		sum := sha256.Sum256([]byte(v))
		param := map[string]any{"sha256": hex.EncodeToString(sum[:]), "value": v}
		if name == "note" || name == "sly" {
			delete(param, "value")
		}
		wantParams[name] = param
	}
	if got := st.Predicate.BuildDefinition.ExternalParameters["params"]; !reflect.DeepEqual(got, wantParams) {
		t.Errorf("params %v, want %v", got, wantParams)
	}
	if id := st.Predicate.RunDetails.Metadata.InvocationID; id != "run-1" {
		t.Errorf("invocationId %q, want run-1", id)
	}
	recorded["metrics"] = "not-a-digest"
	if log, ok := sb.run(m.ProvenanceContainer(p, "argo", "provenance"), nil); ok || !strings.Contains(log, "no sha256") {
		t.Errorf("a subject without a digest was written (%v):\n%s", ok, log)
	}
}
