package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// list is a flag that may be given more than once.
type list []string

func (l *list) String() string     { return strings.Join(*l, " ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// options are the command's flags and arguments.
type options struct {
	base, dropUser, spec, out string
	whiteouts, env            list
}

func main() {
	var o options
	flag.StringVar(&o.base, "base", "", "the root filesystem the image starts from")
	flag.StringVar(&o.dropUser, "drop-user", "", "an account of the root filesystem the image has not")
	flag.Var(&o.whiteouts, "whiteout", "a path of the root filesystem the image hides (repeatable)")
	flag.Var(&o.env, "env", "KEY=VALUE, a variable of the image before its base's (repeatable)")
	flag.Parse()
	if flag.NArg() != 2 || o.base == "" {
		fmt.Fprintln(os.Stderr, "usage: cubeimage -base DIR [-drop-user NAME] [-whiteout PATH]... [-env K=V]... SPEC OUT")
		os.Exit(2)
	}
	o.spec, o.out = flag.Arg(0), flag.Arg(1)
	if err := build(o); err != nil {
		fmt.Fprintln(os.Stderr, "cubeimage:", err)
		os.Exit(1)
	}
}

// build lays out the image of o.spec in o.out.
func build(o options) error {
	dockerfile, context, err := resolve(o.spec)
	if err != nil {
		return err
	}
	if _, err := os.Stat(o.out); err == nil {
		return fmt.Errorf("%s exists", o.out)
	}
	b, err := newBuilder(dockerfile, context, o.base, filepath.Join(o.out, "layer"))
	if err != nil {
		return err
	}
	for _, kv := range o.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-env %q: want KEY=VALUE", kv)
		}
		b.setEnv(k, v)
	}
	if o.dropUser != "" {
		if err := b.dropUser(o.dropUser); err != nil {
			return err
		}
	}
	if err := b.dockerfile(); err != nil {
		return err
	}
	for _, p := range o.whiteouts {
		if err := b.whiteout(p); err != nil {
			return err
		}
	}
	if err := b.finish(); err != nil {
		return err
	}
	c := b.config()
	for name, v := range map[string]any{"config.json": c, "index.json": argoImage{c.Entrypoint, c.Cmd}} {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.out, name), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// argoImage is an entry of Argo's image index (config.Image in Argo's
// config/image.go, v3.7 and v4 alike), for a step with no command.
type argoImage struct {
	Entrypoint []string `json:"entrypoint,omitempty"`
	Cmd        []string `json:"cmd,omitempty"`
}

// resolve finds the Dockerfile and the build context of spec: an
// mlcube.yaml's docker.build_context, relative to its folder, and
// docker.build_file in it (MLCube's defaults: "." and "Dockerfile", as
// its docker runner builds the image: `docker build -f CONTEXT/FILE
// CONTEXT`); a Dockerfile's own folder.
func resolve(spec string) (dockerfile, context string, err error) {
	if filepath.Base(spec) != "mlcube.yaml" {
		return spec, filepath.Dir(spec), nil
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return "", "", err
	}
	var cube struct {
		Docker struct {
			BuildContext string `yaml:"build_context"`
			BuildFile    string `yaml:"build_file"`
		} `yaml:"docker"`
	}
	if err := yaml.Unmarshal(data, &cube); err != nil {
		return "", "", fmt.Errorf("%s: %v", spec, err)
	}
	d := cube.Docker
	if d.BuildContext == "" {
		d.BuildContext = "."
	}
	if d.BuildFile == "" {
		d.BuildFile = "Dockerfile"
	}
	context = filepath.Join(filepath.Dir(spec), d.BuildContext)
	dockerfile = filepath.Join(context, d.BuildFile)
	if _, err := os.Stat(dockerfile); errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("%s: docker.build_file %s is not in the build context %s", spec, d.BuildFile, context)
	}
	return dockerfile, context, nil
}
