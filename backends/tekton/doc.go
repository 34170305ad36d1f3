// Package tekton turns the IR into a tekton.dev/v1 PipelineRun with an
// embedded pipelineSpec and one embedded taskSpec per step, checked by
// Tekton's own SetDefaults and Validate before it is printed.
package tekton
