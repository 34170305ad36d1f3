//go:build e2e

package e2e

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestE2EJobMLCubeHelloWorld runs MLCommons' hello_world, unchanged, in
// the MLCube 2.0 and 1.0 layouts, as a Job per task (--backend job
// --task hello, then bye) on the real node, each in its own image, whose
// entrypoint the kubelet runs: the chat file on the claim holds both
// tasks' lines for the name in names/alice.txt.
func TestE2EJobMLCubeHelloWorld(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	for _, cube := range helloCubes(t) {
		t.Run(cube.layout, func(t *testing.T) {
			t.Parallel()
			r := &realRun{c: c, ns: "e2e-job-hello-world-" + cube.layout, volumes: map[string]string{}}
			c.namespace(t, r.ns)
			for _, task := range helloTasks {
				c.must(t, "", "-n", r.ns, "delete", "job", "hello-world-"+task.name, "--ignore-not-found", "--wait",
					"--cascade=foreground")
			}
			r.claim(t, "hello-world",
				corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}}, claimMake)
			name := seedNames(t, cube, r.volumes["hello-world"])
			var jobs []string
			for _, task := range helloTasks {
				docs := compileHello(t, "job", cube, nil, "--task", task.name)
				jobs = append(jobs, runJob(t, c, r.ns, "hello-world-"+task.name, docs[len(docs)-1], 4*time.Minute))
			}
			chat := checkChat(t, r.volumes["hello-world"], name, "hello", "bye")
			t.Logf("cube hello_world (MLCube %s layout, image %s) as Jobs %v: Succeeded (Complete); "+
				"chats/chat_with_alice.txt %q", cube.layout, cube.image, jobs, chat)
		})
	}
}
