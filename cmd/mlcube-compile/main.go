// Command mlcube-compile compiles MLCubes into manifests that Kubernetes
// workflow engines run as they are.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
