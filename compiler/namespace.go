package compiler

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// namespaceFlag checks --namespace, which replaces the platform's: a
// namespace is a DNS label, as the API server's ValidateNamespaceName
// requires (k8s.io/apimachinery/pkg/api/validation, NameIsDNSLabel).
func namespaceFlag(ns string) diag.Diagnostics {
	if err := namespace(ns); err != nil {
		return diag.Diagnostics{diag.Errorf(diag.BadFlag, diag.Flag("--namespace"), "%v", err)}
	}
	return nil
}

// namespace says why ns is not a Kubernetes namespace; nil when it is one.
func namespace(ns string) error {
	if problems := validation.IsDNS1123Label(ns); len(problems) > 0 {
		return fmt.Errorf("%q is not a Kubernetes namespace: %s", ns, strings.Join(problems, "; "))
	}
	return nil
}
