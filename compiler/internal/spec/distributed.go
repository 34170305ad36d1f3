package spec

import (
	"path"
	"sort"
	"strings"

	"cuelang.org/go/cue"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// credentialOutputKeys are what seed 004 puts in its output section: keys
// that belong in a Secret.
var credentialOutputKeys = map[string]bool{"key": true, "secret_key": true, "access_key": true, "accessKey": true,
	"secretKey": true, "token": true, "aws_access_key_id": true, "aws_secret_access_key": true}

// decodeMPI reads the mpi: section of the step sv written at step, if it
// has one.
func (l *loader) decodeMPI(step diag.Loc, sv cue.Value) *MPI {
	mv := sv.LookupPath(pathOf("mpi"))
	if !mv.Exists() {
		return nil
	}
	m := &MPI{}
	if err := mv.Decode(m); err != nil {
		l.errorf(diag.Internal, step.Field("mpi"), "decoding: %v", err)
		return nil
	}
	return m
}

// decodeTorch reads the torch: section of the step sv written at step,
// if it has one. A step is one kind of distributed job: torch: with mpi:
// is refused at torch:.
func (l *loader) decodeTorch(step diag.Loc, sv cue.Value, mpi *MPI) *Torch {
	tv := sv.LookupPath(pathOf("torch"))
	if !tv.Exists() {
		return nil
	}
	t := &Torch{}
	if err := tv.Decode(t); err != nil {
		l.errorf(diag.Internal, step.Field("torch"), "decoding: %v", err)
		return nil
	}
	if mpi != nil {
		l.errorf(diag.BadShape, step.Field("torch"),
			"a step runs as one kind of job: torch: (torchrun, a TrainJob) or mpi: (mpirun, an MPIJob); keep one")
		return nil
	}
	return t
}

// decodeDask reads the dask: section of the step sv written at step, if
// it has one. The function's args are kept as JSON, in the order they are
// written.
func (l *loader) decodeDask(step diag.Loc, sv cue.Value) *Dask {
	dv := sv.LookupPath(pathOf("dask"))
	if !dv.Exists() {
		return nil
	}
	at := step.Field("dask")
	d := &Dask{}
	if err := dv.Decode(d); err != nil {
		l.errorf(diag.Internal, at, "decoding: %v", err)
		return nil
	}
	d.Args = "{}"
	if av := dv.LookupPath(pathOf("args")); av.Exists() {
		raw, err := av.MarshalJSON()
		if err != nil {
			l.errorf(diag.BadDask, at.Field("args"), "cannot pass as JSON: %v", err)
		}
		d.Args = string(raw)
	}
	wv := dv.LookupPath(pathOf("workers"))
	if n, err := wv.Int64(); err == nil {
		d.Workers = int(n)
	} else {
		a := &ir.Autoscale{}
		_ = wv.LookupPath(pathOf("minimum")).Decode(&a.Minimum)
		_ = wv.LookupPath(pathOf("maximum")).Decode(&a.Maximum)
		if a.Minimum > a.Maximum {
			l.errorf(diag.BadDask, at.Field("workers").Field("minimum"), "minimum %d is more than maximum %d",
				a.Minimum, a.Maximum)
		}
		d.Autoscale = a
		d.Workers = max(a.Minimum, 1)
	}
	l.decodeDaskOutput(at.Field("output"), dv.LookupPath(pathOf("output")), d)
	return d
}

// decodeDaskOutput reads where the table goes, written at at. Credentials
// written into the spec are refused: seed 004 shows that mistake.
func (l *loader) decodeDaskOutput(at diag.Loc, ov cue.Value, d *Dask) {
	var keys []string
	forFields(ov, func(k string, v cue.Value) { keys = append(keys, k) })
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case k == "path" || k == "bucket" || k == "secret":
		case credentialOutputKeys[k] || credentialKey(k):
			l.diags = append(l.diags, diag.Errorf(diag.Credential, at.Field(k), "credentials do not belong in a spec").
				WithFix("put them in a Kubernetes Secret with the keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and name "+
					"it with output.secret").
				WithDetail("Everyone who reads the spec or the manifest can use them."))
		default:
			l.errorf(diag.UnknownField, at.Field(k), "unknown key; output takes path, bucket and secret")
		}
	}
	d.Output.Path, d.Output.Bucket, d.Output.Secret = str(ov, "path"), str(ov, "bucket"), str(ov, "secret")
	if d.Output.Secret != "" && d.Output.Bucket == "" {
		l.errorf(diag.BadDask, at.Field("secret"),
			"a secret is for object storage; give bucket too, or drop secret to write to the workspace")
	}
	if strings.Contains(d.Output.Bucket, "/") || strings.Contains(d.Output.Bucket, ":") {
		l.errorf(diag.BadDask, at.Field("bucket"),
			"%q: give the bucket's name alone, such as my-results; the path goes in path", d.Output.Bucket)
	}
}

// InWorkspace says whether a Dask output path is a file path inside the
// workspace: relative, and not leaving it once cleaned.
func InWorkspace(p string) bool {
	out := path.Clean(p)
	return !strings.HasPrefix(p, "/") && out != "." && out != ".." && !strings.HasPrefix(out, "../")
}
