// Package enginetest is what the engines' tests share. Golden: each
// example's IR, read from the compiler's golden files, emitted with the
// default options (or another of the engine's kinds) and compared with
// the engine's own golden files, which must also equal the command's.
//
// Emit: specs compiled and emitted by one engine as the command would,
// for the tests that check what an engine makes of a spec (in
// backends/argo, tekton, job, engines and internal/distributed), with
// what they read back: the jobs a run creates (Jobs, MPIJob), the
// ConfigMap it reads (ConfigMap), Kueue's keys (KueueFields), a Dask
// CRD's schema (CheckCRD), and spec folders to compile (WriteFiles,
// ResNetPipeline, StoragePipeline, DaskPipeline). Backends see the
// compiler only through its IR, so this package does not import it: each
// test package compiles with compiler.Compile (after compiler.Pair, with
// the NeedValues of the engine's kind) and hands the IR to Emit.
package enginetest
