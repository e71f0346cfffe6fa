package driver

// ComponentsBackend is a backend with a union-find path for programs
// that declare Spec.Components.
type ComponentsBackend interface {
	Backend
	// Components starts labelling the components of the undirected graph
	// whose symmetric adjacency matrix is m.
	Components(m *Matrix) (ComponentsRun, error)
}

// ComponentsRun is one ComponentsBackend.Components job.
type ComponentsRun interface {
	// Run labels the components; passes counts its passes over the
	// vertices that link edges.
	Run() (passes int, err error)
	// Finish copies the labels back: labels[v] is the smallest vertex id
	// in v's component.
	Finish(labels []int32) error
	// Close frees what the run holds.
	Close()
}
