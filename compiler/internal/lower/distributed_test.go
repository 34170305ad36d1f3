package lower

import (
	"slices"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// OpenMPI forwards the variables -x names, each of the step's env; Intel
// MPI and MPICH forward them all with -genvall.
func TestForwardEnv(t *testing.T) {
	env := []ir.EnvVar{{Name: "A"}, {Name: "B"}}
	if got := forwardEnv("OpenMPI", env); !slices.Equal(got, []string{"-x", "A", "-x", "B"}) {
		t.Errorf("OpenMPI: %q", got)
	}
	for _, impl := range []string{"Intel", "MPICH"} {
		if got := forwardEnv(impl, env); !slices.Equal(got, []string{"-genvall"}) {
			t.Errorf("%s: %q", impl, got)
		}
	}
}

// torchrun starts a Python script or module itself, anything else with
// --no-python.
func TestTorchrun(t *testing.T) {
	for _, c := range []struct{ entry, want []string }{
		{[]string{"python", "train.py", "--lr=1"}, []string{"torchrun", "train.py", "--lr=1"}},
		{[]string{"/usr/bin/python3.11", "-m", "pkg.train"}, []string{"torchrun", "-m", "pkg.train"}},
		{[]string{"python", "-u", "train.py"}, []string{"torchrun", "--no-python", "python", "-u", "train.py"}},
		{[]string{"python"}, []string{"torchrun", "--no-python", "python"}},
		{[]string{"./train.sh"}, []string{"torchrun", "--no-python", "./train.sh"}},
		{[]string{"pythonista", "x.py"}, []string{"torchrun", "--no-python", "pythonista", "x.py"}},
	} {
		if got := torchrun(c.entry); !slices.Equal(got, c.want) {
			t.Errorf("torchrun(%q) = %q, want %q", c.entry, got, c.want)
		}
	}
}
