package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlcube-compile/mlcube-compile/internal/specgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("want a command: pipeline or cubes")
	}
	fs := flag.NewFlagSet("gen "+args[0], flag.ContinueOnError)
	switch args[0] {
	case "pipeline":
		shape := fs.String("shape", string(specgen.Chain),
			"chain, fan, diamond, shared-chain, shared-writers or shared-readers")
		steps := fs.Int("steps", 100, "how many steps")
		env := fs.String("env", "", "a value every step's env gets")
		dir, err := parse(fs, args[1:])
		if err != nil {
			return err
		}
		text, err := specgen.Pipeline(specgen.Shape(*shape), *steps, specgen.Options{Env: *env})
		if err != nil {
			return err
		}
		return writeFiles(dir, map[string]string{"mlcube.yaml": specgen.Cube, "pipeline.yaml": text})
	case "cubes":
		n := fs.Int("n", 1000, "how many cubes")
		dir, err := parse(fs, args[1:])
		if err != nil {
			return err
		}
		files := map[string]string{}
		for i := 0; i < *n; i++ {
			files[filepath.Join(fmt.Sprintf("c%04d", i), "mlcube.yaml")] = specgen.LintCube(i)
		}
		return writeFiles(dir, files)
	}
	return fmt.Errorf("unknown command %q: want pipeline or cubes", args[0])
}

// parse parses the flags and returns the one folder argument.
func parse(fs *flag.FlagSet, args []string) (string, error) {
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", fmt.Errorf("want one folder to write to, got %d arguments", fs.NArg())
	}
	return fs.Arg(0), nil
}

// writeFiles writes each file under dir, making folders as needed.
func writeFiles(dir string, files map[string]string) error {
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
