package apps

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// sameSlice reports whether a and b are the same slice (same first element
// and length), so the device backend copies the program's own state.
func sameSlice(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Len() != vb.Len() {
		return false
	}
	return va.Len() == 0 || va.UnsafePointer() == vb.UnsafePointer()
}

func TestDeviceCodeMatchesState(t *testing.T) {
	el := &datasets.EdgeList{N: 6, Directed: true,
		Src: []int32{0, 0, 1, 2, 3, 4, 4}, Dst: []int32{1, 2, 2, 0, 4, 5, 3}}
	dg, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(dg)
	prepare := func(p any) {
		t.Helper()
		if pr, ok := p.(vertexprog.Preparer); ok {
			if err := pr.Prepare(g); err != nil {
				t.Fatal(err)
			}
		}
	}
	type want struct {
		name     string
		data     any
		readOnly bool
	}
	type scalar struct {
		name  string
		value any
	}
	check := func(label string, code vertexprog.DeviceCode, arrays []want, scalars []scalar) {
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
			if a.Name != w.name || a.ReadOnly != w.readOnly || !sameSlice(a.Slice(), w.data) {
				t.Errorf("%s: array %d is %s (read-only %v, %T len %d), want %s (read-only %v) backed by the program's state",
					label, i, a.Name, a.ReadOnly, a.Slice(), reflect.ValueOf(a.Slice()).Len(), w.name, w.readOnly)
			}
			// State declares the arrays in order.
			if !strings.Contains(code.Source, w.name+";") {
				t.Errorf("%s: State has no member %s", label, w.name)
			}
		}
		if len(code.Scalars) != len(scalars) {
			t.Fatalf("%s: %d scalars, want %d", label, len(code.Scalars), len(scalars))
		}
		for i, w := range scalars {
			s := code.Scalars[i]
			if s.Name != w.name || s.Value != w.value {
				t.Errorf("%s: scalar %d is %s=%v (%T), want %s=%v (%T)", label, i, s.Name, s.Value, s.Value, w.name, w.value, w.value)
			}
		}
	}

	bfs := &BFSProgram{Source: 1}
	prepare(bfs)
	bfsCode := bfs.Device()
	bfsSrc, _ := bfsCode.Arrays[2].Data.([]int32) // (a per-run input: a new one-element array, generated)
	check("bfs", bfsCode, []want{{"Depth", bfs.Depth, false}, {"Parent", bfs.Parent, false}, {"Source", bfsSrc, true}}, nil)
	if len(bfsSrc) != 1 || bfsSrc[0] != 1 || !bfsCode.Init {
		t.Errorf("bfs source array %v, want [1]; vp_init %v", bfsSrc, bfsCode.Init)
	}
	if len(bfs.Depth) != g.N() {
		t.Fatalf("bfs depth has %d entries", len(bfs.Depth))
	}
	_ = vertexprog.Program[struct{}, int32](bfs)
	var _ vertexprog.DeviceProgram = bfs

	sssp := &SSSPProgram{Source: 2, Delta: 4}
	prepare(sssp)
	ssspCode := sssp.Device()
	ssspSrc, _ := ssspCode.Arrays[0].Data.([]int32) // (a per-run input, as BFS's)
	check("sssp", ssspCode, []want{{"Source", ssspSrc, true}}, nil)
	if len(ssspSrc) != 1 || ssspSrc[0] != 2 || !ssspCode.Init {
		t.Errorf("sssp source array %v, want [2]; vp_init %v", ssspSrc, ssspCode.Init)
	}
	// What the hand-written code had: delta-stepping's priority, and the
	// fold by one signed atomicMin on the bits of distances >= 0.
	for _, w := range []string{"__device__ float vp_priority(int vp_arg0, X_t d, const State& vp_s) {\n  return d;\n}",
		"#define VP_FOLD_ATOMIC 1", "atomicMin(reinterpret_cast<int*>(vp_y), vp_c)"} {
		if !strings.Contains(ssspCode.Source, w) {
			t.Errorf("sssp: device source lacks %q:\n%s", w, ssspCode.Source)
		}
	}

	pr := &PageRankProgram{Damping: 0.85, Tolerance: 1e-7}
	prepare(pr)
	prCode := pr.Device()
	check("pagerank", prCode, []want{{"outDeg", pr.outDeg, true}, {"Rank", pr.Rank, false}},
		[]scalar{{"Damping", 0.85}, {"Tolerance", 1e-7}})
	if !prCode.Init || !prCode.Arrays[0].Constant || !strings.Contains(prCode.Source, "#define VP_REDUCE_ADD 1\n") {
		t.Errorf("pagerank: vp_init %v, out-degrees Constant %v, VP_REDUCE_ADD %v; want all (as the hand-written code had)",
			prCode.Init, prCode.Arrays[0].Constant, strings.Contains(prCode.Source, "VP_REDUCE_ADD"))
	}

	ldbc := &PageRankLDBCProgram[float64]{Damping: 0.85, Iterations: 3}
	prepare(ldbc)
	ldbcCode := ldbc.Device()
	check("pagerank-ldbc", ldbcCode, []want{{"outDeg", ldbc.outDeg, true}, {"Rank", ldbc.Rank, false}},
		[]scalar{{"Damping", 0.85}, {"n", float64(g.N())}})
	ldbc32 := &PageRankLDBCProgram[float32]{Damping: 0.85, Iterations: 3}
	prepare(ldbc32)
	ldbc32Code := ldbc32.Device()
	check("pagerank-ldbc float32", ldbc32Code, []want{{"outDeg", ldbc32.outDeg, true}, {"Rank", ldbc32.Rank, false}},
		[]scalar{{"Damping", 0.85}, {"n", float64(g.N())}})
	for _, c := range []vertexprog.DeviceCode{ldbcCode, ldbc32Code} {
		if !c.Init || !c.Arrays[0].Constant || !strings.Contains(c.Source, "#define VP_REDUCE_ADD 1\n") {
			t.Errorf("pagerank-ldbc: vp_init %v, out-degrees Constant %v, VP_REDUCE_ADD %v; want all (as the hand-written code had)",
				c.Init, c.Arrays[0].Constant, strings.Contains(c.Source, "VP_REDUCE_ADD"))
		}
	}
	if !strings.Contains(ldbc32Code.Source, "typedef float X_t;") || !strings.Contains(ldbcCode.Source, "typedef double X_t;") {
		t.Error("pagerank-ldbc: the float32 and float64 instantiations do not get their own device code")
	}
	// An instantiation devgen did not translate gets code that does not
	// compile, naming the ones it did (a device run fails with that).
	type f32 float32
	if src := (&PageRankLDBCProgram[f32]{}).Device().Source; !strings.Contains(src, "#error") || !strings.Contains(src, "PageRankLDBCProgram[float32]") {
		t.Errorf("pagerank-ldbc[f32]: device source %q, want an #error naming the translated instantiations", src)
	}

	for _, pv := range []bool{false, true} {
		tc := &TriangleProgram{PerVertex: pv}
		prepare(tc)
		flag := int32(0)
		if pv {
			flag = 1
		}
		o := g.Orientation(pv)
		if o.Adj != nil {
			t.Errorf("triangles (per vertex %v): the orientation was built on the host by Prepare; only PrepareHost or a backend should build it", pv)
		}
		o.Build()
		check("triangles", tc.Device(), []want{{"count", tc.Count, false}, {"deg", o.Deg, true}, {"off", o.Off, true}, {"cnt", o.Cnt, true}, {"adj", o.Adj, true}},
			[]scalar{{"perVertex", flag}})
	}

	lcc := &LCCProgram{}
	prepare(lcc)
	lo := g.RankedOrientation()
	if lcc.o != lo || lo.Adj != nil {
		t.Errorf("lcc: the program's orientation is not the graph's ranked one, or Prepare built it on the host (only PrepareHost or a backend should)")
	}
	if !strings.Contains(lcc.Device().Source, "#define LCC_DIRECTED 1\n") {
		t.Error("lcc: a directed graph's device code is not the directed build")
	}
	for _, a := range lcc.Device().Arrays[3:] {
		if a.Orientation != lo || a.Data != nil || !a.ReadOnly || a.Constant {
			t.Errorf("lcc: array %s is not a part of the graph's ranked orientation", a.Name)
		}
	}
	lo.Build()
	check("lcc", lcc.Device(), []want{{"lcc", lcc.LCC, false}, {"credit", lcc.credit, false}, {"hub", lcc.hub, false},
		{"rank", lo.Rank, true}, {"deg", lo.Deg, true}, {"off", lo.Off, true}, {"cnt", lo.Cnt, true}, {"adj", lo.Adj, true}, {"both", lo.Both, true}},
		[]scalar{{"hubs", int32(min(g.N()/8, lccHubs))}})
	var _ vertexprog.DeviceProgram = lcc

	check("cc", CCProgram{}.Device(), nil, nil)
	var _ vertexprog.DeviceProgram = CCProgram{}
}

// The device code's X_t and A_t must have the Go types' sizes; the backend
// checks this when it compiles, and this test without a GPU catches the
// obvious slips.
func TestDeviceTypeSizes(t *testing.T) {
	cases := []struct {
		name         string
		src          string
		xSize, aSize uintptr
	}{
		{"bfs", bfsProgramDeviceSource, unsafe.Sizeof(struct{}{}), unsafe.Sizeof(int32(0))},
		{"sssp", ssspProgramDeviceSource, unsafe.Sizeof(float32(0)), unsafe.Sizeof(float32(0))},
		{"pagerank", pageRankProgramDeviceSource, 8, 8},
		{"pagerank-ldbc", (&PageRankLDBCProgram[float64]{}).Device().Source, 8, 8},
		{"pagerank-ldbc float32", (&PageRankLDBCProgram[float32]{}).Device().Source, 4, 4},
		{"triangles", triangleDevice, 0, 8},
		{"lcc", lccSource(false, false), 0, 8},
		{"lcc summing hub credits", lccSource(false, true), 0, 8},
		{"lcc directed", lccSource(true, false), 0, 8},
		{"cc", ccProgramDeviceSource, 4, 4},
	}
	cTypes := map[string]uintptr{"struct X_t {};": 0, "struct vp_t_anon {};\ntypedef vp_t_anon X_t;": 0, "typedef int X_t;": 4, "typedef float X_t;": 4, "typedef double X_t;": 8,
		"typedef int A_t;": 4, "typedef float A_t;": 4, "typedef double A_t;": 8, "typedef long long A_t;": 8}
	for _, c := range cases {
		var gotX, gotA = uintptr(99), uintptr(99)
		for decl, size := range cTypes {
			if strings.Contains(c.src, decl) {
				if strings.Contains(decl, "X_t") {
					gotX = size
				} else {
					gotA = size
				}
			}
		}
		if gotX != c.xSize || gotA != c.aSize {
			t.Errorf("%s: device X_t/A_t sizes %d/%d, Go %d/%d", c.name, gotX, gotA, c.xSize, c.aSize)
		}
	}
}

// TestTriangleBlock: the device merge and the Go padding agree on the
// block of entries.
func TestTriangleBlock(t *testing.T) {
	m := regexp.MustCompile(`#define TC_BLOCK (\d+)`).FindStringSubmatch(triangleDevice)
	if m == nil || m[1] != strconv.Itoa(vertexprog.OrientationBlock) {
		t.Fatalf("device TC_BLOCK %v, vertexprog.OrientationBlock %d", m, vertexprog.OrientationBlock)
	}
}

// TestConstantArraysAreShared: an array marked Constant (its device copy
// reused between resident runs without a comparison) is the graph's
// memo, the same memory for every program prepared on the graph, so
// nothing a run writes can reach it.
func TestConstantArraysAreShared(t *testing.T) {
	dg, err := datasets.Build(&datasets.EdgeList{N: 5, Src: []int32{0, 0, 1, 2, 3}, Dst: []int32{1, 2, 2, 3, 4}}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(dg)
	progs := func() []vertexprog.DeviceProgram {
		return []vertexprog.DeviceProgram{&PageRankProgram{Damping: 0.85}, &PageRankLDBCProgram[float32]{Damping: 0.85, Iterations: 1},
			&BFSProgram{}, &SSSPProgram{}, &LCCProgram{}}
	}
	a, b := progs(), progs()
	constants := 0
	for i := range a {
		for _, p := range []vertexprog.DeviceProgram{a[i], b[i]} {
			if err := p.(vertexprog.Preparer).Prepare(g); err != nil {
				t.Fatal(err)
			}
		}
		ca, cb := a[i].Device(), b[i].Device()
		for k, arr := range ca.Arrays {
			if !arr.Constant {
				continue
			}
			constants++
			if !arr.ReadOnly {
				t.Errorf("%T: array %s is Constant but not ReadOnly", a[i], arr.Name)
			}
			if !sameSlice(arr.Data, cb.Arrays[k].Data) {
				t.Errorf("%T: Constant array %s is not shared by two programs on one graph", a[i], arr.Name)
			}
		}
	}
	if constants == 0 {
		t.Fatal("no Constant arrays found")
	}
}

// TestLCCDeviceConstants: LCC's device code and Go agree on the block of
// list entries and the copies of a hub's credit and their layout.
func TestLCCDeviceConstants(t *testing.T) {
	for name, v := range map[string]int{"LCC_BLOCK": vertexprog.OrientationBlock, "LCC_REPLICAS": lccReplicas, "LCC_HUB_PAD": lccHubPad} {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(lccDevice)
		if m == nil || m[1] != strconv.Itoa(v) {
			t.Errorf("device %s %v, Go %d", name, m, v)
		}
	}
	if lccReplicas&(lccReplicas-1) != 0 {
		t.Errorf("lccReplicas %d: the device picks a copy with a mask", lccReplicas)
	}
}
