package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// unknownFieldHint is the hint for a field the schema's closed struct at
// its parent does not allow, and the field it suggests: the nearest field
// it does allow, or one the key is a synonym of (synonyms); "" when
// none.
func (d *document) unknownFieldHint(sc *schema.Context, path cue.Path) (hint, meant string) {
	sels := path.Selectors()
	if len(sels) == 0 {
		return "", ""
	}
	name := selectorName(sels[len(sels)-1])
	fields := schemaFields(sc, d.kind, sels[:len(sels)-1])
	if slices.Contains(fields, "accessKeySecret") && credentialKey(name) {
		return "credentials are never written in a spec: put the key in a Secret of the run's namespace and name it, as " +
			"accessKeySecret: {name: SECRET, key: KEY} and secretKeySecret", ""
	}
	meant = diag.Nearest(name, fields)
	if meant == "" {
		meant = synonymOf(name, fields)
	}
	if meant == "" {
		return "", ""
	}
	return fmt.Sprintf("did you mean %q?", meant), meant
}

// synonyms are keys that Kubernetes, Argo, Tekton or Kueue use for what a
// field of ours holds, by the field: words for the same thing that no
// slip of the keyboard turns into ours, so that edit distance cannot find
// them (claim is five edits from pvc).
var synonyms = map[string][]string{
	"pvc":                     {"claim", "claimName", "volumeClaim", "persistentVolumeClaim", "pvcName"},
	"after":                   {"dependencies", "depends", "dependsOn", "runAfter"},
	"retries":                 {"retry", "retryStrategy"},
	"timeout":                 {"activeDeadlineSeconds"},
	"queue":                   {"queueName", "localQueue", "localQueueName"},
	"bucket":                  {"bucketName"},
	"endpoint":                {"url", "endpointURL", "host"},
	"ttlSecondsAfterFinished": {"ttl", "ttlSeconds", "ttlStrategy"},
	"env":                     {"environment", "envVars"},
}

// synonymOf is the one of fields that name names in other words
// (synonyms), or "".
func synonymOf(name string, fields []string) string {
	for _, field := range fields {
		for _, s := range synonyms[field] {
			if strings.EqualFold(s, name) {
				return field
			}
		}
	}
	return ""
}

// outermostUnknown is the first field on path that the definition of kind
// does not declare, or path itself.
func outermostUnknown(sc *schema.Context, kind schema.Kind, path cue.Path) cue.Path {
	sels := path.Selectors()
	v := sc.Def(kind)
	for i, s := range sels {
		if v = schemaChild(v, s); !v.Exists() {
			return cue.MakePath(sels[:i+1]...)
		}
	}
	return path
}

// schemaFields returns the names of the fields the definition of kind
// declares at path: a field of a mapping of named entries (steps, tasks)
// is found through the mapping's pattern, an item of a list through the
// list's element, and a disjunction (a string or a mapping) gives the
// fields of its mappings.
func schemaFields(sc *schema.Context, kind schema.Kind, path []cue.Selector) []string {
	v := sc.Def(kind)
	for _, s := range path {
		if v = schemaChild(v, s); !v.Exists() {
			return nil
		}
	}
	return structFields(v.Unify(sc.CUE().CompileString("{}")))
}

// schemaChild is the value of the schema v at s, whether s is a field
// written in v (required or optional) or matches one of v's patterns.
func schemaChild(v cue.Value, s cue.Selector) cue.Value {
	name := selectorName(s)
	tries := []cue.Selector{cue.Str(name), cue.Str(name).Optional(), cue.Str(name).Required(), cue.AnyString}
	if s.LabelType() == cue.IndexLabel {
		// A key that reads as a number ("0":) comes as an index too.
		tries = append([]cue.Selector{s, cue.AnyIndex}, tries...)
	}
	for _, t := range tries {
		if w := v.LookupPath(cue.MakePath(t)); w.Exists() {
			return w
		}
	}
	return cue.Value{}
}

// selectorName is a selector as a key is written: a string label
// unquoted, an index as its number.
func selectorName(s cue.Selector) string {
	if s.LabelType() == cue.IndexLabel {
		return strconv.Itoa(s.Index())
	}
	if s.IsString() {
		return s.Unquoted()
	}
	return s.String()
}

// structFields lists the fields of a struct, or of each struct a
// disjunction that did not resolve can be.
func structFields(v cue.Value) []string {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		var names []string
		if op, args := v.Expr(); op == cue.OrOp {
			for _, a := range args {
				names = append(names, structFields(a)...)
			}
		}
		return names
	}
	var names []string
	for it.Next() {
		names = append(names, it.Selector().Unquoted())
	}
	return names
}
