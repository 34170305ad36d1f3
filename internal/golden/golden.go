package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Compare checks got against the golden file, after writing it when
// update is set.
func Compare(t *testing.T, got []byte, golden string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run make golden)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; run make golden and read the diff before committing it", golden)
	}
}
