//go:build cgo

package run

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDiffering checks the blocks a resident run re-uploads against a
// byte-by-byte comparison: every changed byte is inside a range, every
// range is whole blocks (the last may be short) with a change in each.
func TestDiffering(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, seedBlock - 1, seedBlock, 3*seedBlock + 17, 40 * seedBlock} {
		for _, changes := range []int{0, 1, 5, n} {
			old := make([]byte, n)
			for i := range old {
				old[i] = byte(rng.IntN(256))
			}
			b := bytes.Clone(old)
			for range changes {
				i := rng.IntN(n)
				b[i]++
			}
			t.Run(fmt.Sprintf("%d/%d", n, changes), func(t *testing.T) {
				rs := differing(old, b)
				in := make([]bool, n)
				last := -1
				for _, r := range rs {
					lo, hi := r[0], r[1]
					if lo <= last || lo%seedBlock != 0 || (hi%seedBlock != 0 && hi != n) || hi > n || lo >= hi {
						t.Fatalf("range %v (after %d) is not whole blocks in order", r, last)
					}
					for k := lo; k < hi; k += seedBlock {
						if bytes.Equal(old[k:min(k+seedBlock, n)], b[k:min(k+seedBlock, n)]) {
							t.Fatalf("range %v holds block %d, which did not change", r, k/seedBlock)
						}
					}
					for i := lo; i < hi; i++ {
						in[i] = true
					}
					last = hi
				}
				for i := range b {
					if b[i] != old[i] && !in[i] {
						t.Fatalf("byte %d changed but is in no range", i)
					}
				}
			})
		}
	}
}

// TestResidentRunsMatchCPU runs every app resident (vertexprog.Options
// .Resident) on the GPU twice in a row, so that each run after the first
// of a program adopts the buffers and graphs of the one before and sends
// only the blocks of its initial state that changed (a BFS from another
// source), and compares every output with the CPU's.
func TestResidentRunsMatchCPU(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	plain := testGraphs(t, datasets.Options{})
	weighted := testGraphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 9})
	before := d.counts.adoptedRuns
	for gi := range plain {
		for _, a := range appCases {
			tg := a.graph(plain, weighted, gi)
			g := vertexprog.NewGraph(tg.g)
			t.Run(tg.name+"/"+a.name, func(t *testing.T) {
				want, _, err := a.run(g, vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				for round := range 2 {
					got, _, err := a.run(g, vertexprog.Options{Backend: "cuda", Resident: true})
					if err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
					if len(got) != len(want) {
						t.Fatalf("round %d: %d outputs, cpu %d", round, len(got), len(want))
					}
					for i := range want {
						if !same(got[i], want[i], a.tol) {
							t.Fatalf("round %d: output %d is %v, cpu %v", round, i, got[i], want[i])
						}
					}
				}
			})
		}
	}
	if d.counts.adoptedRuns == before {
		t.Fatal("no resident run adopted a parked run's buffers")
	}
	t.Logf("%d runs adopted a parked run's buffers", d.counts.adoptedRuns-before)
}

// BenchmarkUploadPaths measures the ways 256 MB reach the device (the
// floor of a kron21 PREPROCESS, whose CSR is 254 MB): the DMA alone from
// pinned memory, the host copies the staging adds (1, 4 and 16
// goroutines), htod as runs use it (staged), and pinning the source in
// place. Each reports GB/s.
func BenchmarkUploadPaths(b *testing.B) {
	d := needGPU(b)
	const size = 256 << 20
	src := make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	dst := make([]byte, size)
	var dev cu.DevicePtr
	var pinned unsafe.Pointer
	if err := d.Do("allocating", func() error {
		dev, pinned = cu.MemAlloc(size), cu.MemAllocHost(size)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	defer d.Do("freeing", func() error { cu.MemFree(dev); cu.MemFreeHost(pinned); return nil })
	rate := func(b *testing.B) { b.SetBytes(size) }
	b.Run("dma-from-pinned", func(b *testing.B) {
		rate(b)
		for b.Loop() {
			_ = d.Do("copying", func() error { cu.MemcpyHtoD(dev, pinned, size); return nil })
		}
	})
	for _, parts := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("host-copy-%d", parts), func(b *testing.B) {
			rate(b)
			for b.Loop() {
				rt.HostCopy(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), size, parts)
			}
		})
	}
	b.Run("htod-staged", func(b *testing.B) {
		rate(b)
		for b.Loop() {
			_ = d.Do("copying", func() error { d.HtoD(dev, unsafe.Pointer(&src[0]), size); return nil })
		}
	})
	b.Run("pin-in-place", func(b *testing.B) {
		rate(b)
		defer func(h hooks) { d.hooks = h }(d.hooks)
		d.Hooks.PinInPlace = true
		for b.Loop() {
			_ = d.Do("copying", func() error { d.HtoD(dev, unsafe.Pointer(&src[0]), size); return nil })
		}
	})
}

// TestScratchArrays: a Scratch array starts zeroed on the device in every
// run (resident runs too, whose last run left it written) and is not
// copied back, whether the host or vp_init made the initial state.
func TestScratchArrays(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	for _, tg := range testGraphs(t, datasets.Options{}) {
		g := vertexprog.NewGraph(tg.g)
		cpu := &scratchProg{}
		want, err := vertexprog.Run(g, vertexprog.Program[int32, int32](cpu), vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, devInit := range []bool{false, true} {
			for round := range 2 {
				p := &scratchProg{devInit: devInit}
				got, err := vertexprog.Run(g, vertexprog.Program[int32, int32](p), vertexprog.Options{Backend: "cuda", Resident: true})
				if err != nil {
					t.Fatalf("%s (vp_init %v, round %d): %v", tg.name, devInit, round, err)
				}
				for v := range want.X {
					if got.X[v] != want.X[v] || p.seen[v] != cpu.seen[v] || p.tmp[v] != 0 {
						t.Fatalf("%s (vp_init %v, round %d): vertex %d: x %d seen %d host tmp %d, cpu x %d seen %d (tmp 0)",
							tg.name, devInit, round, v, got.X[v], p.seen[v], p.tmp[v], want.X[v], cpu.seen[v])
					}
				}
			}
		}
	}
}
