package diag

import "testing"

func TestNearest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"trian", []string{"prepare", "train"}, "train"},                   // swapped letters count one
		{"gpu_ars", []string{"image", "gpu_args", "cpu_args"}, "gpu_args"}, // nearer than cpu_args
		{"argoo", []string{"argo", "job", "tekton"}, "argo"},
		{"epoch", []string{"epochs", "size"}, "epochs"},
		{"Image", []string{"image", "images"}, "image"}, // case alone is no edit
		{"step", []string{"name", "params", "steps"}, "steps"},
		{"evaluate", []string{"prepare", "train"}, ""}, // far names suggest nothing
		{"batch", []string{"epochs", "size"}, ""},
		{"model", []string{"prep"}, ""},
		{"x", []string{"y", "xx"}, ""},            // one character: every name is as near
		{"ab", []string{"ac", "abc", "b"}, "abc"}, // ties go to the first in sorted order
		{"ab", []string{"b", "ac", "abc"}, "abc"}, // in any order of the candidates
		{"tekon", []string{"tekton"}, "tekton"},
		{"tktn", []string{"tekton"}, ""}, // two edits in four characters is too many
		{"resourcs", []string{"resources"}, "resources"},
		{"nodeselecter", []string{"nodeSelector", "tolerations"}, "nodeSelector"},
		{"serviceAcountName", []string{"serviceAccountName", "jobServiceAccountName"}, "serviceAccountName"},
		{"train", nil, ""},
		{"", []string{"a"}, ""},
		{"daten", []string{"data", "date"}, "date"},
		{"Data", []string{"DATA", "data"}, "data"},  // both are no edit away; data is nearer in case
		{"über", []string{"uber", "unter"}, "uber"}, // runes, not bytes
	} {
		if got := Nearest(tc.name, tc.candidates); got != tc.want {
			t.Errorf("Nearest(%q, %q) = %q, want %q", tc.name, tc.candidates, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"trian", []string{"prepare", "train"}, `; did you mean "train"?`},
		{"evaluate", []string{"prepare", "train"}, ""},
		{`we"ird`, []string{`we"irdo`}, `; did you mean "we\"irdo"?`},
	} {
		if got := Suggest(tc.name, tc.candidates); got != tc.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", tc.name, tc.candidates, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 3, 0},
		{"abc", "abc", 3, 0},
		{"abc", "acb", 3, 1}, // a swap is one edit
		{"ca", "abc", 3, 3},  // OSA does not edit a swapped pair again
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 1, 2}, // past the limit: limit+1
		{"", "abc", 5, 3},
		{"abc", "", 1, 2},
	} {
		if got := distance(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("distance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}
