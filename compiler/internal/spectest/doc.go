// Package spectest holds what the compiler's fuzz targets share: their
// seeds, read from the examples and the bad-input corpus, and their
// checks of diagnostics. Only tests import it.
package spectest
