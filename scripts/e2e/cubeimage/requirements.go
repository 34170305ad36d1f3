package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// debianOf maps each Python requirement the cubes' requirements.txt name
// (by its normalised name, PEP 503) to the Debian bookworm package of its
// module (../shared/cubes-src/README.md's table). The versions pinned
// upstream are not Debian's; the README says which cubes were seen to
// run on Debian's.
var debianOf = map[string]string{
	"numpy":             "python3-numpy",
	"pandas":            "python3-pandas",
	"pillow":            "python3-pil",
	"pyyaml":            "python3-yaml",
	"scikit-learn":      "python3-sklearn",
	"torch":             "python3-torch",
	"torchvision":       "python3-torchvision",
	"tqdm":              "python3-tqdm",
	"typer":             "python3-typer",
	"typing-extensions": "python3-typing-extensions",
}

// notInDebian are requirements Debian has no package for, by the module
// they provide: accepted only where no Python file of the image imports
// that module (BraTS2024's data_prep lists SimpleITK and never imports
// it).
var notInDebian = map[string]string{
	"simpleitk": "SimpleITK",
}

// requirementName is a requirement's name: what comes before a version,
// an extra, a marker or a URL.
var requirementName = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)`)

// separators are what PEP 503's normalised name turns into one "-".
var separators = regexp.MustCompile(`[-_.]+`)

// normalise is PEP 503's normalised name.
func normalise(name string) string {
	return strings.ToLower(separators.ReplaceAllString(name, "-"))
}

// requirementsFile checks each requirement of the image's file p,
// naming the file (the context's, where the layer's copy came from)
// and the line of one that fails.
func (b *builder) requirementsFile(p string) error {
	f, err := os.Open(filepath.Join(b.layer, filepath.FromSlash(p)))
	if err != nil {
		return fmt.Errorf("requirements file %s is not in the image (COPY it first)", p)
	}
	defer f.Close()
	name := p
	if src, ok := b.origin[p]; ok {
		name = src
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, " #"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "--extra-index-url") || strings.HasPrefix(line, "--index-url"):
			// Where pip would look; Debian's packages come from its mirror.
		case strings.HasPrefix(line, "-"):
			return fmt.Errorf("%s:%d: option %s is not supported", name, n, line)
		default:
			if err := b.requirement(line); err != nil {
				return fmt.Errorf("%s:%d: %w", name, n, err)
			}
		}
	}
	return sc.Err()
}

// requirement checks one requirement: its Debian package is installed
// in the root filesystem, or Debian has none and nothing imports it.
func (b *builder) requirement(req string) error {
	m := requirementName.FindString(req)
	if m == "" {
		return fmt.Errorf("requirement %q has no name", req)
	}
	name := normalise(m)
	if module, ok := notInDebian[name]; ok {
		return b.notImported(req, module)
	}
	pkg, ok := debianOf[name]
	if !ok {
		return fmt.Errorf("requirement %q: no Debian package is known for %s (debianOf, requirements.go)", req, m)
	}
	if !b.pkgs[pkg] {
		return fmt.Errorf("requirement %q: Debian package %s is not in the root filesystem (scripts/e2e/images.sh's "+
			"packages)", req, pkg)
	}
	return nil
}

// notImported fails if a Python file of the layer imports module.
func (b *builder) notImported(req, module string) error {
	imports := regexp.MustCompile(`(?m)^\s*(from\s+` + module + `\b|import\s+(.*[\s,])?` + module + `\b)`)
	return filepath.WalkDir(b.layer, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if imports.Match(data) {
			rel, _ := filepath.Rel(b.layer, p)
			return fmt.Errorf("requirement %q: Debian has no package of %s, and /%s imports it", req, module,
				filepath.ToSlash(rel))
		}
		return nil
	})
}

// installedPackages reads the Debian packages installed in root, from
// dpkg's status file.
func installedPackages(root string) (map[string]bool, error) {
	f, err := os.Open(filepath.Join(root, "var", "lib", "dpkg", "status"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pkgs := map[string]bool{}
	name := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "Package: "); ok {
			name = v
		}
		if line == "Status: install ok installed" {
			pkgs[name] = true
		}
	}
	return pkgs, sc.Err()
}
