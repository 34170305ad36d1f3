package schema

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"k8s.io/apimachinery/pkg/api/resource"
)

// #Quantity's pattern, which an editor checks as the compiler does,
// takes only what resource.ParseQuantity parses as a non-negative
// quantity, and all of it but the forms with no digit before the suffix
// ("E", ".", "+", which the API server's own pattern refuses too) and a
// negative zero ("-0").
// mantissa is a quantity's number, with a digit, before its suffix.
var mantissa = regexp.MustCompile(`^[-+]?[0-9]*\.?[0-9]*[0-9]`)

func TestQuantityPatternIsParseQuantity(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var pattern *regexp.Regexp
	s.Do(func(c *Context) { pattern, err = onePattern(c.value.LookupPath(cue.ParsePath("#Quantity"))) })
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{"16GB", "16Gi", "16G", "500m", "4", "0", "0.5", ".5", "5.", "1e3", "1E-3", "1e", "+1", "-1", "1.5Gi",
		"1Ki", "1k", "1K", "1KB", "1u", "1n", "1.2.3", "", " 1", "1 ", "Gi", "1Gi1", "1e3Gi", "10Ei", "1P", "1Pi", "100M",
		"0x10", "1_000", "١"}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789.+-eEKMGTPEinumk "
	for range 20000 {
		b := make([]byte, 1+r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		q, err := resource.ParseQuantity(c)
		parsed := err == nil && q.Sign() >= 0
		degenerate := !mantissa.MatchString(c) || err == nil && q.Sign() == 0 && strings.HasPrefix(c, "-")
		if taken := pattern.MatchString(c); taken && !parsed || parsed && !taken && !degenerate {
			t.Errorf("%q: the pattern takes it: %v, ParseQuantity: %v", c, taken, parsed)
		}
	}
}
