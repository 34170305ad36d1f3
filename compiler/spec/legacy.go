package spec

import (
	"path/filepath"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/compiler/source"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The MLCube 1.0 layout (seed 000): a root mlcube.yaml listing invoke files,
// platforms/docker.yaml with the image, and run/*.yaml invoke files whose
// bindings name a PVC each.

const legacyPlatformFile = "platforms/docker.yaml"

// decodeLegacyRoot reads the root file and, unless invoke is set, every
// invoke file it lists. image comes from the legacy docker platform file.
func decodeLegacyRoot(sc *schema.Context, files *source.Files, f *ast.File, image string, invoke *ast.File) (*Cube, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.LegacyRoot)
	if diags.HasErrors() {
		return nil, diags
	}
	c := &Cube{Name: str(doc.data, "name"), File: doc.file, Image: image, Legacy: true}
	if invoke != nil {
		t, diags := decodeInvoke(sc, invoke)
		if t != nil {
			c.Tasks = append(c.Tasks, t)
		}
		return c, diags
	}
	dir := filepath.Dir(doc.file)
	list, _ := doc.data.LookupPath(pathOf("tasks")).List()
	for i := 0; list.Next(); i++ {
		rel, _ := list.Value().String()
		tf, more := files.ReadYAML(filepath.Join(dir, rel), diag.Loc{}.Field("tasks").Index(i))
		diags = append(diags, more...)
		if tf == nil {
			continue
		}
		t, more := decodeInvoke(sc, tf)
		diags = append(diags, more...)
		if t != nil {
			c.Tasks = append(c.Tasks, t)
		}
	}
	return c, diags
}

// decodeLegacyPlatform returns the image of a legacy docker platform file.
func decodeLegacyPlatform(sc *schema.Context, f *ast.File) (string, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.LegacyPlatform)
	if diags.HasErrors() {
		return "", diags
	}
	return str(doc.data, "container", "image"), nil
}

// decodeInvoke reads one invoke file as a task.
func decodeInvoke(sc *schema.Context, f *ast.File) (*Task, diag.Diagnostics) {
	doc, diags := checkDocument(sc, f, schema.LegacyInvoke)
	if diags.HasErrors() {
		return nil, diags
	}
	t := &Task{Name: str(doc.data, "task_name"), Loc: doc.at("task_name")}
	bindings := func(kind string) []*Param {
		var out []*Param
		forFields(doc.data.LookupPath(pathOf(kind)), func(name string, v cue.Value) {
			out = append(out, &Param{
				Name:  name,
				Path:  str(v, "path"),
				Claim: str(v, "k8s", "pvc"),
				Loc:   doc.at(kind, name),
			})
		})
		return out
	}
	t.Inputs = bindings("input_binding")
	t.Outputs = bindings("output_binding")
	return t, checkParamNames(t, diag.Loc{}.Field("bindings"))
}

// IsClaimName reports whether a legacy binding's claim (k8s.pvc) is a
// valid PersistentVolumeClaim name: #DNSSubdomain's pattern, held once in
// schema; compiler/check asks here, as it imports only spec and diag.
func IsClaimName(name string) bool { return schema.IsDNSSubdomain(name) }
