package check

import (
	"fmt"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// workspace checks the platform's storage: an existing claim (pvc) or
// one to create (size, storageClassName, accessModes), not both. It is
// checked even when no step mounts the workspace.
func (c *checker) workspace() {
	st := c.plat.Storage
	create := st.Size != nil || st.StorageClassName != "" || len(st.AccessModes) > 0
	switch {
	case create && st.PVC != "":
		c.errorf(c.plat.Loc.Field("storage").Field("pvc"), "pvc names an existing claim, while size, storageClassName and accessModes describe one to create; give one or the other")
	case create && st.Size != nil:
		c.quantity(fmt.Sprint(st.Size), c.plat.Loc.Field("storage").Field("size"))
	}
}

// claim checks the name of a claim a legacy binding names, once, where
// it is first used, against #DNSSubdomain's pattern.
func (c *checker) claim(p *spec.Param) {
	if c.claims[p.Claim] {
		return
	}
	c.claims[p.Claim] = true
	if !spec.IsClaimName(p.Claim) {
		at := diag.At(p.Loc.Pos()).Field("k8s").Field("pvc")
		c.errorf(at, "%q is not a valid PersistentVolumeClaim name (lower case letters, digits, '-' and '.')", p.Claim)
	}
}

// quantity checks a Kubernetes quantity.
func (c *checker) quantity(s string, at diag.Loc) {
	if !spec.NonNegativeQuantity(s) {
		c.errorf(at, "%q is not a non-negative Kubernetes quantity (such as 500m, 4, 512Mi or 10Gi)", s)
	}
}
