// Package apptest holds what the built-in apps' tests share: the graphs
// they run on, the sources they start from, and the check of a program's
// device code against its state. Importing it registers the GPU backend
// where it is available (a driver and a GPU), so every app test also
// compares the GPU with the gonum reference there.
package apptest

import (
	"math"
	"reflect"
	"strings"
	"testing"

	_ "github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// Build builds a graph of el, failing t where it cannot.
func Build(t testing.TB, el *datasets.EdgeList, opt datasets.Options) *datasets.Graph {
	t.Helper()
	g, err := datasets.Build(el, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Shapes are the random graphs every app is checked on against the
// reference.
func Shapes(t testing.TB, opt datasets.Options) []vptest.Graph { return vptest.Graphs(t, opt) }

// Weighted loads integer weights 1..64: float32 sums of them are exact.
var Weighted = datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}

// Sources picks a hub, a low-id vertex and a vertex with no in-arcs where
// there is one.
func Sources(g *datasets.Graph) []int32 {
	hub := int32(0)
	for v := int32(0); v < int32(g.N); v++ {
		if g.Degree(v) > g.Degree(hub) {
			hub = v
		}
	}
	return []int32{hub, 1, int32(g.N - 1)}
}

// CloseRel says whether a and b agree to tol, relative.
func CloseRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// PullConfigs are vptest's configurations for programs that cannot push
// (forcing push on them is an error).
func PullConfigs() []vptest.Config {
	var cs []vptest.Config
	for _, c := range vptest.Configs() {
		if c.Options.Direction != vertexprog.Push {
			cs = append(cs, c)
		}
	}
	return cs
}

// LoadWithIDs reads an edge list in a file's own ids, renumbered by
// degree (loading keeps the ids whatever the order); it panics on a bad
// list (the examples' graphs).
func LoadWithIDs(text string, opt datasets.Options) *vertexprog.Graph {
	el, err := datasets.ReadEdgeList(strings.NewReader(text), "example")
	if err != nil {
		panic(err)
	}
	opt.Relabel = datasets.RelabelDegree
	g, err := datasets.Build(el, opt)
	if err != nil {
		panic(err)
	}
	return vertexprog.NewGraph(g)
}

// SameSlice reports whether a and b are the same slice (same first
// element and length), so the device backend copies the program's own
// state.
func SameSlice(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Len() != vb.Len() {
		return false
	}
	return va.Len() == 0 || va.UnsafePointer() == vb.UnsafePointer()
}

// DeviceGraph is the small directed graph the device-code checks prepare
// programs on.
func DeviceGraph(t testing.TB) *vertexprog.Graph {
	el := &datasets.EdgeList{N: 6, Directed: true,
		Src: []int32{0, 0, 1, 2, 3, 4, 4}, Dst: []int32{1, 2, 2, 0, 4, 5, 3}}
	return vertexprog.NewGraph(Build(t, el, datasets.Options{}))
}

// Prepare runs p's Prepare on g, where p has one.
func Prepare(t testing.TB, g *vertexprog.Graph, p any) {
	t.Helper()
	if pr, ok := p.(vertexprog.Preparer); ok {
		if err := pr.Prepare(g); err != nil {
			t.Fatal(err)
		}
	}
}

// Array is a state array a program's device code must name: its name,
// the program's slice it must be backed by, and whether it is read-only.
// (Unnamed struct types, so that tables of them need no field names.)
type Array = struct {
	Name     string
	Data     any
	ReadOnly bool
}

// Scalar is a constant a program's device code must pass.
type Scalar = struct {
	Name  string
	Value any
}

// CheckDeviceCode checks that code defines the device functions and
// types, and declares arrays and scalars, in order, backed by the
// program's own state.
func CheckDeviceCode(t testing.TB, label string, code vertexprog.DeviceCode, arrays []Array, scalars []Scalar) {
	t.Helper()
	for _, fn := range []string{"vp_identity", "vp_gather", "vp_reduce", "vp_update", "X_t", "A_t", "struct State"} {
		if !strings.Contains(code.Source, fn) {
			t.Errorf("%s: device source lacks %s", label, fn)
		}
	}
	if len(code.Arrays) != len(arrays) {
		t.Fatalf("%s: %d arrays, want %d", label, len(code.Arrays), len(arrays))
	}
	for i, w := range arrays {
		a := code.Arrays[i]
		if a.Name != w.Name || a.ReadOnly != w.ReadOnly || !SameSlice(a.Slice(), w.Data) {
			t.Errorf("%s: array %d is %s (read-only %v, %T len %d), want %s (read-only %v) backed by the program's state",
				label, i, a.Name, a.ReadOnly, a.Slice(), reflect.ValueOf(a.Slice()).Len(), w.Name, w.ReadOnly)
		}
		// State declares the arrays in order.
		if !strings.Contains(code.Source, w.Name+";") {
			t.Errorf("%s: State has no member %s", label, w.Name)
		}
	}
	if len(code.Scalars) != len(scalars) {
		t.Fatalf("%s: %d scalars, want %d", label, len(code.Scalars), len(scalars))
	}
	for i, w := range scalars {
		s := code.Scalars[i]
		if s.Name != w.Name || s.Value != w.Value {
			t.Errorf("%s: scalar %d is %s=%v (%T), want %s=%v (%T)", label, i, s.Name, s.Value, s.Value, w.Name, w.Value, w.Value)
		}
	}
}

// TypeSizes checks that src's X_t and A_t have the Go types' sizes: the
// backend checks this when it compiles; this catches the obvious slips
// without a GPU.
func TypeSizes(t testing.TB, label, src string, xSize, aSize uintptr) {
	t.Helper()
	cTypes := map[string]uintptr{"struct X_t {};": 0, "struct vp_t_anon {};\ntypedef vp_t_anon X_t;": 0, "typedef int X_t;": 4, "typedef float X_t;": 4, "typedef double X_t;": 8,
		"typedef int A_t;": 4, "typedef float A_t;": 4, "typedef double A_t;": 8, "typedef long long A_t;": 8}
	var gotX, gotA = uintptr(99), uintptr(99)
	for decl, size := range cTypes {
		if strings.Contains(src, decl) {
			if strings.Contains(decl, "X_t") {
				gotX = size
			} else {
				gotA = size
			}
		}
	}
	if gotX != xSize || gotA != aSize {
		t.Errorf("%s: device X_t/A_t sizes %d/%d, Go %d/%d", label, gotX, gotA, xSize, aSize)
	}
}
