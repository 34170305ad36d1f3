package argo

import wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

// WithValidator runs f holding the lock that Emit holds while Argo's
// validator runs (validatorMu), for callers outside this package, such
// as tests, that run the validator on several goroutines beside Emit.
func WithValidator(f func() error) error {
	validatorMu.Lock()
	defer validatorMu.Unlock()
	return f()
}

// ValidateDAG runs validate on spec as Emit runs Argo's validator on it:
// on spec whole, or, when its DAG is larger than Argo's validator takes
// in good time, on windows of the DAG (validateDAG says how).
func ValidateDAG(spec wfv1.WorkflowSpec, validate func(wfv1.WorkflowSpec) error) error {
	return validateDAG(spec, validate)
}
