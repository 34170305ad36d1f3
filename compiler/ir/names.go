package ir

import "strings"

// MaxNameLen keeps names short enough for every engine: Argo adds
// suffixes to generated names and Kubernetes labels stop at 63
// characters.
const MaxNameLen = 40

// DNSName cleans s into a DNS-1123 label of at most max characters: lower
// case letters, digits and dashes, starting and ending with a letter or
// digit. It returns "" when s has no letters or digits.
func DNSName(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > max {
		out = strings.Trim(out[:max], "-")
	}
	return out
}
