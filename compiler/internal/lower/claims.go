package lower

// Access modes lowering chooses for a claim the run creates. A
// ReadWriteOnce volume attaches to one node at a time: pods of MPI jobs and
// TrainJobs land on several nodes (a Dask step mounts them in its client
// alone), and steps that run at the same time may too.
const (
	readWriteOnce = "ReadWriteOnce"
	readWriteMany = "ReadWriteMany"
)
