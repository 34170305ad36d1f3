package check

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// resources checks the quantities of a resources mapping of the step
// (or of its MPI launcher or Dask workers) at st.
func (c *checker) resources(r spec.Resources, st diag.Loc) {
	if r.CPU != nil {
		c.quantity(fmt.Sprint(r.CPU), st.Field("resources").Field("cpu"))
	}
	if r.Memory != nil {
		c.quantity(fmt.Sprint(r.Memory), st.Field("resources").Field("memory"))
	}
}

// placement checks the node selector keys and tolerations a pod of the
// step gets: the platform's GPU or CPU ones and the step's own.
func (c *checker) placement(st *spec.Step, gpu bool) {
	base, section := c.plat.CPU, c.plat.Loc.Field("cpu")
	if gpu {
		base, section = c.plat.GPU.Scheduling, c.plat.Loc.Field("gpu")
	}
	for k := range base.NodeSelector {
		c.labelKey(k, section.Field("nodeSelector").Field(k))
	}
	for k := range st.NodeSelector {
		c.labelKey(k, st.Loc.Field("nodeSelector").Field(k))
	}
	c.tolerations(base.Tolerations, section.Field("tolerations"))
	c.tolerations(st.Tolerations, st.Loc.Field("tolerations"))
}

// labelKey checks a node selector key, which is a Kubernetes label key.
func (c *checker) labelKey(k string, at diag.Loc) {
	if len(validation.IsQualifiedName(k)) > 0 {
		c.errorf(at, "%q is not a valid label key: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", k)
	}
}

// tolerations checks each toleration of the list at, reported at the
// list.
func (c *checker) tolerations(tols []spec.Toleration, at diag.Loc) {
	for i, t := range tols {
		c.toleration(t, at.Index(i).At(at.Pos()))
	}
}

// toleration checks what the API server checks of a toleration.
func (c *checker) toleration(t spec.Toleration, at diag.Loc) {
	switch {
	case t.Key != "" && len(validation.IsQualifiedName(t.Key)) > 0:
		c.errorf(at.Field("key"), "%q is not a valid taint key (an optional DNS prefix and '/', then letters, digits, '-', '_' or '.')", t.Key)
	case t.Key == "" && t.Operator != "Exists":
		c.errorf(at.Field("key"), "a toleration without a key must have operator: Exists")
	case t.Operator == "Exists" && t.Value != "":
		c.errorf(at.Field("value"), "a toleration with operator: Exists has no value")
	case t.Value != "" && len(validation.IsValidLabelValue(t.Value)) > 0:
		c.errorf(at.Field("value"), "%q is not a valid taint value (at most 63 letters, digits, '-', '_' or '.')", t.Value)
	case t.TolerationSeconds != nil && t.Effect != "NoExecute":
		c.errorf(at.Field("tolerationSeconds"), "tolerationSeconds needs effect: NoExecute")
	}
}
