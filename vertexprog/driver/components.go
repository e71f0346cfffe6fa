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

// PartComponentsBackend is a PartBackend whose parts label components
// by union-find too: each part links the edges of its own rows into a
// forest over every vertex, then links every other part's forest into
// its own, so that every part ends with the whole graph's labels.
type PartComponentsBackend interface {
	PartBackend
	// PartComponents starts the local parts of one run: parts[i] is the
	// rows of the symmetric adjacency matrix that local part i owns
	// (every other row empty), which info[i] describes (its index among
	// the run's parts over comm's processes; comm may be nil: one
	// process). Finish copies every vertex's label.
	PartComponents(parts []*Matrix, info []Part, comm Comm) (ComponentsRun, error)
}
