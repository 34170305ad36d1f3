package examples

import (
	"os"
	"path/filepath"
	"sort"
)

// Example is one folder of examples/ and the files it is compiled from: a
// pipeline.yaml is the task, a platform.yaml the platform, a values.yaml
// a values file, and a legacy cube's platforms/docker.yaml and
// run/kubernetes.yaml its platform and invoke file.
type Example struct {
	Name                   string
	MLCube, Task, Platform string
	Values                 []string
}

// List finds every example under root/examples, sorted by name.
func List(root string) ([]Example, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "examples", "*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	var out []Example
	for _, dir := range dirs {
		out = append(out, At(dir))
	}
	return out, nil
}

// At is the example in dir; its paths start with dir.
func At(dir string) Example {
	ex := Example{Name: filepath.Base(dir)}
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}
	if file("mlcube.yaml") != "" {
		ex.MLCube = dir
	}
	ex.Task, ex.Platform = file("pipeline.yaml"), file("platform.yaml")
	if v := file("values.yaml"); v != "" {
		ex.Values = []string{v}
	}
	if legacy, invoke := file("platforms/docker.yaml"), file("run/kubernetes.yaml"); legacy != "" && invoke != "" {
		ex.Platform, ex.Task = legacy, invoke
	}
	return ex
}

// Args are the command-line flags that compile the example.
func (e Example) Args() []string {
	var args []string
	for _, f := range []struct{ flag, value string }{{"--mlcube", e.MLCube}, {"--task", e.Task},
		{"--platform", e.Platform}} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	for _, v := range e.Values {
		args = append(args, "-f", v)
	}
	return args
}
