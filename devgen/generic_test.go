package devgen

import (
	"errors"
	"go/ast"
	"go/parser"
	"reflect"
	"strings"
	"testing"
)

// genericSrc is a package with generic programs: G in one type
// parameter (as LDBC PageRank in its precision), H in two with a generic
// struct value.
const genericSrc = `package p

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

type Float interface{ ~float32 | ~float64 }

type G[F Float] struct {
	Val   []F
	Deg   []int32 ` + "`devgen:\"constant\"`" + `
	Scale F
	Src   int32
}

func (*G[F]) Spec() vertexprog.Spec { return vertexprog.Spec{Edges: vertexprog.InEdges} }

func (p *G[F]) Init(v int32, _ *vertexprog.Step) (F, bool) {
	p.Val[v] = 0
	if v == p.Src {
		return 1, true
	}
	return F(math.Inf(1)), false
}

func (*G[F]) Identity() F { return 0 }

// Gather scales a neighbour's value by the edge's weight.
func (p *G[F]) Gather(acc F, _, u int32, xu F, w float32) F {
	return acc + xu*F(w)/F(p.Deg[u]+1)
}

func (*G[F]) Reduce(a, b F) F { return a + b }

func (p *G[Q]) Update(v int32, acc Q, x *Q, _ *vertexprog.Step) bool {
	var zero Q
	r := acc * p.Scale
	p.Val[v] = r
	*x = r + zero
	return r > 1e-3
}

type Pair[F Float] struct {
	D F
	N int32
}

type H[F Float, I int32 | int64] struct{ Lim I }

func (H[F, I]) Spec() vertexprog.Spec { return vertexprog.Spec{Edges: vertexprog.InEdges} }
func (H[F, I]) Init(v int32, _ *vertexprog.Step) (Pair[F], bool) {
	return Pair[F]{D: F(v), N: 1}, true
}
func (H[F, I]) Identity() I                                           { return I(math.MaxInt32) }
func (h H[F, I]) Gather(acc I, _, _ int32, xu Pair[F], _ float32) I { return min(acc, I(xu.N)+h.Lim) }
func (H[F, I]) Reduce(a, b I) I                                       { return min(a, b) }
func (H[F, I]) Update(_ int32, acc I, x *Pair[F], _ *vertexprog.Step) bool {
	x.N = int32(acc)
	return false
}

// B is no program; N is not generic.
type B[F Float] struct{}

type N struct{}

func (N) Spec() vertexprog.Spec                                        { return vertexprog.Spec{} }
func (N) Init(int32, *vertexprog.Step) (int32, bool)                  { return 0, false }
func (N) Identity() int32                                              { return 0 }
func (N) Gather(acc int32, _, _ int32, _ int32, _ float32) int32      { return acc }
func (N) Reduce(a, _ int32) int32                                      { return a }
func (N) Update(int32, int32, *int32, *vertexprog.Step) bool          { return false }
`

// TestGeneric translates instantiations of generic programs: each gets
// the device code of its own types (float or double arithmetic,
// constants of its type, its struct layout), and the generic type one
// Device method that picks it; the generated file type-checks with the
// package.
func TestGeneric(t *testing.T) {
	pkg := load(t, genericSrc)
	names := SplitTypes("N, G[float32],G[float64], H[float64, int64],G[float32]")
	if w := []string{"N", "G[float32]", "G[float64]", "H[float64, int64]", "G[float32]"}; !reflect.DeepEqual(names, w) {
		t.Fatalf("SplitTypes: %q, want %q", names, w)
	}
	gosrc, progs, err := GenerateTypes(pkg, names)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range progs {
		got = append(got, p.Name)
	}
	if w := []string{"N", "G[float32]", "G[float64]", "H[float64, int64]"}; !reflect.DeepEqual(got, w) {
		t.Fatalf("programs %q, want %q (the duplicate once)", got, w)
	}
	want := map[string][]string{
		"G[float32]": {"typedef float X_t;", "float* Val;", "const int* Deg;", "float Scale;", "const int* Src;  // one element",
			"__fadd_rn(acc, __fdiv_rn(__fmul_rn(xu, w), ((float)((int)((unsigned int)vp_s.Deg[u] + (unsigned int)1)))))",
			"float zero = 0.0f;", "*vp_x = 1.0f;", "vp_s.Val[v] = 0.0f;", "#define VP_REDUCE_ADD 1"},
		"G[float64]": {"typedef double X_t;", "double* Val;", "double Scale;", "__dmul_rn(xu, ((double)w))", "double zero = 0.0;", "*vp_x = 1.0;", "(r > 0.001)"},
		"H[float64, int64]": {"struct vp_t_Pair { double D; int N; };", "static_assert(sizeof(vp_t_Pair) == 16", "typedef long long A_t;",
			"return 2147483647LL;", "long long Lim;", "atomicMin(vp_y, vp_c)"},
	}
	for _, p := range progs[1:] {
		if !p.Init {
			t.Errorf("%s: no vp_init: %s", p.Name, p.NoInit)
		}
		for _, w := range want[p.Name] {
			if !strings.Contains(p.Source, w) {
				t.Errorf("%s: device code lacks %q:\n%s", p.Name, w, p.Source)
			}
		}
		nvrtcCheck(t, p)
	}
	g := string(gosrc)
	for _, w := range []string{
		"func (vp_p *G[_]) Device() vertexprog.DeviceCode {\n\tswitch vp_p := any(vp_p).(type) {\n\tcase *G[float32]:\n\t\treturn vertexprog.DeviceCode{\n\t\t\tSource: gFloat32DeviceSource,",
		"\tcase *G[float64]:\n\t\treturn vertexprog.DeviceCode{\n\t\t\tSource: gFloat64DeviceSource,",
		`{Name: "Deg", Data: vp_p.Deg, ReadOnly: true, Constant: true},`,
		`{Name: "Src", Data: []int32{int32(vp_p.Src)}, ReadOnly: true},`,
		`{Name: "Scale", Value: float32(vp_p.Scale)},`,
		"func (vp_p H[_, _]) Device() vertexprog.DeviceCode {",
		"case H[float64, int64]:",
		`#error \"devgen: no device code for this instantiation of G; devgen -type translated G[float32], G[float64]\"`,
		"func (vp_p N) Device() vertexprog.DeviceCode {",
	} {
		if !strings.Contains(g, w) {
			t.Errorf("generated Go lacks %q:\n%s", w, g)
		}
	}
	// The generated file compiles with the package.
	f, err := parser.ParseFile(impFset, "zz_device_gen.go", gosrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Check(impFset, "example.com/p", append([]*ast.File{pkg.Files[0]}, f), imp); err != nil {
		t.Fatalf("the generated file does not type-check: %v\n%s", err, gosrc)
	}
}

// TestGenericRejected: instantiations that cannot be translated are
// errors naming the instantiation, or the generic source's file:line.
func TestGenericRejected(t *testing.T) {
	cases := []struct {
		src   string // replaces G's Gather body ("": genericSrc as is)
		names string
		want  string
	}{
		{"", "G", "G is generic: name the instantiations to translate, -type 'G[T]'"},
		{"", "G[int32]", "-type G[int32]: int32 does not satisfy Float"},
		{"", "G[float32, int32]", "-type G[float32, int32]: "},
		{"", "N[int32]", "-type N[int32]: N is not generic"},
		{"", "Nope[int32]", "-type Nope[int32]: Nope is not a type of package p"},
		{"", "B[float32]", "B[float32] is not a vertex program"},
		{"", "G[float32", "-type G[float32: not a type name or instantiation"},
		{"\tfor acc < 10 { // ERR\n\t\tacc++\n\t}\n\treturn acc", "G[float64]", "Gather: for loop without a constant bound"},
	}
	for _, c := range cases {
		t.Run(c.names, func(t *testing.T) {
			src := genericSrc
			if c.src != "" {
				src = strings.Replace(src, "\treturn acc + xu*F(w)/F(p.Deg[u]+1)", c.src, 1)
			}
			_, _, err := GenerateTypes(load(t, src), SplitTypes(c.names))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if l := line(src, "// ERR"); l > 0 {
				var e *Error
				if !errors.As(err, &e) || e.Pos.Filename != "prog.go" || e.Pos.Line != l {
					t.Errorf("error %v is not at prog.go:%d (the generic source)", err, l)
				}
			}
		})
	}
}
