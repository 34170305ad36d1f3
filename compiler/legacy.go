package compiler

import (
	"fmt"
	"path/filepath"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/mlcube-compile/mlcube-compile/schema"
)

// The MLCube 1.0 layout (seed 000): a root mlcube.yaml listing invoke files,
// platforms/docker.yaml with the image, and run/*.yaml invoke files whose
// bindings name a PVC each.

const legacyPlatformFile = "platforms/docker.yaml"

// decodeLegacyRoot reads the root file and, unless invoke is set, every
// invoke file it lists. image comes from the legacy docker platform file.
func decodeLegacyRoot(s *schema.Schema, f *ast.File, image string, imagePos Pos, invoke *ast.File, diags *Diagnostics) *cube {
	doc, ok := checkDocument(s, f, schema.LegacyRoot, diags)
	if !ok {
		return nil
	}
	c := &cube{Name: str(doc.data, "name"), File: doc.file, Image: image, ImagePos: imagePos, Legacy: true}
	if invoke != nil {
		if t := decodeInvoke(s, invoke, diags); t != nil {
			c.Tasks = append(c.Tasks, t)
		}
		return c
	}
	dir := filepath.Dir(doc.file)
	list, _ := doc.data.LookupPath(pathOf("tasks")).List()
	for i := 0; list.Next(); i++ {
		rel, _ := list.Value().String()
		tf, ok := readYAML(filepath.Join(dir, rel), fmt.Sprintf("tasks[%d]", i), diags)
		if !ok {
			continue
		}
		if t := decodeInvoke(s, tf, diags); t != nil {
			c.Tasks = append(c.Tasks, t)
		}
	}
	return c
}

// decodeLegacyPlatform returns the image of a legacy docker platform file.
func decodeLegacyPlatform(s *schema.Schema, f *ast.File, diags *Diagnostics) (string, Pos) {
	doc, ok := checkDocument(s, f, schema.LegacyPlatform, diags)
	if !ok {
		return "", Pos{}
	}
	return str(doc.data, "container", "image"), doc.at("container", "image")
}

// decodeInvoke reads one invoke file as a task.
func decodeInvoke(s *schema.Schema, f *ast.File, diags *Diagnostics) *cubeTask {
	doc, ok := checkDocument(s, f, schema.LegacyInvoke, diags)
	if !ok {
		return nil
	}
	t := &cubeTask{Name: str(doc.data, "task_name"), Pos: doc.at("task_name")}
	bindings := func(kind string) []*param {
		var out []*param
		forFields(doc.data.LookupPath(pathOf(kind)), func(name string, v cue.Value) {
			out = append(out, &param{
				Name:  name,
				Path:  str(v, "path"),
				Claim: str(v, "k8s", "pvc"),
				Pos:   doc.at(kind, name),
			})
		})
		return out
	}
	t.Inputs = bindings("input_binding")
	t.Outputs = bindings("output_binding")
	checkParamNames(t, "bindings", diags)
	return t
}
