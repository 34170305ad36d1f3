// Command gen writes the spec files scripts/bench.sh measures, from
// internal/specgen:
//
//	gen pipeline -shape chain|fan|diamond -steps N DIR   # DIR/mlcube.yaml, DIR/pipeline.yaml
//	gen cubes -n N DIR                                   # DIR/c0000/mlcube.yaml, …
package main
