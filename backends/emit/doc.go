// Package emit is the contract between the compiler's IR and the engines
// that turn it into Kubernetes objects: the Engine interface, the Kinds it
// emits and what each Needs, Accepts (the pure check of a pipeline's shape,
// apart from emitting it), its Options and Result, Emit (which names the
// engine on everything it says), the refusals that are the spec's fault
// (Refuse, RefuseShape, TooLarge with the size limits behind it), and the
// one multi-document YAML stream every output is written as, the same
// bytes for the same objects.
package emit
