package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// buildError builds a context of files (its Dockerfile among them) on a
// base with pkgs, and returns the error, with the context's folder
// written as CTX.
func buildError(t *testing.T, pkgs []string, files map[string]string) string {
	t.Helper()
	ctx := t.TempDir()
	write(t, ctx, files)
	o := options{spec: filepath.Join(ctx, "Dockerfile"), base: fakeBase(t, pkgs), out: filepath.Join(t.TempDir(), "out")}
	err := build(o)
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), ctx, "CTX")
}

// TestBuildRefuses: what the builder cannot give fails, naming the
// Dockerfile's line and instruction (and a requirement's file and line).
func TestBuildRefuses(t *testing.T) {
	py := "FROM python:3.9.16-slim\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"instruction", map[string]string{"Dockerfile": py + "HEALTHCHECK CMD true\n"},
			"CTX/Dockerfile:2: HEALTHCHECK: instruction HEALTHCHECK is not supported"},
		{"requirement", map[string]string{"Dockerfile": py + "COPY r.txt /r.txt\nRUN pip3 install --no-cache-dir -r /r.txt\n",
			"r.txt": "numpy==1.24.3\n# x\nflask>=2 ; python_version > '3'\n"},
			`CTX/Dockerfile:3: RUN: pip3 install --no-cache-dir -r /r.txt: CTX/r.txt:3: requirement "flask>=2 ; ` +
				`python_version > '3'": no Debian package is known for flask (debianOf, requirements.go)`},
		{"package absent", map[string]string{"Dockerfile": py + "RUN pip install torch\n"},
			`CTX/Dockerfile:2: RUN: pip install torch: requirement "torch": Debian package python3-torch is not in the root ` +
				`filesystem (scripts/e2e/images.sh's packages)`},
		{"SimpleITK imported", map[string]string{"Dockerfile": py + "COPY . /p\nRUN pip install -r /p/r.txt\n",
			"r.txt": "SimpleITK>=2.1.0\n", "m.py": "import os, SimpleITK as sitk\n"},
			`CTX/Dockerfile:3: RUN: pip install -r /p/r.txt: CTX/r.txt:1: requirement "SimpleITK>=2.1.0": Debian has no ` +
				`package of SimpleITK, and /p/m.py imports it`},
		{"command", map[string]string{"Dockerfile": py + "RUN apt-get update && make install\n"},
			"CTX/Dockerfile:2: RUN: make install: not a command this builder interprets (run.go)"},
		{"apt", map[string]string{"Dockerfile": py + "RUN apt-get install -y --no-install-recommends curl libgl1\n"},
			"CTX/Dockerfile:2: RUN: apt-get install -y --no-install-recommends curl libgl1: the Debian package libgl1 is not " +
				"in the root filesystem (scripts/e2e/images.sh's packages) nor only for the build (buildOnly, run.go)"},
		{"base", map[string]string{"Dockerfile": "FROM alpine:3\n"},
			"CTX/Dockerfile:1: FROM: base image alpine:3 is not one this builder knows (bases, build.go)"},
		{"stages", map[string]string{"Dockerfile": py + "FROM python:3.9 AS two\n"},
			"CTX/Dockerfile:2: FROM: a multi-stage build is not supported"},
		{"source", map[string]string{"Dockerfile": py + "COPY nothing /x\n"},
			"CTX/Dockerfile:2: COPY: nothing is not in the build context CTX (or .dockerignore excludes it)"},
		{"ignored", map[string]string{"Dockerfile": py + "COPY a/b.txt /x\n", "a/b.txt": "", ".dockerignore": "a\n"},
			"CTX/Dockerfile:2: COPY: a/b.txt is not in the build context CTX (or .dockerignore excludes it)"},
		{"chown", map[string]string{"Dockerfile": py + "COPY --chown=1000 a /a\n", "a": ""},
			"CTX/Dockerfile:2: COPY: flag --chown=1000 is not supported"},
		{"url", map[string]string{"Dockerfile": py + "ADD https://example.com/x.py /x.py\n"},
			"CTX/Dockerfile:2: ADD: ADD https://example.com/x.py: Docker would fetch or unpack it, which this builder does not"},
		{"sources", map[string]string{"Dockerfile": py + "COPY a b /x\n", "a": "", "b": ""},
			"CTX/Dockerfile:2: COPY: more than one source, and /x does not end in /"},
		{"user", map[string]string{"Dockerfile": py + "USER somebody\n"},
			"CTX/Dockerfile:2: USER: user somebody is not an account of the image"},
		{"no FROM", map[string]string{"Dockerfile": "COPY a /a\n", "a": ""}, "CTX/Dockerfile:1: COPY: before FROM"},
		{"useradd", map[string]string{"Dockerfile": py + "RUN useradd -m someone\n"},
			"CTX/Dockerfile:2: RUN: useradd -m someone: only useradd NAME is supported"},
	} {
		if got := buildError(t, []string{"python3-numpy"}, c.files); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestEntrypointClearsBaseCmd: the base image's CMD (python's python3)
// holds until an ENTRYPOINT, which clears it unless the Dockerfile set a
// CMD of its own, before or after, as Docker does.
func TestEntrypointClearsBaseCmd(t *testing.T) {
	for _, c := range []struct {
		body            string
		entrypoint, cmd []string
	}{
		{"", nil, []string{"python3"}},
		{`ENTRYPOINT ["python3", "/project/x.py"]`, []string{"python3", "/project/x.py"}, nil},
		{"CMD [\"--help\"]\nENTRYPOINT [\"python3\"]", []string{"python3"}, []string{"--help"}},
		{"ENTRYPOINT [\"python3\"]\nCMD x.py", []string{"python3"}, []string{"/bin/sh", "-c", "x.py"}},
	} {
		ctx := t.TempDir()
		write(t, ctx, map[string]string{"Dockerfile": "FROM python:3.8.13-slim\n" + c.body + "\n"})
		got, _ := buildCube(t, fakeBase(t, nil), options{spec: filepath.Join(ctx, "Dockerfile")})
		if !reflect.DeepEqual(got.Entrypoint, c.entrypoint) || !reflect.DeepEqual(got.Cmd, c.cmd) {
			t.Errorf("%q: entrypoint %q cmd %q, want %q %q", c.body, got.Entrypoint, got.Cmd, c.entrypoint, c.cmd)
		}
	}
}

// TestUseraddTakesNextID: useradd picks the first free id from 1000, so
// with the base's mpiuser kept the user gets 1001, not the 1000 a
// python:*-slim base gives; dropping mpiuser gives 1000.
func TestUseraddTakesNextID(t *testing.T) {
	for drop, want := range map[string]string{"": "u:x:1001:1001::/home/u:/bin/sh",
		"mpiuser": "u:x:1000:1000::/home/u:/bin/sh"} {
		ctx := t.TempDir()
		write(t, ctx, map[string]string{"Dockerfile": "FROM python:3.9.16-slim\nRUN useradd u\nUSER u\n"})
		c, layer := buildCube(t, fakeBase(t, nil), options{spec: filepath.Join(ctx, "Dockerfile"), dropUser: drop})
		passwd := readFile(t, filepath.Join(layer, "etc", "passwd"))
		if lines := strings.Split(strings.TrimSpace(passwd), "\n"); lines[len(lines)-1] != want || c.User != "u" {
			t.Errorf("drop %q: passwd ends %q, user %q; want %q", drop, lines[len(lines)-1], c.User, want)
		}
	}
}
