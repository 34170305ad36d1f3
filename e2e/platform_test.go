//go:build e2e

package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// realNodePlatform writes the platform file from (none when "") in a
// temporary folder with what a platform team running the suite's image
// sets on top: image in place of every cube's, never pulled, and kubectl
// steps in it too. It returns the new file's path.
func realNodePlatform(t *testing.T, from, image string) string {
	t.Helper()
	plat := map[string]any{}
	if from != "" {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &plat); err != nil {
			t.Fatal(err)
		}
	}
	maps.Copy(plat, map[string]any{"image": image, "imagePullPolicy": "Never", "kubectlImage": image})
	if store, ok := plat["objectStore"].(map[string]any); ok {
		// The steps that move data run in the suite's rclone image, which
		// has sh, sha256sum and rclone as rclone's own image has.
		store["toolImage"] = e2eObjectStore(t).Image
	}
	data, err := yaml.Marshal(plat)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "platform.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
