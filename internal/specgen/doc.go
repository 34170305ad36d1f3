// Package specgen writes spec files for tests and benchmarks: pipelines
// of any number of steps of one cube, in the shapes real pipelines take,
// and many different cubes for lint. The same arguments always give the
// same text.
package specgen
