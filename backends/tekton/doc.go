// Package tekton turns the IR into a tekton.dev/v1 PipelineRun with an
// embedded pipelineSpec and one embedded taskSpec per step, or (--kind
// pipeline) into a named Pipeline that tkn pipeline start runs, with a
// warning for each setting the Pipeline cannot carry that gives the flag
// to start it with. Each object, and the run tkn makes of the Pipeline
// with those flags, is checked by Tekton's own SetDefaults and Validate
// before it is printed.
package tekton
