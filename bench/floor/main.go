package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	cueyaml "cuelang.org/go/encoding/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	rounds := flag.Int("n", 50, "rounds to time")
	out := flag.String("out", "", "the compiled output, a YAML stream")
	flag.Parse()
	if err := run(*rounds, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// input is one spec file: its name and its bytes.
type input struct {
	name string
	src  []byte
}

func run(rounds int, outFile string, inFiles []string) error {
	if outFile == "" || len(inFiles) == 0 || rounds < 1 {
		return fmt.Errorf("usage: floor [-n ROUNDS] -out OUTPUT.yaml INPUT.yaml…")
	}
	var inputs []input
	for _, name := range inFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		inputs = append(inputs, input{name, src})
	}
	objs, err := objects(outFile)
	if err != nil {
		return err
	}
	times := make([]time.Duration, 0, rounds)
	for i := 0; i <= rounds; i++ {
		start := time.Now()
		if err := round(inputs, objs); err != nil {
			return err
		}
		if i > 0 { // the first round warms up
			times = append(times, time.Since(start))
		}
	}
	slices.Sort(times)
	fmt.Println(times[len(times)/2].Nanoseconds())
	return nil
}

// objects decodes each document of a YAML stream into plain maps, the
// form mlcube-compile encodes them from.
func objects(file string) ([]any, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, doc := range bytes.Split(src, []byte("\n---\n")) {
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// round is the floor once: decode every input, encode every object.
func round(inputs []input, objs []any) error {
	for _, in := range inputs {
		if _, err := cueyaml.Extract(in.name, in.src); err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
	}
	for _, obj := range objs {
		if _, err := yaml.Marshal(obj); err != nil {
			return err
		}
	}
	return nil
}
