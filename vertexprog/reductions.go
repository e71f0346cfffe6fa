package vertexprog

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Reduction is one of Spec.Reductions: a count, sum, least or greatest
// of every vertex's final value (or of the finite ones), which the
// backend computes after the last superstep (Result.Reductions).
type Reduction = driver.Reduction

// Reduce is what a Reduction computes.
type Reduce = driver.Reduce

// The reductions (driver.CountValues, ...).
const (
	CountValues = driver.CountValues
	SumValues   = driver.SumValues
	MinValues   = driver.MinValues
	MaxValues   = driver.MaxValues
)

// checkReductions refuses Spec.Reductions of no known Reduce, or over a
// value that is no number.
func checkReductions[X any](spec Spec) error {
	if len(spec.Reductions) == 0 {
		return nil
	}
	if err := driver.CheckReductions(spec.Reductions); err != nil {
		return err
	}
	switch reflect.TypeFor[X]().Kind() {
	case reflect.Int32, reflect.Uint32, reflect.Int64, reflect.Uint64, reflect.Float32, reflect.Float64:
		return nil
	}
	return fmt.Errorf("vertexprog: Spec.Reductions reduce the values, and a %v is no int32, uint32, int64, uint64, float32 or float64", reflect.TypeFor[X]())
}

// reduceValues is rs over xs on every core (checkReductions has vouched
// for X's kind).
func reduceValues[X any](rs []Reduction, xs []X) []float64 {
	p := unsafe.Pointer(unsafe.SliceData(xs))
	switch reflect.TypeFor[X]().Kind() {
	case reflect.Int32:
		return reduceNumbers(rs, unsafe.Slice((*int32)(p), len(xs)))
	case reflect.Uint32:
		return reduceNumbers(rs, unsafe.Slice((*uint32)(p), len(xs)))
	case reflect.Int64:
		return reduceNumbers(rs, unsafe.Slice((*int64)(p), len(xs)))
	case reflect.Uint64:
		return reduceNumbers(rs, unsafe.Slice((*uint64)(p), len(xs)))
	case reflect.Float32:
		return reduceNumbers(rs, unsafe.Slice((*float32)(p), len(xs)))
	case reflect.Float64:
		return reduceNumbers(rs, unsafe.Slice((*float64)(p), len(xs)))
	}
	panic(fmt.Sprintf("vertexprog: reductions over %v", reflect.TypeFor[X]()))
}

type number interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// reduceChunk is the values a pass's loops take at a time: the loops a
// chunk needs (its count and bounds in one, its sum in another) run over
// it while it is in the L1 cache, so the pass reads memory once.
const reduceChunk = 4096

// reduceClaim is the values a worker claims at a time: the workers take
// them as they come (par.Chunks), so that those that wake first do the
// work of those that wake late, where equal blocks (par.Blocks) made the
// pass as slow as the last worker's start (16 cores took 0.63 ms over
// 2M values, 13 GB/s, about what 2 did).
const reduceClaim = 8 * reduceChunk

// reduceNumbers is rs over xs: the partials of each claim, combined in
// the claims' order, so that a sum's bits do not depend on which worker
// took what.
func reduceNumbers[T number](rs []Reduction, xs []T) []float64 {
	nr := len(rs)
	claims := (len(xs) + reduceClaim - 1) / reduceClaim
	parts := make([]float64, claims*nr)
	par.Chunks(len(xs), reduceClaim, func(_, lo, hi int) {
		acc := parts[lo/reduceClaim*nr:][:nr]
		for k, r := range rs {
			acc[k] = r.Identity()
		}
		for c := lo; c < hi; c += reduceChunk {
			reduceChunkInto(rs, xs[c:min(c+reduceChunk, hi)], acc)
		}
	})
	out := make([]float64, nr)
	for k, r := range rs {
		out[k] = r.Identity()
		for c := range claims {
			out[k] = r.Combine(out[k], parts[c*nr+k])
		}
	}
	return out
}

// chunkTally is what a chunk's loops found of its counted values (all,
// or the finite ones).
type chunkTally struct {
	count  int
	lo, hi float64 // math.Min and math.Max (+Inf and -Inf: none)
	sum    float64
}

// reduceChunkInto folds rs over xs into acc: a tally of xs for each
// Finite of rs, with the parts rs read.
func reduceChunkInto[T number](rs []Reduction, xs []T, acc []float64) {
	for _, finite := range []bool{false, true} {
		var need [4]bool // (by Reduce)
		for _, r := range rs {
			if r.Finite == finite {
				need[r.Op] = true
			}
		}
		if !need[CountValues] && !need[SumValues] && !need[MinValues] && !need[MaxValues] {
			continue
		}
		var t chunkTally
		if need[CountValues] || need[MinValues] || need[MaxValues] {
			t.count, t.lo, t.hi = countBounds(xs, finite, need[MinValues])
		}
		if need[SumValues] {
			t.sum = sumValues(xs, finite)
		}
		for k, r := range rs {
			if r.Finite != finite {
				continue
			}
			v := t.sum
			switch r.Op {
			case CountValues:
				v = float64(t.count)
			case MinValues:
				v = t.lo
			case MaxValues:
				v = t.hi
			}
			acc[k] = r.Combine(acc[k], v)
		}
	}
}

// countBounds is how many of xs are counted (the finite ones, or all),
// their greatest and, with wantLo, their least (else +Inf), as math.Max
// and math.Min of float64s: for a float, integer ones over its bits, ordered
// (floatBounds), for an integer comparisons.
func countBounds[T number](xs []T, finite, wantLo bool) (count int, lo, hi float64) {
	switch xs := any(xs).(type) {
	case []float32:
		return floatBounds(xs, finite, wantLo)
	case []float64:
		return floatBounds(xs, finite, wantLo)
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	if len(xs) > 0 {
		l, h := xs[0], xs[0]
		for _, x := range xs[1:] {
			l, h = min(l, x), max(h, x)
		}
		lo, hi = float64(l), float64(h)
	}
	return len(xs), lo, hi
}

// floatBounds is countBounds of floats, over their bits (keyBounds32,
// keyBounds64).
func floatBounds[F float32 | float64](xs []F, finite, wantLo bool) (count int, lo, hi float64) {
	p := unsafe.Pointer(unsafe.SliceData(xs))
	var l, h float64
	if f32, ok := any(xs).([]float32); ok {
		c, kl, kh := keyBounds32(unsafe.Slice((*uint32)(p), len(f32)), finite, wantLo)
		count, l, h = c, float64(math.Float32frombits(fromOrderKey32(kl))), float64(math.Float32frombits(fromOrderKey32(kh)))
	} else {
		c, kl, kh := keyBounds64(unsafe.Slice((*uint64)(p), len(xs)), finite, wantLo)
		count, l, h = c, math.Float64frombits(fromOrderKey64(kl)), math.Float64frombits(fromOrderKey64(kh))
	}
	if !finite {
		for _, x := range xs {
			if x != x {
				// (math.Min and math.Max: an infinity of the side wins
				// over a NaN, a NaN over the rest)
				lo, hi = math.Inf(1), math.Inf(-1)
				for _, x := range xs {
					lo, hi = math.Min(lo, float64(x)), math.Max(hi, float64(x))
				}
				return count, lo, hi
			}
		}
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	if count > 0 {
		hi = h
		if wantLo {
			lo = l
		}
	}
	return count, lo, hi
}

// The order keys of a float's bits: the bits in the order of the value
// (-0 below +0, the NaNs beyond the infinities, -NaNs below -Inf), so
// that min and max are an integer's, without a float's branches.
func orderKey32(b uint32) uint32 { return b ^ (uint32(int32(b)>>31) | 1<<31) }
func orderKey64(b uint64) uint64 { return b ^ (uint64(int64(b)>>63) | 1<<63) }

func fromOrderKey32(k uint32) uint32 {
	if k>>31 == 1 {
		return k ^ 1<<31
	}
	return ^k
}

func fromOrderKey64(k uint64) uint64 {
	if k>>63 == 1 {
		return k ^ 1<<63
	}
	return ^k
}

// finite32 and finite64 are all ones where the float of bits b is
// finite, else 0 (its exponent all ones: ±Inf, NaN): a mask, not a
// branch, for whether a value is finite follows no pattern a processor
// could learn (a search's unreached vertices, scattered).
func finite32(b uint32) uint32 { return (b>>23&0xff+1)>>8 - 1 }
func finite64(b uint64) uint64 { return (b>>52&0x7ff+1)>>11 - 1 }

// keyBounds32 is how many of the float32s of bits bs are counted (the
// finite ones, or all), and their least (with wantLo, or where every one
// is counted) and greatest order keys, the least of none all ones, the
// greatest 0; two accumulators each, so that a fold need not wait for
// the one before. (keyBounds64 is it for float64s: the shifts a generic
// one takes as variables cost it half its speed.)
func keyBounds32(bs []uint32, finite, wantLo bool) (count int, lo, hi uint32) {
	var c0, c1, h0, h1 uint32
	l0, l1 := ^uint32(0), ^uint32(0)
	i := 0
	switch {
	case !finite:
		for ; i+2 <= len(bs); i += 2 {
			k0, k1 := orderKey32(bs[i]), orderKey32(bs[i+1])
			l0, l1, h0, h1 = min(l0, k0), min(l1, k1), max(h0, k0), max(h1, k1)
		}
		c0 = uint32(i)
	case wantLo:
		for ; i+2 <= len(bs); i += 2 {
			b0, b1 := bs[i], bs[i+1]
			m0, m1 := finite32(b0), finite32(b1)
			k0, k1 := orderKey32(b0), orderKey32(b1)
			c0, c1 = c0+m0&1, c1+m1&1
			l0, l1, h0, h1 = min(l0, k0|^m0), min(l1, k1|^m1), max(h0, k0&m0), max(h1, k1&m1)
		}
	default:
		for ; i+2 <= len(bs); i += 2 {
			b0, b1 := bs[i], bs[i+1]
			m0, m1 := finite32(b0), finite32(b1)
			c0, c1 = c0+m0&1, c1+m1&1
			h0, h1 = max(h0, orderKey32(b0)&m0), max(h1, orderKey32(b1)&m1)
		}
	}
	for ; i < len(bs); i++ {
		m := finite32(bs[i]) | -uint32(b2u(!finite))
		k := orderKey32(bs[i])
		c0, l0, h0 = c0+m&1, min(l0, k|^m), max(h0, k&m)
	}
	return int(c0 + c1), min(l0, l1), max(h0, h1)
}

func keyBounds64(bs []uint64, finite, wantLo bool) (count int, lo, hi uint64) {
	var c0, c1, h0, h1 uint64
	l0, l1 := ^uint64(0), ^uint64(0)
	i := 0
	switch {
	case !finite:
		for ; i+2 <= len(bs); i += 2 {
			k0, k1 := orderKey64(bs[i]), orderKey64(bs[i+1])
			l0, l1, h0, h1 = min(l0, k0), min(l1, k1), max(h0, k0), max(h1, k1)
		}
		c0 = uint64(i)
	case wantLo:
		for ; i+2 <= len(bs); i += 2 {
			b0, b1 := bs[i], bs[i+1]
			m0, m1 := finite64(b0), finite64(b1)
			k0, k1 := orderKey64(b0), orderKey64(b1)
			c0, c1 = c0+m0&1, c1+m1&1
			l0, l1, h0, h1 = min(l0, k0|^m0), min(l1, k1|^m1), max(h0, k0&m0), max(h1, k1&m1)
		}
	default:
		for ; i+2 <= len(bs); i += 2 {
			b0, b1 := bs[i], bs[i+1]
			m0, m1 := finite64(b0), finite64(b1)
			c0, c1 = c0+m0&1, c1+m1&1
			h0, h1 = max(h0, orderKey64(b0)&m0), max(h1, orderKey64(b1)&m1)
		}
	}
	for ; i < len(bs); i++ {
		m := finite64(bs[i]) | -uint64(b2u(!finite))
		k := orderKey64(bs[i])
		c0, l0, h0 = c0+m&1, min(l0, k|^m), max(h0, k&m)
	}
	return int(c0 + c1), min(l0, l1), max(h0, h1)
}

// b2u is 1 for true, else 0.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// sumValues is the sum of xs, or of the finite ones, as float64s, in
// four accumulators.
func sumValues[T number](xs []T, finite bool) float64 {
	var s0, s1, s2, s3 float64
	keep := func(x T) float64 {
		d := float64(x)
		if !finite {
			return d
		}
		// (0 where d is not finite, by a mask: no branch to mispredict)
		e := math.Float64bits(d) >> 52 & 0x7ff
		return math.Float64frombits(math.Float64bits(d) & ((e+1)>>11 - 1))
	}
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		s0 += keep(xs[i])
		s1 += keep(xs[i+1])
		s2 += keep(xs[i+2])
		s3 += keep(xs[i+3])
	}
	for ; i < len(xs); i++ {
		s0 += keep(xs[i])
	}
	return (s0 + s1) + (s2 + s3)
}
