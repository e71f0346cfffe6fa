package vertexprog

import (
	"fmt"
	"time"

	"github.com/hpgraph/hpgraph/hyb"
)

// ComponentsBackend is a device backend with a connected-components path
// of its own, outside the superstep model: union-find by hooking and
// pointer jumping with neighbour sampling (Afforest). Min-label
// propagation needs as many supersteps as the largest component's
// diameter, each a pass over the edges; Afforest links two sampled
// neighbours of every vertex, then only the edges of vertices outside the
// component that sampling found to be the largest.
type ComponentsBackend interface {
	Backend
	// Components starts labelling the components of the undirected graph
	// whose symmetric adjacency matrix is m.
	Components(m *Matrix) (ComponentsRun, error)
}

// ComponentsRun is one ComponentsBackend.Components job.
type ComponentsRun interface {
	// Run labels the components on the device; passes counts its passes
	// over the vertices that link edges.
	Run() (passes int, err error)
	// Finish copies the labels back: labels[v] is the smallest vertex id
	// in v's component.
	Finish(labels []int32) error
	// Close frees the device memory.
	Close()
}

// Components labels the weakly connected components of g on the backend
// opt selects when that backend has a path of its own for them
// (ComponentsBackend), so that labels[v] is the smallest vertex id in
// v's component: the X of the result. ok is false, with no error, when
// the backend has none (the CPU engine), or when opt forces a direction or
// an iteration limit, which only a vertex program honours: then the
// caller runs one.
func Components(g *Graph, opt Options) (res *Result[int32], ok bool, err error) {
	if g == nil || g.g == nil {
		return nil, false, ErrNilGraph
	}
	if opt.Direction != Auto || opt.MaxIterations != 0 || opt.PerEdge {
		return nil, false, nil
	}
	tw := time.Now()
	b, err := componentsBackend(opt.Backend)
	wait := time.Since(tw)
	if b == nil || err != nil {
		return nil, false, err
	}
	if opt.HYB == (hyb.Options{}) {
		opt.HYB = hyb.DefaultOptions()
	}
	t0 := time.Now()
	m, err := g.PullMatrix(AllEdges, opt.HYB)
	if err != nil {
		return nil, false, err
	}
	run, err := b.Components(m)
	if err != nil {
		return nil, false, err
	}
	defer run.Close()
	res = &Result[int32]{Backend: b.Name(), Preprocess: time.Since(t0), BackendWait: wait}
	// (Options.Context: the device's passes, ~1 ms on kron21, run as one;
	// a query cancelled before or during them stops at their ends.)
	if err := stopped(opt); err != nil {
		return nil, false, err
	}
	t1 := time.Now()
	if res.Iterations, err = run.Run(); err != nil {
		return nil, false, err
	}
	if err := stopped(opt); err != nil {
		return nil, false, err
	}
	res.Compute = time.Since(t1)
	if dt, ok := run.(DeviceTimer); ok {
		res.Device = dt.DeviceTime()
	}
	t2 := time.Now()
	if xs, ok := opt.Values.([]int32); ok && len(xs) == g.N() {
		res.X = xs
	} else {
		res.X = make([]int32, g.N())
	}
	if err := run.Finish(res.X); err != nil {
		return nil, false, err
	}
	res.Finish = time.Since(t2)
	if tr, ok := run.(TransferReporter); ok {
		res.Transfer = tr.Transfers()
	}
	return res, true, nil
}

// componentsBackend resolves Options.Backend for Components: nil for the
// CPU and for backends without a components path.
func componentsBackend(name string) (ComponentsBackend, error) {
	switch name {
	case "cpu":
		return nil, nil
	case "", "auto":
		cb, _ := firstBackend[ComponentsBackend]()
		return cb, nil
	}
	b, err := namedBackend(name)
	if err != nil {
		return nil, err
	}
	cb, _ := b.(ComponentsBackend)
	return cb, nil
}

// stopped is the error of a Components run whose Options.Context is done.
func stopped(opt Options) error {
	if opt.Context == nil || opt.Context.Err() == nil {
		return nil
	}
	return fmt.Errorf("vertexprog: components stopped: %w", opt.Context.Err())
}
