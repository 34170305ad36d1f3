// Package emit is the contract between the compiler's IR and the engines
// that turn it into Kubernetes objects: the Engine interface, its Options
// and Result, the errors that are the spec's fault (SpecError,
// TooLargeError) with the size limits behind them, and the one
// multi-document YAML stream every output is written as, the same bytes
// for the same objects.
package emit
