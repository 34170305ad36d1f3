// Package enginetest is what the engines' tests share, and the command's
// and the e2e suite's with them: the golden comparison of each example's
// IR emitted by an engine, an emit as the command would, and readers of
// what a run creates (its jobs, ConfigMap, Kueue keys, a CRD's schema).
//
// It imports no engine and not the compiler, so that an engine's own
// tests may use it; package manifestcheck compiles for an engine and
// checks printed manifests with the engines' validators.
package enginetest
