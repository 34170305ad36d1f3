package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// What users of argo, kubectl, tkn, helm and MLCube type out of habit,
// where it means something else here: read as they mean it where that is
// unambiguous, else a usage error that names the flag to use.

// habit is one word another tool's users type, and what takes its place
// here.
type habit struct {
	kind habitKind
	word string
	// here is what does its work here, for the usage error to say; empty
	// where the error's own words say it.
	here string
}

// habitKind is where a habit's word is written.
type habitKind int

const (
	commandName      habitKind = iota // a command: mlcube-compile run
	flagName                          // a flag, without its dashes: --workspace
	runnerName                        // an MLCube runner as --platform's value: -p docker
	outputFormatName                  // kubectl's -o format that is none here: -o wide
	cubeKey                           // a key of the cube that mlcube run -Pkey=value sets
)

// habitOf is what takes the place of word, written as kind, here.
func habitOf(kind habitKind, word string) (here string, ok bool) {
	for _, h := range habits {
		if h.kind == kind && h.word == word {
			return h.here, true
		}
	}
	return "", false
}

// habits are every other tool's habit the command answers, by tool.
var habits = []habit{
	// MLCube
	{commandName, "run", "mlcube run runs a cube here and now, and mlcube-compile compiles it with no command: " +
		"mlcube-compile --task NAME (or a pipeline file) prints the manifests, which argo submit, tkn or kubectl " +
		"create run"},
	{commandName, "configure", "mlcube configure builds or pulls the cube's image; here the image is the cube's " +
		"docker.image (or the platform's image:), which the cluster pulls, and mlcube-compile with no command compiles"},
	{flagName, "workspace", "MLCube's --workspace is a folder on the host; here the workspace is a " +
		"PersistentVolumeClaim, named in the platform file (storage.pvc, or storage.size for a claim made per run) " +
		"and mounted at storage.mountPath"},
	{runnerName, "docker", ""}, {runnerName, "podman", ""}, {runnerName, "singularity", ""}, {runnerName, "k8s", ""},
	{runnerName, "kubernetes", ""}, {runnerName, "kubeflow", ""}, {runnerName, "ssh", ""}, {runnerName, "gcp", ""},
	{cubeKey, "docker.image", "the platform file's image: (which replaces the cube's docker.image)"},
	{cubeKey, "platform.accelerator_count", "a pipeline step's resources: {gpu: N}"},
	{cubeKey, "docker.gpu_args", "a pipeline step's resources: (gpu, memory) and the platform's gpu: section"},
	{cubeKey, "docker.cpu_args", "a pipeline step's resources: (cpu, memory)"},
	{cubeKey, "docker.env_args", "a pipeline step's env:"},
	{cubeKey, "k8s.namespace", "--namespace, or the platform file's namespace:"},
	{cubeKey, "k8s.pvc", "the platform file's storage.pvc"},
	// helm, kustomize
	{commandName, "template", "helm template DIR is mlcube-compile DIR here, with no command"},
	{commandName, "build", "kustomize build DIR is mlcube-compile DIR here, with no command"},
	// argo, tkn
	{commandName, "submit", "argo submit takes what mlcube-compile prints, with no command: mlcube-compile … > " +
		"wf.yaml, then argo submit wf.yaml"},
	{flagName, "parameter", "a param's value, as argo submit --parameter gives it, is --set NAME=VALUE here"},
	{flagName, "param", "a param's value, as tkn pipeline start --param gives it, is --set NAME=VALUE here"},
	{flagName, "parameter-file", "params' values from a file, as argo submit --parameter-file reads them, are " +
		"-f VALUES.yaml here"},
	{flagName, "serviceaccount", serviceAccountHint},
	{flagName, "service-account", serviceAccountHint},
	{flagName, "l", labelsHint},
	{flagName, "labels", labelsHint},
	// kubectl
	{flagName, "node-selector", "the nodes pods run on are chosen by the platform file's cpu.nodeSelector: and " +
		"gpu.nodeSelector: (steps with and without GPUs), and a pipeline step's nodeSelector:"},
	{flagName, "dry-run", "the manifests are printed, never applied: there is nothing to dry-run; pipe them to " +
		"kubectl create --dry-run=server -f -"},
	{outputFormatName, "yml", ""}, {outputFormatName, "wide", ""}, {outputFormatName, "name", ""},
	{outputFormatName, "jsonpath", ""}, {outputFormatName, "go-template", ""},
	{outputFormatName, "custom-columns", ""}, {outputFormatName, "template", ""},
}

// checkPlatformValue refuses a --platform (-p) value that is no file and
// reads as another tool's: a NAME=VALUE param, as argo submit -p and tkn
// pipeline start -p take one, or an MLCube runner.
func checkPlatformValue(value string) error {
	if value == "" || value == "-" {
		return nil
	}
	if _, err := os.Stat(value); err == nil {
		return nil
	}
	if name, v, ok := strings.Cut(value, "="); ok && name != "" {
		return usageError{fmt.Errorf("-p %s: -p is --platform here, a platform file; a param's value, as argo submit -p "+
			"and tkn -p give it, is --set %s=%s", value, name, v)}
	}
	if _, ok := habitOf(runnerName, strings.ToLower(value)); ok {
		return usageError{fmt.Errorf("--platform %s: MLCube's --platform names a runner; here it names a platform file "+
			"(the cluster's namespace, storage and GPUs), and what runs the cube is --backend %s; the cube's docker: section "+
			"is read whatever the backend", value, strings.Join(driver.Backends(), "|"))}
	}
	return nil
}

// outputFormat reads -o as kubectl, argo and tkn read it when it is one
// of formats, an output format rather than a file (-o json); format is
// --format, given when set. A file named so is written with -o ./json.
func outputFormat(output, format string, set bool, formats []string) (file, asked string, err error) {
	if err := checkKubectlOutput(output, formats); err != nil {
		return "", "", err
	}
	if !slices.Contains(formats, output) {
		return output, format, nil
	}
	if set && format != output {
		return "", "", usageError{fmt.Errorf("-o %s and --format %s disagree: -o names the file to write (-o ./%s for a "+
			"file named so), --format the form", output, format, output)}
	}
	return "", output, nil
}

// checkKubectlOutput refuses an -o of kubectl's that is no format here
// (-o wide, -o yml, -o jsonpath=...), which would write a file of that
// name; -o ./wide writes one.
func checkKubectlOutput(output string, formats []string) error {
	name, _, _ := strings.Cut(output, "=")
	if _, ok := habitOf(outputFormatName, name); !ok {
		return nil
	}
	hint := ""
	if name == "yml" {
		hint = "; did you mean -o yaml?"
	}
	return usageError{fmt.Errorf("-o %s: -o names the file to write (-o ./%s for a file named so), and -o %s print that "+
		"format, as kubectl's -o does; -o %s is no format here%s", output, output,
		strings.Join(formats, " or -o "), name, hint)}
}

// checkGraphOutput refuses -o yaml or -o json for graph, which draws a
// picture: -o names its file, --format the kind of picture.
func checkGraphOutput(output string) error {
	if slices.Contains(driver.OutputFormats, output) {
		return usageError{fmt.Errorf("-o %s: graph draws the DAG as --format mermaid or dot, and -o names the file to "+
			"write it to (-o ./%s for a file named so); the manifests as %s are mlcube-compile --format %s", output, output,
			output, output)}
	}
	return nil
}

// foreignHint is what takes the place of flag (written without its
// dashes) here, else "": another tool's flag of foreignFlags, or a flag
// spelled like a key of the platform file, in any case or dash form
// (--nodeSelector, --storage-class, --image-pull-secret), which names
// that key. scope is the command the flag was given to.
func foreignHint(flag, scope string) string {
	if hint, ok := habitOf(flagName, flag); ok {
		return hint
	}
	written := flagWord(flag)
	if written == "" {
		return ""
	}
	for _, h := range habits {
		if h.kind == flagName && flagWord(h.word) == written {
			return h.here
		}
	}
	var keys []string
	for _, key := range compiler.PlatformKeys() {
		last := key[strings.LastIndex(key, ".")+1:]
		if flagWord(key) == written || !slices.Contains(wholeKeyOnly, last) && flagWord(last) == written {
			keys = append(keys, key+":")
		}
	}
	if len(keys) == 0 {
		return ""
	}
	where := "-p FILE, or the platform.yaml beside the spec"
	if scope == "lint" {
		where = "the platform.yaml lint finds beside each spec, or --platform GLOB"
	}
	return fmt.Sprintf("no flag sets this; the platform file's %s does (%s)", strings.Join(keys, " or "), where)
}

// wholeKeyOnly are the last parts of platform keys that a flag of that
// one word does not mean: a part of a reference
// (objectStore.s3.accessKeySecret.name), and gpu.selector, a device's
// CEL selector, where kubectl's --selector selects objects by label.
// Only the whole key's spelling (--gpu-selector) names them.
var wholeKeyOnly = []string{"name", "key", "selector"}

// flagWord is a flag's or key's name as one word, for comparing them
// whatever their case and dashes: lower case, without - _ and ., and
// without a last "name" or plural s (--storage-class is
// storageClassName, --image-pull-secret imagePullSecrets).
func flagWord(name string) string {
	w := strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(name))
	w = strings.TrimSuffix(w, "name")
	return strings.TrimSuffix(w, "s")
}

// serviceAccountHint says where argo submit --serviceaccount's account
// is given here.
const serviceAccountHint = "the run's service account is the platform file's serviceAccountName: (and " +
	"jobServiceAccountName: for the pods of MPI and Dask jobs), as argo submit --serviceaccount sets it"

// labelsHint answers argo submit's -l (--labels) and kubectl's -l.
const labelsHint = "no spec key sets the objects' labels as argo submit -l and kubectl -l do: the platform file's " +
	"queue: sets Kueue's queue-name label, and kubectl label adds others to the objects created"

// mlcubeOverride is the usage error for MLCube's -Pkey=value, which sets
// a key of the cube: where that key is given here.
func mlcubeOverride(written string) error {
	key, value, _ := strings.Cut(strings.TrimPrefix(written, "-P"), "=")
	place, ok := habitOf(cubeKey, key)
	if !ok {
		place = "mlcube.yaml itself, or each step's settings in a pipeline file (docs/guide.md)"
	}
	return usageError{fmt.Errorf("%s: MLCube's -P sets a key of the cube for one run; here %s=%s is given in %s", written,
		key, value, place)}
}
