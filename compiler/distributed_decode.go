package compiler

import (
	"sort"
	"strings"

	"cuelang.org/go/cue"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// credentialOutputKeys are what seed 004 puts in its output section: keys
// that belong in a Secret.
var credentialOutputKeys = map[string]bool{"key": true, "secret_key": true, "access_key": true, "accessKey": true, "secretKey": true, "token": true, "aws_access_key_id": true, "aws_secret_access_key": true}

// decodeMPI reads a step's mpi: section, if it has one.
func (l *loader) decodeMPI(doc *document, name string, sv cue.Value) *mpiSpec {
	mv := sv.LookupPath(pathOf("mpi"))
	if !mv.Exists() {
		return nil
	}
	m := &mpiSpec{}
	if err := mv.Decode(m); err != nil {
		l.diags.errorf(doc.at("steps", name, "mpi"), joinPath("steps", name)+".mpi", "decoding: %v", err)
		return nil
	}
	return m
}

// decodeDask reads a step's dask: section, if it has one. The function's
// args are kept as JSON, in the order they are written.
func (l *loader) decodeDask(doc *document, name string, sv cue.Value) *daskSpec {
	dv := sv.LookupPath(pathOf("dask"))
	if !dv.Exists() {
		return nil
	}
	field := joinPath("steps", name) + ".dask"
	d := &daskSpec{}
	if err := dv.Decode(d); err != nil {
		l.diags.errorf(doc.at("steps", name, "dask"), field, "decoding: %v", err)
		return nil
	}
	d.Args = "{}"
	if av := dv.LookupPath(pathOf("args")); av.Exists() {
		raw, err := av.MarshalJSON()
		if err != nil {
			l.diags.errorf(doc.at("steps", name, "dask", "args"), field+".args", "cannot pass as JSON: %v", err)
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
			l.diags.errorf(doc.at("steps", name, "dask", "workers", "minimum"), field+".workers.minimum", "minimum %d is more than maximum %d", a.Minimum, a.Maximum)
		}
		d.Autoscale = a
		d.Workers = max(a.Minimum, 1)
	}
	l.decodeDaskOutput(doc, name, dv.LookupPath(pathOf("output")), d)
	return d
}

// decodeDaskOutput reads where the table goes. Credentials written into
// the spec are refused: seed 004 shows that mistake.
func (l *loader) decodeDaskOutput(doc *document, name string, ov cue.Value, d *daskSpec) {
	field := joinPath("steps", name) + ".dask.output"
	var keys []string
	forFields(ov, func(k string, v cue.Value) { keys = append(keys, k) })
	sort.Strings(keys)
	for _, k := range keys {
		at := doc.at("steps", name, "dask", "output", k)
		switch {
		case k == "path" || k == "bucket" || k == "secret":
		case credentialOutputKeys[k] || credentialKey(k):
			l.diags.errorf(at, joinPath(field, k), "credentials do not belong in a spec, where everyone who reads it or the manifest can use them; put them in a Kubernetes Secret with the keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and name it with output.secret")
		default:
			l.diags.errorf(at, joinPath(field, k), "unknown key; output takes path, bucket and secret")
		}
	}
	d.Output.Path, d.Output.Bucket, d.Output.Secret = str(ov, "path"), str(ov, "bucket"), str(ov, "secret")
	if d.Output.Secret != "" && d.Output.Bucket == "" {
		l.diags.errorf(doc.at("steps", name, "dask", "output", "secret"), field+".secret", "a secret is for object storage; give bucket too, or drop secret to write to the workspace")
	}
	if strings.Contains(d.Output.Bucket, "/") || strings.Contains(d.Output.Bucket, ":") {
		l.diags.errorf(doc.at("steps", name, "dask", "output", "bucket"), field+".bucket", "%q: give the bucket's name alone, such as my-results; the path goes in path", d.Output.Bucket)
	}
}
