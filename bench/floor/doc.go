// Command floor measures the least any compiler of these specs must do:
// decode its input files and encode its output objects, with the YAML
// libraries mlcube-compile uses (CUE's decoder, which keeps positions, in;
// sigs.k8s.io/yaml out), and nothing else. scripts/bench.sh measures
// compile against it:
//
//	floor [-n ROUNDS] -out OUTPUT.yaml INPUT.yaml...
//
// It reads the files and decodes OUTPUT into its objects first, outside
// the clock, then times ROUNDS rounds of decoding every INPUT and encoding
// every object, and prints the median round in nanoseconds.
package main
