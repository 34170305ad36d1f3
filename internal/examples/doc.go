// Package examples finds the repository's examples and the files each is
// compiled from, by one convention, for the tests of every layer: the
// compiler's IR golden files, each engine's and the command's.
package examples
