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
	s, err := opts.Schema, error(nil)
	if s == nil {
		s, err = schema.Load()
	}
	if err != nil {
		return nil, true
	}
	file = true
	s.Do(func(sc *schema.Context) {
		ps, _, _ := spec.Read(sc, source.New(opts.FS), opts.MLCube, opts.Platform, opts.Task)
		if ps == nil {
			return
		}
		spec.PickSteps(ps, nil)
		steps, file = ps.FileSteps, !ps.FromCube
	})
	return steps, file
}
