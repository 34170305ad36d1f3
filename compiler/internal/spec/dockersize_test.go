package spec

import "testing"

// Sizes are read as docker reads --shm-size and --memory: opts.MemBytes
// calls RAMInBytes of github.com/docker/go-units (size.go). The table is
// TestRAMInBytes of go-units v0.5.0 (size_test.go), in bytes, and the
// sizes real cubes write (2gb, 1.5g, 512MiB), each as the Kubernetes
// quantity of the same bytes.
func TestDockerSizeAsDocker(t *testing.T) {
	ok := []struct {
		in, want string
	}{
		{"32", "32"}, {"32b", "32"}, {"32B", "32"},
		{"32k", "32Ki"}, {"32K", "32Ki"}, {"32kb", "32Ki"}, {"32Kb", "32Ki"}, {"32Kib", "32Ki"}, {"32KIB", "32Ki"},
		{"32Mb", "32Mi"}, {"32Gb", "32Gi"}, {"32Tb", "32Ti"}, {"32Pb", "32Pi"}, {"32PB", "32Pi"}, {"32P", "32Pi"},
		{"32.3", "32"},
		{"32.3 mb", "33869004"}, // int64(32.3 * MiB)
		{"0.3MB", "314572"},     // int64(0.3 * MiB)
		{"2gb", "2Gi"}, {"2GB", "2Gi"}, {"1.5g", "1536Mi"}, {"512MiB", "512Mi"}, {"1G", "1Gi"}, {"8g", "8Gi"},
		// 0 is docker's default (64m for /dev/shm, no limit for --memory).
		{"0", ""},
	}
	for _, c := range ok {
		got, err := dockerSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("dockerSize(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "hello", "-32", " 32 ", "32m b", "32bm", "lots"} {
		if got, err := dockerSize(in); err == nil {
			t.Errorf("dockerSize(%q) = %q, want an error, as docker gives", in, got)
		}
	}
}
