// Package docs holds only tests, of the README and the pages beside this
// file against what the command does: their links, their prose, and each
// recipe run as written.
package docs
