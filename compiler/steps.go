package compiler

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/source"
	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// PipelineSteps are the steps of the pipeline file opts name (Task, once
// paired), as it writes their names and in its order, for --step; file
// says whether opts name a pipeline file at all, rather than a cube's
// tasks (a task list, a legacy invoke file, or no --task). When what
// opts name cannot be read, steps is nil and file true: Compile says
// why.
func PipelineSteps(opts Options) (steps []string, file bool) {
	if opts.Task == "" {
		return nil, false
	}
	file = true
	readPipeline(opts, func(ps *spec.Pipeline) {
		spec.PickSteps(ps, nil)
		steps, file = ps.FileSteps, !ps.FromCube
	})
	return steps, file
}

// PipelineParams are the names of the params of the pipeline file opts
// name (Task, once paired), in its order, for --set; nil when opts name
// none, or it cannot be read.
func PipelineParams(opts Options) []string {
	var names []string
	if opts.Task == "" {
		return nil
	}
	readPipeline(opts, func(ps *spec.Pipeline) {
		for _, p := range ps.Params {
			names = append(names, p.Name)
		}
	})
	return names
}

// readPipeline reads what opts name and gives it to use, when it can be
// read; Compile says why when it cannot.
func readPipeline(opts Options, use func(*spec.Pipeline)) {
	s, err := opts.Schema, error(nil)
	if s == nil {
		s, err = schema.Load()
	}
	if err != nil {
		return
	}
	s.Do(func(sc *schema.Context) {
		if ps, _, _ := spec.Read(sc, source.New(opts.FS), opts.MLCube, opts.Platform, opts.Task); ps != nil {
			use(ps)
		}
	})
}
