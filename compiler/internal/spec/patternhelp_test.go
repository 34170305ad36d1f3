package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
)

// TestPatternHelp pins the words that explain the schema's patterns and
// bounds: never CUE's own.
func TestPatternHelp(t *testing.T) {
	long := strings.Repeat("a", 254)
	for _, c := range []struct{ yaml, want string }{
		{`namespace: "Team A"`, `namespace: got "Team A", want a Kubernetes label: lower case letters, digits and '-'`},
		{`serviceAccountName: "My_Account"`, `serviceAccountName: got "My_Account", want a Kubernetes name: lower case ` +
			`letters, digits, '-' and '.'`},
		{`storage: {pvc: "a..b"}`,
			`storage.pvc: got "a..b", want a Kubernetes name: lower case letters, digits, '-' and '.'`},
		{`storage: {mountPath: "relative"}`, `storage.mountPath: got "relative", want a clean absolute path ` +
			`such as /mnt/mlcube`},
		{`storage: {mountPath: "/a/../b"}`, `storage.mountPath: got "/a/../b", want a clean absolute path such as ` +
			`/mnt/mlcube, without . or ..`},
		{`storage: {mountPath: "a/./b"}`,
			"storage.mountPath: got \"a/./b\", want a clean absolute path such as /mnt/mlcube\n" +
				`storage.mountPath: got "a/./b", want a clean absolute path such as /mnt/mlcube, without . or ..`},
		{`imagePullSecrets: ["` + long + `"]`, `imagePullSecrets[0]: got "` + long + `", want at most 253 characters`},
		{`gpu: {resource: "a b"}`, `gpu.resource: got "a b", want a resource name such as nvidia.com/gpu or amd.com/gpu`},
		{`cpu: {nodeSelector: {pool: "big pool"}}`,
			`cpu.nodeSelector.pool: got "big pool", want a Kubernetes label value: letters, digits, '-', '_' and '.', ` +
				`starting and ending with a letter or digit`},
		{`cpu: {nodeSelector: {pool: "` + long[:64] + `"}}`,
			`cpu.nodeSelector.pool: got "` + long[:64] + `", want at most 63 characters`},
		{`image: ""`, `image: got "", want a non-empty string`},
	} {
		file := filepath.Join(t.TempDir(), "platform.yaml")
		if err := os.WriteFile(file, []byte(c.yaml+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range CheckPlatform(source.New(nil), file) {
			got = append(got, d.Field+": "+d.Message)
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.yaml, strings.Join(got, "\n"), c.want)
		}
	}
}
