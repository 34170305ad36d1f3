// Package enginetest is what the engines' tests share, and the command's
// and the e2e suite's with them. Golden: each example's IR, read from the
// compiler's golden files, emitted with the default options (or another
// of the engine's kinds) and compared with the engine's own golden
// files, which must also equal the command's.
//
// Emit: an IR emitted by one engine as the command would, for the tests
// that check what an engine makes of a spec (in backends/argo, tekton,
// job, engines and internal/distributed), with what they read back: the
// jobs a run creates (Jobs, TemplateJobs, TaskJobs, MPIJob,
// CheckV1MPIJob), the ConfigMap it reads (ConfigMap), Kueue's keys
// (KueueFields), a Dask CRD's schema (CheckCRD), and spec folders to
// compile (WriteFiles, DemoCube, ResNetPipeline, StoragePipeline,
// DaskPipeline). It imports no engine and not the compiler, so that an
// engine's own tests may use it; package manifestcheck compiles a spec
// for an engine (Build) and checks printed manifests with the engines'
// validators.
package enginetest
