package devgen

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

var (
	impOnce sync.Once
	imp     types.Importer
	impErr  error
	impFset = token.NewFileSet()
)

// load type-checks src as file prog.go of a package of its own.
func load(t *testing.T, src string) *Package {
	t.Helper()
	impOnce.Do(func() {
		imp, impErr = NewImporter("..", impFset, []string{vertexprogPath, "math", "math/bits"})
	})
	if impErr != nil {
		t.Fatal(impErr)
	}
	f, err := parser.ParseFile(impFset, "prog.go", src, parser.ParseComments)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	pkg, info, err := Check(impFset, "example.com/p", []*ast.File{f}, imp)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return &Package{Dir: ".", Fset: impFset, Files: []*ast.File{f}, Types: pkg, Info: info, imp: imp}
}

// program is a test program: X and A, package-level declarations, and
// the bodies of the translated methods.
type program struct {
	x, a, decls                              string
	identity, gather, reduce, update, extras string
	init                                     string // Init's body
	fields                                   string // more fields of P, with their tags
	gatherDoc                                string // Gather's doc comment (directives)
}

func (p program) src() string {
	x, a := p.x, p.a
	if x == "" {
		x = "float32"
	}
	if a == "" {
		a = "float32"
	}
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return fmt.Sprintf(`package p

import (
	"math"
	"math/bits"

	"github.com/hpgraph/hpgraph/vertexprog"
)

var _ = math.Inf
var _ = bits.OnesCount32

type X = %s
type A = %s

%s

type P struct {
	Val  []float64
	Cnt  []int32
	U    []uint64
	K    int32
	F    float32
	D    float64
	B    bool
	N    int
	Name string
	Ints []int
%s}

func (P) Spec() vertexprog.Spec { return vertexprog.Spec{Edges: vertexprog.InEdges} }

func (p P) Init(v int32, s *vertexprog.Step) (X, bool) {
%s
}

func (p P) Identity() A {
%s
}

%sfunc (p P) Gather(acc A, v, u int32, xu X, w float32) A {
%s
}

func (p P) Reduce(a, b A) A {
%s
}

func (p P) Update(v int32, acc A, x *X, s *vertexprog.Step) bool {
%s
}
%s
`, x, a, p.decls, p.fields, def(p.init, "\tvar x X\n\treturn x, false"), def(p.identity, "\tvar z A\n\treturn z"), p.gatherDoc, def(p.gather, "\treturn acc"), def(p.reduce, "\treturn a"), def(p.update, "\treturn false"), p.extras)
}

// nvrtcCheck compiles p's device code with NVRTC when it is available
// (HPGRAPH_NVRTC; required with HPGRAPH_REQUIRE_NVRTC).
func nvrtcCheck(t *testing.T, p *Program) {
	t.Helper()
	err := CompileCheck([]*Program{p})
	if errors.Is(err, ErrNoNVRTC) {
		if os.Getenv("HPGRAPH_REQUIRE_NVRTC") != "" {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, numbered(compileSource(p)))
	}
}

func numbered(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "%3d %s\n", i+1, l)
	}
	return b.String()
}

func translateOne(t *testing.T, src string) (*Program, error) {
	t.Helper()
	pkg := load(t, src)
	_, progs, err := Generate(pkg)
	if err != nil {
		return nil, err
	}
	if len(progs) != 1 {
		t.Fatalf("found %d programs", len(progs))
	}
	return progs[0], nil
}

// TestSubset translates one program per construct of the subset, checks
// that the C has what gives Go's semantics, and compiles it with NVRTC.
func TestSubset(t *testing.T) {
	cases := []struct {
		name string
		p    program
		want []string // substrings of the device code
	}{
		{"float32 add without contraction", program{gather: "\treturn acc + xu*w"}, []string{"__fadd_rn(acc, __fmul_rn(xu, w))"}},
		{"float32 sub, div", program{gather: "\treturn (acc - xu) / w"}, []string{"__fdiv_rn(__fsub_rn(acc, xu), w)"}},
		{"float64 arithmetic", program{x: "float64", a: "float64", gather: "\treturn acc*2 + xu/3 - 1"}, []string{"__dadd_rn", "__dmul_rn", "__ddiv_rn", "__dsub_rn"}},
		{"int32 wraps", program{x: "int32", a: "int32", gather: "\treturn acc + xu*3 - v"}, []string{"(unsigned int)acc + (unsigned int)", "(unsigned int)xu * (unsigned int)3"}},
		{"int64 and int wrap", program{x: "int64", a: "int", gather: "\treturn acc + int(xu) - 1"}, []string{"(unsigned long long)acc"}},
		{"uint32 and uint64", program{x: "uint32", a: "uint64", gather: "\treturn acc*uint64(xu) + 1<<40"}, []string{"1099511627776ULL", "((unsigned long long)xu)"}},
		{"negation wraps", program{x: "int32", a: "int32", gather: "\treturn -xu"}, []string{"(0 - (unsigned int)xu)"}},
		{"bitwise", program{x: "uint32", a: "uint32", gather: "\treturn (acc | xu) & ^xu ^ (acc &^ 5)"}, []string{"~xu", "& ~5u"}},
		{"integer division by a variable", program{x: "int32", a: "int32", gather: "\treturn acc / xu % (xu + 1)"}, []string{"vp_dg_div_i32(acc, xu)", "vp_dg_rem_i32", "__trap()", "b == -1"}},
		{"division by a constant", program{x: "int64", a: "int64", gather: "\treturn acc/4 + acc%3 + acc/-1"}, []string{"(acc / 4LL)", "(acc % 3LL)", "(0 - (unsigned long long)acc)"}},
		{"unsigned division", program{x: "uint64", a: "uint64", gather: "\treturn acc / xu"}, []string{"vp_dg_div_u64"}},
		{"shifts by constants", program{x: "int32", a: "int32", gather: "\treturn acc<<3 + acc>>40 + xu<<33"}, []string{"(unsigned int)acc << 3", "(acc >> 31)", "((int)0)"}},
		{"shifts by variables", program{x: "uint32", a: "int64", gather: "\treturn acc<<xu + acc>>int(v)"}, []string{"vp_dg_shl_i64(acc, ((unsigned long long)xu))", "vp_dg_shr_i64(acc, vp_dg_shcount("}},
		{"comparisons and logic", program{update: "\tif acc < *x && acc != 0 || !(acc >= 1) {\n\t\treturn true\n\t}\n\treturn acc <= 2 || acc > 3 || acc == 4"}, []string{"&&", "||", "(!"}},
		{"float min and max", program{gather: "\treturn max(acc, min(xu, w, 2))", reduce: "\treturn max(a, b)"}, []string{"vp_dg_max_f32(acc, vp_dg_min_f32(vp_dg_min_f32(xu, w), 2.0f))", "if (a != a) return a;"}},
		{"integer min and max", program{x: "int32", a: "int32", gather: "\treturn min(acc, xu+1)", reduce: "\treturn min(a, b)"}, []string{"vp_dg_imin<int>", "#define VP_FOLD_ATOMIC 1", "atomicMin(vp_y, vp_c)"}},
		{"max fold atomic", program{x: "uint64", a: "uint64", gather: "\treturn max(xu, acc)", reduce: "\treturn max(b, a)"}, []string{"atomicMax(vp_y, vp_c)"}},
		{"float32 max fold atomic", program{gather: "\treturn max(acc, min(xu, w))", reduce: "\treturn max(a, b)"}, []string{"atomicMax(reinterpret_cast<int*>(vp_y), vp_cb)", "atomicMin(reinterpret_cast<unsigned int*>(vp_y)", "__int_as_float(0x7fffffff)"}},
		{"float64 min fold atomic", program{x: "float64", a: "float64", gather: "\treturn min(xu+float64(w), acc)", reduce: "\treturn min(a, b)"}, []string{"atomicMin(reinterpret_cast<long long*>(vp_y), vp_cb)", "atomicMax(reinterpret_cast<unsigned long long*>(vp_y)", "__longlong_as_double(~(long long)0)"}},
		{"no fold when Gather reads acc twice", program{x: "int32", a: "int32", gather: "\treturn min(acc, acc+xu)", reduce: "\treturn min(a, b)"}, nil},
		{"reduce add", program{x: "float64", a: "float64", gather: "\treturn acc + xu", reduce: "\treturn a + b"}, []string{"#define VP_REDUCE_ADD 1"}},
		{"conversions", program{x: "float64", a: "int32", gather: "\treturn int32(xu) + int32(uint32(w)) + int32(float32(int64(acc)))"}, []string{"vp_dg_f2i32((double)xu)", "vp_dg_f2u32((double)w)", "((float)((long long)acc))"}},
		{"float to unsigned 64", program{x: "float64", a: "uint64", gather: "\treturn uint64(xu)"}, []string{"vp_dg_f2u64"}},
		{"math functions", program{x: "float64", a: "float64", gather: "\treturn math.Sqrt(xu) + math.Abs(acc) + math.Floor(xu) + math.Ceil(xu) + math.Trunc(xu) + math.Round(xu) + math.RoundToEven(xu) + math.Copysign(xu, acc) + math.FMA(xu, acc, 1) + math.Min(xu, acc) + math.Max(xu, acc) + math.Inf(1) + math.Inf(-1) + math.NaN() + math.Float64frombits(math.Float64bits(xu))"}, []string{"__dsqrt_rn(xu)", "fma(xu, acc, 1.0)", "vp_dg_math_min(xu, acc)"}},
		{"math predicates", program{x: "float64", a: "float32", gather: "\tif math.IsNaN(xu) || math.IsInf(xu, 0) || math.Signbit(xu) {\n\t\treturn math.Float32frombits(math.Float32bits(acc) + 1)\n\t}\n\treturn acc"}, []string{"vp_dg_isnan(xu)", "vp_dg_isinf(xu, 0LL)", "signbit"}},
		{"math/bits", program{x: "uint32", a: "int", gather: "\treturn bits.OnesCount32(xu) + bits.OnesCount64(uint64(xu)) + bits.LeadingZeros32(xu) + bits.LeadingZeros64(uint64(xu)) + bits.TrailingZeros32(xu) + bits.TrailingZeros64(uint64(xu)) + bits.Len32(xu) + bits.Len64(uint64(xu)) + int(bits.RotateLeft32(xu, 3)) + int(bits.RotateLeft64(uint64(xu), -3))"}, []string{"__popc(xu)", "__popcll(", "vp_dg_ctz32", "vp_dg_rotl64"}},
		{"state slices and scalars", program{gather: "\treturn acc + float32(p.Val[u]) + float32(p.Cnt[v]) + p.F + float32(p.D) + float32(p.K) + float32(p.N) + float32(p.U[u])", update: "\tif p.B {\n\t\tp.Cnt[v] = int32(acc)\n\t}\n\tp.Val[v] += 1\n\treturn p.Val[v] > 2"}, []string{"double* Val;", "int* Cnt;", "const unsigned long long* U;", "int K;", "long long N;", "int B;", "vp_s.Cnt[v] = ", "(vp_s.B != 0)"}},
		{"wants and done", program{extras: "func (p P) Wants(v int32) bool { return p.Cnt[v] < 0 }\nfunc (P) Done(acc A) bool { return acc > 3 }\n"}, []string{"vp_wants(int v, const State& vp_s)", "vp_done(A_t acc)"}},
		{"structs", program{x: "S", a: "S", decls: "type S struct {\n\tD float32\n\tH int32\n\tL int64\n\tB bool\n\t_ int32\n}", gather: "\tc := S{D: xu.D + w, H: xu.H + 1}\n\tif c.D < acc.D || c == acc {\n\t\treturn c\n\t}\n\tacc.L++\n\treturn acc", update: "\tif acc != *x {\n\t\tx.H = acc.H\n\t\t*x = acc\n\t\treturn true\n\t}\n\treturn false"}, nil},
		{"nested structs", program{x: "T", a: "T", decls: "type S struct{ D float64; N uint32 }\ntype T struct{ S1, S2 S; K int32 }", gather: "\tacc.S1.D = xu.S2.D\n\treturn acc", update: "\treturn acc == *x"}, []string{"vp_dg_eq_S(a.S1, b.S1)"}},
		{"locals, :=, var, op=, ++", program{x: "int32", a: "int32", gather: "\tvar n int32\n\tm, k := acc, xu\n\tm, k = k, m\n\tn += m\n\tn++\n\tk--\n\tn <<= 2\n\tn -= k\n\tvar z, y int32 = 1, 2\n\t_ = z\n\treturn n * y"}, []string{"vp_tmp"}},
		{"if with init, else if", program{x: "int32", a: "int32", gather: "\tif d := xu - acc; d > 0 {\n\t\treturn d\n\t} else if d < -5 {\n\t\treturn -d\n\t} else {\n\t\treturn acc\n\t}"}, nil},
		{"switch", program{x: "int32", a: "int32", gather: "\tswitch xu % 4 {\n\tcase 0, 1:\n\t\tif acc > 3 {\n\t\t\tbreak\n\t\t}\n\t\tacc++\n\tcase 2:\n\t\tacc--\n\tdefault:\n\t\tacc = 0\n\t}\n\tswitch {\n\tcase acc > 5:\n\t\treturn 5\n\t}\n\treturn acc"}, []string{"goto vp_sw1_end;", "vp_sw1_end:;"}},
		{"for with constant bounds", program{x: "int32", a: "int32", gather: "\tfor i := 0; i < 4; i++ {\n\t\tif i == 2 {\n\t\t\tcontinue\n\t\t}\n\t\tacc += int32(i)\n\t}\n\tfor i := int32(8); i >= 0; i-- {\n\t\tif acc > 100 {\n\t\t\tbreak\n\t\t}\n\t\tacc += i\n\t}\n\tfor i := range 3 {\n\t\tacc += int32(i)\n\t}\n\tfor range 2 {\n\t\tacc *= 2\n\t}\n\treturn acc"}, []string{"for (long long vp_i = 0LL; vp_i < 4LL;", "continue;", "break;"}},
		{"step", program{update: "\tif s.Iteration > 3 {\n\t\treturn false\n\t}\n\ts.Add(0, float64(acc))\n\t*x = float32(s.Aggregate(1))\n\treturn true"}, []string{"s.iteration", "s.add((int)0LL, ((double)acc))", "s.aggregate((int)1LL)"}},
		{"constants", program{x: "float64", a: "float64", decls: "const big = 1 << 62\nconst half = 0.5", gather: "\tconst local = 3\n\treturn acc*half + big + local + math.Pi + math.MaxFloat32"}, []string{"4.611686018427388e+18", "3.141592653589793"}},
		{"package function", program{x: "float64", a: "float64", decls: "func share(r float64, d int32) float64 {\n\tif d == 0 {\n\t\treturn 0\n\t}\n\treturn r / float64(d)\n}",
			gather: "\treturn acc + share(xu, v)", update: "\t*x = share(acc, p.Cnt[v]) + share(1, 2)\n\treturn true"},
			[]string{"__device__ __forceinline__ double vp_fn_share(double r, int d) {", "return __ddiv_rn(r, ((double)d));", "__dadd_rn(acc, vp_fn_share(xu, v))", "vp_fn_share(acc, vp_s.Cnt[v])", "vp_fn_share(1.0, 2)"}},
		{"functions calling functions", program{x: "int32", a: "int32", decls: "type S struct{ A, B int32 }\nfunc inner(s S) S {\n\ts.A, s.B = s.B, s.A\n\treturn s\n}\nfunc outer(x, _ int32, _ int64) int32 {\n\tx++\n\treturn inner(S{x, 2}).A + inner(S{A: x}).B + one(x)\n}\nfunc one(int32) int32 { return 1 }\nfunc unused(x int32) int32 { return x }",
			gather: "\treturn outer(acc, xu, 3) + outer(xu, acc, 4)"},
			[]string{"vp_t_S vp_fn_inner(vp_t_S s) {", "int vp_fn_outer(int x, int vp_arg1, long long vp_arg2) {", "x = ((int)((unsigned int)x + (unsigned int)1));", "vp_fn_outer(acc, xu, 3LL)", "int vp_fn_one(int vp_arg0) {"}},
		{"priority", program{extras: "func (p P) Priority(v int32, x X) float32 { return x + float32(p.Val[v]) + p.F }\n"},
			[]string{"__device__ float vp_priority(int v, X_t x, const State& vp_s) {", "__fadd_rn(__fadd_rn(x, ((float)vp_s.Val[v])), vp_s.F)"}},
		{"priority of a struct value", program{x: "S", decls: "type S struct {\n\tD float64\n\tH int32\n}", extras: "func (P) Priority(_ int32, x X) float32 { return float32(x.D) }\n"},
			[]string{"vp_priority(int vp_arg0, X_t x, const State& vp_s)", "((float)(x).D)"}},
		{"nonnegative float32 min fold", program{identity: "\treturn float32(math.Inf(1))", gatherDoc: "// Gather: xu and w are >= 0.\n//\n//devgen:nonnegative (Prepare checks w)\n", gather: "\treturn min(acc, xu+w)", reduce: "\treturn min(a, b)"},
			[]string{"const int vp_c = __float_as_int(__fadd_rn(xu, w));\n  const int vp_old = atomicMin(reinterpret_cast<int*>(vp_y), vp_c);\n  return vp_c < vp_old ? (vp_old == __float_as_int(vp_identity()) ? 2 : 1) : 0;\n}"}},
		{"nonnegative float64 max fold", program{x: "float64", a: "float64", gatherDoc: "//devgen:nonnegative\n", gather: "\treturn max(xu*float64(w), acc)", reduce: "\treturn max(b, a)"},
			[]string{"const long long vp_c = __double_as_longlong(__dmul_rn(xu, ((double)w)));", "atomicMax(reinterpret_cast<long long*>(vp_y), vp_c)", "vp_c > vp_old ? (vp_old == __double_as_longlong(vp_identity()) ? 2 : 1) : 0"}},
		{"C keyword names", program{x: "int32", a: "int32", gather: "\tint, float := acc, xu\n\tdouble := int + float\n\treturn double"}, []string{"vp_l_int", "vp_l_double"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := translateOne(t, c.p.src())
			if err != nil {
				t.Fatalf("%v\n%s", err, c.p.src())
			}
			for _, w := range c.want {
				if !strings.Contains(p.Source, w) {
					t.Errorf("device code lacks %q:\n%s", w, p.Source)
				}
			}
			nvrtcCheck(t, p)
		})
	}
}

// line is the line of src holding marker.
func line(src, marker string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	return -1
}

// TestRejected checks that every construct outside the subset is an
// error naming file:line and the construct; the offending line carries
// the comment // ERR.
func TestRejected(t *testing.T) {
	cases := []struct {
		name string
		p    program
		want string
	}{
		{"float modulo impossible: string field", program{gather: "\t_ = p.Name // ERR\n\treturn acc"}, "program field Name is a string"},
		{"[]int state", program{gather: "\treturn acc + float32(p.Ints[v]) // ERR"}, "state slice Ints is a []int"},
		{"slice index not a vertex", program{x: "int32", a: "int32", gather: "\treturn acc + p.Cnt[xu] // ERR"}, "state slices may be indexed only by a vertex parameter"},
		{"state write in Gather", program{gather: "\tp.Val[v] = 1 // ERR\n\treturn acc"}, "only Update may"},
		{"state write at another vertex", program{x: "int32", update: "\tp.Cnt[*x] = 1 // ERR\n\treturn false"}, "only at Update's own vertex"},
		{"field write", program{update: "\tp.K = 1 // ERR\n\treturn false"}, "assignment to the program's field K"},
		{"state in Reduce", program{reduce: "\treturn a + p.F // ERR"}, "has no access to"},
		{"unbounded for", program{gather: "\tfor acc < 10 { // ERR\n\t\tacc++\n\t}\n\treturn acc"}, "for loop without a constant bound"},
		{"variable bound", program{x: "int32", gather: "\tfor i := int32(0); i < xu; i++ { // ERR\n\t\tacc++\n\t}\n\treturn acc"}, "for loop condition"},
		{"loop variable assigned", program{gather: "\tfor i := 0; i < 4; i++ { // ERR\n\t\ti++\n\t}\n\treturn acc"}, "loop variable i is assigned"},
		{"range over slice", program{gather: "\tfor range p.Val { // ERR\n\t}\n\treturn acc"}, "range over"},
		{"recursive function", program{decls: "func f(x float32) float32 {\n\tif x > 1 {\n\t\treturn f(x - 1) // ERR\n\t}\n\treturn x\n}", gather: "\treturn f(acc)"}, "recursive call of f"},
		{"mutually recursive functions", program{decls: "func f(x float32) float32 { return g(x) }\nfunc g(x float32) float32 { return f(x) } // ERR", gather: "\treturn f(acc)"}, "recursive call of f"},
		{"generic function", program{decls: "func f[T float32 | float64](x T) T { return x }", gather: "\treturn f(acc) // ERR"}, "call of generic function f"},
		{"variadic function", program{decls: "func f(xs ...float32) float32 { return 0 }", gather: "\treturn f(acc) // ERR"}, "call of variadic function f"},
		{"multi-valued argument", program{decls: "func two(x float32) (float32, bool) { return x, true }\nfunc f(x float32, b bool) float32 { return x }", gather: "\treturn f(two(acc)) // ERR"}, "multi-valued argument"},
		{"named result", program{decls: "func f(x float32) (y float32) { // ERR\n\ty = x\n\treturn\n}", gather: "\treturn f(acc)"}, "function f has a named result"},
		{"function of a slice", program{decls: "func sum(xs []float64) float32 { // ERR\n\treturn 0\n}", gather: "\treturn sum(nil)"}, "[]float64"},
		{"function of the program", program{decls: "func get(p P, v int32) float32 { // ERR\n\treturn float32(p.Val[v])\n}", gather: "\treturn get(p, v)"}, "P"},
		{"function reading a package variable", program{decls: "var gv float32\nfunc f(x float32) float32 {\n\treturn x + gv // ERR\n}", gather: "\treturn f(acc)"}, "f: package-level variable gv"},
		{"function outside the subset", program{decls: "func f(x float32) float32 {\n\tfor x < 10 { // ERR\n\t\tx++\n\t}\n\treturn x\n}", gather: "\treturn f(acc)"}, "f: for loop without a constant bound"},
		{"function value", program{decls: "func f(x float32) float32 { return x }", gather: "\tg := f // ERR\n\treturn g(acc)"}, "function f used as a value"},
		{"method call", program{extras: "func (p P) half(x float32) float32 { return x / 2 }\n", gather: "\treturn p.half(acc) // ERR"}, "call of p.half"},
		{"function call statement", program{decls: "func f(x float32) float32 { return x }", gather: "\tf(acc) // ERR\n\treturn acc"}, "call statement f"},
		{"unknown devgen tag", program{fields: "\tC []int32 `devgen:\"const\"` // ERR\n", gather: "\treturn acc + float32(p.C[v])"}, "unknown devgen tag \"const\""},
		{"malformed devgen tag", program{fields: "\tC []int32 `devgen:constant` // ERR\n", gather: "\treturn acc + float32(p.C[v])"}, "malformed struct tag"},
		{"constant scalar", program{fields: "\tC int32 `devgen:\"constant\"` // ERR\n", gather: "\treturn acc + float32(p.C)"}, "field C is tagged devgen:\"constant\" but has type int32"},
		{"constant array written", program{fields: "\tC []int32 `devgen:\"constant\"` // ERR\n", update: "\tp.C[v] = 1\n\treturn false"}, "field C is tagged devgen:\"constant\" but the device code writes it"},
		{"math without device equivalent", program{x: "float64", a: "float64", gather: "\treturn math.Exp(xu) // ERR"}, "math.Exp has no bit-exact device equivalent"},
		{"float modulo", program{x: "float64", a: "float64", gather: "\treturn math.Mod(xu, 2) // ERR"}, "math.Mod"},
		{"package variable", program{decls: "var g float32", gather: "\treturn acc + g // ERR"}, "package-level variable g"},
		{"goto-like labels", program{gather: "L: // ERR\n\tfor i := 0; i < 2; i++ {\n\t\tbreak L\n\t}\n\treturn acc"}, "labeled statement"},
		{"fallthrough", program{x: "int32", a: "int32", gather: "\tswitch xu {\n\tcase 1:\n\t\tfallthrough // ERR\n\tdefault:\n\t}\n\treturn acc"}, "fallthrough"},
		{"closure", program{gather: "\tf := func() float32 { return 1 } // ERR\n\treturn f()"}, "function literal"},
		{"address of", program{gather: "\tq := &acc // ERR\n\treturn *q"}, "address-of"},
		{"pointer accumulator", program{a: "*float32", identity: "\treturn nil", gather: "\treturn acc", update: "\treturn false"}, "accumulator A"},
		{"array value", program{x: "[2]int32", gather: "\treturn acc"}, "vertex value X"},
		{"panic", program{gather: "\tpanic(1) // ERR"}, "call statement panic"},
		{"slice without index", program{gather: "\t_ = len(p.Val) // ERR\n\treturn acc"}, "builtin len"},
		{"goroutine", program{gather: "\tgo func() {}() // ERR\n\treturn acc"}, "go statement"},
		{"defer", program{gather: "\tdefer func() {}() // ERR\n\treturn acc"}, "defer statement"},
		{"missing return path", program{gather: "\tif acc > 1 {\n\t\treturn acc\n\t}\n\tpanic(0) // ERR"}, "panic"},
		{"receiver as value", program{gather: "\t_ = p // ERR\n\treturn acc"}, "the receiver p used as a value"},
		{"step misuse", program{update: "\t_ = s // ERR\n\treturn false"}, "the Step s used as a value"},
		{"delta", program{extras: "", decls: ""}, ""},
		{"existing Device", program{extras: "func (P) Device() vertexprog.DeviceCode { return vertexprog.DeviceCode{} } // ERR\n"}, "already has a Device method"},
		{"priority of the wrong type", program{extras: "func (P) Priority(v int32, x X) float64 { return 0 } // ERR\n"}, "Priority is func(v int32, x X) float64; delta-stepping's priority is func(v int32, x X) float32"},
		{"priority writing state", program{extras: "func (p P) Priority(v int32, x X) float32 {\n\tp.Val[v] = 1 // ERR\n\treturn x\n}\n"}, "Priority writes the program's state Val"},
		{"priority at another vertex", program{x: "int32", extras: "func (p P) Priority(v int32, x X) float32 { return float32(p.Cnt[x]) } // ERR\n"}, "state slices may be indexed only by a vertex parameter"},
		{"unknown directive", program{gatherDoc: "//devgen:nonneg // ERR\n"}, "unknown directive //devgen:nonneg"},
		{"directive on another method", program{extras: "//devgen:nonnegative // ERR\nfunc (P) Done(acc A) bool { return acc > 0 }\n"}, "//devgen:nonnegative on Done: it promises what Gather folds"},
		{"nonnegative integer fold", program{x: "int32", a: "int32", gatherDoc: "//devgen:nonnegative // ERR\n", gather: "\treturn min(acc, xu)", reduce: "\treturn min(a, b)"}, "whose accumulator is an integer"},
		{"nonnegative without a fold", program{gatherDoc: "//devgen:nonnegative // ERR\n", gather: "\treturn acc + xu", reduce: "\treturn a + b"}, "serves the float min or max fold only"},
		{"nonnegative with a Gather that is no fold", program{gatherDoc: "//devgen:nonnegative // ERR\n", gather: "\treturn min(acc, acc+xu)", reduce: "\treturn min(a, b)"}, "serves the float min or max fold only"},
		{"nonnegative with a negative identity", program{identity: "\treturn float32(math.Inf(-1)) // ERR", gatherDoc: "//devgen:nonnegative\n", gather: "\treturn max(acc, xu)", reduce: "\treturn max(a, b)"}, "Identity returns a negative value"},
		{"nonnegative with a negative constant identity", program{identity: "\treturn -(1) // ERR", gatherDoc: "//devgen:nonnegative\n", gather: "\treturn max(acc, xu)", reduce: "\treturn max(a, b)"}, "Identity returns a negative value"},
		{"nonnegative with a NaN identity", program{x: "float64", a: "float64", identity: "\treturn math.NaN() // ERR", gatherDoc: "//devgen:nonnegative\n", gather: "\treturn min(acc, xu)", reduce: "\treturn min(a, b)"}, "Identity returns NaN"},
		{"small integer types", program{x: "int32", a: "int32", gather: "\tvar b uint8 // ERR\n\treturn acc + int32(b)"}, "uint8"},
	}
	for _, c := range cases {
		if c.want == "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			src := c.p.src()
			_, err := translateOne(t, src)
			if err == nil {
				t.Fatalf("no error\n%s", src)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is not a *devgen.Error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
			if l := line(src, "// ERR"); l > 0 && !strings.HasPrefix(err.Error(), fmt.Sprintf("prog.go:%d:", l)) {
				t.Errorf("error %q is not at prog.go:%d", err, l)
			}
			if e.Pos.Filename != "prog.go" || e.Pos.Line == 0 {
				t.Errorf("error %q has no file:line", err)
			}
		})
	}
}

// TestFunctions: a package-level function becomes one device function,
// defined once, after the functions it calls and before the methods;
// functions no translated method calls are left out.
func TestFunctions(t *testing.T) {
	p, err := translateOne(t, program{x: "float64", a: "float64",
		decls:  "func leaf(x float64) float64 { return x * 2 }\nfunc mid(x float64) float64 { return leaf(x) + leaf(1) }\nfunc top(x float64) float64 { return mid(x) - leaf(x) }\nfunc unused(x float64) float64 { return x }",
		gather: "\treturn top(acc) + mid(xu)", update: "\t*x = leaf(acc)\n\treturn true", init: "\treturn top(1), true"}.src())
	if err != nil {
		t.Fatal(err)
	}
	if !p.Init {
		t.Fatalf("no vp_init: %s", p.NoInit)
	}
	var at []int
	for _, name := range []string{"vp_fn_leaf(double x) {", "vp_fn_mid(double x) {", "vp_fn_top(double x) {", "vp_identity()"} {
		if n := strings.Count(p.Source, name); n != 1 {
			t.Errorf("%s defined %d times:\n%s", name, n, p.Source)
		}
		at = append(at, strings.Index(p.Source, name))
	}
	if !sort.IntsAreSorted(at) {
		t.Errorf("functions not defined callees first, before the methods (%v):\n%s", at, p.Source)
	}
	if strings.Contains(p.Source, "unused") {
		t.Errorf("an uncalled function is defined:\n%s", p.Source)
	}
	nvrtcCheck(t, p)

	// A function only an Init that stays on the host calls leaves no trace.
	p, err = translateOne(t, program{x: "int32", a: "int32", decls: "func initOnly(x int32) int32 { return x + 1 }",
		update: "\tp.Cnt[v] = acc\n\treturn true", init: "\tp.Cnt[v] = initOnly(v)\n\treturn p.Cnt[v], false"}.src())
	if err != nil {
		t.Fatal(err)
	}
	if p.Init || strings.Contains(p.Source, "initOnly") {
		t.Errorf("vp_init %v (%s); the failed Init's function is left in:\n%s", p.Init, p.NoInit, p.Source)
	}
}

// TestConstantTag: a state slice tagged devgen:"constant" is a Constant
// DeviceArray in the generated Device method (PageRank's out-degrees).
func TestConstantTag(t *testing.T) {
	src := program{x: "float64", a: "float64", fields: "\tDeg []int32 `devgen:\"constant\"`\n\tSpare []int32 `devgen:\"constant\"`\n",
		gather: "\treturn acc + float64(p.Deg[u]) + p.Val[u]", update: "\tp.Val[v] = acc\n\treturn true"}.src()
	pkg := load(t, src)
	gosrc, progs, err := Generate(pkg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range progs[0].Arrays {
		got = append(got, fmt.Sprintf("%s ro=%v const=%v", a.Name, a.ReadOnly, a.Constant))
	}
	if w := "Deg ro=true const=true,Val ro=false const=false"; strings.Join(got, ",") != w {
		t.Errorf("arrays %v, want %s", got, w)
	}
	if !strings.Contains(string(gosrc), `{Name: "Deg", Data: vp_p.Deg, ReadOnly: true, Constant: true},`) {
		t.Errorf("generated Device lacks the Constant array:\n%s", gosrc)
	}
	nvrtcCheck(t, progs[0])
}

// TestDelta: a Spec.Delta that may be positive needs a Priority method
// (delta-stepping's vp_priority); a constant 0 does not.
func TestDelta(t *testing.T) {
	withDelta := func(p program, delta string) string {
		return strings.Replace(p.src(), "vertexprog.Spec{Edges: vertexprog.InEdges}", "vertexprog.Spec{Edges: vertexprog.InEdges, Delta: "+delta+"}", 1)
	}
	for _, d := range []string{"2", "delta"} {
		const decls = "var delta = 2.0"
		if _, err := translateOne(t, withDelta(program{decls: decls}, d)); err == nil || !strings.Contains(err.Error(), "Spec.Delta without a Priority method") {
			t.Errorf("Delta: %s without Priority: got %v, want a Spec.Delta error", d, err)
		}
		p, err := translateOne(t, withDelta(program{decls: decls, extras: "func (P) Priority(_ int32, x X) float32 { return x }\n"}, d))
		if err != nil || !p.HasPriority || !strings.Contains(p.Source, "vp_priority") {
			t.Fatalf("Delta: %s with Priority: %v", d, err)
		}
		nvrtcCheck(t, p)
	}
	if _, err := translateOne(t, withDelta(program{}, "0")); err != nil {
		t.Errorf("Delta: 0: %v", err)
	}
}

// TestGeneratedFilesCompileWithNVRTC compiles the examples' generated
// device code (the files scripts/devgen-check.sh keeps up to date).
func TestExamplesWithNVRTC(t *testing.T) {
	dirs, _ := filepath.Glob("../examples/*/zz_device_gen.go")
	if len(dirs) < 4 {
		t.Fatalf("%d generated example files, want 4 or more", len(dirs))
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			pkg, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			src, progs, err := Generate(pkg)
			if err != nil {
				t.Fatal(err)
			}
			old, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if string(old) != string(src) {
				t.Errorf("%s is stale: run go generate ./examples/...", f)
			}
			for _, p := range progs {
				nvrtcCheck(t, p)
			}
		})
	}
}

// TestBuiltinApps generates each built-in app's device code (apps/NAME)
// as its go:generate line says (the programs it names with -type, or
// every one), checks that its zz_device_gen.go is up to date and compiles
// each with NVRTC; it also reports which of the app's other programs
// would translate.
func TestBuiltinApps(t *testing.T) {
	files, _ := filepath.Glob("../apps/*/*.go")
	line := regexp.MustCompile(`(?m)^//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen(?: -type (\S+))?$`)
	apps := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := line.FindSubmatch(src)
		if m == nil {
			continue
		}
		apps++
		dir := filepath.Dir(f)
		var names []string
		if len(m[1]) > 0 {
			names = SplitTypes(string(m[1]))
		}
		t.Run(filepath.Base(dir), func(t *testing.T) { builtinApp(t, dir, names) })
	}
	if apps < 4 {
		t.Fatalf("%d app folders with a devgen go:generate line, want 4 or more (bfs, sssp, pagerank, cc)", apps)
	}
}

// builtinApp is TestBuiltinApps for the app in dir, its device code
// generated for the programs names (nil: every one).
func builtinApp(t *testing.T, dir string, names []string) {
	pkg, err := Load(dir)
	if err != nil {
		t.Fatalf("%s does not load: %v", dir, err)
	}
	src, progs, err := GenerateTypes(pkg, names)
	if err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "zz_device_gen.go")
	old, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != string(src) {
		t.Errorf("%s is stale: run go generate ./apps/...", gen)
	}
	generated := map[string]bool{}
	for _, p := range progs {
		generated[p.Name] = true
		if !p.Init {
			t.Errorf("%s: no vp_init (%s)", p.Name, p.NoInit)
		}
		nvrtcCheck(t, p)
	}
	ts, err := Find(pkg)
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range ts {
		if generated[ty.Obj().Name()] || len(names) == 0 {
			continue
		}
		p, err := Translate(pkg, ty)
		if err != nil {
			t.Logf("%s: not translated: %v", ty.Obj().Name(), err)
			continue
		}
		t.Logf("%s: would translate (fold %q, reduce %q, vp_init %v)", ty.Obj().Name(), p.FoldAtomic, p.ReduceAdd, p.Init)
		nvrtcCheck(t, p)
	}
}

// CompileCheck (devgen -check) fails on device code that does not
// compile, naming the program and the architecture, and passes what the
// translation makes; without NVRTC it says so (ErrNoNVRTC).
func TestCompileCheck(t *testing.T) {
	p, err := translateOne(t, program{gather: "\treturn max(acc, xu)"}.src())
	if err != nil {
		t.Fatal(err)
	}
	err = CompileCheck([]*Program{p})
	if errors.Is(err, ErrNoNVRTC) {
		if os.Getenv("HPGRAPH_REQUIRE_NVRTC") != "" {
			t.Fatal(err)
		}
		t.Skip("NVRTC is not available (HPGRAPH_NVRTC)")
	}
	if err != nil {
		t.Fatalf("the translation does not compile: %v", err)
	}
	bad := *p
	bad.Name = "Broken"
	bad.Source = strings.Replace(p.Source, "return", "retrun", 1)
	if err := CompileCheck([]*Program{&bad}); err == nil || !strings.Contains(err.Error(), "Broken: compute_80") {
		t.Fatalf("code that does not compile: %v", err)
	}
}
