package devgen

import (
	"fmt"
	"sort"
	"strings"
)

// helperSrc are the device helpers generated code may call, by name: each
// gives Go's semantics where C's differ or are undefined.
var helperSrc = map[string]string{}

// helperDeps are helpers a helper calls.
var helperDeps = map[string][]string{}

func init() {
	ints := []numKind{kI32, kU32, kI64, kU64}
	for _, k := range ints {
		t, u, tag := k.cName(), k.unsigned(), k.tag()
		// Go panics on x/0; the device traps (the run fails with an error).
		// For signed types MinInt / -1 wraps to MinInt and MinInt % -1 is 0.
		div := fmt.Sprintf("  if (b == 0) __trap();\n")
		if k.isSigned() {
			div += fmt.Sprintf("  if (b == -1) return (%s)(0 - (%s)a);\n", t, u)
		}
		helperSrc["vp_dg_div_"+tag] = fmt.Sprintf("__device__ __forceinline__ %s vp_dg_div_%s(%s a, %s b) {\n%s  return a / b;\n}\n", t, tag, t, t, div)
		rem := "  if (b == 0) __trap();\n"
		if k.isSigned() {
			rem += "  if (b == -1) return 0;\n"
		}
		helperSrc["vp_dg_rem_"+tag] = fmt.Sprintf("__device__ __forceinline__ %s vp_dg_rem_%s(%s a, %s b) {\n%s  return a %% b;\n}\n", t, tag, t, t, rem)
		// Go: a shift by the width or more gives 0 (or all sign bits).
		w := k.bits()
		helperSrc["vp_dg_shl_"+tag] = fmt.Sprintf("__device__ __forceinline__ %s vp_dg_shl_%s(%s a, unsigned long long n) { return n >= %d ? (%s)0 : (%s)((%s)a << n); }\n", t, tag, t, w, t, t, u)
		if k.isSigned() {
			helperSrc["vp_dg_shr_"+tag] = fmt.Sprintf("__device__ __forceinline__ %s vp_dg_shr_%s(%s a, unsigned long long n) { return a >> (n >= %d ? %d : n); }\n", t, tag, t, w, w-1)
		} else {
			helperSrc["vp_dg_shr_"+tag] = fmt.Sprintf("__device__ __forceinline__ %s vp_dg_shr_%s(%s a, unsigned long long n) { return n >= %d ? (%s)0 : a >> n; }\n", t, tag, t, w, t)
		}
	}
	helperSrc["vp_dg_shcount"] = "__device__ __forceinline__ unsigned long long vp_dg_shcount(long long n) {\n  if (n < 0) __trap();  // Go panics on a negative shift count\n  return (unsigned long long)n;\n}\n"
	// Float to integer out of range (and NaN) as Go on amd64: the integer
	// indefinite of CVTTSD2SI; the unsigned types through int64 as the gc
	// compiler does (uint64: x < 2^63 ? int64(x) : int64(x-2^63) | 1<<63,
	// so NaN and too large give 1<<63).
	helperSrc["vp_dg_f2i32"] = "__device__ __forceinline__ int vp_dg_f2i32(double d) { return d > -2147483649.0 && d < 2147483648.0 ? (int)d : (-2147483647 - 1); }\n"
	helperSrc["vp_dg_f2i64"] = "__device__ __forceinline__ long long vp_dg_f2i64(double d) { return d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? (long long)d : (-9223372036854775807LL - 1); }\n"
	helperSrc["vp_dg_f2u32"] = "__device__ __forceinline__ unsigned int vp_dg_f2u32(double d) { return (unsigned int)vp_dg_f2i64(d); }\n"
	helperDeps["vp_dg_f2u32"] = []string{"vp_dg_f2i64"}
	helperSrc["vp_dg_f2u64"] = "__device__ __forceinline__ unsigned long long vp_dg_f2u64(double d) {\n  if (d < 9223372036854775808.0) return (unsigned long long)vp_dg_f2i64(d);\n  return (unsigned long long)vp_dg_f2i64(d - 9223372036854775808.0) | 0x8000000000000000ULL;\n}\n"
	helperDeps["vp_dg_f2u64"] = []string{"vp_dg_f2i64"}
	// Go's builtin min and max on floats: a NaN argument gives NaN, and -0
	// is below +0.
	for _, k := range []numKind{kF32, kF64} {
		t, tag := k.cName(), k.tag()
		neg := "__float_as_int(a) < 0"
		if k == kF64 {
			neg = "__double_as_longlong(a) < 0"
		}
		helperSrc["vp_dg_min_"+tag] = fmt.Sprintf("__device__ __forceinline__ %s vp_dg_min_%s(%s a, %s b) {\n  if (a != a) return a;\n  if (b != b) return b;\n  if (a == 0 && b == 0) return %s ? a : b;\n  return a < b ? a : b;\n}\n", t, tag, t, t, neg)
		helperSrc["vp_dg_max_"+tag] = fmt.Sprintf("__device__ __forceinline__ %s vp_dg_max_%s(%s a, %s b) {\n  if (a != a) return a;\n  if (b != b) return b;\n  if (a == 0 && b == 0) return %s ? b : a;\n  return a > b ? a : b;\n}\n", t, tag, t, t, neg)
	}
	helperSrc["vp_dg_imin"] = "template <class T> __device__ __forceinline__ T vp_dg_imin(T a, T b) { return b < a ? b : a; }\n"
	helperSrc["vp_dg_imax"] = "template <class T> __device__ __forceinline__ T vp_dg_imax(T a, T b) { return b > a ? b : a; }\n"
	// math.Min and math.Max: an infinity wins over NaN there.
	helperSrc["vp_dg_math_min"] = "__device__ __forceinline__ double vp_dg_math_min(double a, double b) {\n  const double ninf = __longlong_as_double((long long)0xfff0000000000000ULL);\n  if (a == ninf || b == ninf) return ninf;\n  if (a != a || b != b) return a != a ? a : b;\n  if (a == 0 && b == 0) return __double_as_longlong(a) < 0 ? a : b;\n  return a < b ? a : b;\n}\n"
	helperSrc["vp_dg_math_max"] = "__device__ __forceinline__ double vp_dg_math_max(double a, double b) {\n  const double pinf = __longlong_as_double(0x7ff0000000000000LL);\n  if (a == pinf || b == pinf) return pinf;\n  if (a != a || b != b) return a != a ? a : b;\n  if (a == 0 && b == 0) return __double_as_longlong(a) < 0 ? b : a;\n  return a > b ? a : b;\n}\n"
	helperSrc["vp_dg_isnan"] = "__device__ __forceinline__ bool vp_dg_isnan(double a) { return a != a; }\n"
	helperSrc["vp_dg_isinf"] = "__device__ __forceinline__ bool vp_dg_isinf(double a, long long sign) {\n  const double inf = __longlong_as_double(0x7ff0000000000000LL);\n  return (sign >= 0 && a == inf) || (sign <= 0 && a == -inf);\n}\n"
	helperSrc["vp_dg_ctz32"] = "__device__ __forceinline__ long long vp_dg_ctz32(unsigned int x) { return x == 0 ? 32 : __ffs((int)x) - 1; }\n"
	helperSrc["vp_dg_ctz64"] = "__device__ __forceinline__ long long vp_dg_ctz64(unsigned long long x) { return x == 0 ? 64 : __ffsll((long long)x) - 1; }\n"
	helperSrc["vp_dg_rotl32"] = "__device__ __forceinline__ unsigned int vp_dg_rotl32(unsigned int x, long long k) { const unsigned s = (unsigned)k & 31; return s == 0 ? x : (x << s) | (x >> (32 - s)); }\n"
	helperSrc["vp_dg_rotl64"] = "__device__ __forceinline__ unsigned long long vp_dg_rotl64(unsigned long long x, long long k) { const unsigned s = (unsigned)k & 63; return s == 0 ? x : (x << s) | (x >> (64 - s)); }\n"
}

// helper marks a helper used and returns its name.
func (g *gen) helper(name string) string {
	if _, ok := helperSrc[name]; !ok {
		panic("devgen: no helper " + name)
	}
	if !g.helpers[name] {
		g.helpers[name] = true
		for _, d := range helperDeps[name] {
			g.helper(d)
		}
	}
	return name
}

// helperDecls defines the helpers used, dependencies first.
func (g *gen) helperDecls() string {
	var names []string
	for n := range g.helpers {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		di, dj := len(helperDeps[names[i]]), len(helperDeps[names[j]])
		if di != dj {
			return di < dj
		}
		return names[i] < names[j]
	})
	var b strings.Builder
	for _, n := range names {
		b.WriteString(helperSrc[n])
	}
	for _, s := range g.eqs {
		b.WriteString(s)
	}
	return b.String()
}

// structEq is the name of a helper comparing two ct values field by field
// as Go's == does (floats by value: NaN != NaN, -0 == +0).
func (g *gen) structEq(ct string, t typeT) string {
	name := "vp_dg_eq_" + strings.TrimPrefix(ct, "vp_t_")
	if g.eqDone[name] {
		return name
	}
	g.eqDone[name] = true
	s := g.structOf(t)
	var terms []string
	for i := 0; i < s.t.NumFields(); i++ {
		ft := s.t.Field(i).Type()
		if s.t.Field(i).Name() == "_" {
			continue // Go's == skips blank fields
		}
		m := s.fields[i]
		if kindOf(ft) != kNone {
			terms = append(terms, fmt.Sprintf("a.%s == b.%s", m, m))
			continue
		}
		fct, _ := g.cType(ft)
		terms = append(terms, fmt.Sprintf("%s(a.%s, b.%s)", g.structEq(fct, ft), m, m))
	}
	if len(terms) == 0 {
		terms = []string{"true"}
	}
	g.eqs = append(g.eqs, fmt.Sprintf("__device__ __forceinline__ bool %s(const %s& a, const %s& b) { return %s; }\n", name, ct, ct, strings.Join(terms, " && ")))
	return name
}
