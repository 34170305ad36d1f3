// Module bench holds the benchmark's commands (make bench): outside the
// main module, so that go install ./... there builds only mlcube-compile.
module github.com/mlcube-compile/mlcube-compile/bench

go 1.26.4

require (
	cuelang.org/go v0.17.1
	github.com/mlcube-compile/mlcube-compile v0.0.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/cockroachdb/apd/v3 v3.2.3 // indirect
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace github.com/mlcube-compile/mlcube-compile => ../
