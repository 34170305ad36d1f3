package main

import (
	"runtime/debug"
	"testing"
)

// --version says which build this is whether the linker stamped it (make
// build), go install stamped the module version, go build stamped the VCS
// revision, or nothing did.
func TestDescribeBuild(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"},
	}}
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}}
	for _, c := range []struct {
		name, version, commit string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"stamped by the linker", "v0.5.0", "feedbeef", vcs, "v0.5.0 (feedbeef, go1.26.8)"},
		{"go build in a clone", "", "", vcs, "devel (0123abc, modified, go1.26.8)"},
		{"go install MODULE@VERSION", "", "", installed, "v0.4.0 (unknown commit, go1.26.8)"},
		{"no build info", "", "", nil, "devel (unknown commit, unknown Go)"},
	} {
		if got := describeBuild(c.version, c.commit, c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
