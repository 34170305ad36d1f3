package main

import (
	"strings"
	"testing"
)

const drivers = `package drivers

import (
	"example.com/drivers/gcs"
	"example.com/drivers/s3"
)

func pick(art Art) (Driver, error) {
	if art.S3 != nil {
		return s3.New(), nil
	}
	// The GCS driver.
	if art.GCS != nil {
		d := gcs.Driver{}
		return &d, nil
	}
	switch art.Kind {
	case "gcs":
		if art.Key != "" {
			return gcs.WithKey(art.Key), nil
		}
	}
	return nil, nil
}
`

func TestTrimDropsTheImportAndTheIfStatementsThatUseIt(t *testing.T) {
	out, err := trimFile("drivers.go", []byte(drivers), []string{"example.com/drivers/gcs"})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, gone := range []string{"drivers/gcs", "gcs.", "art.GCS", "art.Key", "The GCS driver"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q is still there:\n%s", gone, got)
		}
	}
	for _, kept := range []string{`"example.com/drivers/s3"`, "return s3.New(), nil", `case "gcs":`, "return nil, nil"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q is gone:\n%s", kept, got)
		}
	}
}

func TestTrimRefusesAUseOutsideAnIfStatement(t *testing.T) {
	src := strings.Replace(drivers, "return nil, nil", "return gcs.Default(), nil", 1)
	_, err := trimFile("drivers.go", []byte(src), []string{"example.com/drivers/gcs"})
	if err == nil || !strings.Contains(err.Error(), "drivers.go:23:9: still uses gcs") {
		t.Fatalf("want drivers.go:23:9: still uses gcs, got %v", err)
	}
}

func TestTrimKeepsALocalOfTheSameName(t *testing.T) {
	src := strings.Replace(drivers, "return nil, nil", "gcs := art\n\treturn gcs.Driver, nil", 1)
	out, err := trimFile("drivers.go", []byte(src), []string{"example.com/drivers/gcs"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "return gcs.Driver, nil") {
		t.Errorf("the local gcs is gone:\n%s", out)
	}
}

func TestTrimLeavesAFileWithoutTheImport(t *testing.T) {
	out, err := trimFile("drivers.go", []byte(drivers), []string{"example.com/drivers/azure"})
	if err != nil || out != nil {
		t.Fatalf("want no change, got %q, %v", out, err)
	}
}
