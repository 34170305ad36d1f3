package tkntest

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tektoncd/pipeline/pkg/apis/pipeline/pod"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Start is one tkn pipeline start: the Pipeline it names, its flags, the
// files they name, and the taskRunSpecs a user adds to the run that
// --dry-run prints.
type Start struct {
	Name string
	Args []string
	// Files holds each file a flag names, by name.
	Files        map[string]string
	TaskRunSpecs []v1.PipelineTaskRunSpec
}

// The forms of the warnings (backends/tekton/start.go): the command line
// that starts the Pipeline; or a taskRunSpec to add by hand.
var (
	startWith = regexp.MustCompile(`start it with: (.*?)(?: \[MLC\d+\])?$`)
	addSpec   = regexp.MustCompile(`, add (\{.*\}) to its spec\.taskRunSpecs, `)
)

// FromWarnings reads the command line, and the taskRunSpecs, out of
// warnings, one a line, as the command prints them or as their messages.
func FromWarnings(lines []string) (Start, error) {
	s := Start{Files: map[string]string{}}
	for _, line := range lines {
		if m := startWith.FindStringSubmatch(line); m != nil {
			if err := s.readCommand(m[1]); err != nil {
				return s, fmt.Errorf("%w: %s", err, m[1])
			}
		}
		if m := addSpec.FindStringSubmatch(line); m != nil {
			var trs v1.PipelineTaskRunSpec
			if err := yaml.UnmarshalStrict([]byte(m[1]), &trs); err != nil {
				return s, fmt.Errorf("a taskRunSpec to add: %w", err)
			}
			s.TaskRunSpecs = append(s.TaskRunSpecs, trs)
		}
	}
	return s, nil
}

// readCommand reads the command line of the warning, as a POSIX shell
// splits it: commands joined by &&, each printf '%s\n' CONTENT > FILE,
// which writes a file, but the last, tkn pipeline start NAME FLAGS....
func (s *Start) readCommand(line string) error {
	words, err := shellWords(line)
	if err != nil {
		return err
	}
	for {
		cmd := words
		i := slices.Index(words, "&&")
		if i >= 0 {
			cmd, words = words[:i], words[i+1:]
		}
		switch {
		case len(cmd) == 5 && cmd[0] == "printf" && cmd[1] == `%s\n` && cmd[3] == ">":
			s.Files[cmd[4]] = cmd[2]
		case i < 0 && len(cmd) >= 4 && strings.Join(cmd[:3], " ") == "tkn pipeline start":
			s.Name, s.Args = cmd[3], cmd[4:]
			return nil
		default:
			return fmt.Errorf("neither a file written with printf nor tkn pipeline start NAME: %q", cmd)
		}
	}
}

// shellWords splits a command line as a POSIX shell does for the forms
// the warning writes: words, single-quoted strings, a character escaped
// with a backslash (a quote in a quoted string closes it, is escaped, and
// opens it again), and the operators && and > apart by spaces.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range line {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case r == '"' || r == '$' || r == '`' || r == ';' || r == '|':
			return nil, fmt.Errorf("%q outside single quotes: the model reads the forms the warning writes", r)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("a quote left open")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// flags are the flags of tkn pipeline start that the model knows.
type flags struct {
	namespace, serviceAccount, pipelineTimeout, podTemplate string
	params, workspaces                                      []string
	useParamDefaults                                        bool
}

// parse reads args as tkn's flags do: a repeated string flag keeps the
// last, -p and -w collect.
func parse(args []string) (flags, error) {
	var f flags
	for i := 0; i < len(args); i++ {
		name := args[i]
		if name == "--use-param-defaults" {
			f.useParamDefaults = true
			continue
		}
		if i+1 == len(args) {
			return f, fmt.Errorf("flag needs an argument: %s", name)
		}
		i++
		value := args[i]
		switch name {
		case "-n", "--namespace":
			f.namespace = value
		case "-p", "--param":
			f.params = append(f.params, value)
		case "-w", "--workspace":
			f.workspaces = append(f.workspaces, value)
		case "-s", "--serviceaccount":
			f.serviceAccount = value
		case "--pipeline-timeout":
			f.pipelineTimeout = value
		case "--pod-template":
			f.podTemplate = value
		default:
			return f, fmt.Errorf("the model of tkn pipeline start knows no flag %s", name)
		}
	}
	return f, nil
}

// PipelineRun is the run that tkn pipeline start NAME makes of pl with
// s's args and then extra ones (such as -n NAMESPACE), with s's
// taskRunSpecs added. Like tkn run without a terminal, it fails where tkn
// would ask for a param or a workspace, and where Tekton would refuse to
// start the run for a workspace left unbound. tkn builds a v1beta1 run,
// which the API server converts; the model builds the v1 one.
func (s Start) PipelineRun(pl *v1.Pipeline, extra ...string) (*v1.PipelineRun, error) {
	f, err := parse(append(append([]string(nil), s.Args...), extra...))
	if err != nil {
		return nil, err
	}
	if s.Name != pl.Name {
		return nil, fmt.Errorf("tkn pipeline start %s starts another Pipeline than %s", s.Name, pl.Name)
	}
	if pl.Namespace != "" && f.namespace != pl.Namespace {
		return nil, fmt.Errorf("tkn finds no Pipeline %s in namespace %q", pl.Name, f.namespace)
	}
	pr := &v1.PipelineRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: "tekton.dev/v1", Kind: "PipelineRun"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: pl.Name + "-run-", Namespace: f.namespace},
		Spec:       v1.PipelineRunSpec{PipelineRef: &v1.PipelineRef{Name: pl.Name}},
	}
	if f.pipelineTimeout != "" {
		d, err := time.ParseDuration(f.pipelineTimeout)
		if err != nil {
			return nil, err
		}
		pr.Spec.Timeouts = &v1.TimeoutFields{Pipeline: &metav1.Duration{Duration: d}}
	}
	if err := setParams(pl, f, pr); err != nil {
		return nil, err
	}
	if err := bindWorkspaces(pl, f, s.Files, pr); err != nil {
		return nil, err
	}
	pr.Spec.TaskRunTemplate.ServiceAccountName = f.serviceAccount
	if f.podTemplate != "" {
		raw, err := file(s.Files, f.podTemplate)
		if err != nil {
			return nil, err
		}
		var t pod.PodTemplate
		if err := yaml.UnmarshalStrict(raw, &t); err != nil {
			return nil, fmt.Errorf("--pod-template %s: %w", f.podTemplate, err)
		}
		pr.Spec.TaskRunTemplate.PodTemplate = &t
	}
	pr.Spec.TaskRunSpecs = append(pr.Spec.TaskRunSpecs, s.TaskRunSpecs...)
	return pr, nil
}

// setParams gives the run the params of -p, sorted by name as tkn sorts
// them (pkg/params/mergeparams.go). tkn asks for every other param, or
// with --use-param-defaults for every other param without a default
// (getInputParams in start.go).
func setParams(pl *v1.Pipeline, f flags, pr *v1.PipelineRun) error {
	declared := map[string]v1.ParamSpec{}
	for _, ps := range pl.Spec.Params {
		declared[ps.Name] = ps
	}
	given := map[string]string{}
	for _, p := range f.params {
		name, value, ok := strings.Cut(p, "=")
		if !ok {
			return fmt.Errorf("invalid input format for param parameter: %s", p)
		}
		if ps, ok := declared[name]; !ok || ps.Type != v1.ParamTypeString {
			return fmt.Errorf("param '%s' not present in spec as a string", name)
		}
		given[name] = value
	}
	for _, ps := range pl.Spec.Params {
		if _, ok := given[ps.Name]; !ok && (!f.useParamDefaults || ps.Default == nil) {
			return fmt.Errorf("tkn would ask for the value of param %s", ps.Name)
		}
	}
	for name, value := range given {
		pr.Spec.Params = append(pr.Spec.Params, v1.Param{Name: name, Value: *v1.NewStructuredValues(value)})
	}
	sort.Slice(pr.Spec.Params, func(i, j int) bool { return pr.Spec.Params[i].Name < pr.Spec.Params[j].Name })
	return nil
}

// bindWorkspaces binds the workspaces of -w (pkg/workspaces/workspaces.go),
// in the order given: tkn appends them from a map, in no fixed order.
// Without -w tkn asks for each workspace.
func bindWorkspaces(pl *v1.Pipeline, f flags, files map[string]string, pr *v1.PipelineRun) error {
	if len(f.workspaces) == 0 && len(pl.Spec.Workspaces) > 0 {
		return errors.New("tkn would ask for the workspaces")
	}
	bound := map[string]bool{}
	for _, w := range f.workspaces {
		b, err := workspaceBinding(w, files)
		if err != nil {
			return err
		}
		pr.Spec.Workspaces = append(pr.Spec.Workspaces, b)
		bound[b.Name] = true
	}
	for _, d := range pl.Spec.Workspaces {
		if !bound[d.Name] && !d.Optional {
			return fmt.Errorf("the run would fail: workspace %s is not bound", d.Name)
		}
	}
	return nil
}

// workspaceBinding reads one -w: a claim, or a claim template from a file.
func workspaceBinding(w string, files map[string]string) (v1.WorkspaceBinding, error) {
	keys := map[string]string{}
	for _, part := range strings.Split(w, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return v1.WorkspaceBinding{}, fmt.Errorf("invalid input format for workspace : %s", w)
		}
		keys[k] = v
	}
	b := v1.WorkspaceBinding{Name: keys["name"]}
	if b.Name == "" {
		return b, errors.New("name not found for workspace")
	}
	if name, ok := keys["volumeClaimTemplateFile"]; ok {
		raw, err := file(files, name)
		if err != nil {
			return b, err
		}
		var pvc corev1.PersistentVolumeClaim
		if err := yaml.UnmarshalStrict(raw, &pvc); err != nil {
			return b, fmt.Errorf("volumeClaimTemplateFile %s: %w", name, err)
		}
		b.VolumeClaimTemplate = &pvc
		return b, nil
	}
	claim, ok := keys["claimName"]
	if !ok {
		return b, fmt.Errorf("the model of tkn pipeline start binds claimName or volumeClaimTemplateFile, not %s", w)
	}
	b.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}
	return b, nil
}

// file is the file a flag names, which tkn reads only with a .yaml or
// .yml extension (pkg/file, IsYamlFile).
func file(files map[string]string, name string) ([]byte, error) {
	if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
		return nil, fmt.Errorf("invalid file format for %s: .yaml or .yml file extension and format required", name)
	}
	content, ok := files[name]
	if !ok {
		return nil, fmt.Errorf("no file %s", name)
	}
	return []byte(content), nil
}
