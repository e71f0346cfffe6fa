package devgen

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostAtomics are CUDA's integer atomics, run by one host thread.
const hostAtomics = `
template <class T> static T atomicMin(T* p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <class T> static T atomicMax(T* p, T v) { T o = *p; if (v > o) *p = v; return o; }
`

const foldMain = `
int main() {
  State s;
  unsigned long long yb, xb; unsigned wb;
  while (scanf("%llx %llx %x", &yb, &xb, &wb) == 3) {
    A_t y; X_t xu; float w;
    memcpy(&y, &yb, sizeof y); memcpy(&xu, &xb, sizeof xu); memcpy(&w, &wb, 4);
    int r = vp_fold_atomic(&y, 0, 1, xu, w, s);
    unsigned long long out = 0; memcpy(&out, &y, sizeof y);
    printf("%llx %d\n", out, r);
  }
}
`

// TestFoldAtomicOnHost checks the derived vp_fold_atomic against Go's
// fold y = Gather(y, …) on one thread: the stored bits (NaNs alike) and
// the 0/1/2 result (unchanged / changed / changed from the identity).
func TestFoldAtomicOnHost(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	f32 := func(b uint64) float64 { return float64(math.Float32frombits(uint32(b))) }
	nonNeg32, nonNeg64 := nonNegative(f32bits(), true), nonNegative(f64bits(), false)
	cases := []struct {
		name, typ, gather, reduce, ident string
		vals                             []uint64
		fold                             func(y, x uint64, w float32) uint64
		isNaN                            func(uint64) bool
		doc                              string    // Gather's doc comment
		ws                               []float32 // the weights (nil: all kinds)
	}{
		{"float32 max of min", "float32", "max(acc, min(xu, w))", "max(a, b)", "0", f32bits(),
			func(y, x uint64, w float32) uint64 {
				return uint64(math.Float32bits(max(math.Float32frombits(uint32(y)), min(math.Float32frombits(uint32(x)), w))))
			}, func(b uint64) bool { return math.IsNaN(f32(b)) }, "", nil},
		{"float64 min of sum", "float64", "min(xu+float64(w), acc)", "min(b, a)", "math.Inf(1)", f64bits(),
			func(y, x uint64, w float32) uint64 {
				return math.Float64bits(min(math.Float64frombits(y), math.Float64frombits(x)+float64(w)))
			}, func(b uint64) bool { return math.IsNaN(math.Float64frombits(b)) }, "", nil},
		{"int32 min", "int32", "min(acc, xu+1)", "min(a, b)", "math.MaxInt32", []uint64{0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 5, 0xfffffffe},
			func(y, x uint64, _ float32) uint64 { return uint64(uint32(min(int32(y), int32(x)+1))) }, func(uint64) bool { return false }, "", nil},
		{"uint64 max", "uint64", "max(acc, xu*3)", "max(a, b)", "0", []uint64{0, 1, math.MaxUint64, 1 << 63, 12345},
			func(y, x uint64, _ float32) uint64 { return max(y, x*3) }, func(uint64) bool { return false }, "", nil},
		// //devgen:nonnegative: one signed atomic on the bits, for values
		// >= 0 (-0, subnormals and +Inf among them), as SSSP's distances.
		{"float32 nonnegative min of sum", "float32", "min(acc, xu+w)", "min(a, b)", "float32(math.Inf(1))", nonNeg32,
			func(y, x uint64, w float32) uint64 {
				return uint64(math.Float32bits(min(math.Float32frombits(uint32(y)), math.Float32frombits(uint32(x))+w)))
			}, func(b uint64) bool { return math.IsNaN(f32(b)) }, "//devgen:nonnegative\n", nonNegWeights},
		{"float64 nonnegative max of product", "float64", "max(xu*float64(w), acc)", "max(b, a)", "0", nonNeg64,
			func(y, x uint64, w float32) uint64 {
				return math.Float64bits(max(math.Float64frombits(y), math.Float64frombits(x)*float64(w)))
			}, func(b uint64) bool { return math.IsNaN(math.Float64frombits(b)) }, "//devgen:nonnegative\n", nonNegWeights[:4]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := program{x: c.typ, a: c.typ, identity: "\treturn " + c.ident, gatherDoc: c.doc, gather: "\treturn " + c.gather, reduce: "\treturn " + c.reduce}.src()
			p, err := translateOne(t, src)
			if err != nil {
				t.Fatal(err)
			}
			if p.FoldAtomic == "" || p.NonNegative != (c.doc != "") {
				t.Fatalf("fold %q (nonnegative %v) derived:\n%s", p.FoldAtomic, p.NonNegative, p.Source)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "fold.cc")
			code := hostShims + hostAtomics + p.Source + foldMain
			if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, "fold")
			if out, err := exec.Command(cxx, "-std=c++17", "-O1", "-ffp-contract=off", "-fsanitize=undefined", "-fno-sanitize-recover=all", "-o", bin, file).CombinedOutput(); err != nil {
				t.Fatalf("%v: %s\n%s", err, out, numbered(code))
			}
			// (the identities' bits, as the generated vp_identity returns them)
			identBits := map[string]uint64{"0": 0, "math.Inf(1)": math.Float64bits(math.Inf(1)), "math.MaxInt32": math.MaxInt32,
				"float32(math.Inf(1))": uint64(math.Float32bits(float32(math.Inf(1))))}[c.ident]
			r := rand.New(rand.NewPCG(3, 4))
			type tc struct {
				y, x uint64
				w    float32
			}
			var tcs []tc
			var in strings.Builder
			ws := c.ws
			if ws == nil {
				ws = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2.5, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
			}
			for range 5000 {
				y, x := c.vals[r.IntN(len(c.vals))], c.vals[r.IntN(len(c.vals))]
				if c.isNaN(y) {
					// A fold stores only its canonical NaN.
					if c.typ == "float32" {
						y = 0x7fffffff
					} else {
						y = math.Float64bits(math.Copysign(math.NaN(), -1)) | 0xfffffffffffff
					}
				}
				w := ws[r.IntN(len(ws))]
				tcs = append(tcs, tc{y, x, w})
				fmt.Fprintf(&in, "%x %x %x\n", y, x, math.Float32bits(w))
			}
			cmd := exec.Command(bin)
			cmd.Stdin = strings.NewReader(in.String())
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			for i, k := range tcs {
				if !sc.Scan() {
					t.Fatalf("case %d: no output", i)
				}
				var got uint64
				var ret int
				fmt.Sscanf(sc.Text(), "%x %d", &got, &ret)
				want := c.fold(k.y, k.x, k.w)
				same := func(a, b uint64) bool { return a == b || c.isNaN(a) && c.isNaN(b) }
				wantRet := 0
				if !same(want, k.y) {
					wantRet = 1
					if k.y == identBits {
						wantRet = 2
					}
				}
				if !same(got, want) || ret != wantRet {
					t.Fatalf("fold(y=%x, xu=%x, w=%v): C %x (%d), Go %x (%d)", k.y, k.x, k.w, got, ret, want, wantRet)
				}
			}
		})
	}
}

func f32bits() []uint64 {
	var out []uint64
	for _, f := range []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -3.25, 1e30, -1e30, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(-math.NaN())} {
		out = append(out, uint64(math.Float32bits(f)))
	}
	return append(out, 0xffc00000, 0x7fc00001)
}

func f64bits() []uint64 {
	var out []uint64
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -3.25, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN()} {
		out = append(out, math.Float64bits(f))
	}
	return append(out, 0xfff8000000000000)
}

// nonNegWeights are weights that keep a sum or product of values >= 0 at
// or above 0 (SSSP's Prepare accepts these: -0 is not below 0); the
// first four keep a product finite or +Inf (no 0 * Inf).
var nonNegWeights = []float32{1, 2.5, 3e-45, 7e37, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1))}

// nonNegative keeps the values of bits (float32's when is32) that are
// >= 0 (-0 included: no negative number, no NaN) and adds the smallest
// subnormal and the largest finite value.
func nonNegative(bits []uint64, is32 bool) []uint64 {
	var out []uint64
	for _, b := range bits {
		f := math.Float64frombits(b)
		if is32 {
			f = float64(math.Float32frombits(uint32(b)))
		}
		if f >= 0 {
			out = append(out, b)
		}
	}
	if is32 {
		return append(out, 1, uint64(math.Float32bits(math.MaxFloat32)))
	}
	return append(out, 1, math.Float64bits(math.MaxFloat64))
}
