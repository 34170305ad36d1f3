// Package engines registers the workflow engines: the one place that
// names them all, for the driver, which knows an engine only through
// backends/emit's Engine.
package engines
