// Command mlcube-compile compiles MLCubes into manifests that Kubernetes
// workflow engines run as they are.
package main
