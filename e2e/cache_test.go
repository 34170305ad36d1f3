//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The cache tests run examples/cached-pipeline (bucket-pipeline's cube:
// prepare, train, evaluate) four times on each engine, each engine with
// a cache prefix of its own, in a namespace that enforces Pod Security's
// restricted level:
//
//  1. evaluate's container exits 3 (MLCUBE_E2E_EXIT from the Secret
//     e2e-fault, whose value no key holds): prepare and train run and
//     enter the cache, evaluate fails, and so does the run;
//  2. the same run, submitted again once the Secret says 0: prepare and
//     train are skipped, evaluate runs (resume is a rerun);
//  3. the same again: every step is skipped, and no pod but the key
//     tasks' starts;
//  4. another value of the param threshold, which only evaluate reads:
//     evaluate alone runs.
//
// Every key a key task made is checked against ir.KeyText, from the
// recipe in the compiled run, the param's value, the seeded raw data's
// digest and the manifests in the bucket: the same definition on every
// engine, so the same step gets the same key on each.

// cachedExample is the example the cache tests run four times.
const cachedExample = "cached-pipeline"

// cachedExamples are the examples the cache tests run, which the generic
// real-node tests leave to them.
var cachedExamples = []string{cachedExample, "cached-mixed-storage"}

// cacheSpecs is examples/cached-pipeline with the cache below prefix and
// evaluate's exit status from the Secret e2e-fault.
func cacheSpecs(t *testing.T, prefix string) string {
	return cachedSpecs(t, cachedExample, prefix, func(p map[string]any) {
		p["cubes"] = map[string]any{"bp": filepath.Join(repoRoot, "examples", "bucket-pipeline")}
		evaluate := p["steps"].(map[string]any)["evaluate"].(map[string]any)
		evaluate["secretEnv"] = map[string]any{"MLCUBE_E2E_EXIT": map[string]any{"secret": "e2e-fault", "key": "exit"}}
	})
}

// mnistCacheSpecs is examples/mnist-bucket with the cache below prefix,
// and its inputs, s3:// URLs without a digest, below prefix too (which
// mnistCacheCases seeds and changes).
func mnistCacheSpecs(t *testing.T, prefix string) string {
	return cachedSpecs(t, "mnist-bucket", prefix, func(p map[string]any) {
		p["cubes"] = map[string]any{"mnist": filepath.Join(repoRoot, "examples", "mnist")}
		for _, st := range p["steps"].(map[string]any) {
			inputs := st.(map[string]any)["inputs"].(map[string]any)
			for name, url := range inputs {
				inputs[name] = strings.Replace(url.(string), "s3://mlcube-e2e/", "s3://mlcube-e2e/"+prefix+"/", 1)
			}
		}
	})
}

// claimCacheSpecs is examples/cached-mixed-storage with the cache below
// prefix: prepare reads raw/ from the claim datasets (checkClaimCache).
func claimCacheSpecs(t *testing.T, prefix string) string {
	return cachedSpecs(t, "cached-mixed-storage", prefix, func(p map[string]any) {
		p["cubes"] = map[string]any{"bp": filepath.Join(repoRoot, "examples", "bucket-pipeline")}
	})
}

// cachedSpecs writes examples/example with its cube paths and steps as
// pipeline makes them, and a platform that caches below prefix, in a
// namespace that enforces Pod Security's restricted level, with the
// image locked to its digest by mlcube-compile lock. It returns the
// folder.
func cachedSpecs(t *testing.T, example, prefix string, pipeline func(map[string]any)) string {
	t.Helper()
	dir, ex := t.TempDir(), filepath.Join(repoRoot, "examples", example)
	edit := func(name string, change func(map[string]any)) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			data, err = os.ReadFile(filepath.Join(ex, name))
		}
		if err != nil {
			t.Fatal(err)
		}
		doc := map[string]any{}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		change(doc)
		if data, err = yaml.Marshal(doc); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("pipeline.yaml", pipeline)
	edit("platform.yaml", func(p map[string]any) {
		p["image"] = tektonImage
		p["objectStore"].(map[string]any)["cache"] = map[string]any{"prefix": prefix}
		// In a namespace that enforces Pod Security's restricted level:
		// the key tasks' and the provenance task's pods too.
		p["podSecurity"] = "restricted"
		p["securityContext"] = map[string]any{"runAsUser": 1000, "runAsGroup": 1000}
		p["tekton"] = map[string]any{"setSecurityContext": true}
	})
	lock := lockImages(t, filepath.Join(dir, "pipeline.yaml"))
	edit("platform.yaml", func(p map[string]any) { p["imageDigests"] = lock })
	return dir
}

// lockImages runs mlcube-compile lock on the pipeline file, which asks
// the node's registry (tekton.sh) for the digest of its image's tag,
// and checks the digest is the one containerd holds under that tag, the
// one its pods run. It returns the imageDigests lock printed.
func lockImages(t *testing.T, pipeline string) map[string]string {
	t.Helper()
	out, stderr, code := compileArgs(t, "mlcube-compile", "lock", "--task", pipeline)
	var lock struct {
		ImageDigests map[string]string `json:"imageDigests"`
	}
	if err := yaml.Unmarshal([]byte(out), &lock); code != 0 || err != nil {
		t.Fatalf("lock: exit %d, %v: %s%s", code, err, out, stderr)
	}
	held := strings.Fields(strings.Split(nodeCtr(t, "images", "ls", "name=="+tektonImage), "\n")[1])
	if len(lock.ImageDigests) != 1 || len(held) < 3 || lock.ImageDigests[tektonImage] != held[2] {
		t.Fatalf("lock printed %v; the node holds %s as %v", lock.ImageDigests, tektonImage, held)
	}
	t.Logf("lock: %s is %s in the node's registry and in its containerd", tektonImage, held[2])
	return lock.ImageDigests
}

// restrict makes namespace ns enforce Pod Security's restricted level.
func restrict(t *testing.T, c *cluster, ns string) {
	c.must(t, "", "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted", "--overwrite")
}

// cacheRun is what one run of the cache tests did: its phase, the steps
// whose pods ran and those the engine skipped, each key task's key, and
// how long the run took.
type cacheRun struct {
	phase, uid   string
	ran, skipped []string
	keys         map[string]string
	took         time.Duration
}

// cacheEngine submits the compiled run with a value of threshold.
type cacheEngine interface {
	submit(t *testing.T, threshold string) cacheRun
	// keyArgs are the key container's args of each step's key task, and
	// resolve the step a key reference of them names.
	keyArgs(t *testing.T) map[string][]string
	refStep(ref string) string
	// thresholdRef is how the key task's args refer to the param
	// threshold, whose value the engine gives them.
	thresholdRef() string
}

// TestE2EArgoCache runs the cache tests on the suite's Argo controller
// (v3.7; the Argo 4 pass skips it, ARGO4_SKIP).
func TestE2EArgoCache(t *testing.T) {
	t.Parallel()
	checkCache(t, argoCached(t, "pipeline", cacheSpecs))
}

// TestE2ETektonCache runs the cache tests on the suite's Tekton.
func TestE2ETektonCache(t *testing.T) {
	t.Parallel()
	checkCache(t, tektonCached(t, "pipeline", cacheSpecs))
}

// TestE2EArgoCacheMnist runs mnist-bucket with a cache on the suite's
// Argo controller (v3.7, and v4 when make e2e runs the Argo tests again).
func TestE2EArgoCacheMnist(t *testing.T) {
	t.Parallel()
	checkMnistCache(t, argoCached(t, "mnist", mnistCacheSpecs))
}

// TestE2ETektonCacheMnist runs mnist-bucket with a cache on the suite's
// Tekton.
func TestE2ETektonCacheMnist(t *testing.T) {
	t.Parallel()
	checkMnistCache(t, tektonCached(t, "mnist", mnistCacheSpecs))
}

// TestE2EArgoCacheClaim runs cached-mixed-storage, whose prepare reads
// a claim, with a cache on the suite's Argo controller (v3.7; the Argo 4
// pass skips it, ARGO4_SKIP).
func TestE2EArgoCacheClaim(t *testing.T) {
	t.Parallel()
	r := argoCached(t, "claim", claimCacheSpecs)
	checkClaimCache(t, r, r.e.(*argoCache).r)
}

// TestE2ETektonCacheClaim runs cached-mixed-storage with a cache on the
// suite's Tekton, whose affinity assistant places the key task that
// mounts the claim as it places prepare.
func TestE2ETektonCacheClaim(t *testing.T) {
	t.Parallel()
	r := tektonCached(t, "claim", claimCacheSpecs)
	checkClaimCache(t, r, r.e.(*tektonCache).r.realRun)
}

// cached is a compiled run of a cache test, in a namespace of its own
// that enforces Pod Security's restricted level and holds the bucket's
// credentials, caching below prefix.
type cached struct {
	e      cacheEngine
	c      *cluster
	ns     string
	s      *objectStore
	prefix string
	// claim is where the claim datasets is on the node, for a run that
	// reads it (checkClaimCache); empty for none.
	claim string
}

// argoCached compiles what specs writes, with a cache below a prefix of
// its own, named after name, for the suite's Argo.
func argoCached(t *testing.T, name string, specs func(*testing.T, string) string) cached {
	t.Helper()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	prefix := fmt.Sprintf("e2e-cache/argo-%s-%d", name, time.Now().UnixNano())
	docs, _ := realNodeCompile(t, specs(t, prefix), "argo", tektonImage, nil)
	r := c.newRealRun(t, "cache-"+name, docs, decodeWorkflow(t, docs[len(docs)-1]))
	s.credentials(t, c, r.ns)
	restrict(t, c, r.ns)
	r.wf.Name, r.wf.GenerateName = "", name+"-"
	return cached{e: &argoCache{r}, c: c, ns: r.ns, s: s, prefix: prefix}
}

// tektonCached is argoCached for the suite's Tekton.
func tektonCached(t *testing.T, name string, specs func(*testing.T, string) string) cached {
	t.Helper()
	c, s := e2eCluster(t), e2eObjectStore(t)
	seedBucket(t, s)
	prefix := fmt.Sprintf("e2e-cache/tekton-%s-%d", name, time.Now().UnixNano())
	docs, _ := realNodeCompile(t, specs(t, prefix), "tekton", tektonImage, nil)
	r := c.newTektonRun(t, "cache-"+name, docs, decodePipelineRun(t, docs[len(docs)-1]))
	s.credentials(t, c, r.ns)
	restrict(t, c, r.ns)
	r.pr.Name, r.pr.GenerateName = "", name+"-"
	return cached{e: &tektonCache{r, s}, c: c, ns: r.ns, s: s, prefix: prefix}
}

// cacheCase is one run of a cache test: what is changed before it, the
// value of threshold it gets, and what it must end as and run.
type cacheCase struct {
	what      string
	change    func()
	threshold string
	phase     string
	ran       []string
}

// checkCache runs the four runs of cached-pipeline and checks what each
// ran and skipped, every key, and the last run's provenance.
func checkCache(t *testing.T, r cached) {
	fault := func(code string) func() {
		return func() {
			r.c.must(t, "", "-n", r.ns, "delete", "secret", "e2e-fault", "--ignore-not-found")
			r.c.must(t, "", "-n", r.ns, "create", "secret", "generic", "e2e-fault", "--from-literal=exit="+code)
		}
	}
	steps := []string{"evaluate", "prepare", "train"}
	last := runCached(t, r, steps, []cacheCase{
		{"first run, evaluate exits 3", fault("3"), "0.5", "Failed", steps},
		{"submitted again, the fault removed", fault("0"), "0.5", "Succeeded", []string{"evaluate"}},
		{"submitted again, unchanged", nil, "0.5", "Succeeded", nil},
		{"threshold changed", nil, "0.75", "Succeeded", []string{"evaluate"}},
	})
	checkProvenance(t, r.s, r.prefix, last, "0.75")
}

// checkMnistCache runs mnist-bucket three times, its inputs below prefix:
// the first run runs both steps; the same again, none; after train's
// configuration changes in the bucket (an s3:// input without a digest,
// which train's key task digests), train alone.
func checkMnistCache(t *testing.T, r cached) {
	for _, key := range []string{"mnist/data.yaml", "mnist/train.yaml"} {
		r.s.put(t, r.prefix+"/"+key, []byte(seeded[key]))
	}
	steps := []string{"download", "train"}
	runCached(t, r, steps, []cacheCase{
		{"first run", nil, "", "Succeeded", steps},
		{"submitted again, unchanged", nil, "", "Succeeded", nil},
		{"train.yaml changed in the bucket", func() { r.s.put(t, r.prefix+"/mnist/train.yaml", []byte("epochs: 2\n")) },
			"", "Succeeded", []string{"train"}},
	})
}

// checkClaimCache runs cached-mixed-storage three times, raw/ on the
// claim datasets, a ReadWriteOnce local volume of the node's that r
// makes: the first run runs every step; the same again, none, its key
// tasks digesting raw/ where prepare mounts it; after a file of raw/
// changed on the claim, prepare and the steps downstream of it (each
// output holds its pod's name, so train's and evaluate's inputs change
// too).
func checkClaimCache(t *testing.T, r cached, run *realRun) {
	run.claim(t, "datasets",
		corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}, claimMake)
	r.claim = run.volumes["datasets"]
	fillClaim(t, r.claim)
	steps := []string{"evaluate", "prepare", "train"}
	changed := func() {
		if err := os.WriteFile(filepath.Join(r.claim, "raw", "images.csv"), []byte("id,label\n1,cat\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runCached(t, r, steps, []cacheCase{
		{"first run", nil, "", "Succeeded", steps},
		{"submitted again, unchanged", nil, "", "Succeeded", nil},
		{"raw/images.csv changed on the claim", changed, "", "Succeeded", steps},
	})
}

// runCached submits the compiled run once for each case, after its
// change, and checks what it ran and skipped among steps, and every
// key. It returns the last run.
func runCached(t *testing.T, r cached, steps []string, cases []cacheCase) cacheRun {
	t.Helper()
	slices.Sort(steps)
	var took []string
	var last cacheRun
	for i, want := range cases {
		if want.change != nil {
			want.change()
		}
		got := r.e.submit(t, want.threshold)
		// Only the steps: not the key tasks, the provenance task or
		// Argo's exit handler.
		notStep := func(s string) bool { return !slices.Contains(steps, s) }
		got.ran, got.skipped = slices.DeleteFunc(got.ran, notStep), slices.DeleteFunc(got.skipped, notStep)
		if got.phase == "Error" {
			// Argo's: a step's failed container errs the container of
			// the set that depends on it, and so the run.
			got.phase = "Failed"
		}
		slices.Sort(got.ran)
		slices.Sort(got.skipped)
		skipped := slices.DeleteFunc(slices.Clone(steps), func(s string) bool { return slices.Contains(want.ran, s) })
		if got.phase != want.phase || !slices.Equal(got.ran, want.ran) || !slices.Equal(got.skipped, skipped) {
			t.Fatalf("run %d (%s): %s, ran %v, skipped %v; want %s, ran %v, skipped %v", i+1, want.what, got.phase,
				got.ran, got.skipped, want.phase, want.ran, skipped)
		}
		checkKeys(t, r, got.keys, want.threshold)
		t.Logf("run %d (%s): %s in %s; ran %v, skipped %v; keys %v", i+1, want.what, got.phase,
			got.took.Round(time.Second), got.ran, got.skipped, got.keys)
		took = append(took, got.took.Round(time.Second).String())
		last = got
	}
	t.Logf("durations: %s", strings.Join(took, ", "))
	return last
}

// checkProvenance checks the statement the last run wrote beside its
// result: it names the value of threshold the run got; mlcube-compile
// verify finds evaluate's metrics, fetched from the cache's entry, to be
// its subject, and refuses them with a byte changed.
func checkProvenance(t *testing.T, s *objectStore, prefix string, run cacheRun, threshold string) {
	t.Helper()
	dir := t.TempDir()
	statement, metrics := filepath.Join(dir, "provenance.intoto.json"), filepath.Join(dir, "metrics.json")
	if err := os.WriteFile(statement, s.get(t, run.uid+"/provenance.intoto.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := string(s.get(t, prefix+"/"+run.keys["evaluate"]+"/manifest"))
	entry := regexp.MustCompile(`(?m)^entry (\S+)$`).FindStringSubmatch(manifest)
	if entry == nil {
		t.Fatalf("evaluate's manifest names no entry:\n%s", manifest)
	}
	data := s.get(t, prefix+"/"+run.keys["evaluate"]+"/"+entry[1]+"/metrics")
	if err := os.WriteFile(metrics, data, 0o644); err != nil {
		t.Fatal(err)
	}
	checkStatementParams(t, statement, map[string]string{"threshold": threshold})
	out, stderr, code := compileArgs(t, "mlcube-compile", "verify", metrics, statement)
	if code != 0 || !strings.Contains(out, "is subject evaluate/metrics of") {
		t.Fatalf("verify of the run's metrics: exit %d\n%s%s", code, out, stderr)
	}
	t.Logf("verify: %s", strings.TrimSpace(out))
	data[len(data)/2] ^= 1
	if err := os.WriteFile(metrics, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = compileArgs(t, "mlcube-compile", "verify", metrics, statement)
	if code != 1 || out != "" || !strings.Contains(stderr, "[MLC754]") {
		t.Fatalf("verify of the metrics with a byte changed: exit %d\n%s%s", code, out, stderr)
	}
	t.Logf("verify, a byte changed: exit 1: %s", strings.TrimSpace(stderr))
}

// checkStatementParams checks the params the statement in file says the
// run got: each one's value, and its sha256.
func checkStatementParams(t *testing.T, file string, values map[string]string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Predicate struct {
			BuildDefinition struct {
				ExternalParameters struct {
					Params map[string]map[string]string `json:"params"`
				} `json:"externalParameters"`
			} `json:"buildDefinition"`
		} `json:"predicate"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{}
	for name, v := range values {
		want[name] = map[string]string{"value": v, "sha256": sha256Hex([]byte(v))}
	}
	if got := st.Predicate.BuildDefinition.ExternalParameters.Params; !reflect.DeepEqual(got, want) {
		t.Fatalf("the statement's params are %v, want %v", got, want)
	}
	t.Logf("the statement's params: %v", want)
}

// checkKeys checks each key against ir.KeyText: the recipe, then each
// param's value's sha256, then each input's: a URL's data fetched (the
// seeded raw/), or what a cached step's manifest records; then each
// claim's, what the node's folder of the claim holds (the examples
// mount the claim's folder of the name their workspace's folder has).
func checkKeys(t *testing.T, r cached, keys map[string]string, threshold string) {
	t.Helper()
	e, s, prefix := r.e, r.s, r.prefix
	for step, args := range e.keyArgs(t) {
		lines := []string{"mlcube-compile cache v1", "recipe " + args[1]}
		for items := args[4:]; len(items) >= 4; items = items[4:] {
			kind, name, a, b := items[0], items[1], items[2], items[3]
			switch kind {
			case "param":
				if a == e.thresholdRef() {
					a = threshold
				}
				lines = append(lines, "param "+name+" "+sha256Hex([]byte(a)))
			case "digest":
				lines = append(lines, "input "+name+" "+a)
			case "fetch":
				key := strings.TrimPrefix(b, s.Bucket+"/")
				objects := s.objects(t, key)
				digest, file := objects[key]
				if !file {
					digest = folderDigest(objects, key)
				}
				lines = append(lines, "input "+name+" "+digest)
			case "cached":
				manifest := string(s.get(t, prefix+"/"+keys[e.refStep(a)]+"/manifest"))
				m := regexp.MustCompile(`(?m)^output ` + b + ` ([0-9a-f]{64})$`).FindStringSubmatch(manifest)
				if m == nil {
					t.Fatalf("step %s's manifest records no %s:\n%s", e.refStep(a), b, manifest)
				}
				lines = append(lines, "input "+name+" "+m[1])
			case "claim":
				lines = append(lines, "claim "+a+" "+hostDigest(t, filepath.Join(r.claim, filepath.Base(a))))
			}
		}
		want := sha256Hex([]byte(strings.Join(lines, "\n") + "\n"))
		if keys[step] != want {
			t.Errorf("step %s's key is %s, want %s, the sha256 of:\n%s", step, keys[step], want, strings.Join(lines, "\n"))
		}
	}
}

// hostDigest is ir.FolderDigest's digest of the folder dir of this
// machine.
func hostDigest(t *testing.T, dir string) string {
	t.Helper()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the claim's folder %s: %v (a folder of the claim's is mounted at a folder of the same name)", dir, err)
	}
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = sha256Hex(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return folderDigest(files, "")
}

// helperTask says whether a task is the run's own, not a step's: a key
// task, or the task that writes the provenance.
func helperTask(task string) bool {
	return strings.HasSuffix(task, "-cache-key") || task == "mlcube-provenance"
}

// argoCache submits the compiled Workflow.
type argoCache struct{ r *realRun }

func (a *argoCache) submit(t *testing.T, threshold string) cacheRun {
	t.Helper()
	for i, p := range a.r.wf.Spec.Arguments.Parameters {
		if p.Name == "threshold" {
			a.r.wf.Spec.Arguments.Parameters[i].Value = wfv1.AnyStringPtr(threshold)
		}
	}
	done := a.r.c.wait(t, a.r.ns, a.r.create(t), 8*time.Minute)
	run := cacheRun{phase: string(done.Status.Phase), uid: string(done.UID), keys: map[string]string{},
		took: done.Status.FinishedAt.Sub(done.Status.StartedAt.Time)}
	var pods corev1.PodList
	out := a.r.c.must(t, "", "-n", a.r.ns, "get", "pods", "-l", "workflows.argoproj.io/workflow="+done.Name, "-o", "json")
	if err := json.Unmarshal([]byte(out), &pods); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if task := strings.TrimPrefix(p.Annotations["workflows.argoproj.io/node-name"], done.Name+"."); !helperTask(task) {
			run.ran = append(run.ran, task)
		}
	}
	for _, n := range done.Status.Nodes {
		switch {
		case n.Phase == wfv1.NodeSkipped && !helperTask(n.DisplayName):
			run.skipped = append(run.skipped, n.DisplayName)
		case strings.HasSuffix(n.DisplayName, "-cache-key"):
			run.keys[strings.TrimSuffix(n.DisplayName, "-cache-key")] = outputParam(&n, "key")
		}
	}
	return run
}

func (a *argoCache) keyArgs(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for _, tmpl := range a.r.wf.Spec.Templates {
		if step, ok := strings.CutSuffix(tmpl.Name, "-cache-key"); ok {
			out[step] = tmpl.Container.Args
		}
	}
	return out
}

func (a *argoCache) refStep(ref string) string {
	return strings.TrimSuffix(strings.TrimPrefix(ref, "{{inputs.parameters.mlcube-key-"), "}}")
}

func (a *argoCache) thresholdRef() string { return "{{workflow.parameters.threshold}}" }

// tektonCache submits the compiled PipelineRun, whose uploads are in s.
type tektonCache struct {
	r *tektonRun
	s *objectStore
}

func (k *tektonCache) submit(t *testing.T, threshold string) cacheRun {
	t.Helper()
	for i, p := range k.r.pr.Spec.Params {
		if p.Name == "threshold" {
			k.r.pr.Spec.Params[i].Value = *tektonv1.NewStructuredValues(threshold)
		}
	}
	done := k.r.run(t, 8*time.Minute)
	cond := done.Status.GetCondition("Succeeded")
	run := cacheRun{phase: "Failed", uid: string(done.UID), keys: map[string]string{},
		took: done.Status.CompletionTime.Sub(done.Status.StartTime.Time)}
	if cond != nil && cond.Status == corev1.ConditionTrue {
		run.phase = "Succeeded"
	}
	var pods corev1.PodList
	out := k.r.c.must(t, "", "-n", k.r.ns, "get", "pods", "-l", "tekton.dev/pipelineRun="+done.Name, "-o", "json")
	if err := json.Unmarshal([]byte(out), &pods); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if task := p.Labels["tekton.dev/pipelineTask"]; !helperTask(task) {
			run.ran = append(run.ran, task)
		}
	}
	for _, s := range done.Status.SkippedTasks {
		if !helperTask(s.Name) {
			run.skipped = append(run.skipped, s.Name)
		}
	}
	k.r.pr.Name = done.Name
	for task, results := range taskResults(t, k.r) {
		if step, ok := strings.CutSuffix(task, "-cache-key"); ok {
			run.keys[step] = results["key"]
		}
		checkChainsResults(t, k.s, task, results)
	}
	k.r.pr.Name = ""
	return run
}

// checkChainsResults checks the results for Tekton Chains of a task that
// ran, as its TaskRun holds them: for each output, an object of a URI,
// the output's sha256 (its -sha256 result) as sha256:<hex> and
// isBuildArtifact "true", which Chains makes a subject of
// (pkg/artifacts/signable.go, tektoncd/chains v0.26.2). A file's URI is
// its -uri result; a folder's, its listing beside it in the bucket,
// whose sha256 is that digest.
func checkChainsResults(t *testing.T, s *objectStore, task string, results map[string]string) {
	t.Helper()
	for name, sum := range results {
		output, ok := strings.CutSuffix(name, "-sha256")
		if !ok || helperTask(task) {
			continue
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(results[output+"_ARTIFACT_OUTPUTS"]), &got); err != nil {
			t.Fatalf("%s's result for Tekton Chains of %s: %v: %q", task, output, err, results[output+"_ARTIFACT_OUTPUTS"])
		}
		uri := results[output+"-uri"]
		if folder, ok := strings.CutSuffix(uri, "/"); ok {
			uri = folder + ".sha256sum"
			listing := s.get(t, strings.TrimPrefix(uri, "s3://"+s.Bucket+"/"))
			if sha256Hex(listing) != sum {
				t.Errorf("%s's listing of %s at %s has sha256 %s, want %s:\n%s", task, output, uri, sha256Hex(listing), sum,
					listing)
			}
		}
		want := map[string]string{"uri": uri, "digest": "sha256:" + sum, "isBuildArtifact": "true"}
		if len(sum) != 64 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s's result for Tekton Chains of %s is %v, want %v", task, output, got, want)
		}
		t.Logf("%s's %s_ARTIFACT_OUTPUTS: %v", task, output, got)
	}
}

func (k *tektonCache) keyArgs(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for _, task := range k.r.pr.Spec.PipelineSpec.Tasks {
		if step, ok := strings.CutSuffix(task.Name, "-cache-key"); ok {
			out[step] = task.TaskSpec.Steps[0].Args
		}
	}
	return out
}

func (k *tektonCache) refStep(ref string) string {
	return strings.TrimSuffix(strings.TrimPrefix(ref, "$(tasks."), "-cache-key.results.key)")
}

func (k *tektonCache) thresholdRef() string { return "$(params.threshold)" }
