//go:build cgo

package cuda

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/hyb"
)

// download copies n elements of device memory p into a new slice (nil
// for a null pointer). Inside device.do.
func download[T any](p cu.DevicePtr, n int64) []T {
	if p == 0 {
		return nil
	}
	out := make([]T, n)
	if n > 0 {
		cu.MemcpyDtoH(unsafe.Pointer(&out[0]), p, n*int64(unsafe.Sizeof(out[0])))
	}
	return out
}

// TestBuildOnDeviceMatchesHost: the ELL and COO arrays hb_ell and hb_coo
// build from a described matrix's CSR equal hyb.FromCSR's on the host,
// for skewed random matrices, weighted or not, at several ELL widths.
func TestBuildOnDeviceMatchesHost(t *testing.T) {
	d := needGPU(t)
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{1, 31, 33, 1000, 70000} {
		for _, weighted := range []bool{false, true} {
			rowPtr := make([]int64, n+1)
			var col []int32
			var val []float32
			for r := range n {
				l := rng.IntN(8)
				if rng.IntN(50) == 0 {
					l = rng.IntN(min(n, 3000) + 1)
				}
				row := map[int32]bool{}
				for range l {
					row[int32(rng.IntN(n))] = true
				}
				cols := make([]int32, 0, len(row))
				for c := range row {
					cols = append(cols, c)
				}
				slices.Sort(cols)
				col = append(col, cols...)
				for range cols {
					if weighted {
						val = append(val, rng.Float32()*100)
					}
				}
				rowPtr[r+1] = int64(len(col))
			}
			for _, opt := range []hyb.Options{{RelativeSpeed: 3}, {RelativeSpeed: 0.01}, {RelativeSpeed: 3, MaxK: 1}} {
				want, err := hyb.FromCSR(n, rowPtr, col, val, opt)
				if err != nil {
					t.Fatal(err)
				}
				m, err := hyb.Describe(n, rowPtr, col, val, opt)
				if err != nil {
					t.Fatal(err)
				}
				if m.Materialized() {
					continue // K = 0: the CSR is the COO, nothing to build
				}
				err = d.do("building on the device", func() error {
					md := &matDev{m: m}
					defer freeAll(md.bufs)
					buildOnDevice(md, m, nil)
					slots, coo := int64(m.K)*int64(m.Pitch), m.CooNNZ()
					if got := download[int32](md.ellCol, slots); !slices.Equal(got, want.EllCol) {
						t.Errorf("n=%d weighted=%v K=%d: ELL columns differ", n, weighted, m.K)
					}
					if got := download[float32](md.ellVal, slots); !slices.Equal(got, want.EllVal) {
						t.Errorf("n=%d weighted=%v K=%d: ELL values differ", n, weighted, m.K)
					}
					if got := download[int32](md.cooCol, coo); !slices.Equal(got, want.CooCol) && coo > 0 {
						t.Errorf("n=%d weighted=%v K=%d: COO columns differ", n, weighted, m.K)
					}
					if got := download[float32](md.cooVal, coo); !slices.Equal(got, want.CooVal) && coo > 0 {
						t.Errorf("n=%d weighted=%v K=%d: COO values differ", n, weighted, m.K)
					}
					if got := download[int64](md.cooPtr, int64(n+1)); !slices.Equal(got, want.CooPtr) {
						t.Errorf("n=%d weighted=%v K=%d: COO row offsets differ", n, weighted, m.K)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if m.Materialized() {
					t.Errorf("building on the device filled the host's arrays")
				}
			}
		}
	}
}
