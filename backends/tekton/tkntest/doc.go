// Package tkntest is what `tkn pipeline start` makes of a Pipeline, for
// tests: a model of tektoncd/cli's pkg/cmd/pipeline/start.go for the flags
// that the warnings of --backend tekton --kind pipeline give, and a reader
// of those flags (and of the taskRunSpecs tkn has no flag for) from the
// warnings, so that a test can build the PipelineRun a user would start
// and hand it to Tekton's validation or to an API server. Only tests
// import it.
package tkntest
