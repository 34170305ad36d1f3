package engines

import (
	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/job"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton"
)

// All are the engines, in the order help lists them: a new engine is
// added here, and nowhere else outside its own package.
var All = []emit.Engine{argo.Engine{}, tekton.Engine{}, job.Engine{}}

// Find is the engine of a --backend value.
func Find(name string) (emit.Engine, bool) {
	for _, e := range All {
		if e.Name() == name {
			return e, true
		}
	}
	return nil, false
}
