package engines_test

import (
	"path/filepath"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// sizedBucket is the bucket of examples/bucket-pipeline's platform.
const sizedBucket = `objectStore:
  s3:
    endpoint: seaweedfs.storage:8333
    bucket: mlcube-e2e
    accessKeySecret: {name: s3-credentials, key: accessKey}
    secretKeySecret: {name: s3-credentials, key: secretKey}
`

// With storage.size and storageClassName, every folder that receives
// fetched data is on a volume of that size and class, never on the
// node's own disk: the scratch volume each fetch lands in first, the
// fetched volume URL inputs are placed in, and an object workspace, on
// every engine, whichever workspace the platform asks for.
func TestFetchedDataOnTheSizedVolume(t *testing.T) {
	cube := enginetest.Example(t, "bucket-pipeline")
	for _, storage := range []string{"workspace: object, ", ""} {
		platform := "storage: {" + storage + "size: 150Gi, storageClassName: fast-ssd}\n" + sizedBucket
		dir := enginetest.WriteFiles(t, map[string]string{"platform.yaml": platform})
		for _, backend := range backendNames() {
			opts := compiler.Options{Task: filepath.Join(cube, "pipeline.yaml"), Platform: filepath.Join(dir, "platform.yaml")}
			if backend == "job" {
				opts = compiler.Options{MLCube: filepath.Join(cube, "mlcube.yaml"), Task: "prepare", Platform: opts.Platform}
			}
			out := manifestcheck.BuildFor(t, backend, opts, emit.Options{}).Must(t)
			var docs []any
			for _, obj := range out.Objects() {
				docs = append(docs, enginetest.Tree(t, obj))
			}
			found := map[string]int{}
			manifestcheck.WalkMaps(docs, func(m map[string]any) {
				name, _ := m["name"].(string)
				if name != "mlcube-scratch" && name != "fetched" && !(name == "workspace" && storage != "") {
					return
				}
				if _, ok := m["mountPath"]; ok {
					return
				}
				found[name]++
				spec, _ := dig(m, "ephemeral", "volumeClaimTemplate", "spec").(map[string]any)
				if spec == nil || dig(spec, "resources", "requests", "storage") != "150Gi" ||
					spec["storageClassName"] != "fast-ssd" {
					t.Errorf("%s%s: volume %s is %v, want a generic ephemeral volume of 150Gi of fast-ssd", storage, backend, name, m)
				}
			})
			if found["mlcube-scratch"] == 0 || found["fetched"] == 0 {
				t.Errorf("%s%s: volumes found %v, want the scratch and fetched volumes", storage, backend, found)
			}
		}
	}
}

// dig is the value at keys below m, or nil.
func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}
