// Package distributed builds the jobs that distributed steps become, an
// MPIJob (mpi-operator), a TrainJob (Kubeflow Trainer) or a DaskJob
// (dask-kubernetes), with what an
// engine needs to create one and wait for it: the conditions that mean it
// finished, a script for engines that wait in a container, and the RBAC
// the creating service account needs. Argo and Tekton embed the same jobs,
// so they agree on every field.
package distributed
