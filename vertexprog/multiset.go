package vertexprog

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/spmv"
)

// Bag is the multiset a vertex gathered in one superstep: its distinct
// elements in increasing order, each with the number of times it was
// gathered. The engine owns the slices and reuses them for the next
// vertex: they are valid only during the Summarize call that receives
// them. Summarize may reorder or overwrite them as scratch space; to keep
// anything, copy it.
type Bag[K cmp.Ordered] struct {
	// Values are the distinct elements in increasing order (cmp.Compare's:
	// NaNs first, all NaNs one value).
	Values []K
	// Counts[i] ≥ 1 is how many times Values[i] was gathered.
	Counts []int
	// Size is the number of elements gathered: the sum of Counts.
	Size int
}

// MultisetProgram is a vertex program whose accumulator is the multiset of
// its neighbours' values, not a fold of them: the most frequent value (a
// mode), a majority, a median, a count of distinct values. Element says
// what neighbour u contributes to v's multiset over one edge; the engine
// collects the elements of every edge v gathers along, sorts and counts
// them, and hands them to Summarize, which makes the fixed-size
// accumulator that Update receives. Run it through Multiset (and the
// adapter's Run, or RunMultiset, to let a device backend run it: see
// MultisetDeviceProgram). See the package documentation, "Operators", for
// the contract.
type MultisetProgram[X any, K cmp.Ordered, A any] interface {
	// Spec is as for Program; Sparse and Delta must be unset (a multiset
	// superstep pulls every row and never pushes).
	Spec() Spec
	// Init gives vertex v its first value and says whether it starts
	// active.
	Init(v int32, s *Step) (x X, active bool)
	// Element is what neighbour u, of value xu, puts into v's multiset
	// over one edge of weight w (1 on an unweighted graph). Called
	// concurrently, once per gathered edge.
	Element(v, u int32, xu X, w float32) K
	// Summarize makes v's accumulator from its whole multiset, empty when
	// v gathered nothing. Called concurrently for different vertices,
	// once per vertex a superstep, during SPMV: it may read the program's
	// state but not write it, nor any vertex's value.
	Summarize(v int32, b Bag[K]) A
	// Update is as for Program: it gives v its summary and its value; it
	// may change *x and v's own state, and says whether v is active for
	// the next superstep.
	Update(v int32, acc A, x *X, s *Step) (active bool)
}

// ErrCPUOnly is wrapped (beside ErrNoBackend) by Run's error when a
// device backend is asked for a program that only the CPU engine runs:
// a multiset program without device code (MultisetDeviceProgram), or on
// a backend that does not gather multisets (driver.MultisetBackend), or one
// passed to Run, whose device backends run Programs only (the adapter's
// Run takes it to a driver.MultisetBackend).
var ErrCPUOnly = errors.New("the program runs on the cpu backend only")

// MultisetAdapter runs a MultisetProgram as a Program: pass it to Run or
// to vptest.Compare, or call its Run, which also takes it to a device
// backend that gathers multisets (driver.MultisetBackend) where the program has
// device code (MultisetDeviceProgram). Its Gather and Reduce are never
// called: the engine gathers a multiset program's rows with its own
// kernel, and refuses push supersteps for it (ErrPushUnsupported); Run
// refuses it device backends (ErrCPUOnly). One adapter may serve
// concurrent runs; it keeps, between runs, one scratch buffer per worker
// as long as the longest row gathered.
type MultisetAdapter[X any, K cmp.Ordered, A any] struct {
	// Program is the wrapped program.
	Program MultisetProgram[X, K, A]
	// scratch holds idle per-worker buffers (a nil channel works too:
	// every part then allocates its own).
	scratch chan *bagScratch[K]
}

// Multiset wraps p for Run. The type parameters are rarely inferred:
// write vertexprog.Multiset[X, K, A](p) or pass a MultisetProgram value.
func Multiset[X any, K cmp.Ordered, A any](p MultisetProgram[X, K, A]) *MultisetAdapter[X, K, A] {
	return &MultisetAdapter[X, K, A]{Program: p, scratch: make(chan *bagScratch[K], par.Workers())}
}

// Spec returns the program's Spec.
func (a *MultisetAdapter[X, K, A]) Spec() Spec { return a.Program.Spec() }

// Prepare checks the program's Spec and calls its own Prepare, if any.
func (a *MultisetAdapter[X, K, A]) Prepare(g *Graph) error {
	if a.Program == nil {
		return errors.New("vertexprog: Multiset of a nil program")
	}
	s := a.Program.Spec()
	if s.Sparse || s.Delta != 0 {
		return fmt.Errorf("vertexprog: %T is a multiset program: its supersteps pull every row and cannot push, so Spec.Sparse and Spec.Delta must be unset", a.Program)
	}
	if p, ok := a.Program.(Preparer); ok {
		return p.Prepare(g)
	}
	return nil
}

// Init calls the program's Init.
func (a *MultisetAdapter[X, K, A]) Init(v int32, s *Step) (X, bool) { return a.Program.Init(v, s) }

// Identity is the zero A; the engine never hands it to Update (every
// row's accumulator comes from Summarize).
func (a *MultisetAdapter[X, K, A]) Identity() A {
	var zero A
	return zero
}

// Gather is never called (see MultisetAdapter).
func (a *MultisetAdapter[X, K, A]) Gather(A, int32, int32, X, float32) A {
	panic("vertexprog: internal error: Gather of a multiset program called; its rows are gathered by the multiset kernel")
}

// Reduce is never called (see MultisetAdapter).
func (a *MultisetAdapter[X, K, A]) Reduce(A, A) A {
	panic("vertexprog: internal error: Reduce of a multiset program called; its rows are gathered by the multiset kernel")
}

// Update calls the program's Update.
func (a *MultisetAdapter[X, K, A]) Update(v int32, acc A, x *X, s *Step) bool {
	return a.Program.Update(v, acc, x, s)
}

// cpuOnly says why no device backend runs the program.
func (a *MultisetAdapter[X, K, A]) cpuOnly() string {
	return fmt.Sprintf("%T is a multiset program (vertexprog.MultisetProgram), which vertexprog.Run gathers on the cpu only; "+
		"MultisetAdapter.Run (vertexprog.RunMultiset) takes one with device code to a backend that gathers multisets", a.Program)
}

// cpuOnlyProgram is implemented by programs only the CPU engine runs.
type cpuOnlyProgram interface{ cpuOnly() string }

// rowPuller is implemented by programs whose pull supersteps the engine
// hands whole to the program's own kernel instead of spmv.Rows: it must
// set Y[v] for every row v in bounds that Wants (when set) accepts.
type rowPuller[X, A any] interface {
	pullRows(p *spmv.Pull[X, A], bounds []int)
}

// bagScratch is one worker's buffer: the elements of a row, sorted and
// compacted in place into a Bag's Values, and the Bag's Counts.
type bagScratch[K cmp.Ordered] struct {
	elems  []K
	counts []int
}

func (a *MultisetAdapter[X, K, A]) take() *bagScratch[K] {
	select {
	case b := <-a.scratch:
		return b
	default:
		return &bagScratch[K]{}
	}
}

func (a *MultisetAdapter[X, K, A]) give(b *bagScratch[K]) {
	select {
	case a.scratch <- b:
	default:
	}
}

// pullRows is the multiset kernel: for each row, the elements of its
// gathered edges (ELL slots, then COO entries; masked by x_bitmask when
// the pull is), sorted and counted, then Summarize.
func (a *MultisetAdapter[X, K, A]) pullRows(p *spmv.Pull[X, A], bounds []int) {
	elem, summarize := a.Program.Element, a.Program.Summarize
	m, x, y, mask, wants := p.M, p.X, p.Y, p.Mask, p.Wants
	k, pitch, ellCol, ellVal := m.K, m.Pitch, m.EllCol, m.EllVal
	cooPtr, cooCol, cooVal := m.CooPtr, m.CooCol, m.CooVal
	par.Dynamic(bounds, func(lo, hi int) {
		b := a.take()
		defer a.give(b)
		for r := lo; r < hi; r++ {
			v := int32(r)
			if wants != nil && !wants.Wants(v) {
				continue
			}
			if n := m.RowLen(r); cap(b.elems) < n {
				b.elems = make([]K, 0, max(n, 2*cap(b.elems)))
			}
			e := b.elems[:0]
			for j := 0; j < k; j++ {
				i := j*pitch + r
				u := ellCol[i]
				if u == hyb.Pad {
					break
				}
				if mask != nil && !mask.Test(u) {
					continue
				}
				w := float32(1)
				if ellVal != nil {
					w = ellVal[i]
				}
				e = append(e, elem(v, u, x[u], w))
			}
			ca, cb := cooPtr[r], cooPtr[r+1]
			if mask == nil && cooVal == nil {
				for _, u := range cooCol[ca:cb] {
					e = append(e, elem(v, u, x[u], 1))
				}
			} else {
				for i := ca; i < cb; i++ {
					u := cooCol[i]
					if mask != nil && !mask.Test(u) {
						continue
					}
					w := float32(1)
					if cooVal != nil {
						w = cooVal[i]
					}
					e = append(e, elem(v, u, x[u], w))
				}
			}
			y[r] = summarize(v, b.bag(e))
		}
	})
}

// bag sorts e (b's elements) and compacts it into a Bag.
func (b *bagScratch[K]) bag(e []K) Bag[K] {
	if len(e) == 0 {
		return Bag[K]{}
	}
	sortElements(e)
	if cap(b.counts) < len(e) {
		b.counts = make([]int, 0, max(len(e), 2*cap(b.counts)))
	}
	counts := b.counts[:0]
	d := 0
	for i := 0; i < len(e); {
		x, j := e[i], i+1
		for j < len(e) && (e[j] == x || (e[j] != e[j] && x != x)) { // (NaNs: one value)
			j++
		}
		e[d] = x
		counts = append(counts, j-i)
		d++
		i = j
	}
	return Bag[K]{Values: e[:d:d], Counts: counts[:d:d], Size: len(e)}
}

// sortElements sorts e in cmp.Compare's order.
func sortElements[K cmp.Ordered](e []K) { slices.Sort(e) }
