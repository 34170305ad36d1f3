package main

import (
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/job"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// backend turns a compiled pipeline into the objects one engine runs, each
// already checked by the engine's own validator, and warnings about what
// the engine cannot express.
type backend func(p *ir.Pipeline) (objs []any, warnings []string, err error)

// backendNames are the --backend values, in the order help lists them.
var backendNames = []string{"argo", "tekton", "job"}

var backends = map[string]backend{
	"argo": func(p *ir.Pipeline) ([]any, []string, error) {
		wf, err := argo.Compile(p, argo.Options{})
		if err != nil {
			return nil, nil, err
		}
		return []any{wf}, nil, nil
	},
	"tekton": func(p *ir.Pipeline) ([]any, []string, error) {
		pr, warnings, err := tekton.Compile(p, tekton.Options{})
		if err != nil {
			return nil, nil, err
		}
		return []any{pr}, warnings, nil
	},
	"job": func(p *ir.Pipeline) ([]any, []string, error) {
		j, warnings, err := job.Compile(p, job.Options{})
		if err != nil {
			return nil, nil, err
		}
		return []any{j}, warnings, nil
	},
}

func backendList() string { return strings.Join(backendNames, ", ") }
