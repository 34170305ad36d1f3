package tekton

import (
	"fmt"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// The kinds --kind takes.
const (
	// KindPipelineRun is one run that embeds its pipeline, created with
	// kubectl create -f.
	KindPipelineRun = "pipelinerun"
	// KindPipeline is a named Pipeline that tkn pipeline start NAME runs,
	// given at start what a Pipeline cannot carry.
	KindPipeline = "pipeline"
)

// Engine emits Tekton PipelineRuns and Pipelines.
type Engine struct{}

// Name is the --backend value.
func (Engine) Name() string { return "tekton" }

// Kinds are the --kind values, the default first; both take their params
// when a run starts.
func (Engine) Kinds() []emit.Kind { return []emit.Kind{{Name: KindPipelineRun}, {Name: KindPipeline}} }

// Accepts a pipeline unless it moves data with only Argo's artifact
// repository to keep it in: Tekton's rclone needs the bucket itself.
func (Engine) Accepts(p *ir.Pipeline, _ string) diag.Diagnostics { return kube.StoreShape(p, "Tekton") }

// Emit builds the PipelineRun, or the Pipeline of opts.Kind, the ConfigMap
// its tasks read, and its RBAC when asked.
func (Engine) Emit(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	res, err := emitKind(p, opts)
	return emit.Settle(res, err)
}

// emitKind is Emit, with the spec's faults as errors.
func emitKind(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	if opts.Kind != "" && opts.Kind != KindPipelineRun && opts.Kind != KindPipeline {
		return emit.Result{}, fmt.Errorf("tekton emits no kind %q", opts.Kind)
	}
	if kube.Restricted(p) && !settingsOf(p).SetSecurityContext {
		// Tekton gives its own init containers (prepare, place-scripts,
		// working-dir-initializer) and its affinity assistant a
		// securityContext only with the flag (pkg/pod/pod.go, script.go,
		// workingdir_init.go, security_context_config.go, Tekton v1.15);
		// a PodTemplate sets the pod's alone, which cannot say
		// allowPrivilegeEscalation or capabilities.
		return emit.Result{}, diag.Diagnostics{diag.Errorf(diag.EngineNotLocked, p.Platform.Field("podSecurity"),
			"podSecurity is restricted, and Tekton's own containers allow privilege escalation without its "+
				"set-security-context flag").
			WithFix("set set-security-context: \"true\" in the feature-flags ConfigMap of tekton-pipelines, then " +
				"tekton.setSecurityContext: true in the platform").
			WithDetail("Restricted admits no pod whose containers allow privilege escalation; Tekton's init containers " +
				"(prepare, place-scripts) and affinity assistant drop it only with that feature flag.")}
	}
	sa, rbac, err := distributed.RunnerRBAC(p, opts.RBAC, RBAC)
	if err != nil {
		return emit.Result{}, err
	}
	run, err := compile(p, Options{ServiceAccountName: sa})
	if err != nil {
		return emit.Result{}, err
	}
	templates, err := kube.ResourceClaimTemplates(jobClaimTemplates(p))
	if err != nil {
		return emit.Result{}, err
	}
	res := emit.Result{RBAC: rbac, Run: run, Warnings: warnings(p, opts.Kind)}
	for _, t := range templates {
		res.ResourceClaimTemplates = append(res.ResourceClaimTemplates, t)
	}
	if opts.Kind == KindPipeline {
		pl, _, settings, err := asPipeline(p, run)
		if err != nil {
			return emit.Result{}, err
		}
		res.Run = pl
		res.Warnings = append(res.Warnings, startWarnings(p, pl, settings)...)
	}
	if cm := kube.ConfigMap(p); cm != nil {
		res.ConfigMap = cm
	}
	// A TaskRun's pod calls no API (results go in termination
	// messages); only its movers need the network.
	policies, isolated, err := kube.Isolation(p, nil)
	if err != nil {
		return emit.Result{}, err
	}
	res.NetworkPolicies, res.Warnings = policies, append(res.Warnings, isolated...)
	return res, nil
}
