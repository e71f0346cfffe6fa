package vertexprog

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
)

// memComm is a process of a run held in memory: goroutines that all-gather
// through a shared round.
type memComm struct {
	rank int
	g    *memGroup
}

type memGroup struct {
	size  int
	mu    sync.Mutex
	cond  *sync.Cond
	round int
	msgs  [][]byte
	got   int
	done  [][]byte
}

func newMemGroup(size int) *memGroup {
	g := &memGroup{size: size, msgs: make([][]byte, size)}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (c memComm) Rank() int { return c.rank }
func (c memComm) Size() int { return c.g.size }
func (c memComm) AllGather(b []byte) ([][]byte, error) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	round := g.round
	g.msgs[c.rank] = append([]byte(nil), b...)
	if g.got++; g.got == g.size {
		g.done, g.msgs, g.got = g.msgs, make([][]byte, g.size), 0
		g.round++
		g.cond.Broadcast()
	}
	for g.round == round {
		g.cond.Wait()
	}
	return g.done, nil
}

// TestPushCounts: the push row offsets each process makes of its parts
// from every process's counts of its own rows (pushCounts) are, row by
// row, the neighbours in the part that a scan of the whole graph finds,
// for 1 to 3 processes of 1 or 2 parts each, on a graph with hubs, self
// loops and vertices without arcs.
func TestPushCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	const n = 700
	el := &datasets.EdgeList{N: n}
	for range 3000 {
		u := int32(rng.IntN(600))
		v := int32(rng.IntN(600))
		if rng.IntN(5) == 0 {
			v = int32(rng.IntN(4))
		}
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
	}
	whole, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true})
	if err != nil {
		t.Fatal(err)
	}
	for world := 1; world <= 3; world++ {
		for local := 1; local <= 2; local++ {
			grp := newMemGroup(world)
			var wg sync.WaitGroup
			errs := make([]error, world)
			for rank := range world {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[rank] = func() error {
						lo, hi, err := RowsOf(whole.RowPtr, world*local, world, rank)
						if err != nil {
							return err
						}
						// (the rows [lo, hi) alone, every other row empty)
						d := *whole
						d.RowPtr = make([]int64, n+1)
						base := whole.RowPtr[lo]
						for v := range n {
							d.RowPtr[v+1] = whole.RowPtr[min(max(int32(v+1), lo), hi)] - base
						}
						d.Col = whole.Col[base:whole.RowPtr[hi]]
						rows, err := GatherRows(&d, lo, hi, memComm{rank, grp})
						if err != nil {
							return err
						}
						g, err := NewGraphRows(rows, memComm{rank, grp})
						if err != nil {
							return err
						}
						pt, err := g.held.partition(world * local)
						if err != nil {
							return err
						}
						if err := g.pushCounts(pt, rank, local, memComm{rank, grp}); err != nil {
							return err
						}
						for i := range local {
							plo, phi := pt.Range(rank*local + i)
							rp := g.held.pushRowPtr(plo, phi)
							if rp == nil {
								t.Errorf("world %d, process %d: no push counts of part [%d, %d)", world, rank, plo, phi)
								continue
							}
							for u := range n {
								want := int64(0)
								for _, v := range whole.Col[whole.RowPtr[u]:whole.RowPtr[u+1]] {
									if v >= plo && v < phi {
										want++
									}
								}
								if got := rp[u+1] - rp[u]; got != want {
									t.Errorf("world %d, %d parts each, process %d, part [%d, %d): row %d counts %d, want %d", world, local, rank, plo, phi, u, got, want)
									return nil
								}
							}
						}
						return nil
					}()
				}()
			}
			wg.Wait()
			for rank, err := range errs {
				if err != nil {
					t.Fatalf("world %d, process %d: %v", world, rank, err)
				}
			}
		}
	}
}
