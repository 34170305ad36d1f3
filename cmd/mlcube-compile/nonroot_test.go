package main

import (
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
)

// With runAsNonRoot and no runAsUser (the image's own non-root user),
// every container of a step's pod but the step's own runs as a numeric
// user other than root, so that the kubelet can verify it
// (verifyRunAsNonRoot, pkg/kubelet/kuberuntime/
// security_context_others.go): the tool image (rclone's) and the
// kubectl image run as root, and the kubelet would refuse to start
// Argo's verify and main containers, Tekton's and the Job's fetch and
// upload, the containers that create files and wait for jobs. Argo's
// own init and wait containers, in a pod that must run as non-root, get
// argoexec's user, whatever the executor image says. Tekton's own (prepare) run as Tekton's images'
// user, 65532, which the test leaves to Tekton.
func TestHelpersRunAsNumericNonRoot(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, name := range []string{"bucket-pipeline", "torch-ddp", "medperf-style", "dra-mpi"} {
		ex := examples.At(filepath.Join("examples", name))
		opts := restrictedOptions(t, ex)
		plat := map[string]any{}
		if err := yaml.Unmarshal(opts.FS.(fstest.MapFS)[filepath.ToSlash(opts.Platform)].Data, &plat); err != nil {
			t.Fatal(err)
		}
		delete(plat, "podSecurity")
		if tk := plat["tekton"].(map[string]any); len(tk) == 1 {
			delete(plat, "tekton")
		} else {
			delete(tk, "setSecurityContext")
		}
		plat["securityContext"] = map[string]any{"runAsNonRoot": true}
		data, err := yaml.Marshal(plat)
		if err != nil {
			t.Fatal(err)
		}
		opts.FS.(fstest.MapFS)[filepath.ToSlash(opts.Platform)] = &fstest.MapFile{Data: data}
		for _, backend := range []string{"argo", "tekton"} {
			req := driver.Request{Compiler: opts, Backend: backend}
			p, diags, err := driver.IR(req)
			if err != nil || diags.HasErrors() {
				t.Fatalf("%s, %s: %v %v", name, backend, diags, err)
			}
			res, err := driver.Emit(p, req)
			if err != nil {
				t.Fatalf("%s, %s: %v", name, backend, err)
			}
			var images []string
			for _, s := range p.Steps {
				images = append(images, s.Image)
			}
			for pod, spec := range podsOf(t, backend, res.Run) {
				for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
					if slices.Contains(images, c.Image) || c.Name == "prepare" || c.Image == "" {
						continue
					}
					if c.Image == "argoexec" && (spec.SecurityContext == nil || spec.SecurityContext.RunAsNonRoot == nil) {
						continue // Argo's, in a pod that may run as root
					}
					if !numericNonRoot(spec.SecurityContext, c.SecurityContext) {
						t.Errorf("%s, %s: pod %s: container %s (%s) runs as its image's user: %+v", name, backend, pod, c.Name, c.Image,
							c.SecurityContext)
					}
				}
			}
		}
	}
}

// numericNonRoot says whether a container runs as a user given by
// number, other than 0: its own runAsUser, else its pod's.
func numericNonRoot(pod *corev1.PodSecurityContext, c *corev1.SecurityContext) bool {
	switch {
	case c != nil && c.RunAsUser != nil:
		return *c.RunAsUser != 0
	case pod != nil && pod.RunAsUser != nil:
		return *pod.RunAsUser != 0
	}
	return false
}
