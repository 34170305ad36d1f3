package graph

// The pairwise definitions, for the property tests of package graph_test.
var (
	PairEdges  = pairEdges
	PairOrder  = pairOrder
	PairReduce = pairReduce
)
