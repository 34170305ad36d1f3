// Command mlcube-compile compiles MLCubes into manifests that Kubernetes
// workflow engines run as they are.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A closed pipe on stdout is a write error that run reports with exit
	// 1, rather than a signal that kills the process without a word.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
