// Package ir is the compiler's output and every backend's input: a
// pipeline of container steps with their dependencies, in plain Go types.
// It holds no CUE values and no engine types, and backends never guess:
// every decision about names, paths, resources and order is made before a
// Pipeline is built.
package ir
