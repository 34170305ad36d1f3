package main

import (
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// backend turns a compiled pipeline into the objects one engine runs,
// each already checked by the engine's own validator.
type backend func(p *ir.Pipeline) ([]any, error)

// backendNames are the --backend values, in the order help lists them.
var backendNames = []string{"argo"}

var backends = map[string]backend{
	"argo": func(p *ir.Pipeline) ([]any, error) {
		wf, err := argo.Compile(p, argo.Options{})
		if err != nil {
			return nil, err
		}
		return []any{wf}, nil
	},
}

func backendList() string { return strings.Join(backendNames, ", ") }
