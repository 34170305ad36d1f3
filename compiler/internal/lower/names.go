package lower

import (
	"fmt"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// labelValue cleans s into a Kubernetes label value.
func labelValue(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := b.String()
	if len(out) > 63 {
		out = out[:63]
	}
	return strings.Trim(out, "-_.")
}

// nameSet hands out cleaned names that are unique within one scope. Names
// are handed out in a fixed order, so the result is deterministic; a name
// that collides once cleaned gets a numeric suffix.
type nameSet struct {
	taken map[string]string // cleaned -> original
}

func newNameSet(reserved ...string) *nameSet {
	ns := &nameSet{taken: map[string]string{}}
	for _, r := range reserved {
		ns.taken[r] = ""
	}
	return ns
}

// take returns a clean, unused name for original, trying each preferred
// spelling in turn before adding a suffix. ok is false when original has
// no letters or digits at all.
func (ns *nameSet) take(original string, preferred ...string) (string, bool) {
	var base string
	for _, p := range preferred {
		c := ir.DNSName(p, ir.MaxNameLen)
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
		if len(c)+len(suffix) > ir.MaxNameLen {
			c = strings.Trim(c[:ir.MaxNameLen-len(suffix)], "-")
		}
		c += suffix
		if _, used := ns.taken[c]; !used {
			ns.taken[c] = original
			return c, true
		}
	}
}
