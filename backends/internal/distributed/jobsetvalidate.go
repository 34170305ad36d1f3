package distributed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/go-logr/logr"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	admissionv1 "k8s.io/api/admission/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	jobsetwebhooks "sigs.k8s.io/jobset/pkg/webhooks"
)

// The paths JobSet's webhooks are served at (the kubebuilder markers of
// pkg/webhooks/jobset_webhook.go, v0.12.0).
const (
	jobSetMutatePath   = "/mutate-jobset-x-k8s-io-v1alpha2-jobset"
	jobSetValidatePath = "/validate-jobset-x-k8s-io-v1alpha2-jobset"
)

// jobSetValidator holds JobSet's own admission webhooks, the mutating
// one (Default) and the validating one (ValidateCreate), set up in
// process by the package's only export, webhooks.Setup, on a manager
// that only records what it is asked to serve. Both are safe to call
// from many goroutines: the webhook keeps no state, and its client, for
// the claims of volumeClaimPolicies, is an empty in-memory one.
type jobSetValidator struct {
	mutate, validate *admission.Webhook
	err              error
}

var jobSetValidation = sync.OnceValue(newJobSetValidator)

func newJobSetValidator() *jobSetValidator {
	// controller-runtime logs as it registers and handles; with no logger
	// set, the first log line 30 s after start prints a stack trace to
	// stderr. The compiler shows none of these logs.
	ctrllog.SetLogger(logr.Discard())
	v := &jobSetValidator{}
	scheme := apiruntime.NewScheme()
	for _, add := range []func(*apiruntime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme, jobset.AddToScheme} {
		if v.err = add(scheme); v.err != nil {
			return v
		}
	}
	server := &hookServer{hooks: map[string]http.Handler{}}
	mgr := &hookManager{scheme: scheme, client: fake.NewClientBuilder().WithScheme(scheme).Build(), server: server}
	if v.err = jobsetwebhooks.Setup(mgr); v.err != nil {
		return v
	}
	var ok bool
	if v.mutate, ok = server.hooks[jobSetMutatePath].(*admission.Webhook); !ok {
		v.err = fmt.Errorf("JobSet's webhooks registered no mutating webhook at %s", jobSetMutatePath)
		return v
	}
	if v.validate, ok = server.hooks[jobSetValidatePath].(*admission.Webhook); !ok {
		v.err = fmt.Errorf("JobSet's webhooks registered no validating webhook at %s", jobSetValidatePath)
	}
	return v
}

// hookManager is the part of a controller-runtime manager that
// ctrl.NewWebhookManagedBy(...).Complete() and JobSet's Setup use
// (pkg/builder/webhook.go, v0.24.1). Anything else would panic on the
// nil Manager it embeds.
type hookManager struct {
	manager.Manager
	scheme *apiruntime.Scheme
	client client.Client
	server *hookServer
}

func (m *hookManager) GetConfig() *rest.Config          { return &rest.Config{} }
func (m *hookManager) GetScheme() *apiruntime.Scheme    { return m.scheme }
func (m *hookManager) GetClient() client.Client         { return m.client }
func (m *hookManager) GetWebhookServer() webhook.Server { return m.server }

// hookServer records the handlers registered on it, by path. The
// builder asks its mux whether a path is taken; a nil mux says none is.
type hookServer struct {
	webhook.Server
	hooks map[string]http.Handler
}

func (s *hookServer) Register(path string, h http.Handler) { s.hooks[path] = h }
func (s *hookServer) WebhookMux() *http.ServeMux           { return nil }

// validateJobSet checks js as the API server would when it is created,
// named as the API server would name it: the CRD's defaults and its
// rules that apply at creation, then JobSet's mutating webhook, whose
// patches it applies, then its validating webhook. It then checks what
// the Job API would refuse in the Jobs the controller makes from the
// defaulted JobSet, which no webhook sees: a Job refused there leaves
// the JobSet waiting forever.
func validateJobSet(js *jobset.JobSet) error {
	v := jobSetValidation()
	if v.err != nil {
		return fmt.Errorf("setting up JobSet's validation: %w", v.err)
	}
	created := js.DeepCopy()
	created.APIVersion, created.Kind = jobset.GroupVersion.String(), "JobSet"
	if created.Name == "" {
		created.Name = created.GenerateName + strings.Repeat("x", ir.GeneratedSuffixLen)
	}
	if created.Namespace == "" {
		created.Namespace = metav1.NamespaceDefault
	}
	applyJobSetCRDDefaults(created)
	if errs := jobSetCRDRules(created); len(errs) > 0 {
		return fmt.Errorf("the JobSet fails its CRD's validation: %w", errs.ToAggregate())
	}
	raw, err := json.Marshal(created)
	if err != nil {
		return err
	}
	resp := v.mutate.Handle(context.Background(), jobSetRequest(created, raw))
	if !resp.Allowed {
		return fmt.Errorf("the JobSet fails JobSet's defaulting: %s", responseMessage(resp))
	}
	if len(resp.Patch) > 0 {
		patch, err := jsonpatch.DecodePatch(resp.Patch)
		if err != nil {
			return fmt.Errorf("JobSet's defaulting: %w", err)
		}
		if raw, err = patch.Apply(raw); err != nil {
			return fmt.Errorf("JobSet's defaulting: %w", err)
		}
	}
	if resp := v.validate.Handle(context.Background(), jobSetRequest(created, raw)); !resp.Allowed {
		return fmt.Errorf("the JobSet fails JobSet's validation: %s", responseMessage(resp))
	}
	var defaulted jobset.JobSet
	if err := json.Unmarshal(raw, &defaulted); err != nil {
		return fmt.Errorf("JobSet's defaulting: %w", err)
	}
	if errs := childJobRules(&defaulted); len(errs) > 0 {
		return fmt.Errorf("the JobSet's Jobs would fail the Job API's validation: %w", errs.ToAggregate())
	}
	return nil
}

// applyJobSetCRDDefaults sets what the JobSet CRD's schema defaults and
// the webhook reads (config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml,
// v0.12.0): each replicated job's groupName ("default"; ValidateCreate
// refuses an empty one) and replicas (1), and a failure policy's
// restartStrategy (Recreate). The schema's other defaults are those of
// the pod template's own types, which the webhook does not read.
// internal/enginetest.JobSet applies the whole schema's defaults.
func applyJobSetCRDDefaults(js *jobset.JobSet) {
	for i := range js.Spec.ReplicatedJobs {
		rjob := &js.Spec.ReplicatedJobs[i]
		if rjob.GroupName == "" {
			rjob.GroupName = "default"
		}
		if rjob.Replicas == 0 {
			rjob.Replicas = 1
		}
	}
	if p := js.Spec.FailurePolicy; p != nil && p.RestartStrategy == "" {
		p.RestartStrategy = jobset.Recreate
	}
}

// jobSetCRDRules are the CRD's CEL rules (x-kubernetes-validations) that
// apply at creation, written out; the others compare with the old
// object. internal/enginetest.JobSet runs the CRD's own.
func jobSetCRDRules(js *jobset.JobSet) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	inOrder := js.Spec.StartupPolicy != nil && js.Spec.StartupPolicy.StartupPolicyOrder == jobset.InOrder
	for _, rjob := range js.Spec.ReplicatedJobs {
		if inOrder && rjob.DependsOn != nil {
			errs = append(errs, field.Invalid(spec, "", "StartupPolicy and DependsOn APIs are mutually exclusive"))
			break
		}
	}
	for i, p := range js.Spec.VolumeClaimPolicies {
		for _, t := range p.Templates {
			if t.Namespace != "" {
				errs = append(errs, field.Invalid(spec.Child("volumeClaimPolicies").Index(i), "",
					"namespace cannot be set for VolumeClaimPolicies templates"))
				break
			}
		}
	}
	return errs
}

// childJobRules are the Job API's rules (ValidateJob,
// pkg/apis/batch/validation/validation.go of Kubernetes v1.36) that a
// defaulted replicated job's template can break and JobSet's webhook
// does not check: an Indexed Job needs completions (without them the
// webhook also skips its pod-name check), and a Job's pods restart Never
// or OnFailure.
func childJobRules(js *jobset.JobSet) field.ErrorList {
	var errs field.ErrorList
	for i, rjob := range js.Spec.ReplicatedJobs {
		p := field.NewPath("spec", "replicatedJobs").Index(i).Child("template", "spec")
		spec := rjob.Template.Spec
		if spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion && spec.Completions == nil {
			errs = append(errs, field.Required(p.Child("completions"), "when completion mode is Indexed"))
		}
		if r := spec.Template.Spec.RestartPolicy; r != corev1.RestartPolicyNever && r != corev1.RestartPolicyOnFailure {
			errs = append(errs, field.NotSupported(p.Child("template", "spec", "restartPolicy"), r,
				[]corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
		}
	}
	return errs
}

// jobSetRequest is the API server's admission request to create js,
// whose JSON is raw.
func jobSetRequest(js *jobset.JobSet, raw []byte) admission.Request {
	gv := jobset.GroupVersion
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "mlcube-compile",
		Kind:      metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: "JobSet"},
		Resource:  metav1.GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: "jobsets"},
		Name:      js.Name,
		Namespace: js.Namespace,
		Operation: admissionv1.Create,
		Object:    apiruntime.RawExtension{Raw: raw},
	}}
}

// responseMessage is why a webhook refused.
func responseMessage(resp admission.Response) string {
	if r := resp.Result; r != nil && r.Message != "" {
		return r.Message
	}
	if r := resp.Result; r != nil && r.Reason != "" {
		return string(r.Reason)
	}
	return "refused, with no reason"
}
