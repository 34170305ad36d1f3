package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// builder is the image being laid out: the state the Dockerfile's
// instructions change, and the layer its files go into.
type builder struct {
	file, context, base, layer string
	ctx                        *buildContext
	origin                     map[string]string // the context's file of each file copied, by its image path
	pkgs                       map[string]bool   // Debian packages installed in base
	acct                       *accounts
	env                        [][2]string
	workdir, user              string
	entrypoint, cmd            []string
	cmdSet, from               bool
}

// imageConfig is the "config" of an image's configuration (the fields
// of the OCI image spec's config that a Dockerfile sets).
type imageConfig struct {
	User       string   `json:"User,omitempty"`
	Entrypoint []string `json:"Entrypoint,omitempty"`
	Cmd        []string `json:"Cmd,omitempty"`
	Env        []string `json:"Env"`
	WorkingDir string   `json:"WorkingDir"`
}

// bases are the base images the cubes and the examples name, by prefix:
// the CMD and the variables of their configuration that hold for any
// root filesystem (docker-library's Dockerfiles: python's 3.8 and 3.9 set
// LANG C.UTF-8, for Python's bug 19846, and end with CMD ["python3"];
// ubuntu's with CMD ["/bin/bash"]; debian's, bookworm-slim's among them,
// with CMD ["bash"]). Their PATH is the -env one. A debian: base's own
// files are the root filesystem's (images.sh debootstraps bookworm).
var bases = []struct {
	prefix string
	cmd    []string
	env    [][2]string
}{
	{"python:", []string{"python3"}, [][2]string{{"LANG", "C.UTF-8"}}},
	{"ubuntu:", []string{"/bin/bash"}, nil},
	{"debian:", []string{"bash"}, nil},
}

func newBuilder(file, context, base, layer string) (*builder, error) {
	ctx, err := readContext(context)
	if err != nil {
		return nil, err
	}
	pkgs, err := installedPackages(base)
	if err != nil {
		return nil, err
	}
	acct, err := readAccounts(base)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(layer, 0o755); err != nil {
		return nil, err
	}
	return &builder{file: file, context: context, base: base, layer: layer, ctx: ctx, pkgs: pkgs, acct: acct, workdir: "/",
		origin: map[string]string{}}, nil
}

// dockerfile applies the Dockerfile's instructions in order.
func (b *builder) dockerfile() error {
	ins, err := parseDockerfile(b.file)
	if err != nil {
		return err
	}
	for _, in := range ins {
		if err := b.apply(in); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", b.file, in.line, in.cmd, err)
		}
	}
	if !b.from {
		return fmt.Errorf("%s: no FROM", b.file)
	}
	return nil
}

// apply interprets one instruction as Docker does (BuildKit's
// Dockerfile frontend); what it cannot give fails, and the caller names
// the Dockerfile, the line and the instruction:
//   - FROM: only the base images whose CMD and ENV are in bases
//     (python:*, ubuntu:*, debian:*); the root filesystem stands in for
//     their files.
//   - COPY and ADD of local paths (ADD of an archive or URL fails), with
//     the context's .dockerignore; the files keep their content and take
//     the modes a git checkout gives (0644, or 0755 where any execute bit
//     is set; folders 0755), owned by root.
//   - ENV, WORKDIR, ENTRYPOINT, CMD, USER; LABEL and MAINTAINER go nowhere.
//   - RUN, only the commands these cubes run: pip install of
//     requirements, each mapped to a Debian package installed in the
//     root filesystem; apt-get install of packages installed there or
//     needed only to build; pip's bootstrap; useradd; chmod.
func (b *builder) apply(in instruction) error {
	if !b.from && in.cmd != "FROM" {
		return fmt.Errorf("before FROM")
	}
	switch in.cmd {
	case "FROM":
		return b.fromBase(in.args)
	case "COPY", "ADD":
		return b.copy(in)
	case "ENV":
		pairs, err := envPairs(in.args)
		for _, p := range pairs {
			b.setEnv(p[0], p[1])
		}
		return err
	case "WORKDIR":
		return b.setWorkdir(in.args)
	case "ENTRYPOINT":
		return b.setEntrypoint(in.args)
	case "CMD":
		words, err := execForm(in.args)
		b.cmd, b.cmdSet = words, true
		return err
	case "USER":
		return b.setUser(in.args)
	case "LABEL", "MAINTAINER":
		return nil
	case "RUN":
		return b.run(in.args)
	}
	return fmt.Errorf("instruction %s is not supported", in.cmd)
}

// fromBase takes the CMD and variables of a known base image; its files
// are not used: the root filesystem stands in for them. A second FROM
// (a multi-stage build) fails.
func (b *builder) fromBase(args string) error {
	if b.from {
		return fmt.Errorf("a multi-stage build is not supported")
	}
	words := strings.Fields(args)
	if len(words) != 1 {
		return fmt.Errorf("want FROM IMAGE, got %q", args)
	}
	for _, base := range bases {
		if strings.HasPrefix(words[0], base.prefix) {
			b.from, b.cmd = true, base.cmd
			for _, kv := range base.env {
				b.setEnv(kv[0], kv[1])
			}
			return nil
		}
	}
	return fmt.Errorf("base image %s is not one this builder knows (bases, build.go)", words[0])
}

// setEntrypoint sets the entrypoint; it clears the CMD the base image
// gave unless the Dockerfile set one, as Docker does (BuildKit's
// dispatchEntrypoint, frontend/dockerfile/dockerfile2llb/convert.go).
func (b *builder) setEntrypoint(args string) error {
	words, err := execForm(args)
	if err != nil {
		return err
	}
	b.entrypoint = words
	if !b.cmdSet {
		b.cmd = nil
	}
	return nil
}

func (b *builder) setEnv(k, v string) {
	for i := range b.env {
		if b.env[i][0] == k {
			b.env[i][1] = v
			return
		}
	}
	b.env = append(b.env, [2]string{k, v})
}

// setWorkdir sets the working directory, relative to the previous one,
// and makes it in the layer unless the image has it, as Docker does.
func (b *builder) setWorkdir(args string) error {
	if args == "" || strings.Contains(args, "$") {
		return fmt.Errorf("want a path without variables, got %q", args)
	}
	b.workdir = b.abs(args)
	if b.isDir(b.workdir) {
		return nil
	}
	return mkdirs(b.layer, b.workdir)
}

// setUser sets the user, which must be an account of the image (or a
// number), as the container's runtime resolves it.
func (b *builder) setUser(args string) error {
	name, _, _ := strings.Cut(args, ":")
	if name == "" || strings.Contains(args, "$") {
		return fmt.Errorf("want USER NAME, got %q", args)
	}
	if strings.Trim(name, "0123456789") != "" && !b.acct.has(name) {
		return fmt.Errorf("user %s is not an account of the image", name)
	}
	b.user = args
	return nil
}

// abs is p in the image, relative to the working directory.
func (b *builder) abs(p string) string {
	if !path.IsAbs(p) {
		p = path.Join(b.workdir, p)
	}
	return path.Clean(p)
}

// isDir says whether p is a folder in the image: in the layer or in the
// root filesystem.
func (b *builder) isDir(p string) bool {
	for _, root := range []string{b.layer, b.base} {
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// whiteout hides p of the root filesystem, as an OCI layer's whiteout
// file does (.wh.NAME beside it), unless the layer has its own p.
func (b *builder) whiteout(p string) error {
	p = path.Clean("/" + p)
	if _, err := os.Lstat(filepath.Join(b.layer, p)); err == nil {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(b.base, p)); err != nil {
		return fmt.Errorf("-whiteout %s: not in the root filesystem: %v", p, err)
	}
	dir := path.Dir(p)
	if err := mkdirs(b.layer, dir); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(b.layer, dir, ".wh."+path.Base(p)), nil, 0o644)
}

// dropUser drops an account of the root filesystem from the image (and
// hides its home folder).
func (b *builder) dropUser(name string) error { return b.acct.drop(name) }

// finish writes the accounts the instructions changed into the layer,
// and hides the home folders of those dropped.
func (b *builder) finish() error {
	for _, home := range b.acct.homes {
		if _, err := os.Lstat(filepath.Join(b.base, home)); err == nil {
			if err := b.whiteout(home); err != nil {
				return err
			}
		}
	}
	return b.acct.write(b.base, b.layer)
}

func (b *builder) config() imageConfig {
	c := imageConfig{User: b.user, Entrypoint: b.entrypoint, Cmd: b.cmd, WorkingDir: b.workdir, Env: []string{}}
	for _, kv := range b.env {
		c.Env = append(c.Env, kv[0]+"="+kv[1])
	}
	return c
}

// mkdirs makes folder p of the image, and its parents, in the layer,
// each 0755.
func mkdirs(layer, p string) error {
	dir := layer
	for _, part := range strings.Split(strings.Trim(path.Clean(p), "/"), "/") {
		if part == "" {
			continue
		}
		dir = filepath.Join(dir, part)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return err
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			return err
		}
	}
	return nil
}
