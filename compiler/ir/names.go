package ir

import (
	"fmt"
	"strings"
)

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

// NameSet hands out cleaned names (DNSName) that are unique within one scope. Names
// are handed out in a fixed order, so the result is deterministic; a name
// that collides once cleaned gets a numeric suffix.
type NameSet struct {
	taken map[string]string // cleaned -> original
}

// NewNameSet is a NameSet in which the reserved names are taken.
func NewNameSet(reserved ...string) *NameSet {
	ns := &NameSet{taken: map[string]string{}}
	for _, r := range reserved {
		ns.taken[r] = ""
	}
	return ns
}

// Take returns a clean, unused name for original, trying each preferred
// spelling in turn before adding a suffix. ok is false when original has
// no letters or digits at all.
func (ns *NameSet) Take(original string, preferred ...string) (string, bool) {
	var base string
	for _, p := range preferred {
		c := DNSName(p, MaxNameLen)
		if c == "" {
			continue
		}
		if base == "" {
			base = c
		}
		if _, used := ns.taken[c]; !used {
			ns.taken[c] = original
			return c, true
		}
	}
	if base == "" {
		return "", false
	}
	for i := 2; ; i++ {
		suffix := fmt.Sprintf("-%d", i)
		c := base
		if len(c)+len(suffix) > MaxNameLen {
			c = strings.Trim(c[:MaxNameLen-len(suffix)], "-")
		}
		c += suffix
		if _, used := ns.taken[c]; !used {
			ns.taken[c] = original
			return c, true
		}
	}
}

// Original is the name a taken name was handed out for; "" for a
// reserved one or one not taken.
func (ns *NameSet) Original(name string) string { return ns.taken[name] }
