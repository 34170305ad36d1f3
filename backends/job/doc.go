// Package job turns a one-step pipeline into a batch/v1 Job, as the MLCube
// Kubernetes runner makes it: container mlcube-container, one volume per
// claim, restartPolicy Never and backoffLimit 4.
package job
