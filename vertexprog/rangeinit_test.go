package vertexprog_test

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// rangedReach is reach with InitRange; listed makes it list every source
// of srcs, all makes it say "all active" (every vertex a source), and
// stray makes it list a vertex outside its range.
type rangedReach struct {
	reach
	srcs         []int32
	all, stray   bool
	calls, total *atomic.Int64
}

func (r rangedReach) Init(v int32, _ *vertexprog.Step) (uint32, bool) {
	if r.all || slices.Contains(r.srcs, v) {
		return 1, true
	}
	return 0, false
}

func (r rangedReach) InitRange(lo, hi int32, x []uint32, _ *vertexprog.Step) (bool, []int32) {
	r.calls.Add(1)
	r.total.Add(int64(hi - lo))
	for i := range x {
		x[i] = 0
		if r.all {
			x[i] = 1
		}
	}
	if r.all {
		return true, nil
	}
	var act []int32
	for _, s := range r.srcs {
		if s >= lo && s < hi {
			x[s-lo] = 1
			act = append(act, s)
		}
	}
	if r.stray {
		act = append(act, hi)
	}
	return false, act
}

// plainReach is rangedReach without InitRange: the engine calls Init.
type plainReach struct{ r rangedReach }

func (p plainReach) Spec() vertexprog.Spec                           { return p.r.Spec() }
func (p plainReach) Init(v int32, s *vertexprog.Step) (uint32, bool) { return p.r.Init(v, s) }
func (p plainReach) Identity() uint32                                { return 0 }
func (p plainReach) Gather(acc uint32, v, u int32, x uint32, w float32) uint32 {
	return p.r.Gather(acc, v, u, x, w)
}
func (p plainReach) Reduce(a, b uint32) uint32 { return a | b }
func (p plainReach) Update(v int32, acc uint32, x *uint32, s *vertexprog.Step) bool {
	return p.r.Update(v, acc, x, s)
}

// TestRangeIniter: a program's InitRange replaces its Init calls, covers
// every vertex once, and gives the same run (values, active counts,
// directions) as Init; an active vertex listed outside its range is an
// error.
func TestRangeIniter(t *testing.T) {
	g := vertexprog.NewGraph(kron(t, 12, 8))
	n := g.N()
	for _, c := range []struct {
		srcs []int32
		all  bool
	}{{srcs: []int32{0}}, {srcs: []int32{3, 31, 32, int32(n - 1)}}, {all: true}, {}} {
		var calls, total atomic.Int64
		rr := rangedReach{srcs: c.srcs, all: c.all, calls: &calls, total: &total}
		got, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](rr), vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if calls.Load() == 0 || total.Load() != int64(n) {
			t.Errorf("srcs %v all %v: InitRange called %d times over %d vertices; want >0 calls over %d", c.srcs, c.all, calls.Load(), total.Load(), n)
		}
		want, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](plainReach{rr}), vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.X, want.X) || !slices.Equal(got.Active, want.Active) || !slices.Equal(got.Directions, want.Directions) {
			t.Errorf("srcs %v all %v: InitRange's run differs from Init's: active %v vs %v", c.srcs, c.all, got.Active, want.Active)
		}
	}
	var calls, total atomic.Int64
	_, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](rangedReach{srcs: []int32{1}, stray: true, calls: &calls, total: &total}), vertexprog.Options{Backend: "cpu"})
	if err == nil || !strings.Contains(err.Error(), "outside its range") {
		t.Errorf("a stray active vertex: err %v, want one about its range", err)
	}
}
