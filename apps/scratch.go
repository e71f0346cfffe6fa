package apps

import (
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Scratch is what an app keeps between the runs of one caller (see
// Request.Scratch); its zero value is empty, and a nil *Scratch lends
// nothing and keeps nothing.
type Scratch struct {
	// held is what an app keeps for its own next run (Held, Hold: a
	// BFS's result, whose arrays the next BFS writes into).
	held map[any]any
	// The per-vertex arrays of the last answers, which the next run writes
	// into instead of fresh memory (a page fault per 4 KB: ~5 ms of a
	// served kron21 PageRank): a PageRank's ranks, and the values
	// (vertexprog.Options.Values) of any app's, one array of each element
	// type ([]float64, []float32, []int32, []int64), so that a caller
	// mixing apps (a server) keeps reusing them instead of dropping one
	// array for another at every change of app.
	ranks  kept
	values []kept
	counts []int32 // LabelCounts' sizes (cc's components)
	// Backend, when a device backend's name (or "auto"), is the backend
	// the scratch's runs use: the arrays it keeps are page-locked for its
	// copies (vertexprog.Pin), which then go by DMA (a served kron21
	// PageRank's 16 MB of ranks: ~1 ms staged; a batch's SSSP distances),
	// and unlocked when they are replaced or the scratch is dropped.
	Backend string
	final   bool // release is set as s's finalizer
}

// kept is an array a Scratch keeps, and the function that unlocks it
// (nil: not locked).
type kept struct {
	array any
	unpin func()
}

// Held returns what an app left in s under key (Hold), or nil (also for
// a nil s).
func (s *Scratch) Held(key any) any {
	if s == nil {
		return nil
	}
	return s.held[key]
}

// Hold keeps v under key, an app's own, for that app's next run with s
// (none with a nil s).
func (s *Scratch) Hold(key, v any) {
	if s == nil {
		return
	}
	if s.held == nil {
		s.held = map[any]any{}
	}
	s.held[key] = v
}

// Lent returns the []T that s keeps (the last answer's values of that
// type), or nil: the memory for a run's values (vertexprog.Options.Values).
func Lent[T any](s *Scratch) []T {
	if s == nil {
		return nil
	}
	for _, k := range s.values {
		if x, ok := k.array.([]T); ok {
			return x
		}
	}
	return nil
}

// LentRanks returns the ranks s keeps (a PageRank's), or nil.
func (s *Scratch) LentRanks() []float64 {
	if s == nil {
		return nil
	}
	x, _ := s.ranks.array.([]float64)
	return x
}

// Keep keeps ranks and values (a slice of one of the element types
// above), each when not nil, for the next run, in place of what s kept
// of that kind.
func (s *Scratch) Keep(ranks []float64, values any) {
	if s == nil {
		return
	}
	if ranks != nil {
		s.replace(&s.ranks, ranks)
	}
	if values == nil {
		return
	}
	for i := range s.values {
		if reflect.TypeOf(s.values[i].array) == reflect.TypeOf(values) {
			s.replace(&s.values[i], values)
			return
		}
	}
	s.values = append(s.values, kept{})
	s.replace(&s.values[len(s.values)-1], values)
}

// replace puts array in k, page-locked for s.Backend's copies where it
// is a device's, the array k held before unlocked (nothing changes when
// it is the same array). A finalizer unlocks what s keeps when s is
// dropped (it keeps the arrays alive until it has run).
func (s *Scratch) replace(k *kept, array any) {
	if sameArray(k.array, array) {
		return
	}
	k.release()
	k.array = array
	if s.Backend == "" || s.Backend == "cpu" {
		return
	}
	switch x := array.(type) {
	case []float64:
		k.unpin = vertexprog.Pin(s.Backend, x)
	case []float32:
		k.unpin = vertexprog.Pin(s.Backend, x)
	case []int32:
		k.unpin = vertexprog.Pin(s.Backend, x)
	case []int64:
		k.unpin = vertexprog.Pin(s.Backend, x)
	}
	if k.unpin != nil && !s.final {
		s.final = true
		runtime.SetFinalizer(s, (*Scratch).release)
	}
}

// sameArray says whether a and b are the same slice (of one type, the
// same first element and length).
func sameArray(a, b any) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Len() == vb.Len() && (va.Len() == 0 || va.Pointer() == vb.Pointer())
}

func (k *kept) release() {
	if k.unpin != nil {
		k.unpin()
		k.unpin = nil
	}
}

// release unlocks the arrays s keeps, if locked.
func (s *Scratch) release() {
	s.ranks.release()
	for i := range s.values {
		s.values[i].release()
	}
}

// LabelCounts are the number of vertices of the largest group of
// vertices that share a label, and the number of groups, counted on every
// core into s's counts where it has them (labels are vertices: a slice,
// where a map cost ~250 ms on kron21; one core took ~5 ms of a served
// kron21 query). A worker counts in a small table of its own and adds an
// entry to the shared count when another label takes its slot: one
// atomic add a vertex, all on the giant component's counter, took 114 ms.
func LabelCounts(label []int32, s *Scratch) (largest int32, groups int) {
	var sizes []int32
	if s != nil && len(s.counts) == len(label) {
		sizes = s.counts
		clear(sizes)
	} else {
		sizes = make([]int32, len(label))
		if s != nil {
			s.counts = sizes
		}
	}
	const slots = 1024
	par.Blocks(len(label), func(_, lo, hi int) {
		var lab [slots]int32
		var cnt [slots]int32
		for _, l := range label[lo:hi] {
			k := l & (slots - 1)
			if cnt[k] > 0 && lab[k] != l {
				atomic.AddInt32(&sizes[lab[k]], cnt[k])
				cnt[k] = 0
			}
			lab[k] = l
			cnt[k]++
		}
		for k, c := range cnt {
			if c > 0 {
				atomic.AddInt32(&sizes[lab[k]], c)
			}
		}
	})
	// (each worker counts in its own variables, stored once: tops[w]
	// and nonzero[w] written at every label put the workers on the same
	// cache lines, a pass several times as long)
	tops := make([]int32, par.Workers())
	nonzero := make([]int, par.Workers())
	par.Blocks(len(sizes), func(w, lo, hi int) {
		var top int32
		var nz int
		for _, c := range sizes[lo:hi] {
			top = max(top, c)
			if c > 0 {
				nz++
			}
		}
		tops[w], nonzero[w] = top, nz
	})
	for _, n := range nonzero {
		groups += n
	}
	return slices.Max(append(tops, 0)), groups
}
