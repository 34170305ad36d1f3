package passes

import (
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Access modes a claim the run creates is given. A ReadWriteOnce volume
// attaches to one node at a time: pods of MPI jobs and TrainJobs land
// on several nodes (a Dask step mounts them in its client alone), and
// steps that run at the same time may too.
const (
	readWriteOnce = "ReadWriteOnce"
	readWriteMany = "ReadWriteMany"
)

// ClaimAccess decides the access modes of each claim the run creates, by
// the steps that mount it (ir.MountUse): when the platform names none,
// ReadWriteMany if a distributed step mounts it or two steps that mount
// it may run at once, else ReadWriteOnce. Two steps that may share at
// once a one-node claim the platform names are recorded
// (Volume.Concurrent) for the backends to warn about, as only Tekton's
// affinity assistant keeps such steps on one node. Package verify
// refuses the modes that cannot work.
func ClaimAccess(p *ir.Pipeline) diag.Diagnostics {
	for i, v := range p.Volumes {
		if v.Create == nil {
			continue
		}
		distributed, pair := ir.MountUse(p.Steps, v.Name)
		written := v.Create.AccessModes
		switch {
		case len(written) == 0 && (distributed != "" || pair != nil):
			v.Create.AccessModes, v.Create.Chosen = []string{readWriteMany}, true
		case len(written) == 0:
			v.Create.AccessModes, v.Create.Chosen = []string{readWriteOnce}, true
		case ir.OneNode(written) && distributed == "" && pair != nil:
			p.Volumes[i].Concurrent = pair
		}
	}
	return nil
}

// ScheduledConcurrency keeps scheduled runs that share a fixed claim from
// overlapping: with Argo's default, Allow, a run that outlasts its
// interval writes the same paths as the next one at the same time. Such
// a schedule defaults to Forbid; a written policy stands.
func ScheduledConcurrency(p *ir.Pipeline) diag.Diagnostics {
	sc := p.Schedule
	if sc != nil && sc.ConcurrencyPolicy == "" &&
		slices.ContainsFunc(p.Volumes, func(v ir.Volume) bool { return v.Create == nil }) {
		sc.ConcurrencyPolicy = "Forbid"
	}
	return nil
}

// URLFetches gives a run that fetches URLs without an object store of
// the platform's the tool that fetches them: an ObjectStore with
// ir.DefaultToolImage alone, whose scratch volume, where each pod's fetches land
// first, is of the fetched volume's size and storage class, as every
// folder that receives fetched data is (never the node's own disk,
// which a large dataset would fill).
func URLFetches(p *ir.Pipeline) diag.Diagnostics {
	if p.ObjectStore != nil || !slices.ContainsFunc(p.Steps, func(s *ir.Step) bool { return len(s.Fetches) > 0 }) {
		return nil
	}
	p.ObjectStore = &ir.ObjectStore{ToolImage: ir.DefaultToolImage}
	for _, v := range p.Volumes {
		if v.Name == ir.FetchedVolume && v.Ephemeral != nil {
			c := *v.Ephemeral
			c.AccessModes = slices.Clone(c.AccessModes)
			p.ObjectStore.Scratch = &c
		}
	}
	return nil
}
