package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// What users of argo, kubectl, tkn, helm and MLCube type out of habit,
// where it means something else here: read as they mean it where that is
// unambiguous, else a usage error that names the flag to use.

// mlcubeRunners are the runners MLCube's --platform names (mlcube run
// --platform=docker), which a platform file here replaces.
var mlcubeRunners = []string{"docker", "podman", "singularity", "k8s", "kubernetes", "kubeflow", "ssh", "gcp"}

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
	if slices.Contains(mlcubeRunners, strings.ToLower(value)) {
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

// kubectlOutputs are kubectl's -o formats that are not formats here,
// with the file name they stand for (kubectl -o jsonpath=... and the
// like start so).
var kubectlOutputs = []string{"yml", "wide", "name", "jsonpath", "go-template", "custom-columns", "template"}

// checkKubectlOutput refuses an -o of kubectl's that is no format here
// (-o wide, -o yml, -o jsonpath=...), which would write a file of that
// name; -o ./wide writes one.
func checkKubectlOutput(output string, formats []string) error {
	name, _, _ := strings.Cut(output, "=")
	if !slices.Contains(kubectlOutputs, name) {
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

// otherCommands are other tools' commands that users type first, and
// what does their work here: compiling needs no command.
var otherCommands = map[string]string{
	"run": "mlcube run runs a cube here and now, and mlcube-compile compiles it with no command: mlcube-compile " +
		"--task NAME (or a pipeline file) prints the manifests, which argo submit, tkn or kubectl create run",
	"configure": "mlcube configure builds or pulls the cube's image; here the image is the cube's docker.image (or the " +
		"platform's image:), which the cluster pulls, and mlcube-compile with no command compiles",
	"template": "helm template DIR is mlcube-compile DIR here, with no command",
	"build":    "kustomize build DIR is mlcube-compile DIR here, with no command",
	"submit": "argo submit takes what mlcube-compile prints, with no command: mlcube-compile … > wf.yaml, then " +
		"argo submit wf.yaml",
}

// foreignFlags are other tools' flags that this command does not take,
// and what takes their place here.
var foreignFlags = map[string]string{
	"workspace": "MLCube's --workspace is a folder on the host; here the workspace is a PersistentVolumeClaim, " +
		"named in the platform file (storage.pvc, or storage.size for a claim made per run) and mounted at " +
		"storage.mountPath",
	"parameter":       "a param's value, as argo submit --parameter gives it, is --set NAME=VALUE here",
	"param":           "a param's value, as tkn pipeline start --param gives it, is --set NAME=VALUE here",
	"parameter-file":  "params' values from a file, as argo submit --parameter-file reads them, are -f VALUES.yaml here",
	"serviceaccount":  serviceAccountHint,
	"service-account": serviceAccountHint,
	"node-selector": "the nodes pods run on are chosen by the platform file's cpu.nodeSelector: and gpu.nodeSelector: " +
		"(steps with and without GPUs), and a pipeline step's nodeSelector:",
	"l":      labelsHint,
	"labels": labelsHint,
	"dry-run": "the manifests are printed, never applied: there is nothing to dry-run; pipe them to kubectl create " +
		"--dry-run=server -f -",
}

// foreignHint is what takes the place of flag (written without its
// dashes) here, else "": another tool's flag of foreignFlags, or a flag
// spelled like a key of the platform file, in any case or dash form
// (--nodeSelector, --storage-class, --image-pull-secret), which names
// that key. scope is the command the flag was given to.
func foreignHint(flag, scope string) string {
	if hint, ok := foreignFlags[flag]; ok {
		return hint
	}
	written := flagWord(flag)
	if written == "" {
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(foreignFlags)) {
		if flagWord(name) == written {
			return foreignFlags[name]
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

// cubeKeyPlaces are where keys of the cube that mlcube run -Pkey=value
// sets are given here.
var cubeKeyPlaces = map[string]string{
	"docker.image":               "the platform file's image: (which replaces the cube's docker.image)",
	"platform.accelerator_count": "a pipeline step's resources: {gpu: N}",
	"docker.gpu_args":            "a pipeline step's resources: (gpu, memory) and the platform's gpu: section",
	"docker.cpu_args":            "a pipeline step's resources: (cpu, memory)",
	"docker.env_args":            "a pipeline step's env:",
	"k8s.namespace":              "--namespace, or the platform file's namespace:",
	"k8s.pvc":                    "the platform file's storage.pvc",
}

// mlcubeOverride is the usage error for MLCube's -Pkey=value, which sets
// a key of the cube: where that key is given here.
func mlcubeOverride(written string) error {
	key, value, _ := strings.Cut(strings.TrimPrefix(written, "-P"), "=")
	place, ok := cubeKeyPlaces[key]
	if !ok {
		place = "mlcube.yaml itself, or each step's settings in a pipeline file (docs/guide.md)"
	}
	return usageError{fmt.Errorf("%s: MLCube's -P sets a key of the cube for one run; here %s=%s is given in %s", written,
		key, value, place)}
}
