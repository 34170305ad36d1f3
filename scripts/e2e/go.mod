// Module e2e holds the e2e cluster's build tools (gotrim, cubeimage):
// outside the main module, so that go install ./... there builds only
// mlcube-compile.
module github.com/mlcube-compile/mlcube-compile/scripts/e2e

go 1.26.4

require go.yaml.in/yaml/v3 v3.0.5
