package vertexprog

import (
	"fmt"
	"time"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Min-label propagation (Spec.Components) has a faster road than
// supersteps: its result is the smallest Init value in each weakly
// connected component, and union-find (Afforest: hooking and pointer
// jumping with neighbour sampling; on the GPU a driver.ComponentsBackend's, on
// the CPU the engine's own, unionfind.go) needs a few passes over the
// vertices where propagation needs as many supersteps as the largest
// component's diameter. The engine takes that road for any program whose
// Spec declares Components, and then folds each component's Init values
// with the program's own Gather and hands every vertex the result with
// its Update, so the values are the program's, of any type.

// checkComponents rejects a Spec that declares Components with what
// min-label propagation cannot have.
func checkComponents(s Spec) error {
	if !s.Components {
		return nil
	}
	if s.Edges != AllEdges || s.MaxIterations != 0 || len(s.Aggregators) > 0 || s.Delta != 0 {
		return fmt.Errorf("vertexprog: Spec.Components needs AllEdges, no MaxIterations, no Aggregators and no Delta (min-label propagation over the weakly connected components)")
	}
	return nil
}

// runComponents runs p, which declares Spec.Components, on the union-find
// path of the backend opt selects (the CPU engine's own: hostComponents).
// ok is false, with no error, when that backend has none (a device
// backend without one), or when opt forces a direction, an iteration
// limit or per-edge gathers, which only supersteps honour: then Run runs
// supersteps.
func runComponents[X, A any](g *Graph, p Program[X, A], opt Options) (res *Result[X], ok bool, err error) {
	if opt.Direction != Auto || opt.MaxIterations != 0 || opt.PerEdge {
		return nil, false, nil
	}
	tw := time.Now()
	b, host, err := componentsBackend(opt.Backend)
	wait := time.Since(tw)
	if err != nil || b == nil && !host {
		return nil, false, err
	}
	if opt.HYB == (hyb.Options{}) {
		opt.HYB = hyb.DefaultOptions()
		if host {
			opt.HYB = hyb.CPUOptions()
		}
	}
	t0 := time.Now()
	if prep, ok := p.(Preparer); ok {
		if err := prep.Prepare(g); err != nil {
			return nil, false, err
		}
	}
	// (a directed graph's undirected view built on the device, where the
	// backend can: driver.Symmetrizer)
	var symRows func() []int64
	if sy, ok := b.(driver.Symmetrizer); ok && !host && g.needsSymmetrized(Spec{Edges: AllEdges}, opt.HYB) {
		d := g.g
		symRows = func() []int64 {
			rows, err := sy.SymmetrizedRows(d.RowPtr, d.Col, d.W)
			if err != nil {
				return nil
			}
			return rows
		}
	}
	m, err := g.matrixFor(rowsAll, opt.HYB, !host, symRows)
	if err != nil {
		return nil, false, err
	}
	if host {
		res = &Result[X]{Backend: "cpu", Preprocess: time.Since(t0), BackendWait: wait}
		if err := stopped(opt); err != nil {
			return nil, false, err
		}
		t1 := time.Now()
		res.X, err = componentValues(p, g.N(), func(labels []int32) error {
			t := time.Now()
			res.Iterations = hostComponents(m.Src.RowPtr, m.Src.Col, labels)
			res.Compute = time.Since(t)
			return nil
		}, opt)
		if err != nil {
			return nil, false, err
		}
		if err := stopped(opt); err != nil {
			return nil, false, err
		}
		res.Finish = time.Since(t1) - res.Compute
		return res, true, nil
	}
	run, err := b.Components(m)
	if err != nil {
		return nil, false, err
	}
	defer run.Close()
	res, err = runLabels(run, p, g.N(), opt, &Result[X]{Backend: b.Name(), Preprocess: time.Since(t0), BackendWait: wait})
	return res, err == nil, err
}

// runLabels runs a union-find job and makes p's values from its labels
// (componentValues) into res.
func runLabels[X, A any](run driver.ComponentsRun, p Program[X, A], n int, opt Options, res *Result[X]) (*Result[X], error) {
	// (Options.Context: the passes, ~1 ms on kron21 on the GPU, run as
	// one; a query cancelled before or during them stops at their ends.)
	if err := stopped(opt); err != nil {
		return nil, err
	}
	t1 := time.Now()
	var err error
	if res.Iterations, err = run.Run(); err != nil {
		return nil, err
	}
	if err := stopped(opt); err != nil {
		return nil, err
	}
	res.Compute = time.Since(t1)
	if dt, ok := run.(driver.DeviceTimer); ok {
		res.Device = dt.DeviceTime()
	}
	t2 := time.Now()
	if res.X, err = componentValues(p, n, run.Finish, opt); err != nil {
		return nil, err
	}
	if tr, ok := run.(driver.TransferReporter); ok {
		res.Transfer = tr.Transfers()
	}
	if ps, ok := run.(interface{ Parts() []PartStat }); ok {
		res.Parts = ps.Parts()
	}
	res.Finish = time.Since(t2)
	return res, nil
}

// componentValues is the result of min-label propagation over n vertices
// whose components finish labels (labels[v]: the smallest vertex id in
// v's component): every vertex's Init value, then each component's values
// folded with Gather into its smallest vertex's accumulator (from
// Identity), then Update of every vertex with its component's
// accumulator. Where X is int32 and every Init value is the vertex's id
// (connected components), that is the labels themselves, which finish
// then writes over the values.
func componentValues[X, A any](p Program[X, A], n int, finish func(labels []int32) error, opt Options) ([]X, error) {
	x, ok := opt.Values.([]X)
	if !ok || len(x) != n {
		x = huge.Make[X](n)
	}
	steps := newSteps(par.Workers(), nil, 0)
	ri, ranged := p.(RangeIniter[X])
	par.Blocks(n, func(w, lo, hi int) {
		if ranged {
			ri.InitRange(int32(lo), int32(hi), x[lo:hi], &steps[w])
			return
		}
		for v := lo; v < hi; v++ {
			x[v], _ = p.Init(int32(v), &steps[w])
		}
	})
	if xs, ok := any(x).([]int32); ok && identityValues(xs) {
		return x, finish(xs)
	}
	labels := huge.Make[int32](n)
	if err := finish(labels); err != nil {
		return nil, err
	}
	acc := huge.Make[A](n)
	id := p.Identity()
	for v := range acc {
		acc[v] = id
	}
	for v, l := range labels {
		if l < 0 || int(l) >= n || labels[l] != l {
			return nil, fmt.Errorf("vertexprog: the components' label of vertex %d is %d, which is not its component's smallest vertex", v, l)
		}
		acc[l] = p.Gather(acc[l], l, int32(v), x[v], 1)
	}
	par.Blocks(n, func(w, lo, hi int) {
		for v := lo; v < hi; v++ {
			p.Update(int32(v), acc[labels[v]], &x[v], &steps[w])
		}
	})
	return x, nil
}

// identityValues reports whether xs[v] == v for every v.
func identityValues(xs []int32) bool {
	bad := make([]bool, par.Workers())
	par.Blocks(len(xs), func(w, lo, hi int) {
		for v := lo; v < hi; v++ {
			if xs[v] != int32(v) {
				bad[w] = true
				return
			}
		}
	})
	for _, b := range bad {
		if b {
			return false
		}
	}
	return true
}

// componentsBackend resolves Options.Backend for the union-find path:
// a device's (the first available for auto), or host for the CPU
// engine's own (cpu, and auto where no device has one); neither for a
// named backend without one.
func componentsBackend(name string) (cb driver.ComponentsBackend, host bool, err error) {
	switch name {
	case "cpu":
		return nil, true, nil
	case "", "auto":
		cb, ok := firstBackend[driver.ComponentsBackend]()
		return cb, !ok, nil
	}
	b, err := namedBackend(name)
	if err != nil {
		return nil, false, err
	}
	cb, _ = b.(driver.ComponentsBackend)
	return cb, false, nil
}

// stopped is the error of a union-find run whose Options.Context is done.
func stopped(opt Options) error {
	if opt.Context == nil || opt.Context.Err() == nil {
		return nil
	}
	return fmt.Errorf("vertexprog: components stopped: %w", opt.Context.Err())
}
