package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// fakeRclone does what the scripts ask of rclone, on folders: the
// bucket's remote :s3:KEY is $FAKE_S3/KEY. As on S3, the bucket holds no
// empty folder, a key with nothing below it lists as an empty folder
// (lsjson --stat says IsDir), and copy, copyto and sync of it copy
// nothing; sync deletes what the source lacks, copy keeps it.
const fakeRclone = `#!/bin/sh
set -eu
at() { case $1 in :s3:*) echo "$FAKE_S3/${1#:s3:}" ;; *) echo "$1" ;; esac; }
prune() { [ ! -d "$FAKE_S3" ] || find "$FAKE_S3" -mindepth 1 -depth -type d -empty -exec rmdir {} +; }
cmd=$1; shift
case $cmd in
lsjson) if [ -f "$(at "$2")" ]; then echo '{"IsDir": false}'; else echo '{"IsDir": true}'; fi ;;
copy) s=$(at "$1") d=$(at "$2"); [ -d "$s" ] || exit 0; mkdir -p "$d"; cp -R "$s/." "$d/"; prune ;;
sync) s=$(at "$1") d=$(at "$2"); rm -rf "$d"; mkdir -p "$d"; cp -R "$s/." "$d/"; prune ;;
copyto) s=$(at "$1") d=$(at "$2"); [ -f "$s" ] || exit 0; mkdir -p "$(dirname "$d")"; cp "$s" "$d" ;;
copyurl) cp "${1#file://}" "$2" ;;
*) echo "fake rclone: $cmd" >&2; exit 2 ;;
esac
`

// kubelet expands a container's words as the kubelet does: $$ is $, and
// $(NAME) the value of a variable the container defines, else itself.
func kubelet(word string, env map[string]string) string {
	var out strings.Builder
	for i := 0; i < len(word); i++ {
		switch {
		case strings.HasPrefix(word[i:], "$$"):
			out.WriteByte('$')
			i++
		case strings.HasPrefix(word[i:], "$("):
			if end := strings.IndexByte(word[i:], ')'); end > 0 {
				if v, ok := env[word[i+2:i+end]]; ok {
					out.WriteString(v)
					i += end
					continue
				}
			}
			out.WriteByte('$')
		default:
			out.WriteByte(word[i])
		}
	}
	return out.String()
}

// sandbox is a run of containers on this machine: the scratch folder and
// the bucket are folders of dir, rclone a fake.
type sandbox struct {
	t   *testing.T
	dir string
}

// toolbox, when set, is a folder of BusyBox's applets that the sandbox's
// containers find first on their PATH (TestScriptsUnderBusyBox).
var toolbox string

func newSandbox(t *testing.T) sandbox {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "rclone"), []byte(fakeRclone), 0o755); err != nil {
		t.Fatal(err)
	}
	return sandbox{t, dir}
}

// path is the PATH of the sandbox's containers: the fake rclone, then
// the toolbox's applets, then this machine's.
func (sb sandbox) path() string {
	dirs := []string{filepath.Join(sb.dir, "bin")}
	if toolbox != "" {
		dirs = append(dirs, toolbox)
	}
	return strings.Join(append(dirs, os.Getenv("PATH")), ":")
}

// The movers' scripts run in the platform's tool image, rclone's own by
// default, whose shell and tools are Alpine's BusyBox, not GNU's: every
// test of the scripts runs again with BusyBox's applets first on the
// PATH (its sh, find, cp, chmod, sha256sum, sort), where one is
// installed (.ci/run installs Debian's).
func TestScriptsUnderBusyBox(t *testing.T) {
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("no busybox on this machine")
	}
	out, err := exec.Command(busybox, "--list").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, applet := range strings.Fields(string(out)) {
		if err := os.Symlink(busybox, filepath.Join(dir, applet)); err != nil {
			t.Fatal(err)
		}
	}
	toolbox = dir
	defer func() { toolbox = "" }()
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"round-trip", TestMoverRoundTrip}, {"sequence", TestSequence}, {"sequence-escapes", TestSequenceEscapes},
		{"verify-shares", TestVerifySharesFetchedData}, {"retry", TestMoverRetryLeavesNoStaleFiles},
		{"empty-folder", TestMoverEmptyFolder}, {"folders", TestFolders},
		{"cache", TestCacheRoundTrip}, {"cache-urls", TestCacheKeyOfURLs}, {"cache-claims", TestCacheKeyOfClaims},
		{"provenance", TestProvenanceStatement},
	} {
		t.Run(c.name, c.test)
	}
}

// run runs c with env as its variables; the scratch folder is the
// sandbox's. It returns the output and whether c succeeded.
func (sb sandbox) run(c corev1.Container, env map[string]string) (string, bool) {
	cmdEnv := append(os.Environ(), "PATH="+sb.path(), "FAKE_S3="+filepath.Join(sb.dir, "s3"))
	// As the kubelet: a variable's value is expanded by those defined
	// before it; one from a source (a Secret's key, a label) has the
	// value env gives it; the arguments, by all of them.
	defined := map[string]string{}
	maps.Copy(defined, env)
	for name := range defined {
		if slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name }) {
			delete(defined, name)
		}
	}
	for _, e := range c.Env {
		v, ok := env[e.Name]
		if e.ValueFrom == nil {
			v, ok = kubelet(e.Value, defined), true
		}
		if ok {
			defined[e.Name] = v
			cmdEnv = append(cmdEnv, e.Name+"="+v)
		}
	}
	var words []string
	for _, w := range append(slices.Clone(c.Command), c.Args...) {
		w = kubelet(w, defined)
		w = strings.ReplaceAll(w, ScratchPath, filepath.Join(sb.dir, "scratch"))
		words = append(words, w)
	}
	cmd := exec.Command(words[0], words[1:]...)
	if toolbox != "" && !strings.Contains(words[0], "/") {
		cmd.Path = filepath.Join(toolbox, words[0])
	}
	cmd.Env = cmdEnv
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// write makes the files of tree below dir.
func write(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	for name, body := range tree {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// folderDigest is ir.FolderDigest of tree.
func folderDigest(tree map[string]string) string {
	var lines []string
	for name, body := range tree {
		sum := sha256.Sum256([]byte(body))
		lines = append(lines, hex.EncodeToString(sum[:])+"  ./"+name+"\n")
	}
	// By path, as ir.FolderDigest says: after the sha256 and two spaces.
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	return hex.EncodeToString(sum[:])
}

// A step's outputs are uploaded below the run's and the step's key, each
// with its sha256 and URI written; a later step fetches one, whole or in
// part, checked against that sha256, and a mismatch fails it.
func TestMoverRoundTrip(t *testing.T) {
	sb := newSandbox(t)
	work := filepath.Join(sb.dir, "work")
	data := map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n"}
	write(t, filepath.Join(work, "data"), data)
	write(t, work, map[string]string{"metrics.json": `{"acc": 1}`})
	prod := &ir.Step{Name: "prod", Uploads: []ir.Upload{
		{Name: "data", Path: ir.Lit(filepath.Join(work, "data")), Folder: true},
		{Name: "metrics", Path: ir.Lit(filepath.Join(work, "metrics.json")), Final: true},
	}}
	out := filepath.Join(sb.dir, "out")
	cons := &ir.Step{Name: "cons", Fetches: []ir.Fetch{
		{Name: "prod-data", From: &ir.Output{Step: "prod", Name: "data"}, Path: ir.Lit(filepath.Join(out, "data"))},
		{Name: "prod-data-2", From: &ir.Output{Step: "prod", Name: "data"}, Sub: "sub/b.txt",
			Path: ir.Lit(filepath.Join(out, "b.txt"))},
	}}
	p := &ir.Pipeline{Steps: []*ir.Step{prod, cons},
		ObjectStore: &ir.ObjectStore{ToolImage: "rclone", S3: &ir.S3Bucket{Bucket: "b"}}}
	digests := filepath.Join(sb.dir, "digests")
	recorded := map[string]string{}
	m := Mover{
		RunID:        "$(RUN)",
		Ref:          func(param string) string { return param },
		Want:         func(f ir.Fetch) string { return recorded[f.From.Name] },
		DigestFile:   func(u ir.Upload) string { return filepath.Join(digests, u.Name) },
		URIFile:      func(u ir.Upload) string { return filepath.Join(digests, u.Name+".uri") },
		ArtifactFile: func(u ir.Upload) string { return filepath.Join(digests, u.Name+".chains") },
	}
	env := map[string]string{"RUN": "run-1"}
	if log, ok := sb.run(m.UploadContainer(p, prod, "upload"), env); !ok {
		t.Fatalf("the upload failed:\n%s", log)
	}
	checkChainsResult(t, filepath.Join(digests, "metrics.chains"), "s3://b/run-1/prod/metrics", sha(`{"acc": 1}`))
	// A folder's is its listing, uploaded beside it, whose sha256 is the
	// folder's digest.
	checkChainsResult(t, filepath.Join(digests, "data.chains"), "s3://b/run-1/prod/data.sha256sum", folderDigest(data))
	listed, err := os.ReadFile(filepath.Join(sb.dir, "s3", "b", "run-1", "prod", "data.sha256sum"))
	if want := sha("alpha\n") + "  ./a.txt\n" + sha("beta\n") + "  ./sub/b.txt\n"; err != nil || string(listed) != want ||
		sha(string(listed)) != folderDigest(data) {
		t.Errorf("the folder's listing holds %q (%v), want %q, whose sha256 is the folder's", listed, err, want)
	}
	for name, want := range map[string]string{
		"s3/b/run-1/prod/data/sub/b.txt": "beta\n",
		"s3/b/run-1/prod/metrics":        `{"acc": 1}`,
		"digests/data":                   folderDigest(data),
		"digests/metrics":                sha(`{"acc": 1}`),
		"digests/data.uri":               "s3://b/run-1/prod/data/",
		"digests/metrics.uri":            "s3://b/run-1/prod/metrics",
	} {
		got, err := os.ReadFile(filepath.Join(sb.dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s holds %q (%v), want %q", name, got, err, want)
		}
		if name == "digests/data" {
			recorded["data"] = string(got)
		}
	}
	if log, ok := sb.run(m.FetchContainer(p, cons, "fetch"), env); !ok {
		t.Fatalf("the fetch failed:\n%s", log)
	}
	for name, want := range map[string]string{"out/data/a.txt": "alpha\n", "out/data/sub/b.txt": "beta\n",
		"out/b.txt": "beta\n"} {
		if got, err := os.ReadFile(filepath.Join(sb.dir, name)); err != nil || string(got) != want {
			t.Errorf("%s holds %q (%v), want %q", name, got, err, want)
		}
	}
	recorded["data"] = strings.Repeat("0", 64)
	if log, ok := sb.run(m.FetchContainer(p, cons, "fetch"), env); ok ||
		!strings.Contains(log, "prod-data: sha256 "+folderDigest(data)+", want 000") {
		t.Errorf("a fetch of the wrong digest succeeded (%v) or said otherwise:\n%s", ok, log)
	}
}

// checkChainsResult checks that file holds a result Tekton Chains makes
// a subject of: an object of exactly uri, digest (sha256:<64 hex>) and
// isBuildArtifact "true" (pkg/artifacts/signable.go, tektoncd/chains
// v0.26.2), as JSON Tekton reads into an object result.
func checkChainsResult(t *testing.T, file, uri, digest string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v: %s", file, err, data)
	}
	want := map[string]string{"uri": uri, "digest": "sha256:" + digest, "isBuildArtifact": "true"}
	if !maps.Equal(got, want) || !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(got["digest"]) {
		t.Errorf("%s holds %v, want %v", file, got, want)
	}
}

// A folder whose files differ from what was uploaded gets no result
// for Tekton Chains: its listing's sha256 is not the digest recorded.
func TestArtifactScriptChecksTheListing(t *testing.T) {
	sb := newSandbox(t)
	dir := filepath.Join(sb.dir, "data")
	write(t, dir, map[string]string{"a.txt": "alpha\n"})
	write(t, sb.dir, map[string]string{"digest": strings.Repeat("0", 64), "uri": "s3://b/k/"})
	c := corev1.Container{}
	c.Command, c.Args = Sequence(Phase{"artifacts", ArtifactScript, []string{"folder", filepath.Join(sb.dir, "digest"),
		filepath.Join(sb.dir, "uri"), filepath.Join(sb.dir, "out"), dir, "b/k/"}})
	if log, ok := sb.run(c, nil); ok || !strings.Contains(log, "changed after its upload: sha256 "+
		folderDigest(map[string]string{"a.txt": "alpha\n"})+", uploaded 000") {
		t.Errorf("a changed folder got a result (%v), or the script said otherwise:\n%s", ok, log)
	}
	if _, err := os.Stat(filepath.Join(sb.dir, "out")); err == nil {
		t.Error("the changed folder's result was written")
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Each phase of a sequence gets its own items, and the first that fails
// stops the rest.
func TestSequence(t *testing.T) {
	sb := newSandbox(t)
	echo := `echo "$0:$#:$*"`
	c := corev1.Container{}
	c.Command, c.Args = Sequence(Phase{"one", echo, []string{"a b", "c"}}, Phase{"two", echo, nil},
		Phase{"three", echo + "; exit 3", []string{"d"}}, Phase{"four", echo, []string{"e"}})
	log, ok := sb.run(c, nil)
	if want := "one:2:a b c\ntwo:0:\nthree:1:d\n"; ok || log != want {
		t.Errorf("the sequence printed %q (succeeded: %v), want %q and a failure", log, ok, want)
	}
}

// The Job's and Tekton's references reach the items as written, while
// the scripts are escaped for the kubelet.
func TestSequenceEscapes(t *testing.T) {
	cmd, args := Sequence(Phase{"p", "echo $(date)", []string{"$(RUN)", "$(context.pipelineRun.uid)"}})
	if cmd[2] != ir.KubeLiteral(SequenceScript) || !strings.Contains(cmd[2], "$$((i + 1))") {
		t.Errorf("the sequence script is not escaped: %q", cmd[2])
	}
	if want := []string{"p", "echo $$(date)", "2", "$(RUN)", "$(context.pipelineRun.uid)"}; !slices.Equal(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
}

// What Argo loads from S3 comes with minio-go's modes, folders 0700 and
// files 0600, which only the loader's uid reads; the verify script puts
// it in place for any uid, as the pod's emptyDir is: folders 0777, files
// 0666, and the folders above it that it makes 0777 too.
func TestVerifySharesFetchedData(t *testing.T) {
	sb := newSandbox(t)
	scratch := filepath.Join(sb.dir, "scratch", "in")
	write(t, scratch, map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n"})
	for _, p := range []string{"sub/b.txt", "a.txt", "sub", "."} {
		mode := os.FileMode(0o600)
		if strings.HasSuffix(p, "sub") || p == "." {
			mode = 0o700
		}
		if err := os.Chmod(filepath.Join(scratch, p), mode); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(sb.dir, "work", "deep", "in")
	c := corev1.Container{Command: []string{"sh", "-c", VerifyScript, "verify", "in", scratch, "", dest}}
	if log, ok := sb.run(c, nil); !ok {
		t.Fatalf("verify failed:\n%s", log)
	}
	for p, want := range map[string]os.FileMode{
		"work/deep": 0o777, "work/deep/in": 0o777, "work/deep/in/sub": 0o777,
		"work/deep/in/a.txt": 0o666, "work/deep/in/sub/b.txt": 0o666,
	} {
		fi, err := os.Stat(filepath.Join(sb.dir, p))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
}
