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

	"github.com/hpgraph/hpgraph/devgen/internal/semprog"
)

// hostShims let generated device code compile as host C++: CUDA's
// correctly rounded intrinsics are the host's IEEE operations (x86-64
// SSE, contraction off), the bit casts are memcpy.
const hostShims = `#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#define __device__
#define __forceinline__ inline
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline long long __double_as_longlong(double f) { long long i; memcpy(&i, &f, 8); return i; }
static inline double __longlong_as_double(long long i) { double f; memcpy(&f, &i, 8); return f; }
static inline void __trap() { fputs("trap\n", stdout); exit(3); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
struct Step { int iteration; };
`

const hostMain = `
static void put(const vp_t_V& r) {
  unsigned f32; memcpy(&f32, &r.F32, 4);
  unsigned long long f64; memcpy(&f64, &r.F64, 8);
  printf("%x %x %llx %llx %x %llx", (unsigned)r.I32, r.U32, (unsigned long long)r.I64, r.U64, f32, f64);
}
static void get(vp_t_V& r) {
  unsigned i32, u32, f32; unsigned long long i64, u64, f64;
  if (scanf("%x %x %llx %llx %x %llx", &i32, &u32, &i64, &u64, &f32, &f64) != 6) exit(0);
  r.I32 = (int)i32; r.U32 = u32; r.I64 = (long long)i64; r.U64 = u64;
  memcpy(&r.F32, &f32, 4); memcpy(&r.F64, &f64, 8);
}
int main() {
  State s;
  for (;;) {
    vp_t_V acc, xu;
    get(acc);
    get(xu);
    int v, u; unsigned wb;
    if (scanf("%d %d %x", &v, &u, &wb) != 3) return 0;
    float w; memcpy(&w, &wb, 4);
    put(vp_gather(acc, v, u, xu, w, s));
    printf(" ");
    put(vp_reduce(acc, xu));
    printf("\n");
    fflush(stdout);
  }
}
`

func fmtV(x semprog.V) string {
	return fmt.Sprintf("%x %x %x %x %x %x", uint32(x.I32), x.U32, uint64(x.I64), x.U64, math.Float32bits(x.F32), math.Float64bits(x.F64))
}

// special values that break arithmetic.
var (
	i32s = []int32{0, 1, -1, 2, 3, -7, math.MaxInt32, math.MinInt32, 6, -6}
	u32s = []uint32{0, 1, 2, 31, 32, 33, 63, 64, math.MaxUint32, 1 << 31}
	i64s = []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 40, -3}
	u64s = []uint64{0, 1, math.MaxUint64, 1 << 63, 64, 65}
	f32s = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e9, -3e9, 1e38, math.SmallestNonzeroFloat32}
	f64s = []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, math.Inf(1), math.Inf(-1), math.NaN(), 1e19, -1e19, 1e300, 4e9, -4e9, 2.5, -2.5}
)

func randV(r *rand.Rand) semprog.V {
	pick := func(n int) int { return r.IntN(n) }
	v := semprog.V{
		I32: int32(r.Uint32()), U32: r.Uint32(), I64: int64(r.Uint64()), U64: r.Uint64(),
		F32: float32(r.NormFloat64() * 1e3), F64: r.NormFloat64() * 1e6,
	}
	if r.IntN(2) == 0 {
		v.I32 = i32s[pick(len(i32s))]
	}
	if r.IntN(2) == 0 {
		v.U32 = u32s[pick(len(u32s))]
	}
	if r.IntN(2) == 0 {
		v.I64 = i64s[pick(len(i64s))]
	}
	if r.IntN(2) == 0 {
		v.U64 = u64s[pick(len(u64s))]
	}
	if r.IntN(2) == 0 {
		v.F32 = f32s[pick(len(f32s))]
	}
	if r.IntN(2) == 0 {
		v.F64 = f64s[pick(len(f64s))]
	}
	return v
}

// TestSemanticsOnHost compiles semprog's generated device code as host
// C++ (with UBSan: the C must have no undefined behaviour) and compares
// its Gather and Reduce with the Go methods, bit for bit, on values that
// break arithmetic: Go's wrap-around, division, shifts, conversions,
// rounding and min/max with NaN and signed zeros must hold in the C.
func TestSemanticsOnHost(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	pkg, err := Load("internal/semprog")
	if err != nil {
		t.Fatal(err)
	}
	_, progs, err := Generate(pkg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "sem.cc")
	if err := os.WriteFile(src, []byte(hostShims+progs[0].Source+hostMain), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sem")
	out, err := exec.Command(cxx, "-std=c++17", "-O1", "-ffp-contract=off", "-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all", "-o", bin, src).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s\n%s", err, out, numbered(hostShims+progs[0].Source+hostMain))
	}
	r := rand.New(rand.NewPCG(1, 2))
	var in strings.Builder
	type tc struct {
		acc, xu semprog.V
		v, u    int32
		w       float32
	}
	var cases []tc
	var p semprog.Program
	for range 20000 {
		c := tc{randV(r), randV(r), int32(r.IntN(100)) - 50, int32(r.Uint32()), f32s[r.IntN(len(f32s))]}
		cases = append(cases, c)
		fmt.Fprintf(&in, "%s\n%s\n%d %d %x\n", fmtV(c.acc), fmtV(c.xu), c.v, c.u, math.Float32bits(c.w))
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	sc := bufio.NewScanner(strings.NewReader(string(got)))
	bad := 0
	for i, c := range cases {
		if !sc.Scan() {
			t.Fatalf("case %d: no output (%s)", i, stderr.String())
		}
		want := fmtV(p.Gather(c.acc, c.v, c.u, c.xu, c.w)) + " " + fmtV(p.Reduce(c.acc, c.xu))
		if line := sc.Text(); !sameBits(line, want) {
			bad++
			if bad <= 5 {
				t.Errorf("Gather/Reduce(%+v, %+v, v=%d u=%d w=%v):\n  C  %s\n  Go %s", c.acc, c.xu, c.v, c.u, c.w, line, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ", bad, len(cases))
	}
}

// sameBits compares two output lines, treating any two NaNs of a float
// field as equal (their payloads are not specified by Go).
func sameBits(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] == fb[i] {
			continue
		}
		var x, y uint64
		fmt.Sscanf(fa[i], "%x", &x)
		fmt.Sscanf(fb[i], "%x", &y)
		switch i % 6 {
		case 4:
			if math.IsNaN(float64(math.Float32frombits(uint32(x)))) && math.IsNaN(float64(math.Float32frombits(uint32(y)))) {
				continue
			}
		case 5:
			if math.IsNaN(math.Float64frombits(x)) && math.IsNaN(math.Float64frombits(y)) {
				continue
			}
		}
		return false
	}
	return true
}
