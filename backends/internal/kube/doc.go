// Package kube builds the Kubernetes pieces every backend's pods share: a
// step's container fields, resources, env, scheduling and volumes, all
// from the IR, so that Argo, Tekton and Job manifests agree.
package kube
