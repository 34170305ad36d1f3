package distributed

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// Job is a distributed step's job, ready to embed in an engine's manifest.
type Job struct {
	// Object is the job; the API server completes its generateName.
	Object any
	// Resource and Group name the job's kind for RBAC rules.
	Resource, Group string
	// SuccessCondition and FailureCondition are Argo resource-template
	// conditions: label-selector syntax over the job's JSON.
	SuccessCondition, FailureCondition string
	// Status is a kubectl JSONPath whose words include Succeeded or
	// Failed once the job is done.
	Status, Succeeded, Failed string
	// Autoscaler, when set, is a DaskAutoscaler to create once the job's
	// name is known; its spec.cluster is the job's name.
	Autoscaler *Autoscaler
}

// YAML is the job's manifest as YAML.
func (j *Job) YAML() (string, error) { return emit.YAML(j.Object) }

// JSON is the job's manifest as one line of JSON.
func (j *Job) JSON() (string, error) { return emit.JSON(j.Object) }

// JSONOwnedBy is the job's manifest as one line of JSON, owned by the
// object that owner describes, so that Kubernetes deletes the job with
// it from the moment the job exists.
func (j *Job) JSONOwnedBy(owner map[string]string) (string, error) {
	doc, err := j.JSON()
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		return "", err
	}
	meta, _ := m["metadata"].(map[string]any)
	meta["ownerReferences"] = []any{owner}
	return emit.JSON(m)
}

// Selector selects the jobs of one step of one run.
func Selector(s *ir.Step, runName string) string {
	return RunLabel + "=" + runName + "," + StepLabel + "=" + s.Name
}

// Kind is the job's resource, qualified by its group, as kubectl takes it.
func (j *Job) Kind() string { return j.Resource + "." + j.Group }

// Kinds are the resources of the jobs p's steps create, as kubectl takes
// them, joined by commas; empty when p has no distributed step.
func Kinds(p *ir.Pipeline) string {
	var out []string
	for _, s := range p.Steps {
		kind := ""
		switch s.Kind {
		case ir.MPI:
			kind = "mpijobs." + mpiGroup
		case ir.Dask:
			kind = "jobsets." + jobSetGroup
			if s.Dask.Form == ir.DaskOperator {
				kind = "daskjobs." + daskGroup
			}
		case ir.Torch:
			kind = "trainjobs." + trainGroup
		}
		if kind != "" && !slices.Contains(out, kind) {
			out = append(out, kind)
		}
	}
	return strings.Join(out, ",")
}

// Build makes the job of a distributed step and checks it with the
// operator's own validation where the operator ships one. runName is the
// engine's reference to the run's name, which labels the job.
func Build(p *ir.Pipeline, s *ir.Step, claim ClaimName, runName string) (*Job, error) {
	switch s.Kind {
	case ir.MPI:
		return mpiJob(p, s, claim, runName)
	case ir.Dask:
		if s.Dask.Form == ir.DaskOperator {
			return daskJob(p, s, claim, runName), nil
		}
		return daskJobSet(p, s, claim, runName)
	case ir.Torch:
		return trainJob(p, s, claim, runName)
	}
	return nil, fmt.Errorf("step %s is not a distributed step", s.Name)
}
