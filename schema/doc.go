// Package schema holds the CUE schemas of every spec mlcube-compile reads,
// embedded in the binary and compiled once.
package schema
