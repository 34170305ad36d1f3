package tekton

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tektoncd/pipeline/pkg/apis/pipeline/pod"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// What tkn pipeline start does with its flags is read from tektoncd/cli
// pkg/cmd/pipeline/start.go (startPipeline, configurePipelineRun,
// getTimeouts, getInputParams), pkg/params/mergeparams.go,
// pkg/workspaces/workspaces.go and pkg/pods/pod_template.go.

// placeholder stands for the value of a required param in the settings.
const placeholder = "VALUE"

// setting is part of a run that a Pipeline cannot carry: what in the spec
// asks for it, what the Pipeline lacks (and why it matters), and how to
// give it at start: tkn pipeline start's flags, with a file they name and
// what it holds; or, where tkn has no flag for it, the PipelineRun field.
type setting struct {
	at            diag.Loc
	lacks         string
	flags         string
	file, content string
	field         string
}

// startWarnings say how to start pl: one warning that names what the
// Pipeline lacks and ends with the one command line, ready to paste, that
// writes the files the flags name and runs tkn pipeline start with every
// flag; a warning of its own for each setting tkn has no flag for. The
// command follows "start it with: "; a field tkn cannot set follows "add "
// and ends at " to its spec.taskRunSpecs". backends/tekton/tkntest reads
// them back so.
func startWarnings(p *ir.Pipeline, pl *v1.Pipeline, settings []setting) diag.Diagnostics {
	var out diag.Diagnostics
	var lacks, files, flags []string
	for _, s := range settings {
		if s.flags == "" {
			out = append(out, diag.Warnf(diag.TektonNoStartFlag, s.at, "%s, and tkn pipeline start has no flag for it", s.lacks).
				WithFix(fmt.Sprintf("print the run by adding --dry-run -o yaml to its flags, %s, and create it with "+
					"kubectl create -f", s.field)))
			continue
		}
		lacks, flags = append(lacks, s.lacks), append(flags, s.flags)
		if s.file != "" {
			files = append(files, "printf '%s\\n' "+shellQuote(s.content)+" > "+s.file)
		}
	}
	if len(flags) == 0 {
		return out
	}
	tkn := "tkn pipeline start " + pl.Name
	if pl.Namespace != "" {
		tkn += " -n " + pl.Namespace
	}
	command := strings.Join(append(files, tkn+" "+strings.Join(flags, " ")), " && ")
	start := diag.Warnf(diag.TektonStartFlag, p.Spec, "a Pipeline has %s: start it with: %s", joinAnd(lacks), command)
	return append(diag.Diagnostics{start}, out...)
}

// noValue says which params a Pipeline has no value for: "no value for
// param lr", "no values for params a, b" (they have no default).
func noValue(names []string) string {
	if len(names) == 1 {
		return "no value for param " + names[0] + " (it has no default)"
	}
	return "no values for params " + strings.Join(names, ", ") + " (they have no default)"
}

// joinAnd joins a list as a sentence does: "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// shellQuote quotes s for a POSIX shell: in single quotes, each of its
// own closing the quotes, escaped, and opening them again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// start is the PipelineRun that tkn pipeline start NAME makes of pl with
// the settings' flags (and their taskRunSpecs added), and the settings:
// what pr, the PipelineRun kind, sets beyond its pipeline.
func start(p *ir.Pipeline, pl *v1.Pipeline, pr *v1.PipelineRun) (*v1.PipelineRun, []setting, error) {
	run := &v1.PipelineRun{
		TypeMeta: metav1.TypeMeta{APIVersion: "tekton.dev/v1", Kind: "PipelineRun"},
		// tkn names a run after its Pipeline (createObjectMeta).
		ObjectMeta: metav1.ObjectMeta{GenerateName: pl.Name + "-run-", Namespace: pl.Namespace},
		Spec:       v1.PipelineRunSpec{PipelineRef: &v1.PipelineRef{Name: pl.Name}},
	}
	settings := []setting{runTimeout(p, run)}
	params, err := requiredParams(p, run)
	if err != nil {
		return nil, nil, err
	}
	settings = append(settings, params...)
	settings = append(settings, serviceAccount(p, pr, run)...)
	ws, err := workspaces(p, pr, run)
	if err != nil {
		return nil, nil, err
	}
	settings = append(settings, ws...)
	pods, err := podTemplates(p, pr, run)
	if err != nil {
		return nil, nil, err
	}
	return run, append(settings, pods...), nil
}

// runTimeout lets the run take as long as its steps need, as the
// PipelineRun kind's timeouts.pipeline: 0s does. A Pipeline has no run
// timeout, and a PipelineRun that sets none gets default-timeout-minutes
// (SetDefaults in pkg/apis/pipeline/v1/pipelinerun_defaults.go), after
// which Tekton stops it whatever its tasks' timeouts (HasTimedOut in
// pipelinerun_types.go). tkn's --pipeline-timeout sets
// spec.timeouts.pipeline alone (getTimeouts); 0 is none. The tasks' own
// timeouts are in the Pipeline (pipeline in pipeline.go).
func runTimeout(p *ir.Pipeline, run *v1.PipelineRun) setting {
	run.Spec.Timeouts = &v1.TimeoutFields{Pipeline: &metav1.Duration{Duration: 0}}
	return setting{
		at: p.Spec,
		lacks: "no run timeout (Tekton stops a run that sets none after the cluster's default-timeout-minutes, 60 unless " +
			"changed, however long its steps take)",
		flags: "--pipeline-timeout 0",
		field: "spec.timeouts.pipeline: 0s",
	}
}

// requiredParams gives each param without a default a value at start.
// --use-param-defaults keeps tkn from asking for the others, which take
// their defaults (getInputParams); tkn sorts the params it sets by name
// (MergeParam).
func requiredParams(p *ir.Pipeline, run *v1.PipelineRun) ([]setting, error) {
	var names, flags []string
	for _, param := range p.Params {
		if param.Default == nil {
			names = append(names, param.Name)
			flags = append(flags, "-p "+param.Name+"="+placeholder)
			run.Spec.Params = append(run.Spec.Params, v1.Param{Name: param.Name, Value: *v1.NewStructuredValues(placeholder)})
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	sort.Slice(run.Spec.Params, func(i, j int) bool { return run.Spec.Params[i].Name < run.Spec.Params[j].Name })
	field, err := json.Marshal(run.Spec.Params)
	return []setting{{
		at:    p.Spec.Field("params"),
		lacks: noValue(names),
		flags: "--use-param-defaults " + strings.Join(flags, " "),
		field: "spec.params: " + string(field),
	}}, err
}

// serviceAccount runs the tasks as pr does.
func serviceAccount(p *ir.Pipeline, pr, run *v1.PipelineRun) []setting {
	sa := pr.Spec.TaskRunTemplate.ServiceAccountName
	if sa == "" {
		return nil
	}
	run.Spec.TaskRunTemplate.ServiceAccountName = sa
	return []setting{{
		at:    platformField(p, "serviceAccountName"),
		lacks: "no service account (its tasks would run as the namespace's default)",
		flags: "-s " + sa,
		field: "spec.taskRunTemplate.serviceAccountName: " + sa,
	}}
}

// workspaces binds each workspace as pr does: to its claim, or to a claim
// made for the run from a template file.
func workspaces(p *ir.Pipeline, pr, run *v1.PipelineRun) ([]setting, error) {
	var out []setting
	for _, b := range pr.Spec.Workspaces {
		run.Spec.Workspaces = append(run.Spec.Workspaces, *b.DeepCopy())
		s := setting{at: platformField(p, "storage")}
		if c := b.PersistentVolumeClaim; c != nil {
			s.lacks = fmt.Sprintf("no claim for its workspace %s", b.Name)
			s.flags = fmt.Sprintf("-w name=%s,claimName=%s", b.Name, c.ClaimName)
			s.field = fmt.Sprintf(`add {"name":%q,"persistentVolumeClaim":{"claimName":%q}} to spec.workspaces`,
				b.Name, c.ClaimName)
			out = append(out, s)
			continue
		}
		content, err := emit.JSON(b.VolumeClaimTemplate)
		if err != nil {
			return nil, err
		}
		s.lacks = fmt.Sprintf("no template for the claim of its workspace %s", b.Name)
		s.file = b.Name + "-claim.yaml"
		s.flags = fmt.Sprintf("-w name=%s,volumeClaimTemplateFile=%s", b.Name, s.file)
		s.content = content
		s.field = fmt.Sprintf("the same as the volumeClaimTemplate of workspace %s in spec.workspaces", b.Name)
		out = append(out, s)
	}
	return out, nil
}

// podTemplates gives each TaskRun the pod settings pr gives it, as Tekton
// merges a task's own (spec.taskRunSpecs) over the run's
// (PipelineRun.GetTaskRunSpec in pipelinerun_types.go): when every task
// gets the same, one --pod-template carries them; else the run's goes
// there, and each task's own in spec.taskRunSpecs, which tkn pipeline
// start has no flag for.
func podTemplates(p *ir.Pipeline, pr, run *v1.PipelineRun) ([]setting, error) {
	if shared, ok := sharedPodTemplate(pr); ok {
		if shared == nil {
			return nil, nil
		}
		run.Spec.TaskRunTemplate.PodTemplate = shared
		s, err := podTemplateSetting(p, shared)
		return []setting{s}, err
	}
	var out []setting
	if t := pr.Spec.TaskRunTemplate.PodTemplate; t != nil {
		run.Spec.TaskRunTemplate.PodTemplate = t.DeepCopy()
		s, err := podTemplateSetting(p, t)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	for _, trs := range pr.Spec.TaskRunSpecs {
		run.Spec.TaskRunSpecs = append(run.Spec.TaskRunSpecs, *trs.DeepCopy())
		text, err := json.Marshal(trs)
		if err != nil {
			return nil, err
		}
		out = append(out, setting{
			at:    stepLoc(p, trs.PipelineTaskName),
			lacks: fmt.Sprintf("step %s: a Pipeline cannot carry the pod settings of one task", trs.PipelineTaskName),
			field: "add " + string(text) + " to its spec.taskRunSpecs",
		})
	}
	return out, nil
}

// sharedPodTemplate is the pod template every TaskRun of pr gets, if they
// all get the same one.
func sharedPodTemplate(pr *v1.PipelineRun) (*pod.PodTemplate, bool) {
	var shared *pod.PodTemplate
	for i, task := range pr.Spec.PipelineSpec.Tasks {
		// GetTaskRunSpec merges into the run's templates: work on a copy.
		t := pr.DeepCopy().GetTaskRunSpec(task.Name).PodTemplate
		if i > 0 && !equality.Semantic.DeepEqual(t, shared) {
			return nil, false
		}
		shared = t
	}
	return shared.DeepCopy(), true
}

// podTemplateSetting gives the run's pod template, which Tekton's
// affinity assistant places itself with too.
func podTemplateSetting(p *ir.Pipeline, t *pod.PodTemplate) (setting, error) {
	text, err := json.Marshal(t)
	loc := p.Spec
	if p.Platform.Pos().File != "" {
		loc = p.Platform
	}
	return setting{
		at:      loc,
		lacks:   "no pod template (its tasks' pods and Tekton's affinity assistant take one)",
		flags:   "--pod-template pod-template.yaml",
		file:    "pod-template.yaml",
		content: string(text),
		field:   "the same as spec.taskRunTemplate.podTemplate",
	}, err
}

// platformField is where the platform file sets name, or the spec when
// there is no platform file.
func platformField(p *ir.Pipeline, name string) diag.Loc {
	if p.Platform.Pos().File == "" {
		return p.Spec
	}
	return p.Platform.Field(name)
}

// stepLoc is where the step named is written.
func stepLoc(p *ir.Pipeline, name string) diag.Loc {
	for _, s := range p.Steps {
		if s.Name == name {
			return s.Loc
		}
	}
	return p.Spec
}
