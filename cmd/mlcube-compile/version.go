package main

import (
	"fmt"
	"runtime/debug"
)

// version and commit are set at link time by make build:
// -ldflags "-X main.version=v1.2.3 -X main.commit=abc123". Otherwise they
// come from the build info: the module's version when built by go install
// MODULE@VERSION, and the VCS revision go build stamps in a clone.
var version, commit string

// buildVersion is what --version prints after "mlcube-compile version ":
// the version, then the commit and the Go version in parentheses.
func buildVersion() string {
	return describeBuild(version, commit, readBuildInfo())
}

// readBuildInfo is the binary's build info, or nil without one.
func readBuildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return bi
}

// describeBuild fills what the linker did not set from the build info.
func describeBuild(version, commit string, bi *debug.BuildInfo) string {
	b := identify(version, commit, bi)
	return fmt.Sprintf("%s (%s, %s)", b.version, b.commit, b.goVersion)
}

// build is what identifies the binary: its version, its commit (with ",
// modified" when built from a changed tree) and its Go version.
type build struct{ version, commit, goVersion string }

// identify fills what the linker did not set from the build info.
func identify(version, commit string, bi *debug.BuildInfo) build {
	goVersion := "unknown Go"
	stamped, modified := commit != "", false
	if bi != nil {
		goVersion = bi.GoVersion
		if version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && commit == "":
				commit = s.Value
			case s.Key == "vcs.modified" && s.Value == "true" && !stamped:
				modified = true
			}
		}
	}
	if version == "" {
		version = "devel"
	}
	if commit == "" {
		commit = "unknown commit"
	} else if modified {
		commit += ", modified"
	}
	return build{version, commit, goVersion}
}

// compilerIdentity is the version and commit a run's provenance names.
func compilerIdentity() (string, string) {
	b := identify(version, commit, readBuildInfo())
	return b.version, b.commit
}
