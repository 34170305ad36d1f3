// Package house holds only tests: the house rules of this repository,
// checked on its own Go source (go/parser over every .go file found by
// walking the module root, skipping hidden folders, testdata,
// node_modules and nested modules), so that they hold from now on and
// not only in review:
//
//  1. no function or method in a non-test file is over 60 lines, from its
//     func line to its closing brace;
//  2. no .go file, tests included, is over 400 lines;
//  3. every package folder has a doc.go, and the package comment is there
//     and nowhere else;
//  4. imports flow one way, as docs/ARCHITECTURE.md's "Rules between
//     packages" says: a table gives each package of ours the packages of
//     ours it may import, so a new package fails until it is added there;
//     a second table says what must never be allowed, and the first is
//     checked against it;
//  5. only compiler/internal/source opens files: no os.Open, os.ReadFile,
//     os.WriteFile, filepath.WalkDir and the like elsewhere in non-test
//     code, but for the exceptions listed with their reasons;
//  6. only cmd prints: no os.Stdout, os.Stderr, fmt.Print*, print,
//     println or log in non-test code outside cmd/ and bench/;
//  7. the driver names no engine: no engine's package, name or kind in
//     driver/ (engines_test.go).
//
// TestArchitectureDoc holds docs/ARCHITECTURE.md to rule 4's table: its
// flow diagram lists each package below every package of ours it
// imports, names no package the table lacks, and the document names
// every package of the table (archdoc_test.go).
//
// TestPinnedVersions holds go.mod to the oldest versions it may require
// (Tekton's LTS patch, cel-go's security fix, the newest k8s.io v0.36
// patch), the e2e cluster's Tekton and Argo (scripts/e2e/versions.sh) to
// go.mod's, and docs/backends.md to naming them (pins_test.go).
//
// Rule 4 reads the imports of non-test files (tests may import more), of
// every build tag, so it needs no go command; files are parsed, never
// built, and the whole run takes well under a second.
//
// Each rule is a subtest of TestHouseRules, and each failure names its
// file:line and its rule. TestRulesCatch runs every check on a small tree
// that breaks each rule once, so a check that stops catching fails too.
// The tables, the exceptions with their reasons, and the violations found
// when the rules came in (known, which may only shrink) are in
// rules_test.go; the checks are in check_test.go.
package house
