package vertexprog

import (
	"cmp"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/spmv"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// MultisetDeviceProgram is implemented by a MultisetProgram that can run
// on a device backend that gathers multisets (driver.MultisetBackend): its
// Device gives CUDA C versions of Element, Summarize and Update. Device
// is called after Prepare; Init runs on the host. The DeviceCode's
// Arrays, Scalars and Step are as for a Program (see DeviceCode); its
// Source defines
//
//	typedef ... X_t;  // the vertex value, laid out exactly as Go's X
//	typedef ... A_t;  // the summary, laid out exactly as Go's A
//	typedef ... K_t;  // the element: int, unsigned, long long,
//	                  // unsigned long long, float or double
//	struct State { ... };  // as DeviceCode says
//	__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s);
//	__device__ A_t vp_summarize(int v, const K_t* values, const int* counts,
//	                            int distinct, int size, const State& s);
//	__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st);
//
// vp_summarize sees v's multiset as Summarize sees its Bag: values[0,
// distinct) in increasing order, counts[i] >= 1 the multiplicity of
// values[i], size their sum (distinct and size 0, the pointers not to be
// read, for a vertex that gathered nothing). The arrays are the
// backend's (shared or global memory), valid during the call, read only.
//
// K_t need not be Go's K: the backend sorts by K_t's own order (integers
// by value; floating point as cmp.Compare orders it: NaNs first and one
// value, -0 and +0 one value, handed to vp_summarize as a quiet NaN and
// +0), and the device code must summarize to what Summarize returns for
// the same multiset. So a program whose elements fit a narrower type, and
// order alike there, may sort 4-byte keys instead of 8-byte ones (labels
// that are original ids, sorted as vertex indices where the ids are v + a
// base: half the memory traffic of the sorts).
//
// A program may also let the backend summarize long rows in parallel, by
// a fold over the distinct values in order:
//
//	#define VP_SUMMARY_FOLD 1
//	typedef ... S_t;  // plain data, no constructors
//	__device__ S_t vp_summary_leaf(int v, K_t value, int count, const State& s);
//	__device__ S_t vp_summary_join(S_t a, S_t b);  // a's values precede b's
//	__device__ A_t vp_summary_final(int v, S_t t, int distinct, int size, const State& s);
//
// vp_summary_join must be associative (not necessarily commutative), and
// for every nonempty multiset vp_summary_final of the join of the leaves,
// in increasing order of value, must equal vp_summarize; the backend may
// use either for any row (an empty row always goes to vp_summarize).
// Without it a row is summarized by one thread, which is slow on hubs
// with hundreds of thousands of distinct values.
type MultisetDeviceProgram interface {
	Device() DeviceCode
}

// RunMultiset runs p on g: Multiset(p).Run(g, opt).
func RunMultiset[X any, K cmp.Ordered, A any](g *Graph, p MultisetProgram[X, K, A], opt Options) (*Result[X], error) {
	return Multiset(p).Run(g, opt)
}

// Run runs the adapter's program on g on the backend opt selects: a
// device backend that gathers multisets (driver.MultisetBackend) when the
// program has device code (MultisetDeviceProgram) and opt names one, or
// auto finds one available, else the CPU engine, as Run(g, a, opt)
// does. Asked for a device backend that cannot run it, it fails with
// ErrNoBackend and ErrCPUOnly, saying why.
func (a *MultisetAdapter[X, K, A]) Run(g *Graph, opt Options) (*Result[X], error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if res, done, err := a.runDevice(g, opt); done {
		if err != nil {
			return nil, err
		}
		return res, reduceOnHost(a.Spec(), res)
	}
	return Run[X, A](g, a, opt)
}

// multisetRunner is what Run needs of a MultisetAdapter to take it to a
// device backend itself (Run(g, Multiset(p), opt) then does what the
// adapter's Run does), by a hook at Run's start:
//
//	if m, ok := p.(multisetRunner[X]); ok {
//		if res, done, err := m.runDevice(g, opt); done {
//			return res, err
//		}
//	}
type multisetRunner[X any] interface {
	runDevice(g *Graph, opt Options) (*Result[X], bool, error)
}

var _ multisetRunner[int64] = (*MultisetAdapter[int64, int64, struct{}])(nil)

// runDevice runs the program on the device backend opt selects, and
// reports whether it did (or failed trying): not for the cpu, nor for
// auto where no device backend can run it.
func (a *MultisetAdapter[X, K, A]) runDevice(g *Graph, opt Options) (*Result[X], bool, error) {
	if g == nil || g.g == nil || a == nil || a.Program == nil {
		return nil, false, nil // (Run says what is wrong)
	}
	if err := checkReductions[X](a.Spec()); err != nil {
		return nil, true, err
	}
	tw := time.Now()
	b, err := a.multisetBackend(opt.Backend)
	wait := time.Since(tw)
	if err != nil {
		return nil, true, err
	}
	if b == nil {
		return nil, false, nil
	}
	var res *Result[X]
	if parts := PartsOf(opt); parts > 1 {
		// (split as any program: each part gathers its rows' multisets)
		pb, ok := b.(driver.PartBackend)
		if !ok {
			return nil, true, fmt.Errorf("%w: %s", ErrNoParts, b.Name())
		}
		res, err = runParts(g, Program[X, A](a), opt.withDefaults(), parts, &partDevice{pb: pb, code: a.Program.(MultisetDeviceProgram).Device, multiset: true})
	} else {
		res, err = runMultisetDevice(g, a, b, opt)
	}
	if err != nil {
		return nil, true, err
	}
	res.BackendWait = wait
	return res, true, nil
}

// multisetBackend resolves Options.Backend for a multiset program: nil
// for the CPU engine.
func (a *MultisetAdapter[X, K, A]) multisetBackend(name string) (driver.MultisetBackend, error) {
	_, hasCode := a.Program.(MultisetDeviceProgram)
	plain := spmv.PlainData[X]() && spmv.PlainData[A]()
	return resolveBackend[driver.MultisetBackend](name, hasCode && plain, func(isT bool) error {
		switch {
		case !isT:
			return fmt.Errorf("%w: %s: %w: %T is a multiset program (vertexprog.MultisetProgram), and %s does not gather multisets (driver.MultisetBackend)",
				ErrNoBackend, name, ErrCPUOnly, a.Program, name)
		case !hasCode:
			return fmt.Errorf("%w: %s: %w: %T is a multiset program without device code (implement vertexprog.MultisetDeviceProgram)",
				ErrNoBackend, name, ErrCPUOnly, a.Program)
		case !plain:
			return fmt.Errorf("%w: %s cannot run %T: its value and summary types must be plain data (numbers, arrays and structs of numbers)", ErrNoBackend, name, a.Program)
		}
		return nil
	})
}

// runMultisetDevice is Run's PREPROCESS, superstep loop and finish for a
// multiset program on b. Every superstep pulls (the program cannot
// push); the matrix is the CSR itself (hyb.CPUOptions) unless opt says
// otherwise, so that a row's entries lie together.
func runMultisetDevice[X any, K cmp.Ordered, A any](g *Graph, a *MultisetAdapter[X, K, A], b driver.MultisetBackend, opt Options) (*Result[X], error) {
	opt = opt.withDefaults()
	spec := a.Spec()
	if spec.Edges < InEdges || spec.Edges > InOutEdges {
		return nil, fmt.Errorf("vertexprog: unknown edge type %d", spec.Edges)
	}
	if spec.MaxIterations < 0 || opt.MaxIterations < 0 {
		return nil, errors.New("vertexprog: negative iteration limit")
	}
	if opt.HYB == (hyb.Options{}) {
		opt.HYB = hyb.CPUOptions()
	}
	t0 := time.Now()
	h, err := prepare(g, Program[X, A](a), opt, false, nil)
	if err != nil {
		return nil, err
	}
	advance(h.steps, 0)
	job := &driver.DeviceJob{
		Graph: g, Spec: h.spec, Code: a.Program.(MultisetDeviceProgram).Device(), Pull: h.pull,
		X: valueBytes(h.x), XSize: int(unsafe.Sizeof(*new(X))), ASize: int(unsafe.Sizeof(*new(A))),
		Active: h.active, Aggregates: append([]float64(nil), h.steps[0].prev...), Resident: opt.Resident,
	}
	run, err := b.StartMultiset(job)
	if err != nil {
		return nil, err
	}
	defer run.Close()
	res := &Result[X]{Backend: b.Name(), Preprocess: time.Since(t0)}
	t1 := time.Now()
	if err := loop(h, &deviceStepper{run: run, agg: job.Aggregates}, opt, res); err != nil {
		return nil, err
	}
	res.Compute = time.Since(t1)
	if dt, ok := run.(driver.DeviceTimer); ok {
		res.Device = dt.DeviceTime()
	}
	t2 := time.Now()
	if sf, ok := run.(driver.SummaryFinisher); ok && opt.SummaryOnly && len(h.spec.Reductions) == 0 {
		// (the host reduces the values: reduceOnHost)
		if err := sf.FinishSummary(); err != nil {
			return nil, err
		}
		h.x = nil
	} else if err := run.Finish(valueBytes(h.x)); err != nil {
		return nil, err
	}
	res.Finish = time.Since(t2)
	if tr, ok := run.(driver.TransferReporter); ok {
		res.Transfer = tr.Transfers()
	}
	res.X = h.x
	return res, nil
}
