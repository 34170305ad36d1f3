// Package gctune tunes Go's collector for a process that lives for
// milliseconds, at init, before the packages whose init allocates most:
// the command imports it for that alone.
package gctune
