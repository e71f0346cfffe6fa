// Package semprog is a vertex program whose methods exercise Go's
// arithmetic corner cases (wrap-around, division, shifts, conversions,
// float rounding, min/max with NaN and signed zeros). devgen's tests
// translate it and run the C on the host against these Go methods.
package semprog

import (
	"math"
	"math/bits"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// V holds one value of each numeric type of the subset.
type V struct {
	I32 int32
	U32 uint32
	I64 int64
	U64 uint64
	F32 float32
	F64 float64
}

// Program is not meant to run; its methods are the test's subject.
type Program struct{}

func (Program) Spec() vertexprog.Spec { return vertexprog.Spec{} }

func (Program) Init(int32, *vertexprog.Step) (V, bool) { return V{}, false }

func (Program) Identity() V { return V{F32: float32(math.Inf(1)), F64: math.Inf(-1)} }

func (Program) Gather(acc V, v, u int32, xu V, w float32) V {
	var r V
	r.I32 = acc.I32*xu.I32 + v - u<<3
	if xu.I32 != 0 {
		r.I32 += acc.I32/xu.I32 + acc.I32%xu.I32
	}
	r.I32 ^= -acc.I32 >> (xu.U32 & 63)
	r.U32 = acc.U32*xu.U32 - xu.U32<<(acc.U32&63) + bits.RotateLeft32(acc.U32, int(v))
	if xu.U32 != 0 {
		r.U32 += acc.U32 / xu.U32 % 7
	}
	r.I64 = acc.I64*xu.I64 + int64(acc.I32)<<40 - int64(xu.F64) + int64(bits.OnesCount64(acc.U64))
	if xu.I64 != 0 {
		r.I64 += acc.I64 / xu.I64
	}
	r.U64 = acc.U64*xu.U64 ^ xu.U64>>(acc.U32&127) + uint64(acc.F32) + uint64(bits.TrailingZeros64(xu.U64))
	r.F32 = acc.F32*xu.F32 + w - float32(acc.I32)/3
	r.F32 = max(r.F32, min(acc.F32, xu.F32))
	r.F64 = float64(acc.F32)*xu.F64 + math.Sqrt(math.Abs(xu.F64)) - float64(acc.I64)
	r.F64 = min(r.F64, math.Max(acc.F64, xu.F64), math.Floor(xu.F64*0.5))
	switch {
	case acc.I32 > 5:
		r.I32 = int32(xu.F32)
	case acc.I32 < -5:
		r.U32 = uint32(xu.F64)
	}
	for i := range 3 {
		r.I64 += int64(i) * acc.I64
	}
	r.F64 = max(r.F64, ratio(xu.F64, acc.I32))
	r.I64 ^= mix(acc, v)
	return r
}

// ratio and mix are package-level functions Gather calls: each becomes a
// device function (mix calls ratio, takes a struct, assigns a parameter).
func ratio(a float64, n int32) float64 {
	if n == 0 {
		return 0
	}
	n = -n
	return a / float64(n)
}

func mix(a V, b int32) int64 {
	a.I32 -= b
	return int64(a.I32)*int64(b) + int64(ratio(a.F64, b))
}

func (Program) Reduce(a, b V) V {
	return V{I32: min(a.I32, b.I32), U32: max(a.U32, b.U32), I64: a.I64 + b.I64, U64: a.U64 | b.U64, F32: min(a.F32, b.F32), F64: max(a.F64, b.F64)}
}

func (Program) Update(_ int32, acc V, x *V, _ *vertexprog.Step) bool {
	if acc == *x {
		return false
	}
	*x = acc
	return true
}
