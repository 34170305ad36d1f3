package enginetest

import "fmt"

// The keys that put a workload in a Kueue queue, hold it until Kueue
// admits it, and set its priorities.
const (
	QueueLabel    = "kueue.x-k8s.io/queue-name"
	PriorityLabel = "kueue.x-k8s.io/priority-class"
)

var kueueKeys = []string{QueueLabel, PriorityLabel, "suspend", "priorityClassName"}

// KueueFields finds Kueue's keys (the queue and priority labels, suspend
// and priorityClassName) in a decoded manifest (Tree): for each key, the
// path of each map that holds it, with its value. A list item is named
// by its name (or pipelineTaskName), so paths read as the objects they
// are; strings are not looked into, so an embedded job's manifest is
// found on its own.
func KueueFields(v any) map[string]map[string]string {
	out := map[string]map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range kueueKeys {
				if x, ok := v[k]; ok {
					if out[k] == nil {
						out[k] = map[string]string{}
					}
					out[k][path] = fmt.Sprint(x)
				}
			}
			for k, x := range v {
				walk(join(path, k), x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%s]", path, itemName(x, i)), x)
			}
		}
	}
	walk("", v)
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func itemName(v any, i int) string {
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"name", "pipelineTaskName"} {
			if n, ok := m[k].(string); ok {
				return n
			}
		}
	}
	return fmt.Sprint(i)
}
