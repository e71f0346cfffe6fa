package sssp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSummarize compares summarize with summarizeValues, the pass by
// value on one core, across block boundaries, with unreached vertices
// scattered, and with values a distance never has (NaN, negatives),
// which max's answer covers.
func TestSummarize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	inf := float32(math.Inf(1))
	odd := []struct {
		name string
		v    float32
	}{{"", 0}, {"NaN", float32(math.NaN())}, {"-1", -1}, {"-0", float32(math.Copysign(0, -1))}, {"-Inf", float32(math.Inf(-1))}}
	for _, n := range []int{0, 1, 4095, 4096, 100003} {
		for _, o := range odd {
			name, v := o.name, o.v
			dist := make([]float32, n)
			for i := range dist {
				switch k := r.IntN(10); {
				case k < 4:
					dist[i] = inf
				case k < 6:
					dist[i] = float32(r.IntN(1000)) / 8
				default:
					dist[i] = float32(r.IntN(1 << 20))
				}
			}
			if name != "" && n > 0 {
				dist[r.IntN(n)] = v
			}
			want, wantFar := 0, float32(0)
			for _, x := range dist {
				if !math.IsInf(float64(x), 1) {
					want++
					wantFar = max(wantFar, x)
				}
			}
			got, far := summarize(dist)
			if got != want || math.Float32bits(far) != math.Float32bits(wantFar) {
				t.Errorf("n=%d, one %q: summarize = %d, %g; want %d, %g", n, name, got, far, want, wantFar)
			}
		}
	}
}

// BenchmarkSummarize is the summary pass over a kron21-sized answer,
// its unreached vertices (40%) scattered.
func BenchmarkSummarize(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	dist := make([]float32, 1<<21)
	for i := range dist {
		dist[i] = float32(r.IntN(8))
		if r.IntN(10) < 4 {
			dist[i] = float32(math.Inf(1))
		}
	}
	b.SetBytes(int64(len(dist)) * 4)
	for b.Loop() {
		summarize(dist)
	}
}
