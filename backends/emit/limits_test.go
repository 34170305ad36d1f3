package emit

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

func TestCheckSize(t *testing.T) {
	big := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		name string
		obj  any
		// what is the part refused; "" when the object fits.
		what string
	}{
		{"small ConfigMap", &corev1.ConfigMap{Data: map[string]string{"a": "b"}}, ""},
		{"ConfigMap data over 1 MiB", &corev1.ConfigMap{Data: map[string]string{"a": big(configMapLimit)}},
			"the data of the object"},
		{"binary data counts too", &corev1.ConfigMap{Data: map[string]string{"a": big(configMapLimit / 2)},
			BinaryData: map[string][]byte{"b": []byte(big(configMapLimit / 2))}}, "the data of the object"},
		{"annotations at the limit", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Annotations: map[string]string{"k": big(annotationsLimit - 1)},
		}}, ""},
		{"annotations over the limit", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Annotations: map[string]string{"k": big(annotationsLimit)},
		}}, "the annotations of the object"},
		{"object over its limit", &corev1.Pod{Spec: corev1.PodSpec{Hostname: big(ObjectLimit)}}, "the object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			at := diag.At(diag.Pos{File: "p.yaml", Line: 3, Col: 1}).Field("steps")
			err := CheckSize(tc.obj, at, "the object", ObjectLimit, "a limit")
			var refused diag.Diagnostics
			switch {
			case tc.what == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.what != "" && !errors.As(err, &refused):
				t.Errorf("got %v, want diagnostics", err)
			case tc.what != "" && (len(refused) != 1 ||
				!strings.HasPrefix(refused[0].String(), "p.yaml:3:1: steps: "+tc.what+" would be ")):
				t.Errorf("refused %v, want %q at p.yaml:3:1: steps", refused, tc.what)
			}
		})
	}
}
