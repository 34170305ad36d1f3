// Package enginetest is what every engine's golden test shares: each
// example's IR, read from the compiler's golden files, emitted with the
// default options (or another of the engine's kinds) and compared with the engine's own golden files, which
// must also equal the command's.
package enginetest
