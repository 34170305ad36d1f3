package driver

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A run on an object workspace says where each of its results is kept:
// the outputs no later step reads, and only those.
func TestResultNotes(t *testing.T) {
	fs := fstest.MapFS{
		"c/mlcube.yaml": {Data: []byte("name: c\ndocker: {image: example/c:1}\ntasks:\n" +
			"  prep: {parameters: {outputs: {data: data/}}}\n" +
			"  train: {parameters: {inputs: {data: data/}, outputs: {model: model/}}}\n")},
		"c/platform.yaml": {Data: []byte("storage: {workspace: object}\nobjectStore:\n" +
			"  s3: {endpoint: s3.example.com, bucket: runs, " +
			"accessKeySecret: {name: s3, key: a}, secretKeySecret: {name: s3, key: s}}\n")},
	}
	out, err := Compile(Request{Backend: "argo",
		Compiler: compiler.Options{FS: fs, MLCube: "c", Platform: "c/platform.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range out.Warnings {
		if d.Code == diag.ResultsKept && d.Severity == diag.Note {
			got = append(got, d.Message)
		}
	}
	want := []string{"output model is a result of the run, kept in s3://runs at <run uid>/train/model"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
