package schema

import (
	"strings"
	"testing"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// TestHelpIsReadFromTheSchema checks the words of every @help of the
// embedded schema, each paired with its pattern.
func TestHelpIsReadFromTheSchema(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	want := []patternHelp{
		{`=~"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"`, "want a Kubernetes label: lower case letters, digits and '-'"},
		{`=~"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"`,
			"want a Kubernetes name: lower case letters, digits, '-' and '.'"},
		{`=~"^(/[A-Za-z0-9._-]+)+$"`, "want a clean absolute path such as /mnt/mlcube"},
		{`!~"/\\.\\.?(/|$)"`, "want a clean absolute path such as /mnt/mlcube, without . or .."},
		{`=~"^/"`, "want an absolute path in the container, starting with /"},
		{`=~"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"`,
			`want "" (no queue) or a Kubernetes name: lower case letters, digits, '-' and '.'`},
		{`=~"^[A-Za-z0-9.-]+(:[0-9]{1,5})?$"`,
			"want host[:port] without a scheme, such as s3.amazonaws.com or minio.storage:9000"},
		{`=~"^[a-z0-9-]+$"`, "want a region such as us-east-1"},
		{`=~"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$"`,
			"want a key prefix of the bucket such as mlcube-cache or team/cache, without a leading or trailing /"},
		{`!~"(^|/)\\.\\.?(/|$)"`, "want a key prefix of the bucket such as mlcube-cache, without . or .."},
		{`=~"^sha256:[0-9a-f]{64}$"`,
			"want an image's digest, sha256: and 64 lowercase hex digits, such as mlcube-compile lock prints"},
		{`=~"^[-._a-zA-Z0-9]+$"`, "want a Secret key: letters, digits, '-', '_' and '.'"},
		{`=~"^[a-z0-9.-]+/[A-Za-z0-9._-]+$"`, "want a domain-prefixed resource name such as example.com/gpu"},
		{`=~"^\\+?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][-+]?[0-9]+)?$"`,
			"want a Kubernetes quantity, such as 500m, 4, 16Gi or 10G"},
		{`=~"^([a-z0-9.-]+/)?[A-Za-z0-9._-]+$"`, "want a resource name such as nvidia.com/gpu or amd.com/gpu"},
		{`=~"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"`,
			"want a Kubernetes label value: letters, digits, '-', '_' and '.', starting and ending with a letter or digit"},
		{`=~"^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+$"`,
			"want a Python function with its module, such as package.module.function"},
	}
	s.Do(func(c *Context) {
		if len(c.help) != len(want)+1 { // a second =~"^/"
			t.Fatalf("got %d @help patterns, want %d: %q", len(c.help), len(want), c.help)
		}
		for _, w := range want {
			msg := `invalid value "X" (out of bound ` + w.bound + ")"
			if got, ok := c.Help(msg); !ok || got != w.help {
				t.Errorf("%s: got %q, want %q", msg, got, w.help)
			}
		}
		if help, ok := c.Help(`invalid value "a b" (out of bound =~"^[a-z]+$")`); ok {
			t.Errorf("a pattern without @help is explained: %q", help)
		}
	})
	srcs, err := sources()
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range srcs {
		if n := strings.Count(string(src), "[a-z0-9]([-a-z0-9]*[a-z0-9])?"); n > 1 || (n == 1) != (name == "platform.cue") {
			t.Errorf("%s holds the pattern of a DNS label %d times; want it once, in platform.cue", name, n)
		}
	}
}

// TestEveryPatternHasWords checks that every pattern of the schema's
// values is explained in words: its field has a @help, or a @help of
// another field explains the same pattern. A value out of a pattern is
// never reported as CUE's =~"…".
func TestEveryPatternHasWords(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := sources()
	if err != nil {
		t.Fatal(err)
	}
	s.Do(func(c *Context) {
		for name, src := range srcs {
			f, err := parser.ParseFile(name, src)
			if err != nil {
				t.Fatal(err)
			}
			var fields []*ast.Field
			ast.Walk(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.Field:
					fields = append(fields, x)
					// A pattern of a label says which keys a mapping
					// takes: a key out of it is an unknown one.
					ast.Walk(x.Value, func(n ast.Node) bool { return checkWords(t, c, name, fields, n) }, nil)
					return false
				}
				return true
			}, nil)
		}
	})
}

// checkWords checks a pattern n, written in the innermost of fields, and
// walks on into fields below.
func checkWords(t *testing.T, c *Context, file string, fields []*ast.Field, n ast.Node) bool {
	switch x := n.(type) {
	case *ast.Field:
		ast.Walk(x.Value, func(n ast.Node) bool { return checkWords(t, c, file, append(fields, x), n) }, nil)
		return false
	case *ast.UnaryExpr:
		if x.Op != token.MAT && x.Op != token.NMAT {
			return true
		}
		if hasHelp(fields[len(fields)-1]) {
			return true
		}
		printed, err := format.Node(x)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Help(`invalid value "X" (out of bound ` + string(printed) + ")"); !ok {
			t.Errorf("%s: %s: %s has no words: give its field a @help", file, x.Pos(), printed)
		}
	}
	return true
}

func TestIsDNSSubdomain(t *testing.T) {
	for name, want := range map[string]bool{
		"data": true, "data.team-1": true, "0": true, strings.Repeat("a", 254): true,
		"": false, "Data": false, "-data": false, "data-": false, "a..b": false, "a_b": false, "a.b.": false,
	} {
		if got := IsDNSSubdomain(name); got != want {
			t.Errorf("IsDNSSubdomain(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestHelpMistakes checks that a @help the schema cannot read is an
// error when the schema is compiled, rather than words never said.
func TestHelpMistakes(t *testing.T) {
	for src, want := range map[string]string{
		`#A: {b?: =~"x" & !~"y" @help("one")}`:         `#A.b?: @help("one") has 1 strings for 2 patterns`,
		`#A: string @help("none")`:                     `#A: @help("none") has 1 strings for 0 patterns`,
		`#A: =~"x" @help(a=b)`:                         `#A: @help(a=b): want a string of words, one a pattern`,
		`#A: {[string]: {b: =~"x" @help("words")}}`:    `@help is read from definitions and regular fields`,
		`_a: =~"x" @help("words")`:                     `@help is read from definitions and regular fields`,
		`#A: {b!: {c: =~"x" & =~"y" @help("x", "y")}}`: ``,
	} {
		f, err := parser.ParseFile("help.cue", src)
		if err != nil {
			t.Fatal(err)
		}
		paths, err := helpPaths(f)
		if err == nil {
			_, err = readHelp(cuecontext.New().BuildFile(f), paths)
		}
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: got error %v, want %q", src, err, want)
		}
	}
}
