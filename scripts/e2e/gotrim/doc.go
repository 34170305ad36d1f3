// Command gotrim builds less of an upstream module: it drops imports
// from the Go files of a module copy, and with each import every if
// statement that uses it.
//
//	gotrim DIR IMPORT-PATH...
//
// scripts/e2e/build.sh runs it on its copies, so that Argo's executor
// links only the artifact drivers the e2e cluster uses (the others bring
// cloud SDKs that take longer to compile than the rest of it). A file
// that still uses a dropped package after its if statements are gone is
// an error that names the file and line: upstream changed, and the trim
// with it must.
package main
