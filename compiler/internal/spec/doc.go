// Package spec holds what the spec files say and reads them: the spec
// types (spec.go), each file checked against its CUE schema with every
// violation at its field and position (document.go; a pipeline file 64
// steps at a time, pipelinedoc.go), and decoding of cubes in either
// layout (cube.go, legacy.go), platform files, pipeline files and their
// steps (pipeline.go, distributed.go), schedules, configs, values files
// and --set (values.go); docker run flags and what they mean on
// Kubernetes (dockerargs.go). loader.go reads each cube once; read.go is
// what --mlcube, --platform and --task name. Checks that need the file's CUE
// values (configs at any depth, a Dask step's output keys) or that
// decide whether a step exists at all (its cube and task, its path
// overrides, unknown ${params.X}) are made here; credentials
// (secrets.go) are refused here and in package lower, which makes the
// other checks of decoded specs as it reads them.
//
// Files are read only through package source.
package spec
