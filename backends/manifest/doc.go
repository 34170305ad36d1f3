// Package manifest writes Kubernetes objects as one multi-document YAML
// stream, the same bytes for the same objects.
package manifest
