package verify

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// maxHostname is the longest DNS-1035 label, which worker pod hostnames
// and Service names must be.
const maxHostname = 63

// hostnames checks that the names the operators derive from a
// distributed job's generated name, the longest ending in a suffix, are
// valid DNS-1035 labels: mpi-operator's worker pods, whose hostnames
// they are, the nodes of a TrainJob, the pods of a Dask step's JobSet,
// and the Dask operator's scheduler Service.
func (v *verifier) hostnames() {
	for _, s := range v.p.Steps {
		switch {
		case s.MPI != nil:
			v.hostname(s, "mpi", s.MPI.GenerateName, "-worker-"+strconv.Itoa(s.MPI.Workers-1), "worker pod")
		case s.Train != nil:
			// JobSet names each node's Job <job>-node-0 and the indexed
			// Job its pods' hostnames <job>-node-0-<index>, which torchrun
			// reaches the first by (PET_MASTER_ADDR, Trainer's torch
			// plugin, pkg/runtime/framework/plugins/torch/torch.go, v2.3.0).
			v.hostname(s, "torch", s.Train.GenerateName, "-node-0-"+strconv.Itoa(s.Train.Nodes-1), "node pod")
		case s.Dask != nil && s.Dask.Form == ir.DaskOperator:
			v.hostname(s, "dask", s.Dask.GenerateName, "-scheduler", "scheduler Service")
		case s.Dask != nil:
			// JobSet names each replicated job's Job <jobset>-<job>-0 and
			// its pods <Job>-<index>-<5 random characters>, whose first
			// part is their hostname; its webhook wants the whole pod
			// name a DNS label (ValidateCreate, pkg/webhooks/
			// jobset_webhook.go, v0.12.0).
			suffix := "-scheduler-0-0"
			if worker := "-worker-0-" + strconv.Itoa(s.Dask.Workers-1); len(worker) > len(suffix) {
				suffix = worker
			}
			v.hostname(s, "dask", s.Dask.GenerateName, suffix+"-"+strings.Repeat("x", ir.GeneratedSuffixLen), "pod")
		}
	}
}

// hostname checks one derived name, said at the step's key under it.
func (v *verifier) hostname(s *ir.Step, key, generateName, suffix, what string) {
	longest := generateName + strings.Repeat("x", ir.GeneratedSuffixLen) + suffix
	if len(validation.IsDNS1035Label(longest)) > 0 {
		// Said at the step, whose name is part of the job's.
		msg := fmt.Sprintf("the operator would name a %s %q, which is not a DNS label", what, longest)
		if len(longest) > maxHostname {
			msg = fmt.Sprintf("the operator would name a %s with %d characters, and a DNS label has at most %d", what,
				len(longest), maxHostname)
		}
		v.diags = append(v.diags, diag.Errorf(diag.BadHostname, s.Loc.Field(key).At(s.Loc.Pos()), "%s", msg).
			WithFix(fmt.Sprintf("shorten or rename the pipeline %q or the step %q", v.p.Name, s.Written)).
			WithDetail("The operator would name the %s %q (%d characters), which must be a DNS label: at most %d lower "+
				"case letters, digits and '-', starting with a letter.", what, longest, len(longest), maxHostname))
	}
}
