// Package argo compiles an IR pipeline into an Argo Workflow: a DAG
// entrypoint and one container template per distinct cube task, checked by
// Argo's own validator before it is returned.
package argo
