package distributed_test

// Argo and Tekton embed the jobs of distributed steps, each its own way;
// these tests check the jobs through both.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// Tests of what MPIJobs do at run time, beyond what validators check.

// The launcher starts only once every worker is Ready; mpi-operator's
// default, AtStartup, starts it at once, and with backoffLimit 0 its one
// attempt fails while large images are still being pulled
// (pkg/controller/mpi_job_controller.go, v0.8.0).
func TestMPILauncherWaitsForWorkers(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		job := enginetest.OneMPIJob(t, manifestcheck.Example(t, backend, "resnet50-multinode").Run)
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
		dir := enginetest.ResNetPipeline(t, strings.Replace(step, "IMPL", impl, 1), "")
		file := filepath.Join(dir, "pipeline.yaml")
		p, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append([]byte(pipeline), p...), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, backend := range []string{"argo", "tekton"} {
			out := manifestcheck.BuildFor(t, backend, manifestcheck.Specs(dir), emit.Options{}).Must(t)
			launcher := enginetest.Launcher(enginetest.OneMPIJob(t, out.Run))
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
	dir := enginetest.ResNetPipeline(t, "    resources: {gpu: 8}\n    mpi: {workers: 2}\n", "")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t)
	job := enginetest.OneMPIJob(t, out.Run)
	if *job.Spec.SlotsPerWorker != 8 {
		t.Errorf("slotsPerWorker %d, want 8", *job.Spec.SlotsPerWorker)
	}
	if cmd := strings.Join(enginetest.Launcher(job).Command, " "); !strings.HasPrefix(cmd,
		"mpirun --allow-run-as-root -np 16 ") {
		t.Errorf("launcher: %q, want -np 16", cmd)
	}
	if stderr := out.Stderr(); stderr != "" {
		t.Errorf("unexpected warnings: %s", stderr)
	}
	dir = enginetest.ResNetPipeline(t, "    resources: {gpu: 8}\n    mpi: {workers: 2, slotsPerWorker: 1}\n", "")
	out = manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t)
	launcher := enginetest.Launcher(enginetest.OneMPIJob(t, out.Run))
	if cmd := strings.Join(launcher.Command, " "); !strings.Contains(cmd, " -np 2 ") {
		t.Errorf("an explicit slotsPerWorker: %q, want -np 2", cmd)
	}
	if stderr := out.Stderr(); !strings.Contains(stderr, "pipeline.yaml:7:") ||
		!strings.Contains(stderr, "steps.train.mpi.slotsPerWorker: 1 ranks per worker on 8 GPUs") {
		t.Errorf("no warning at slotsPerWorker: %q", stderr)
	}
}

// The pods of an MPIJob or DaskJob do not run under the run's service
// account, which may create jobs: no account and no token, or the
// platform's jobServiceAccountName.
func TestJobPodsDoNotUseRunAccount(t *testing.T) {
	for _, ex := range []string{"resnet50-multinode", "dask-benchmark"} {
		for _, backend := range []string{"argo", "tekton"} {
			for _, m := range enginetest.Jobs(t, manifestcheck.Example(t, backend, ex).Run) {
				forEachPodSpec(m, func(path string, spec map[string]any) {
					if spec["serviceAccountName"] != nil || spec["automountServiceAccountToken"] != false {
						t.Errorf("%s %s %s: serviceAccountName %v, automountServiceAccountToken %v; want none and false", ex, backend,
							path, spec["serviceAccountName"], spec["automountServiceAccountToken"])
					}
				})
			}
		}
	}
	dir := enginetest.ResNetPipeline(t, "    mpi: {workers: 2}\n",
		"serviceAccountName: runner\njobServiceAccountName: trainer\n")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t)
	for _, r := range enginetest.OneMPIJob(t, out.Run).Spec.MPIReplicaSpecs {
		if sa := r.Template.Spec.ServiceAccountName; sa != "trainer" || r.Template.Spec.AutomountServiceAccountToken != nil {
			t.Errorf("with jobServiceAccountName: pods run as %q (token %v), want trainer", sa,
				r.Template.Spec.AutomountServiceAccountToken)
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
	dir := enginetest.ResNetPipeline(t, "    securityContext: {fsGroup: 100}\n    mpi: {workers: 2}\n", "")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{})
	if stderr := out.Stderr(); !out.Failed() || out.Run != nil ||
		!strings.Contains(stderr, "pipeline.yaml:6:23: steps.train.securityContext.fsGroup: fsGroup 100") ||
		!strings.Contains(stderr, "kubeflow/mpi-operator#429") || !strings.Contains(stderr, "sshAuthMountPath") {
		t.Errorf("want an error with the fix at fsGroup and no output; failed %v, run %T, stderr %q", out.Failed(),
			out.Run, stderr)
	}
	dir = enginetest.ResNetPipeline(t, "    securityContext: {runAsUser: 1000, fsGroup: 100}\n"+
		"    mpi: {workers: 2, sshAuthMountPath: /home/mpiuser/.ssh}\n", "")
	stderr := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t).Stderr()
	if stderr != "" {
		t.Errorf("a non-root user with its own ~/.ssh: unexpected warning %q", stderr)
	}
}

// runAsNonRoot without runAsUser is non-root: the kubelet starts only an
// image whose user is not root. So mpirun gets no --allow-run-as-root, keys
// at /root/.ssh are warned about, and so are Dask setup packages.
func TestRunAsNonRootIsNonRoot(t *testing.T) {
	dir := enginetest.ResNetPipeline(t, "    securityContext: {runAsNonRoot: true}\n    mpi: {workers: 2}\n", "")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}).Must(t)
	launcher := enginetest.Launcher(enginetest.OneMPIJob(t, out.Run))
	if cmd := strings.Join(launcher.Command, " "); strings.Contains(cmd, "--allow-run-as-root") {
		t.Errorf("launcher: %q, want no --allow-run-as-root", cmd)
	}
	if stderr := out.Stderr(); !strings.Contains(stderr,
		"steps.train.mpi.sshAuthMountPath: the workers run as the image's non-root user (runAsNonRoot)") {
		t.Errorf("want a warning about keys under /root/.ssh, got %q", stderr)
	}
	dir = enginetest.ResNetPipeline(t, "    securityContext: {runAsUser: 0}\n    mpi: {workers: 2}\n",
		"securityContext: {runAsNonRoot: true}\n")
	if out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{}); !out.Failed() ||
		out.Run != nil ||
		!strings.Contains(out.Stderr(), "pipeline.yaml:6:23: steps.train.securityContext.runAsUser: runAsUser 0 is root, "+
			"and with runAsNonRoot: true the kubelet refuses") {
		t.Errorf("runAsUser 0 under the platform's runAsNonRoot: failed %v, run %T, %q; want an error at runAsUser",
			out.Failed(), out.Run, out.Stderr())
	}
	dir = enginetest.DaskPipeline(t, "    securityContext: {runAsNonRoot: true}\n",
		"      setup: {pipPackages: [deepecho]}\n")
	out = manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{})
	if stderr := out.Stderr(); out.Failed() || !strings.Contains(stderr,
		"pipeline.yaml:9:7: warning: steps.run.dask.setup: the Dask pods run as the image's non-root user") {
		t.Errorf("failed %v, %q; want a warning at setup", out.Failed(), stderr)
	}
}
