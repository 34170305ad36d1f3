package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// buildOnly are the apt packages the cubes' Dockerfiles install only to
// build the image, none of which their programs use: the image does not
// get them.
var buildOnly = map[string]string{
	"software-properties-common": "add-apt-repository, to set up apt",
	"python3-dev":                "Python's headers, for pip to build extensions",
	"curl":                       "to fetch get-pip.py",
}

// run interprets a RUN line in the shell form: commands joined by &&,
// each one of those the cubes run. Any other fails, naming it.
func (b *builder) run(args string) error {
	if strings.HasPrefix(args, "[") {
		return fmt.Errorf("the exec form of RUN is not supported")
	}
	if strings.ContainsAny(args, ";|`$<>") {
		return fmt.Errorf("%q: only commands joined by && are supported", args)
	}
	for _, c := range strings.Split(args, "&&") {
		words := shellWords(strings.TrimSpace(c))
		if len(words) == 0 {
			return fmt.Errorf("%q: an empty command", args)
		}
		if err := b.runCommand(words); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(words, " "), err)
		}
	}
	return nil
}

// runCommand interprets one command of a RUN line.
func (b *builder) runCommand(w []string) error {
	switch {
	case slices.Equal(w, []string{"apt-get", "update"}), slices.Equal(w, []string{"rm", "-rf", "/var/lib/apt/lists/*"}):
		return nil // apt's package lists, which the root filesystem has not either
	case len(w) > 1 && w[0] == "apt-get" && w[1] == "install":
		return b.aptInstall(w[2:])
	case pipBootstrap(w):
		return nil // installs pip, which the image needs not: Debian's packages stand for what it would install
	case len(w) > 1 && (w[0] == "pip" || w[0] == "pip3") && w[1] == "install":
		return b.pipInstall(w[2:])
	case w[0] == "useradd":
		if len(w) != 2 || strings.HasPrefix(w[1], "-") {
			return fmt.Errorf("only useradd NAME is supported")
		}
		return b.acct.add(w[1])
	case w[0] == "chmod":
		return b.chmod(w[1:])
	}
	return fmt.Errorf("not a command this builder interprets (run.go)")
}

// pipBootstrap says whether w is a step of installing pip with
// get-pip.py: fetching it from bootstrap.pypa.io, running it, removing it.
func pipBootstrap(w []string) bool {
	last := w[len(w)-1]
	switch w[0] {
	case "curl":
		return strings.HasPrefix(last, "https://bootstrap.pypa.io/") && strings.HasSuffix(last, "/get-pip.py")
	case "python3", "rm":
		return len(w) == 2 && last == "get-pip.py"
	}
	return false
}

// aptInstall checks that every package apt-get would install is in the
// root filesystem or only serves the build.
func (b *builder) aptInstall(args []string) error {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if !b.pkgs[a] && buildOnly[a] == "" {
			return fmt.Errorf("the Debian package %s is not in the root filesystem (scripts/e2e/images.sh's packages) nor "+
				"only for the build (buildOnly, run.go)", a)
		}
	}
	return nil
}

// pipInstall checks the requirements pip would install: each -r file's
// (a file of the image, relative to the working directory) and each
// named one.
func (b *builder) pipInstall(args []string) error {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-r" || a == "--requirement":
			if i+1 == len(args) {
				return fmt.Errorf("%s without a file", a)
			}
			i++
			if err := b.requirementsFile(b.abs(args[i])); err != nil {
				return err
			}
		case a == "--no-cache-dir" || a == "-U" || a == "--upgrade" || a == "-q" || a == "--quiet":
		case strings.HasPrefix(a, "-"):
			return fmt.Errorf("pip option %s is not supported", a)
		default:
			if err := b.requirement(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// chmod changes the mode of files of the layer: an octal mode, or +x.
func (b *builder) chmod(args []string) error {
	if len(args) < 2 {
		return errors.New("want chmod MODE FILE, and one file at least")
	}
	for _, p := range args[1:] {
		file := filepath.Join(b.layer, filepath.FromSlash(b.abs(p)))
		fi, err := os.Stat(file)
		if err != nil {
			return fmt.Errorf("%s is not a file of the cube's layer", p)
		}
		mode := fi.Mode().Perm()
		switch m := args[0]; {
		case m == "+x" || m == "a+x" || m == "ugo+x":
			mode |= 0o111
		default:
			n, err := strconv.ParseUint(m, 8, 32)
			if err != nil || n > 0o777 {
				return fmt.Errorf("mode %s: only an octal mode or +x is supported", m)
			}
			mode = os.FileMode(n)
		}
		if err := os.Chmod(file, mode); err != nil {
			return err
		}
	}
	return nil
}
