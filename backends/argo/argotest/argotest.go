package argotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	wfv3 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	validatev3 "github.com/argoproj/argo-workflows/v3/workflow/validate"
	wfv4 "github.com/argoproj/argo-workflows/v4/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v4/util/logging"
	validatev4 "github.com/argoproj/argo-workflows/v4/workflow/validate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/backends/argo"
)

// Version is an Argo Workflows release line whose validator a manifest
// must pass.
type Version string

// The versions every Argo output must pass.
const (
	V3 Version = "v3.7"
	V4 Version = "v4.0"
)

// Versions lists them, oldest first.
var Versions = []Version{V3, V4}

// v4Mu serialises v4's validator, which, like v3.7's, counts
// placeholders in a package variable without a lock
// (workflow/common/placeholder.go); v3.7's takes package argo's lock.
var v4Mu sync.Mutex

// v4Ctx carries the logger v4's validator requires in its context
// (util/logging.RequireLoggerFromContext panics without one); what it
// logs is dropped.
var v4Ctx = logging.WithLogger(context.Background(),
	logging.NewSlogLoggerCustom(logging.Warn, logging.Text, io.Discard))

// Documents returns the Argo documents of a manifest (the documents
// whose apiVersion is argoproj.io/v1alpha1), with their kinds. The
// compiler writes the run last, after any ConfigMap or RBAC objects.
func Documents(manifest string) (docs []string, kinds []string, err error) {
	for _, doc := range strings.Split(strings.TrimPrefix(manifest, "---\n"), "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return nil, nil, err
		}
		if meta.APIVersion == "argoproj.io/v1alpha1" {
			docs = append(docs, doc)
			kinds = append(kinds, meta.Kind)
		}
	}
	if len(docs) == 0 {
		return nil, nil, errors.New("no argoproj.io/v1alpha1 document")
	}
	return docs, kinds, nil
}

// Check runs every Argo document of manifest through each version's
// strict decoding and validator, and returns the first failure, naming
// the version.
func Check(manifest string) error {
	for _, v := range Versions {
		if err := CheckVersion(v, manifest); err != nil {
			return err
		}
	}
	return nil
}

// CheckVersion runs every Argo document of manifest through version v's
// strict decoding and validator.
func CheckVersion(v Version, manifest string) error {
	docs, kinds, err := Documents(manifest)
	if err != nil {
		return err
	}
	for i, doc := range docs {
		var err error
		switch v {
		case V3:
			err = checkV3(kinds[i], doc)
		case V4:
			err = checkV4(kinds[i], doc)
		default:
			err = fmt.Errorf("unknown version %q", v)
		}
		if err != nil {
			return fmt.Errorf("argo %s: %w", v, err)
		}
	}
	return nil
}

// Decode decodes doc strictly as version v's type for kind, which is
// what the validator of v gets.
func Decode(v Version, kind, doc string) (any, error) {
	var obj any
	switch v + "/" + Version(kind) {
	case V3 + "/Workflow":
		obj = &wfv3.Workflow{}
	case V3 + "/WorkflowTemplate":
		obj = &wfv3.WorkflowTemplate{}
	case V3 + "/CronWorkflow":
		obj = &wfv3.CronWorkflow{}
	case V4 + "/Workflow":
		obj = &wfv4.Workflow{}
	case V4 + "/WorkflowTemplate":
		obj = &wfv4.WorkflowTemplate{}
	case V4 + "/CronWorkflow":
		obj = &wfv4.CronWorkflow{}
	default:
		return nil, fmt.Errorf("%s is not a kind the compiler emits", kind)
	}
	if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
		return nil, fmt.Errorf("not a %s of Argo %s: %w", kind, v, err)
	}
	return obj, nil
}

// checkV3 decodes doc as v3.7's type and runs v3.7's validator, with the
// options package argo uses before it prints, on the whole object or on
// windows of a large DAG, as package argo does (argo.ValidateDAG).
func checkV3(kind, doc string) error {
	obj, err := Decode(V3, kind, doc)
	if err != nil {
		return err
	}
	return argo.WithValidator(func() error {
		return argo.ValidateDAG(specV3(obj), func(window wfv3.WorkflowSpec) error {
			return ValidateV3(withSpecV3(obj, window))
		})
	})
}

// specV3 is the spec of the workflows a v3.7 object runs.
func specV3(obj any) wfv3.WorkflowSpec {
	switch o := obj.(type) {
	case *wfv3.Workflow:
		return o.Spec
	case *wfv3.WorkflowTemplate:
		return o.Spec
	case *wfv3.CronWorkflow:
		return o.Spec.WorkflowSpec
	}
	panic(fmt.Sprintf("%T is not an Argo v3 kind", obj))
}

// withSpecV3 is a copy of obj running spec.
func withSpecV3(obj any, spec wfv3.WorkflowSpec) any {
	switch o := obj.(type) {
	case *wfv3.Workflow:
		c := *o
		c.Spec = spec
		return &c
	case *wfv3.WorkflowTemplate:
		c := *o
		c.Spec = spec
		return &c
	case *wfv3.CronWorkflow:
		c := *o
		c.Spec.WorkflowSpec = spec
		return &c
	}
	panic(fmt.Sprintf("%T is not an Argo v3 kind", obj))
}

// ValidateV3 runs v3.7's validator on a decoded object. Callers on
// several goroutines hold package argo's lock (argo.WithValidator).
func ValidateV3(obj any) error {
	opts := validatev3.ValidateOpts{Lint: true}
	switch o := obj.(type) {
	case *wfv3.Workflow:
		return validatev3.ValidateWorkflow(nil, nil, o, nil, opts)
	case *wfv3.WorkflowTemplate:
		return validatev3.ValidateWorkflowTemplate(nil, nil, o, nil, opts)
	case *wfv3.CronWorkflow:
		return validatev3.ValidateCronWorkflow(context.Background(), nil, nil, o, nil)
	}
	return fmt.Errorf("%T is not an Argo v3 kind", obj)
}

// checkV4 decodes doc strictly as v4's type and runs v4's validator on
// it, whole, or on the same windows of a large DAG as v3.7's (each
// window decoded strictly into v4's types): v4's validator, like
// v3.7's, takes time that grows with the square of a DAG's tasks.
func checkV4(kind, doc string) error {
	obj, err := Decode(V4, kind, doc)
	if err != nil {
		return err
	}
	obj3, err := Decode(V3, kind, doc)
	if err != nil {
		return err
	}
	v4Mu.Lock()
	defer v4Mu.Unlock()
	return argo.ValidateDAG(specV3(obj3), func(window wfv3.WorkflowSpec) error {
		raw, err := json.Marshal(window)
		if err != nil {
			return err
		}
		var spec wfv4.WorkflowSpec
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			return fmt.Errorf("not a WorkflowSpec of Argo v4: %w", err)
		}
		return ValidateV4(withSpecV4(obj, spec))
	})
}

// withSpecV4 is a copy of obj running spec.
func withSpecV4(obj any, spec wfv4.WorkflowSpec) any {
	switch o := obj.(type) {
	case *wfv4.Workflow:
		c := *o
		c.Spec = spec
		return &c
	case *wfv4.WorkflowTemplate:
		c := *o
		c.Spec = spec
		return &c
	case *wfv4.CronWorkflow:
		c := *o
		c.Spec.WorkflowSpec = spec
		return &c
	}
	panic(fmt.Sprintf("%T is not an Argo v4 kind", obj))
}

// ValidateV4 runs v4's validator on a decoded object, with the same
// options as v3.7's. Callers on several goroutines serialise it.
func ValidateV4(obj any) error {
	opts := validatev4.ValidateOpts{Lint: true}
	switch o := obj.(type) {
	case *wfv4.Workflow:
		return validatev4.ValidateWorkflow(v4Ctx, nil, nil, o, nil, opts)
	case *wfv4.WorkflowTemplate:
		return validatev4.ValidateWorkflowTemplate(v4Ctx, nil, nil, o, nil, opts)
	case *wfv4.CronWorkflow:
		return validatev4.ValidateCronWorkflow(v4Ctx, nil, nil, o, nil)
	}
	return fmt.Errorf("%T is not an Argo v4 kind", obj)
}
