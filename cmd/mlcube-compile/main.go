package main

import (
	"os"
	"os/signal"
	"syscall"

	// Imported first of ours for its init: it tunes the collector
	// before the packages whose init allocates most.
	_ "github.com/mlcube-compile/mlcube-compile/cmd/mlcube-compile/internal/gctune"
)

func main() {
	// A closed pipe on stdout is a write error that run reports with exit
	// 1, rather than a signal that kills the process without a word.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
