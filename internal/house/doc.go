// Package house holds only tests: the house rules of this repository,
// checked on its own Go source, parsed and never built, so that they hold
// from now on and not only in review: sizes, each package comment in
// doc.go (short, naming no file of the package), imports one way as
// docs/ARCHITECTURE.md says, only package source opening files, only cmd
// printing, the driver naming no engine, and the pinned versions.
//
// Each rule is a subtest of TestHouseRules whose failures name file:line
// and rule; TestRulesCatch runs every check on a small tree that breaks
// each rule once, so a check that stops catching fails too.
package house
