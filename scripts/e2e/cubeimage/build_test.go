package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeBase writes a root filesystem's accounts (with mpiuser at 1000, as
// images.sh's mpi_setup adds it), a dpkg status of pkgs, and the files
// named, and returns its folder.
func fakeBase(t *testing.T, pkgs []string, files ...string) string {
	t.Helper()
	root := t.TempDir()
	write(t, root, map[string]string{
		"etc/passwd":  "root:x:0:0:root:/root:/bin/bash\nmpiuser:x:1000:1000::/home/mpiuser:/bin/bash\n",
		"etc/group":   "root:x:0:\nusers:x:100:mpiuser\nmpiuser:x:1000:\n",
		"etc/shadow":  "root:*:20785:0:99999:7:::\nmpiuser:!:20786:0:99999:7:::\n",
		"etc/gshadow": "root:*::\nmpiuser:!::\n",
	})
	var status strings.Builder
	for _, p := range pkgs {
		status.WriteString("Package: " + p + "\nStatus: install ok installed\nVersion: 1\n\n")
	}
	status.WriteString("Package: python3-removed\nStatus: deinstall ok config-files\n\n")
	write(t, root, map[string]string{"var/lib/dpkg/status": status.String(), "home/mpiuser/.sshd_config": "x"})
	for _, f := range files {
		write(t, root, map[string]string{f: ""})
	}
	return root
}

// write writes files (slash paths) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// buildCube builds o.spec on base, and returns its config and the
// layer's folder.
func buildCube(t *testing.T, base string, o options) (imageConfig, string) {
	t.Helper()
	o.base, o.out = base, filepath.Join(t.TempDir(), "out")
	if err := build(o); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(o.out, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c imageConfig
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c, filepath.Join(o.out, "layer")
}

// layerFiles lists a layer's files by slash path, folders ending in /,
// each with its mode when not 0644 or 0755 (folders).
func layerFiles(t *testing.T, layer string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(layer, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == layer {
			return err
		}
		rel, _ := filepath.Rel(layer, p)
		rel = filepath.ToSlash(rel)
		switch {
		case fi.IsDir():
			rel += "/"
		case fi.Mode().Perm() != 0o644:
			rel += " " + fi.Mode().Perm().String()
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const brats = `FROM python:3.9.16-slim

COPY ./requirements.txt /mlcube_project/requirements.txt 

RUN pip3 install --no-cache-dir -r /mlcube_project/requirements.txt

ENV LANG C.UTF-8

# Create a non-root user.
RUN useradd nonrootuser
USER nonrootuser

COPY . /mlcube_project

ENTRYPOINT ["python3", "/mlcube_project/mlcube.py"]`

// TestBuildBraTSLayout lays out a cube as BraTS2024's data_prep
// Dockerfile does, from its mlcube.yaml's build_context: its files under
// /mlcube_project, nonrootuser at uid 1000 once mpiuser is dropped, the
// recorder hidden, and the config of its Dockerfile. Its .dockerignore's
// *.md excludes the context root's README.md only, as Docker's does.
func TestBuildBraTSLayout(t *testing.T) {
	cube := t.TempDir()
	write(t, cube, map[string]string{
		"mlcube/mlcube.yaml": "name: x\ndocker:\n  image: x:1\n  build_context: \"../project\"\n" +
			"  build_file: \"Dockerfile\"\n",
		"project/Dockerfile":         brats,
		"project/requirements.txt":   "pyYAML\ntyper==0.9.0\nnumpy\nSimpleITK>=2.1.0\n",
		"project/mlcube.py":          "import typer\nimport SimpleITKish\n",
		"project/sub/prepare.py":     "# import SimpleITK would be a comment\n",
		"SOURCE":                     "not in the context",
		"project/.dockerignore":      "*.md\n",
		"project/README.md":          "ignored",
		"project/sub/tool.sh":        "#!/bin/sh\n",
		"project/sub/deeper/data.md": "ignored too",
	})
	os.Chmod(filepath.Join(cube, "project/sub/tool.sh"), 0o555)
	os.Chmod(filepath.Join(cube, "project/mlcube.py"), 0o444)
	base := fakeBase(t, []string{"python3-yaml", "python3-typer", "python3-numpy"}, "usr/local/bin/mlcube-e2e-record")
	c, layer := buildCube(t, base, options{spec: filepath.Join(cube, "mlcube/mlcube.yaml"), dropUser: "mpiuser",
		env: list{"PATH=/usr/bin:/bin"}, whiteouts: list{"/usr/local/bin/mlcube-e2e-record"}})
	want := imageConfig{User: "nonrootuser", Entrypoint: []string{"python3", "/mlcube_project/mlcube.py"},
		Env: []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}, WorkingDir: "/"}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("config %+v, want %+v", c, want)
	}
	wantFiles := []string{"etc/", "etc/group", "etc/gshadow", "etc/passwd", "etc/shadow", "home/", "home/.wh.mpiuser",
		"mlcube_project/", "mlcube_project/.dockerignore", "mlcube_project/Dockerfile", "mlcube_project/mlcube.py",
		"mlcube_project/requirements.txt",
		"mlcube_project/sub/", "mlcube_project/sub/deeper/", "mlcube_project/sub/deeper/data.md",
		"mlcube_project/sub/prepare.py", "mlcube_project/sub/tool.sh -rwxr-xr-x",
		"usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/.wh.mlcube-e2e-record"}
	if files := layerFiles(t, layer); !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("layer:\n%q\nwant:\n%q", files, wantFiles)
	}
	wantAccounts := map[string]string{
		"passwd":  "root:x:0:0:root:/root:/bin/bash\nnonrootuser:x:1000:1000::/home/nonrootuser:/bin/sh\n",
		"group":   "root:x:0:\nusers:x:100:\nnonrootuser:x:1000:\n",
		"shadow":  "root:*:20785:0:99999:7:::\nnonrootuser:!:20785:0:99999:7:::\n",
		"gshadow": "root:*::\nnonrootuser:!::\n",
	}
	for f, want := range wantAccounts {
		if got, _ := os.ReadFile(filepath.Join(layer, "etc", f)); string(got) != want {
			t.Errorf("etc/%s:\n%s\nwant:\n%s", f, got, want)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestBuildDaskMapExample lays out examples/dask-map's Containerfile as
// images.sh does: FROM debian:bookworm-slim, whose CMD is bash; its
// apt-get install of Dask, pandas and scikit-learn, packages of the root
// filesystem; one file of its own, benchmark_map.py on Python's path; and
// USER 1000, a uid with no account, as on Debian's slim image once
// mpiuser is dropped.
func TestBuildDaskMapExample(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "examples", "dask-map")
	base := fakeBase(t, []string{"python3-distributed", "python3-pandas", "python3-sklearn"},
		"usr/local/bin/mlcube-e2e-record")
	c, layer := buildCube(t, base, options{spec: filepath.Join(dir, "Containerfile"), dropUser: "mpiuser",
		env: list{"PATH=/usr/bin:/bin"}, whiteouts: list{"/usr/local/bin/mlcube-e2e-record"}})
	want := imageConfig{User: "1000", Cmd: []string{"bash"}, Env: []string{"PATH=/usr/bin:/bin"}, WorkingDir: "/"}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("config %+v, want %+v", c, want)
	}
	wantFiles := []string{"etc/", "etc/group", "etc/gshadow", "etc/passwd", "etc/shadow", "home/", "home/.wh.mpiuser",
		"usr/", "usr/lib/", "usr/lib/python3/", "usr/lib/python3/dist-packages/",
		"usr/lib/python3/dist-packages/benchmark_map.py",
		"usr/local/", "usr/local/bin/", "usr/local/bin/.wh.mlcube-e2e-record"}
	if files := layerFiles(t, layer); !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("layer:\n%q\nwant:\n%q", files, wantFiles)
	}
	got := readFile(t, filepath.Join(layer, "usr", "lib", "python3", "dist-packages", "benchmark_map.py"))
	if got != readFile(t, filepath.Join(dir, "benchmark_map.py")) {
		t.Error("benchmark_map.py differs from the example's")
	}
}
