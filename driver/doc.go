// Package driver is the one path from specs to output, between the
// compiler and the command line: it checks a request's backend, kind and
// schedule flags together, compiles the specs, emits them through one
// engine, puts the objects in the order they are applied, writes them as
// YAML, and maps every error once: a spec's fault becomes a diagnostic, a
// refusal by an engine's own validator becomes an InternalError. Compile,
// Graph and Lint all go through it.
package driver
