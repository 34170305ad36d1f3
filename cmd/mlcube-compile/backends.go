package main

import (
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
	"github.com/mlcube-compile/mlcube-compile/backends/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/job"
	"github.com/mlcube-compile/mlcube-compile/backends/kube"
	"github.com/mlcube-compile/mlcube-compile/backends/manifest"
	"github.com/mlcube-compile/mlcube-compile/backends/tekton"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// backend turns a compiled pipeline into the objects one engine runs, each
// already checked by the engine's own validator, and warnings about what
// the engine cannot express, each at what it is about.
type backend func(p *ir.Pipeline, opts emitOptions) (objs []any, warnings diag.Diagnostics, err error)

// emitOptions are the flags every backend reads.
type emitOptions struct {
	// RBAC asks for the ServiceAccount, Role and RoleBinding the run needs,
	// before the object that runs it.
	RBAC bool
	// Kind is the kind of Argo object to emit.
	Kind argo.Kind
}

// rbacNeedsNamespace refuses --emit-rbac without a namespace: a
// RoleBinding must name the namespace of the service account it binds.
func rbacNeedsNamespace(p *ir.Pipeline) error {
	if p.Namespace == "" {
		return &manifest.SpecError{Field: "namespace", Message: "--emit-rbac needs the run's namespace, which a RoleBinding must name; set namespace in the platform file"}
	}
	return nil
}

// serviceAccount is the service account the emitted RBAC is for: the
// platform's, or one named after the pipeline.
func serviceAccount(p *ir.Pipeline) string {
	if p.ServiceAccountName != "" {
		return p.ServiceAccountName
	}
	return distributed.DefaultServiceAccount(p)
}

// backendNames are the --backend values, in the order help lists them.
var backendNames = []string{"argo", "tekton", "job"}

var backends = map[string]backend{
	"argo": func(p *ir.Pipeline, opts emitOptions) ([]any, diag.Diagnostics, error) {
		var objs []any
		o := argo.Options{Kind: opts.Kind}
		if opts.RBAC {
			if err := rbacNeedsNamespace(p); err != nil {
				return nil, nil, err
			}
			o.ServiceAccountName = serviceAccount(p)
			objs = argo.RBAC(p, o.ServiceAccountName)
		}
		wf, warnings, err := argo.Compile(p, o)
		if err != nil {
			return nil, nil, err
		}
		return append(objs, wf), warnings, nil
	},
	"tekton": func(p *ir.Pipeline, opts emitOptions) ([]any, diag.Diagnostics, error) {
		var objs []any
		var o tekton.Options
		if opts.RBAC {
			if err := rbacNeedsNamespace(p); err != nil {
				return nil, nil, err
			}
			o.ServiceAccountName = serviceAccount(p)
			objs = tekton.RBAC(p, o.ServiceAccountName)
		}
		pr, warnings, err := tekton.Compile(p, o)
		if err != nil {
			return nil, nil, err
		}
		return append(withConfigMap(p, objs), pr), warnings, nil
	},
	"job": func(p *ir.Pipeline, opts emitOptions) ([]any, diag.Diagnostics, error) {
		j, warnings, err := job.Compile(p, job.Options{})
		if err != nil {
			return nil, nil, err
		}
		if opts.RBAC {
			warnings = append(warnings, diag.Warnf(diag.At(diag.Pos{File: p.Source}), "job: a Job calls no Kubernetes API, so --emit-rbac adds nothing"))
		}
		return append(withConfigMap(p, nil), j), warnings, nil
	},
}

// withConfigMap puts the pipeline's ConfigMap, if it has one, before objs:
// it must exist before the run that reads it. An Argo Workflow creates its
// own as its first task.
func withConfigMap(p *ir.Pipeline, objs []any) []any {
	if cm := kube.ConfigMap(p); cm != nil {
		return append([]any{cm}, objs...)
	}
	return objs
}

func backendList() string { return strings.Join(backendNames, ", ") }
