// Package argotest checks Argo output the way a cluster runs it, for
// tests: every Argo document of a manifest is decoded strictly (an
// unknown or duplicate field fails) into the types of Argo Workflows
// v3.7 and of v4, and run through each version's validator, as `argo
// lint` and the controller do, on the whole object or, for a large DAG,
// on the windows package argo validates it in. The compiler runs v3.7's
// validator before it prints (package argo); v4's runs only here, in
// tests.
package argotest
