package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
)

// Tests of what MPIJobs do at run time, beyond what validators check.

// specDir writes files (name → content) into a new folder and returns it.
func specDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if content == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// compileDir compiles the cube, pipeline and platform of dir (those that
// exist) for backend; it returns stdout and stderr, failing on exit != 0.
func compileDir(t *testing.T, backend, dir string, extra ...string) (string, string) {
	t.Helper()
	args := append([]string{"mlcube-compile", "--backend", backend}, exampleArgs(dir)...)
	out, stderr, code := compileArgs(t, append(args, extra...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return out, stderr
}

// resnetPipeline is seed 002's pipeline with step settings replaced.
func resnetPipeline(t *testing.T, step, platform string) string {
	cube, err := filepath.Abs(filepath.Join(repoRoot, "examples", "resnet50-multinode"))
	if err != nil {
		t.Fatal(err)
	}
	return specDir(t, map[string]string{
		"pipeline.yaml": "name: resnet50\ncubes: {resnet: " + cube + "}\nsteps:\n  train:\n    task: train\n" + step,
		"platform.yaml": platform,
		"mlops.env":     "DATASET_DIR=/mnt/mlops/tf_dataset\n",
	})
}

func mpiJobOf(t *testing.T, backend, out string) *kubeflow.MPIJob {
	t.Helper()
	jobs := embeddedJobs(t, backend, out)
	if len(jobs) != 1 {
		t.Fatalf("want one job, got %d", len(jobs))
	}
	return validateMPIJob(t, jobs[0])
}

func launcherOf(job *kubeflow.MPIJob) corev1.Container {
	return job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template.Spec.Containers[0]
}

// The launcher starts only once every worker is Ready; mpi-operator's
// default, AtStartup, starts it at once, and with backoffLimit 0 its one
// attempt fails while large images are still being pulled
// (pkg/controller/mpi_job_controller.go, v0.8.0).
func TestMPILauncherWaitsForWorkers(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		job := mpiJobOf(t, backend, compileExample(t, backend, "resnet50-multinode"))
		if job.Spec.LauncherCreationPolicy != kubeflow.LauncherCreationPolicyWaitForWorkersReady {
			t.Errorf("%s: launcherCreationPolicy %q, want WaitForWorkersReady", backend, job.Spec.LauncherCreationPolicy)
		}
	}
}

// Every variable of the step's env reaches every rank: ranks on workers
// start from sshd's environment, so mpirun must forward each one.
func TestMPIEnvReachesEveryRank(t *testing.T) {
	step := `    envFile: mlops.env
    env: {OMP_NUM_THREADS: "8", NCCL_DEBUG: INFO}
    secretEnv: {WANDB_API_KEY: {secret: wandb, key: api-key}}
    resources: {gpu: 1}
    mpi: {workers: 2, implementation: IMPL}
`
	pipeline := "configs: {GLOBALCFG: {batch: 32}}\n"
	for impl, want := range map[string]func(names []string) string{
		"OpenMPI": func(names []string) string {
			return "-x " + strings.Join(names, " -x ")
		},
		// Hydra forwards the launcher's whole env with -genvall; -genvlist
		// would drop every variable it does not name, PATH among them.
		"Intel": func([]string) string { return "-genvall" },
		"MPICH": func([]string) string { return "-genvall" },
	} {
		dir := resnetPipeline(t, strings.Replace(step, "IMPL", impl, 1), "")
		p, _ := os.ReadFile(filepath.Join(dir, "pipeline.yaml"))
		os.WriteFile(filepath.Join(dir, "pipeline.yaml"), append([]byte(pipeline), p...), 0o644)
		for _, backend := range []string{"argo", "tekton"} {
			out, _ := compileDir(t, backend, dir)
			launcher := launcherOf(mpiJobOf(t, backend, out))
			var names []string
			for _, e := range launcher.Env {
				names = append(names, e.Name)
			}
			for _, name := range []string{"DATASET_DIR", "GLOBALCFG", "NCCL_DEBUG", "OMP_NUM_THREADS", "WANDB_API_KEY"} {
				if !slices.Contains(names, name) {
					t.Fatalf("%s %s: the launcher's env lacks %s: %v", impl, backend, name, names)
				}
			}
			cmd := strings.Join(launcher.Command, " ")
			if !strings.Contains(cmd, " "+want(names)+" python ") {
				t.Errorf("%s %s: mpirun does not forward %v to the ranks: %q", impl, backend, names, cmd)
			}
		}
	}
}

// One rank per GPU: 2 workers with 8 GPUs each run 16 ranks unless
// slotsPerWorker says otherwise, which a warning questions.
func TestMPIOneRankPerGPU(t *testing.T) {
	dir := resnetPipeline(t, "    resources: {gpu: 8}\n    mpi: {workers: 2}\n", "")
	out, stderr := compileDir(t, "argo", dir)
	job := mpiJobOf(t, "argo", out)
	if *job.Spec.SlotsPerWorker != 8 {
		t.Errorf("slotsPerWorker %d, want 8", *job.Spec.SlotsPerWorker)
	}
	if cmd := strings.Join(launcherOf(job).Command, " "); !strings.HasPrefix(cmd, "mpirun --allow-run-as-root -np 16 ") {
		t.Errorf("launcher: %q, want -np 16", cmd)
	}
	if stderr != "" {
		t.Errorf("unexpected warnings: %s", stderr)
	}
	dir = resnetPipeline(t, "    resources: {gpu: 8}\n    mpi: {workers: 2, slotsPerWorker: 1}\n", "")
	out, stderr = compileDir(t, "argo", dir)
	if cmd := strings.Join(launcherOf(mpiJobOf(t, "argo", out)).Command, " "); !strings.Contains(cmd, " -np 2 ") {
		t.Errorf("an explicit slotsPerWorker: %q, want -np 2", cmd)
	}
	if !strings.Contains(stderr, "pipeline.yaml:7:") || !strings.Contains(stderr, "steps.train.mpi.slotsPerWorker: 1 ranks per worker on 8 GPUs") {
		t.Errorf("no warning at slotsPerWorker: %q", stderr)
	}
}

// The pods of an MPIJob or DaskJob do not run under the run's service
// account, which may create jobs: no account and no token, or the
// platform's jobServiceAccountName.
func TestJobPodsDoNotUseRunAccount(t *testing.T) {
	for _, ex := range []string{"resnet50-multinode", "dask-benchmark"} {
		for _, backend := range []string{"argo", "tekton"} {
			for _, m := range embeddedJobs(t, backend, compileExample(t, backend, ex)) {
				forEachPodSpec(m, func(path string, spec map[string]any) {
					if spec["serviceAccountName"] != nil || spec["automountServiceAccountToken"] != false {
						t.Errorf("%s %s %s: serviceAccountName %v, automountServiceAccountToken %v; want none and false", ex, backend, path, spec["serviceAccountName"], spec["automountServiceAccountToken"])
					}
				})
			}
		}
	}
	dir := resnetPipeline(t, "    mpi: {workers: 2}\n", "serviceAccountName: runner\njobServiceAccountName: trainer\n")
	out, _ := compileDir(t, "argo", dir)
	for _, r := range mpiJobOf(t, "argo", out).Spec.MPIReplicaSpecs {
		if sa := r.Template.Spec.ServiceAccountName; sa != "trainer" || r.Template.Spec.AutomountServiceAccountToken != nil {
			t.Errorf("with jobServiceAccountName: pods run as %q (token %v), want trainer", sa, r.Template.Spec.AutomountServiceAccountToken)
		}
	}
}

// forEachPodSpec calls fn with each pod spec inside a job's manifest.
func forEachPodSpec(v any, fn func(path string, spec map[string]any)) {
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["containers"]; ok {
				fn(path, v)
				return
			}
			for k, child := range v {
				walk(path+"."+k, child)
			}
		case []any:
			for _, child := range v {
				walk(path, child)
			}
		}
	}
	walk("", v)
}

// Root with fsGroup and keys at /root/.ssh: ssh refuses the group-readable
// key (kubeflow/mpi-operator#429), a certain failure, so the compiler
// refuses it with the fix, at the fsGroup.
func TestMPIRootFSGroupRefused(t *testing.T) {
	dir := resnetPipeline(t, "    securityContext: {fsGroup: 100}\n    mpi: {workers: 2}\n", "")
	args := append([]string{"mlcube-compile", "--backend", "argo"}, exampleArgs(dir)...)
	out, stderr, code := compileArgs(t, args...)
	if code == 0 || out != "" || !strings.Contains(stderr, "pipeline.yaml:6:23: steps.train.securityContext.fsGroup: fsGroup 100") || !strings.Contains(stderr, "kubeflow/mpi-operator#429") || !strings.Contains(stderr, "sshAuthMountPath") {
		t.Errorf("want an error with the fix at fsGroup and nothing on stdout; exit %d, stdout %d bytes, stderr %q", code, len(out), stderr)
	}
	dir = resnetPipeline(t, "    securityContext: {runAsUser: 1000, fsGroup: 100}\n    mpi: {workers: 2, sshAuthMountPath: /home/mpiuser/.ssh}\n", "")
	if _, stderr := compileDir(t, "argo", dir); stderr != "" {
		t.Errorf("a non-root user with its own ~/.ssh: unexpected warning %q", stderr)
	}
}

// runAsNonRoot without runAsUser is non-root: the kubelet starts only an
// image whose user is not root. So mpirun gets no --allow-run-as-root, keys
// at /root/.ssh are warned about, and so are Dask setup packages.
func TestRunAsNonRootIsNonRoot(t *testing.T) {
	dir := resnetPipeline(t, "    securityContext: {runAsNonRoot: true}\n    mpi: {workers: 2}\n", "")
	out, stderr := compileDir(t, "argo", dir)
	if cmd := strings.Join(launcherOf(mpiJobOf(t, "argo", out)).Command, " "); strings.Contains(cmd, "--allow-run-as-root") {
		t.Errorf("launcher: %q, want no --allow-run-as-root", cmd)
	}
	if !strings.Contains(stderr, "steps.train.mpi.sshAuthMountPath: the workers run as the image's non-root user (runAsNonRoot)") {
		t.Errorf("want a warning about keys under /root/.ssh, got %q", stderr)
	}
	dir = resnetPipeline(t, "    securityContext: {runAsUser: 0}\n    mpi: {workers: 2}\n", "securityContext: {runAsNonRoot: true}\n")
	args := append([]string{"mlcube-compile", "--backend", "argo"}, exampleArgs(dir)...)
	if out, stderr, code := compileArgs(t, args...); code == 0 || out != "" || !strings.Contains(stderr, "pipeline.yaml:6:23: steps.train.securityContext.runAsUser: runAsUser 0 is root, and with runAsNonRoot: true the kubelet refuses") {
		t.Errorf("runAsUser 0 under the platform's runAsNonRoot: exit %d, stdout %d bytes, %q; want an error at runAsUser", code, len(out), stderr)
	}
	dir = daskPipeline(t, "    securityContext: {runAsNonRoot: true}\n", "      setup: {pipPackages: [deepecho]}\n")
	_, stderr, code := compileArgs(t, "mlcube-compile", "--task", filepath.Join(dir, "pipeline.yaml"))
	if code != 0 || !strings.Contains(stderr, "pipeline.yaml:9:7: warning: steps.run.dask.setup: the Dask pods run as the image's non-root user") {
		t.Errorf("exit %d, %q; want a warning at setup", code, stderr)
	}
}

// Dask workers are sized from worker: (threads, memory limit, limits
// equal to requests); the scheduler survives its setup install; setup
// packages under a non-root user are warned about.
func TestDaskWorkersSizedAndSchedulerStarts(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		for _, m := range embeddedJobs(t, backend, compileExample(t, backend, "dask-benchmark")) {
			if m["kind"] != "DaskJob" {
				continue
			}
			cluster := m["spec"].(map[string]any)["cluster"].(map[string]any)["spec"].(map[string]any)
			worker := cluster["worker"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			args := strings.Join(asStrings(worker["args"]), " ")
			if !strings.Contains(args, "--nthreads 4 --memory-limit 4000000000") {
				t.Errorf("%s: worker args %q, want --nthreads 4 --memory-limit 4000000000 (seed 004's cpu 4, memory 4G)", backend, args)
			}
			limits, _ := worker["resources"].(map[string]any)["limits"].(map[string]any)
			if limits["cpu"] != "4" || limits["memory"] != "4G" {
				t.Errorf("%s: worker limits %v, want the requests", backend, limits)
			}
			sched := cluster["scheduler"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			probe, _ := sched["startupProbe"].(map[string]any)
			if probe == nil || probe["failureThreshold"].(float64)*probe["periodSeconds"].(float64) < 600 {
				t.Errorf("%s: scheduler startupProbe %v, want at least 10 minutes for setup", backend, probe)
			}
		}
	}
	dir := daskPipeline(t, "    securityContext: {runAsUser: 1000}\n", "      setup: {aptPackages: [git]}\n")
	_, stderr, code := compileArgs(t, "mlcube-compile", "--task", filepath.Join(dir, "pipeline.yaml"))
	if code != 0 || !strings.Contains(stderr, "pipeline.yaml:9:7: warning: steps.run.dask.setup: the Dask pods run as user 1000") {
		t.Errorf("exit %d, %q; want a warning at setup", code, stderr)
	}
}

// Dask workers without a size in dask.worker take the step's resources,
// and are warned about when that has none either: dask-worker would size
// itself from the node.
func TestDaskWorkersTakeTheStepsSize(t *testing.T) {
	workerArgs := func(out string) string {
		for _, m := range embeddedJobs(t, "argo", out) {
			cluster := m["spec"].(map[string]any)["cluster"].(map[string]any)["spec"].(map[string]any)
			return strings.Join(asStrings(cluster["worker"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["args"]), " ")
		}
		t.Fatal("no DaskJob")
		return ""
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--task", filepath.Join(daskPipeline(t, "    resources: {cpu: \"2\", memory: 8Gi}\n", ""), "pipeline.yaml"))
	if code != 0 || stderr != "" || !strings.Contains(workerArgs(out), "--nthreads 2 --memory-limit 8589934592") {
		t.Errorf("exit %d, %q; worker args %q, want the step's cpu and memory", code, stderr, workerArgs(out))
	}
	out, stderr, code = compileArgs(t, "mlcube-compile", "--task", filepath.Join(daskPipeline(t, "", ""), "pipeline.yaml"))
	if code != 0 || !strings.Contains(stderr, "pipeline.yaml:4:5: warning: steps.run.dask.worker: the Dask workers get no cpu and memory") || strings.Contains(workerArgs(out), "--nthreads") {
		t.Errorf("exit %d, %q; want a warning at dask", code, stderr)
	}
}

// daskPipeline is a folder with a pipeline of one Dask step, with more
// lines for the step (before dask:) and for dask: (before output:).
func daskPipeline(t *testing.T, step, dask string) string {
	return specDir(t, map[string]string{"pipeline.yaml": "name: bench\nsteps:\n  run:\n" + step + `    dask:
      function: deepecho.benchmark.run_benchmark
      workers: 1
      image: ghcr.io/dask/dask:2024.1.0
` + dask + `      output: {path: out.csv}
`})
}

func asStrings(v any) []string {
	var out []string
	for _, x := range asList(v) {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// Tekton's kubectl step receives the job's manifest in one environment
// variable, and Linux refuses any environment string over 128 KiB: a
// step whose manifest is larger is refused with the size, never emitted
// as a pod that cannot start. Argo moves a large template to a ConfigMap
// by itself, so it compiles there.
func TestTektonManifestOverTheEnvLimitRefused(t *testing.T) {
	// The launcher's and the workers' env both carry the value.
	big := strings.Repeat("x", 70<<10)
	dir := resnetPipeline(t, "    env: {BIG: "+big+"}\n    mpi: {workers: 2}\n", "")
	args := append([]string{"mlcube-compile", "--backend", "tekton"}, exampleArgs(dir)...)
	out, stderr, code := compileArgs(t, args...)
	if code == 0 || out != "" || !strings.Contains(stderr, "steps.train: the variable MANIFEST would be 1") || !strings.Contains(stderr, "argument list too long") {
		t.Errorf("exit %d, stdout %d bytes, %q; want the size refused", code, len(out), stderr)
	}
	if _, stderr := compileDir(t, "argo", dir); strings.Contains(stderr, "MANIFEST") {
		t.Errorf("argo: %q", stderr)
	}
	small := resnetPipeline(t, "    env: {SMALL: "+strings.Repeat("x", 50<<10)+"}\n    mpi: {workers: 2}\n", "")
	compileDir(t, "tekton", small)
}
