// Package golden compares test output with a golden file, rewriting the
// file first when the test runs with -update, for every layer's golden
// tests.
package golden
