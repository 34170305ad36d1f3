//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// TestE2EChestXRayCompiles compiles the chest X-ray pipeline for every
// engine (a Job for each step), on a claim and through the bucket,
// without running it: what the runs above submit compiles everywhere,
// whether or not the node holds the cubes' images.
func TestE2EChestXRayCompiles(t *testing.T) {
	t.Parallel()
	images := chestXRayImages(t, false)
	claim := chestXRayPipeline(t, onClaim)
	bucket := chestXRayPipeline(t, inBucket("mlcube-e2e", "chestxray/"))
	onClaimPlatform := chestXRayPlatform(t, realImage)
	for _, backend := range []string{"argo", "tekton"} {
		compileCubes(t, backend, claim, onClaimPlatform, images)
		compileCubes(t, backend, bucket, bucketPlatform(t, realImage), images)
	}
	for _, step := range chestXRaySteps {
		compileCubes(t, "job", claim, onClaimPlatform, images, "--step", step)
	}
}

// TestE2EMedPerfCubesCompile compiles the pipelines of MedPerf's test
// cubes (with model-cpu, and with model-bug) and of BraTS2024's
// pathology task for every engine (a Job for each step), without running
// them; and checks the one refusal among them: BraTS2024 restricted on
// Tekton without tekton.setSecurityContext, which Tekton's own init
// containers need to be admitted (MLC361; TestE2ETektonRestricted shows
// the API server refusing those containers without the flag).
func TestE2EMedPerfCubesCompile(t *testing.T) {
	t.Parallel()
	images := medperfTestImages(t, false)
	onClaim := cubePlatform(t, realImage, map[string]any{"storage": map[string]any{"pvc": medperfClaim}})
	for _, run := range medperfRuns {
		pipeline := medperfTestsPipeline(t, run.model)
		for _, backend := range []string{"argo", "tekton"} {
			compileCubes(t, backend, pipeline, onClaim, images)
		}
		for _, step := range medperfTestSteps {
			compileCubes(t, "job", pipeline, onClaim, images, "--step", step)
		}
	}
	brats, bimages := bratsPipeline(t), bratsImages(t, false)
	compileCubes(t, "argo", brats, bratsPlatform(t, realImage, false), bimages)
	compileCubes(t, "tekton", brats, bratsPlatform(t, tektonImage, true), bimages)
	for _, step := range bratsSteps {
		compileCubes(t, "job", brats, bratsPlatform(t, realImage, false), bimages, "--step", step)
	}
	refused := compileRefused(t, "tekton", brats, bratsPlatform(t, tektonImage, false), "MLC361")
	if !strings.Contains(refused, "set-security-context") {
		t.Errorf("the refusal does not name Tekton's flag:\n%s", refused)
	}
	t.Logf("BraTS2024, restricted, on Tekton without tekton.setSecurityContext: refused before the run: %s", refused)
}
