// Package tkntest is what `tkn pipeline start` makes of a Pipeline, for
// tests: a model of tektoncd/cli's start command for the flags the
// warnings of --backend tekton --kind pipeline give, and a reader of
// those flags from the warnings, so that a test can build the
// PipelineRun a user would start and hand it to Tekton's validation or
// to an API server. Only tests import it.
package tkntest
