package lint

import "testing"

// Globs match as .gitignore's patterns do, from the root linted, and as
// typed.
func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		glob, root, file string
		want             bool
	}{
		{"clusters/*.yaml", "plat", "plat/clusters/prod.yaml", true},
		{"./clusters/*.yaml", "plat", "plat/clusters/prod.yaml", true},
		{"/clusters/*.yaml", "plat", "plat/clusters/prod.yaml", true},
		{"plat/clusters/*.yaml", "plat", "plat/clusters/prod.yaml", true},
		{"clusters/*.yaml", "plat", "plat/a/clusters/prod.yaml", false},
		{"**/clusters/*.yaml", "plat", "plat/a/clusters/prod.yaml", true},
		{"**/clusters/*.yaml", "plat", "plat/clusters/prod.yaml", true},
		{"a/**/prod.yaml", ".", "a/b/c/prod.yaml", true},
		{"a/**/prod.yaml", ".", "a/prod.yaml", true},
		{"*.yaml", "plat", "plat/a/b/prod.yaml", true},
		{"prod.yaml", "plat", "plat/a/prod.yaml", true},
		{"extra/*", "proj", "proj/extra/old", true},
		{"extra/*", "proj", "proj/extra/old/mlcube.yaml", false},
		{"clusters/*.yaml", "other", "plat/clusters/prod.yaml", false},
	} {
		if got := globMatch(c.glob, c.root, c.file); got != c.want {
			t.Errorf("globMatch(%q, %q, %q) = %v, want %v", c.glob, c.root, c.file, got, c.want)
		}
	}
}
