package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPatternHelp pins the words that explain the schema's patterns, and
// the messages of the patterns and bounds that have none.
func TestPatternHelp(t *testing.T) {
	long := strings.Repeat("a", 254)
	for _, c := range []struct{ yaml, want string }{
		{`namespace: "Team A"`, `namespace: got "Team A", want a Kubernetes label: lower case letters, digits and '-'`},
		{`serviceAccountName: "My_Account"`, `serviceAccountName: got "My_Account", want a Kubernetes name: lower case letters, digits, '-' and '.'`},
		{`storage: {pvc: "a..b"}`, `storage.pvc: got "a..b", want a Kubernetes name: lower case letters, digits, '-' and '.'`},
		{`storage: {mountPath: "relative"}`, `storage.mountPath: got "relative", want a clean absolute path such as /mnt/mlcube`},
		{`storage: {mountPath: "/a/../b"}`, `storage.mountPath: got "/a/../b", want a clean absolute path such as /mnt/mlcube, without . or ..`},
		{`storage: {mountPath: "a/./b"}`, "storage.mountPath: got \"a/./b\", want a clean absolute path such as /mnt/mlcube\n" +
			`storage.mountPath: got "a/./b", want a clean absolute path such as /mnt/mlcube, without . or ..`},
		{`imagePullSecrets: ["` + long + `"]`, `imagePullSecrets[0]: invalid value "` + long + `" (does not satisfy strings.MaxRunes(253))`},
		{`gpu: {resource: "a b"}`, `gpu.resource: invalid value "a b" (out of bound =~"^([a-z0-9.-]+/)?[A-Za-z0-9._-]+$")`},
	} {
		file := filepath.Join(t.TempDir(), "platform.yaml")
		if err := os.WriteFile(file, []byte(c.yaml+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range CheckPlatform(file) {
			got = append(got, d.Field+": "+d.Message)
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.yaml, strings.Join(got, "\n"), c.want)
		}
	}
}
