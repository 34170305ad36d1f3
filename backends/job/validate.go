package job

import (
	"path"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a Job against the API server's rules that a compiled Job
// could break. The API server's own validation lives in k8s.io/kubernetes,
// which is not a library; these rules are written from it, using the
// apimachinery checks it uses.
func Validate(job *batchv1.Job) error {
	var errs field.ErrorList
	meta := field.NewPath("metadata")
	// The Job controller puts the name in a label, so it must fit 63
	// characters; the API server adds five to generateName.
	for _, msg := range validation.IsDNS1123Label(job.GenerateName + "abcde") {
		errs = append(errs, field.Invalid(meta.Child("generateName"), job.GenerateName, msg))
	}
	if job.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(job.Namespace) {
			errs = append(errs, field.Invalid(meta.Child("namespace"), job.Namespace, msg))
		}
	}
	errs = append(errs, metav1validation.ValidateLabels(job.Labels, meta.Child("labels"))...)
	spec := field.NewPath("spec")
	if job.Spec.BackoffLimit != nil && *job.Spec.BackoffLimit < 0 {
		errs = append(errs, field.Invalid(spec.Child("backoffLimit"), *job.Spec.BackoffLimit, "must be at least 0"))
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), *d, "must be positive"))
	}
	errs = append(errs, validatePod(&job.Spec.Template, spec.Child("template"))...)
	return errs.ToAggregate()
}

func validatePod(t *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, p.Child("metadata", "labels"))
	spec := p.Child("spec")
	if t.Spec.RestartPolicy != corev1.RestartPolicyNever && t.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		errs = append(errs, field.NotSupported(spec.Child("restartPolicy"), t.Spec.RestartPolicy,
			[]string{"Never", "OnFailure"}))
	}
	errs = append(errs, metav1validation.ValidateLabels(t.Spec.NodeSelector, spec.Child("nodeSelector"))...)
	if d := t.Spec.ActiveDeadlineSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), *d, "must be positive"))
	}
	for i, tol := range t.Spec.Tolerations {
		if tol.Operator == corev1.TolerationOpExists && tol.Value != "" {
			errs = append(errs, field.Invalid(spec.Child("tolerations").Index(i).Child("value"), tol.Value,
				"must be empty when operator is Exists"))
		}
	}
	volumes := map[string]bool{}
	for i, v := range t.Spec.Volumes {
		vp := spec.Child("volumes").Index(i)
		for _, msg := range validation.IsDNS1123Label(v.Name) {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, msg))
		}
		if volumes[v.Name] {
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		}
		volumes[v.Name] = true
		if c := v.PersistentVolumeClaim; c != nil {
			for _, msg := range validation.IsDNS1123Subdomain(c.ClaimName) {
				errs = append(errs, field.Invalid(vp.Child("persistentVolumeClaim", "claimName"), c.ClaimName, msg))
			}
		}
	}
	if len(t.Spec.Containers) == 0 {
		errs = append(errs, field.Required(spec.Child("containers"), ""))
	}
	claims := map[string]bool{}
	errs = append(errs, validateResourceClaims(t.Spec.ResourceClaims, claims, spec.Child("resourceClaims"))...)
	names := map[string]bool{}
	for _, list := range []struct {
		field      string
		containers []corev1.Container
	}{{"initContainers", t.Spec.InitContainers}, {"containers", t.Spec.Containers}} {
		for i := range list.containers {
			c, cp := &list.containers[i], spec.Child(list.field).Index(i)
			// The API server refuses two containers of one name, init
			// containers or not (validateInitContainers and
			// validateContainers, pkg/apis/core/validation/validation.go).
			if names[c.Name] {
				errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
			}
			names[c.Name] = true
			errs = append(errs, validateContainer(c, volumes, cp)...)
			errs = append(errs, validateClaimNames(c.Resources.Claims, claims, cp.Child("resources", "claims"))...)
		}
	}
	return errs
}

func validateContainer(c *corev1.Container, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(c.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
	}
	if c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	for i, e := range c.Env {
		for _, msg := range validation.IsEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(p.Child("env").Index(i).Child("name"), e.Name, msg))
		}
		if r := e.ValueFrom; r != nil && r.FieldRef != nil && !envFieldPath(r.FieldRef.FieldPath) {
			errs = append(errs, field.Invalid(p.Child("env").Index(i).Child("valueFrom", "fieldRef", "fieldPath"),
				r.FieldRef.FieldPath, "not a field the downward API gives a variable"))
		}
	}
	paths := map[string]bool{}
	for i, m := range c.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if !volumes[m.Name] {
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		if !path.IsAbs(m.MountPath) || paths[m.MountPath] {
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "must be an absolute path, mounted once"))
		}
		paths[m.MountPath] = true
	}
	for name, q := range c.Resources.Requests {
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(p.Child("resources", "requests").Key(string(name)), q.String(),
				"must be at least 0"))
		}
	}
	for name := range c.Resources.Limits {
		if name == corev1.ResourceCPU || name == corev1.ResourceMemory {
			continue
		}
		if len(validation.IsQualifiedName(string(name))) > 0 {
			errs = append(errs, field.Invalid(p.Child("resources", "limits").Key(string(name)), string(name),
				"not a resource name"))
		}
	}
	return errs
}

// envFieldPath says whether the downward API gives a variable the pod's
// field at path: validEnvDownwardAPIFieldPathExpressions, and a label or
// annotation by its key (validateDownwardAPIFieldRef,
// pkg/apis/core/validation/validation.go of kubernetes v1.35.0).
func envFieldPath(path string) bool {
	switch path {
	case "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
		"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs":
		return true
	}
	for _, prefix := range []string{"metadata.labels['", "metadata.annotations['"} {
		if key, ok := strings.CutPrefix(path, prefix); ok && strings.HasSuffix(key, "']") {
			return len(validation.IsQualifiedName(strings.TrimSuffix(key, "']"))) == 0
		}
	}
	return false
}

// validateResourceClaims checks the pod's claims as the API server does
// (validatePodResourceClaims and validatePodResourceClaimSource,
// pkg/apis/core/validation/validation.go of Kubernetes v1.36.3): each a
// DNS label named once, from exactly one of a claim and a template, each
// a DNS subdomain. It adds each name to names.
func validateResourceClaims(claims []corev1.PodResourceClaim, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range claims {
		cp := p.Index(i)
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(cp.Child("name"), c.Name, msg))
		}
		if names[c.Name] {
			errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
		}
		names[c.Name] = true
		if (c.ResourceClaimName == nil) == (c.ResourceClaimTemplateName == nil) {
			errs = append(errs, field.Invalid(cp, c.Name, "must set one of resourceClaimName and resourceClaimTemplateName"))
			continue
		}
		for _, source := range []*string{c.ResourceClaimName, c.ResourceClaimTemplateName} {
			if source != nil {
				for _, msg := range validation.IsDNS1123Subdomain(*source) {
					errs = append(errs, field.Invalid(cp, *source, msg))
				}
			}
		}
	}
	return errs
}

// validateClaimNames checks that each claim a container names is one of
// the pod's (validateResourceClaimNames, the same file).
func validateClaimNames(claims []corev1.ResourceClaim, pod map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range claims {
		if !pod[c.Name] {
			errs = append(errs, field.NotFound(p.Index(i), c.Name))
		}
	}
	return errs
}
