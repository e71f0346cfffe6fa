package gen

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/datasets"
	hostgen "github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/internal/par"
)

// TestArgMatchesSource: arg lists GEN_Arg's fields in gen.cu's order, all
// 8 bytes, and the kernels Kernels names are the ones gen.cu defines.
func TestArgMatchesSource(t *testing.T) {
	body := regexp.MustCompile(`(?s)struct GEN_Arg \{(.*?)\n\};`).FindStringSubmatch(Source)
	if body == nil {
		t.Fatal("gen.cu: struct GEN_Arg not found")
	}
	var fields []string
	for _, line := range strings.Split(body[1], "\n") {
		line, _, _ = strings.Cut(line, "//")
		line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), ";"))
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "long long ") && !strings.Contains(line, "*") {
			t.Errorf("gen.cu: GEN_Arg field %q is neither a pointer nor a long long", line)
		}
		decl := line[strings.LastIndexAny(line, " *")+1:]
		if strings.HasPrefix(line, "long long ") {
			decl = strings.TrimPrefix(line, "long long ")
		}
		for _, f := range strings.Split(decl, ",") {
			fields = append(fields, strings.ToLower(strings.TrimSpace(f)))
		}
	}
	var goFields []string
	at := reflect.TypeFor[arg]()
	for i := range at.NumField() {
		f := at.Field(i)
		if f.Type.Size() != 8 {
			t.Errorf("arg.%s is %d bytes", f.Name, f.Type.Size())
		}
		goFields = append(goFields, strings.ToLower(f.Name))
	}
	if !slices.Equal(fields, goFields) {
		t.Errorf("GEN_Arg's fields\n%v\narg's\n%v", fields, goFields)
	}
	m := regexp.MustCompile(`sizeof\(GEN_Arg\) == (\d+) \* 8`).FindStringSubmatch(Source)
	if m == nil || m[1] != strconv.Itoa(len(fields)) || len((&arg{}).bytes()) != 8*len(fields) {
		t.Errorf("gen.cu asserts GEN_Arg is %v words; it has %d, arg encodes %d bytes", m, len(fields), len((&arg{}).bytes()))
	}
	var defined []string
	for _, k := range regexp.MustCompile(`extern "C" __global__ void __launch_bounds__\(GEN_THREADS\) (\w+)\(const GEN_Arg a, int \w+\)`).FindAllStringSubmatch(Source, -1) {
		defined = append(defined, k[1])
	}
	if !slices.Equal(defined, Kernels) || strings.Count(Source, "__global__") != len(Kernels) {
		t.Errorf("gen.cu defines %v (%d __global__), Kernels lists %v", defined, strings.Count(Source, "__global__"), Kernels)
	}
	for name, want := range map[string]int{"GEN_THREADS": BlockSize, "GEN_DIGIT_BITS": digitBits, "MT_N": mtN, "MT_M": mtM, "GEN_TAIL": tail} {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(Source)
		if m == nil || m[1] != strconv.Itoa(want) {
			t.Errorf("gen.cu: %s is %v, the Go side %d", name, m, want)
		}
	}
	if !strings.Contains(Source, "#define GEN_ITEMS 16 ") || tile != BlockSize*16 || warps != BlockSize/32 {
		t.Errorf("tile %d, warps %d: gen.cu's GEN_TILE and GEN_WARPS differ", tile, warps)
	}
}

// hostGraph is the graph the host generator and datasets.BuildStream make.
func hostGraph(t testing.TB, s Spec) *datasets.Graph {
	t.Helper()
	g, err := datasets.BuildStream(hostStream(t, s), s.Options)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// hostStream is the host generator's stream of s's entries.
func hostStream(t testing.TB, s Spec) *datasets.EdgeStream {
	t.Helper()
	stream := hostgen.KroneckerStream
	if s.Uniform {
		stream = hostgen.UniformStream
	}
	es, err := stream(s.Scale, s.Degree, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// hostList is the host generator's list of entries.
func hostList(t testing.TB, s Spec) *datasets.EdgeList {
	t.Helper()
	list := hostgen.Kronecker
	if s.Uniform {
		list = hostgen.Uniform
	}
	el, err := list(s.Scale, s.Degree, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return el
}

// rawMaxDegree is the most arcs a row has before loops and duplicates
// are dropped.
func rawMaxDegree(t testing.TB, s Spec) int64 {
	el := hostList(t, s)
	deg := make([]int64, el.N)
	for i, u := range el.Src {
		deg[u]++
		if v := el.Dst[i]; v != u {
			deg[v]++
		}
	}
	return slices.Max(deg)
}

// download copies a part to the host.
func download(d Device, p *Part) (rowPtr []int64, col []int32, w []float32) {
	rowPtr = make([]int64, p.Hi-p.Lo+1)
	d.DtoH(unsafe.Pointer(&rowPtr[0]), p.RowPtr, int64(len(rowPtr))*8)
	col = make([]int32, p.NNZ)
	if p.NNZ > 0 {
		d.DtoH(unsafe.Pointer(&col[0]), p.Col, p.NNZ*4)
	}
	if p.W != 0 {
		w = make([]float32, p.NNZ)
		if p.NNZ > 0 {
			d.DtoH(unsafe.Pointer(&w[0]), p.W, p.NNZ*4)
		}
	}
	return rowPtr, col, w
}

// samePart reports how part p of the graph differs from rows [p.Lo, p.Hi)
// of want, or "".
func samePart(d Device, p *Part, want *datasets.Graph) string {
	rowPtr, col, w := download(d, p)
	base := want.RowPtr[p.Lo]
	for r := p.Lo; r <= p.Hi; r++ {
		if rowPtr[r-p.Lo] != want.RowPtr[r]-base {
			return fmt.Sprintf("row %d starts at %d, want %d", r, rowPtr[r-p.Lo], want.RowPtr[r]-base)
		}
	}
	wantCol := want.Col[base:want.RowPtr[p.Hi]]
	if i := firstDiff(col, wantCol); i >= 0 {
		return fmt.Sprintf("%d arcs, want %d; first difference at arc %d", len(col), len(wantCol), i)
	}
	if (w == nil) != (want.W == nil) {
		return fmt.Sprintf("weights %v, want %v", w != nil, want.W != nil)
	}
	if w != nil {
		if i := firstDiff(w, want.W[base:want.RowPtr[p.Hi]]); i >= 0 {
			return fmt.Sprintf("weight of arc %d differs", i)
		}
	}
	return ""
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func build(t *testing.T, d Device, g *Graph, lo, hi int, o Options) *Part {
	t.Helper()
	p, err := g.Build(d, lo, hi, o)
	if err != nil {
		t.Fatalf("%s rows [%d, %d): %v", g.Name, lo, hi, err)
	}
	return p
}

func newGraph(t testing.TB, s Spec) *Graph {
	t.Helper()
	g, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func kron(scale, degree int) hostgen.GAPGraph {
	return hostgen.GAPGraph{Scale: scale, Degree: degree, Seed: hostgen.GAPSeed}
}

func urand(scale, degree int) hostgen.GAPGraph {
	return hostgen.GAPGraph{Uniform: true, Scale: scale, Degree: degree, Seed: hostgen.GAPSeed}
}

var (
	weighted = datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 9}
	keepAll  = datasets.Options{KeepSelfLoops: true, KeepDuplicates: true}
)

// TestModelMatchesHost: the kernels' algorithms (the model) make the rows
// the host's generator and builder make, for Kronecker and uniform graphs,
// weighted or not, with loops and duplicates kept or not, for the whole
// graph and for ranges of rows, sorted at once or in many chunks; and
// the parts of a partition add up to the graph's statistics.
func TestModelMatchesHost(t *testing.T) {
	cases := []Spec{
		{kron(1, 16), datasets.Options{}},
		{kron(2, 3), datasets.Options{}},
		{kron(3, 16), keepAll},
		{kron(6, 16), datasets.Options{}},
		{kron(10, 16), datasets.Options{}},
		{kron(10, 16), weighted},
		{kron(11, 7), keepAll},
		{kron(12, 5), datasets.Options{}}, // several GAP blocks, the last one short
		{urand(1, 16), datasets.Options{}},
		{urand(10, 16), datasets.Options{}},
		{urand(12, 9), keepAll},
		{urand(11, 16), weighted},
		{hostgen.GAPGraph{Scale: 9, Degree: 16, Seed: 7 | 1<<40}, datasets.Options{}},
	}
	if !testing.Short() {
		cases = append(cases, Spec{kron(16, 16), datasets.Options{}}) // the shuffle's one-draw path
	}
	for _, s := range cases {
		want := hostGraph(t, s)
		g := newGraph(t, s)
		n := g.N
		// About 8 chunks (each makes every entry again); a row's arcs are
		// sorted at once, so a chunk holds the longest.
		small := max(97, rawMaxDegree(t, s), g.M/4)
		runs := []struct {
			lo, hi int
			chunk  int64
		}{{0, n, 0}, {0, n, small}, {0, n / 3, small}, {n / 3, n, 0}, {n / 2, n/2 + 1, 0}, {n - 1, n, 0}, {n / 2, n / 2, 0}}
		if s.Scale > 12 {
			runs = runs[:2]
		}
		for i, r := range runs {
			d := newModel(1<<40, uint64(i))
			p := build(t, d, g, r.lo, r.hi, Options{MaxChunk: r.chunk})
			if diff := samePart(d, p, want); diff != "" {
				t.Errorf("%s, rows [%d, %d), chunks of %d: %s", g.Name, r.lo, r.hi, r.chunk, diff)
			}
			if r.lo == 0 && r.hi == n && p.Stats != want.Stats {
				t.Errorf("%s, chunks of %d: stats %+v, want %+v", g.Name, r.chunk, p.Stats, want.Stats)
			}
			p.Free(d)
			if d.used != 0 {
				t.Errorf("%s, rows [%d, %d): %d bytes left allocated", g.Name, r.lo, r.hi, d.used)
			}
		}
		// A partition's parts add up to the graph.
		d := newModel(1<<40, 3)
		var sum datasets.BuildStats
		var nnz int64
		for _, r := range [][2]int{{0, n / 4}, {n / 4, n / 3}, {n / 3, n}} {
			p := build(t, d, g, r[0], r[1], Options{})
			sum.SelfLoops += p.Stats.SelfLoops
			sum.Duplicates += p.Stats.Duplicates
			nnz += p.NNZ
			p.Free(d)
		}
		if sum.SelfLoops != want.Stats.SelfLoops || sum.Duplicates != want.Stats.Duplicates || nnz != want.NNZ() {
			t.Errorf("%s: the parts have %d arcs, %+v; the graph %d, %+v", g.Name, nnz, sum, want.NNZ(), want.Stats)
		}
	}
}

// TestModelShuffle: the parallel shuffle (sh_*) gives the ids that making
// the swaps one after the other gives, on both of libstdc++'s paths (two
// swaps a draw below 2^16 elements).
func TestModelShuffle(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 64, 1000, 65535, 65536, 70001} {
		targets := hostgen.ShuffleTargets(n, hostgen.GAPSeed)
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		for i := 1; i < n; i++ {
			if targets[i] < 0 || int(targets[i]) > i {
				t.Fatalf("n=%d: step %d targets %d", n, i, targets[i])
			}
			want[i], want[targets[i]] = want[targets[i]], want[i]
		}
		d := newModel(1<<40, uint64(n))
		b := &builder{d: d, g: &Graph{Name: "shuffle"}, sms: 4}
		var bufs []Ptr
		perm, err := b.shuffle(&bufs, targets)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int32, n)
		d.DtoH(unsafe.Pointer(&got[0]), perm, int64(n)*4)
		if i := firstDiff(got, want); i >= 0 {
			t.Errorf("n=%d: id %d is %d, want %d", n, i, got[i], want[i])
		}
		d.Free(perm)
		if d.used != 0 {
			t.Errorf("n=%d: %d bytes left allocated", n, d.used)
		}
	}
}

// TestModelMemory: a device with little memory sorts in chunks and gets
// the same graph; one too small for the CSR itself says so.
func TestModelMemory(t *testing.T) {
	s := Spec{kron(11, 16), datasets.Options{}}
	want := hostGraph(t, s)
	g := newGraph(t, s)
	csr := int64(g.N+1)*8 + 2*g.M*4 + int64(g.N)*4 // offsets, raw columns, ids
	d := newModel(csr+(256<<20)+2*g.M/3*bytesPerKey, 1)
	p := build(t, d, g, 0, g.N, Options{})
	if diff := samePart(d, p, want); diff != "" {
		t.Errorf("in little memory: %s", diff)
	}
	if d.launches["gen_edges"] < 3 {
		t.Errorf("gen_edges ran %d times: the arcs were sorted at once", d.launches["gen_edges"])
	}
	p.Free(d)
	_, err := g.Build(newModel(csr/2, 1), 0, g.N, Options{})
	if !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("in too little memory: %v, want ErrOutOfMemory", err)
	}
	t.Logf("in too little memory: %v", err)
}

func TestNewRejects(t *testing.T) {
	for _, s := range []Spec{
		{kron(0, 16), datasets.Options{}},
		{kron(31, 16), datasets.Options{}},
		{urand(10, 0), datasets.Options{}},
		{kron(10, 16), datasets.Options{Relabel: datasets.RelabelDegree}},
		{kron(10, 16), datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 5, WeightMax: 4}},
	} {
		if _, err := New(s); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	g := newGraph(t, Spec{kron(4, 16), datasets.Options{}})
	for _, r := range [][2]int{{-1, 3}, {5, 4}, {0, 17}} {
		if _, err := g.Build(newModel(1<<30, 1), r[0], r[1], Options{}); err == nil {
			t.Errorf("rows %v of 16: no error", r)
		}
	}
}

// TestModelHost: a whole graph copied to the host is BuildStream's graph,
// and written as .hpg from the device in pieces it is the file WriteCache
// writes from the host's.
func TestModelHost(t *testing.T) {
	defer func(p int64) { piece = p }(piece)
	piece = 1000
	for _, s := range []Spec{{kron(10, 16), weighted}, {urand(9, 16), datasets.Options{}}, {kron(9, 16), keepAll}, {kron(13, 4), datasets.Options{}}} { // (kron13: rows enough to copy on every core)
		want := hostGraph(t, s)
		g := newGraph(t, s)
		d := newModel(1<<40, 5)
		p := build(t, d, g, 0, g.N, Options{})
		h, err := g.Host(d, p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(h, want) {
			t.Errorf("%s: the host's copy differs from BuildStream's graph", g.Name)
		}
		var got, file bytes.Buffer
		if err := g.WriteCache(d, p, &got); err != nil {
			t.Fatal(err)
		}
		if err := datasets.WriteCache(&file, want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), file.Bytes()) {
			t.Errorf("%s: the .hpg written from the device differs from the host's (%d, %d bytes)", g.Name, got.Len(), file.Len())
		}
		p.Free(d)
		es := hostStream(t, s)
		for _, b := range [][2]int{{1, g.N}, {0, 37}, {g.N / 3, g.N / 2}, {g.N, g.N}} {
			p := build(t, d, g, b[0], b[1], Options{})
			h, err := g.Host(d, p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := datasets.BuildStreamRows(es, s.Options, nil, b[0], b[1])
			if err != nil {
				t.Fatal(err)
			}
			want.Name = g.Name
			if !reflect.DeepEqual(h, want) {
				t.Errorf("%s: the host's copy of rows %v differs from BuildStreamRows's", g.Name, b)
			}
			if err := g.WriteCache(d, p, &got); err == nil && b != [2]int{0, g.N} {
				t.Errorf("%s: rows %v written as the whole graph", g.Name, b)
			}
			p.Free(d)
		}
		// (parts copied each into its place of one CSR: the whole graph)
		bounds := []int{0, g.N / 3, g.N / 3, g.N}
		h = &datasets.Graph{Name: g.Name, N: g.N, RowPtr: make([]int64, g.N+1), Col: make([]int32, want.NNZ()),
			Stats: want.Stats, RepeatFree: want.RepeatFree}
		if want.W != nil {
			h.W = make([]float32, want.NNZ())
		}
		// (copied at once, as GenerateParts copies from several devices:
		// a part writes its rows' offsets only, never the word after its
		// last row, the next part's first)
		parts := make([]*Part, len(bounds)-1)
		base := make([]int64, len(parts)+1)
		for i := range parts {
			parts[i] = build(t, d, g, bounds[i], bounds[i+1], Options{})
			base[i+1] = base[i] + parts[i].NNZ
		}
		const mark = -7
		h.RowPtr[g.N] = mark
		var wg sync.WaitGroup
		for i, p := range parts {
			wg.Add(1)
			go func() { defer wg.Done(); g.HostInto(d, p, h, base[i]) }()
		}
		wg.Wait()
		if h.RowPtr[g.N] != mark {
			t.Errorf("%s: a part's copy wrote the offset after the last row", g.Name)
		}
		h.RowPtr[g.N] = base[len(parts)]
		for _, p := range parts {
			p.Free(d)
		}
		if !reflect.DeepEqual(h, want) {
			t.Errorf("%s: the parts copied into one CSR differ from BuildStream's graph", g.Name)
		}
	}
}

// TestModelCounts: Counts are the host stream's (datasets.StreamCounts).
func TestModelCounts(t *testing.T) {
	for _, s := range []Spec{{kron(11, 16), datasets.Options{}}, {urand(10, 8), keepAll}} {
		g := newGraph(t, s)
		d := newModel(1<<40, 3)
		got, err := g.Counts(d)
		if err != nil {
			t.Fatal(err)
		}
		want, err := datasets.StreamCounts(hostStream(t, s), s.Options)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the device's counts differ from the host stream's", g.Name)
		}
		if d.used != 0 {
			t.Errorf("%s: %d bytes left allocated", g.Name, d.used)
		}
	}
}

// TestModelSplit: Split's bounds are par.Split's over the raw arcs the
// host's list gives each row.
func TestModelSplit(t *testing.T) {
	for _, s := range []Spec{{kron(11, 16), datasets.Options{}}, {urand(10, 8), keepAll}} {
		g := newGraph(t, s)
		el := hostList(t, s)
		raw := make([]int64, g.N+1)
		for i, u := range el.Src {
			if v := el.Dst[i]; v != u {
				raw[u+1]++
				raw[v+1]++
			} else if s.Options.KeepSelfLoops {
				raw[u+1]++
			}
		}
		for v := range g.N {
			raw[v+1] += raw[v]
		}
		for _, parts := range []int{1, 2, 3, 8} {
			d := newModel(1<<40, 9)
			got, err := g.Split(d, parts)
			if err != nil {
				t.Fatal(err)
			}
			if want := par.Split(g.N, parts, func(i int) int64 { return raw[i] }); !slices.Equal(got, want) {
				t.Errorf("%s in %d parts: %v, want %v", g.Name, parts, got, want)
			}
			if d.used != 0 {
				t.Errorf("%s: %d bytes left allocated", g.Name, d.used)
			}
		}
	}
}

// TestModelRenumbered: rows made with Options.IDs (GAP's shuffle,
// Shuffle, composed with a renumbering) are the host stream's rows
// renumbered so (datasets.BuildStreamRows with the renumbering), their
// weights GAP's ids' (Options.Orig), or none without Orig; a uniform
// graph is refused.
func TestModelRenumbered(t *testing.T) {
	for _, s := range []Spec{{kron(10, 16), datasets.Options{}}, {kron(9, 16), keepAll}, {kron(9, 16), weighted}} {
		g := newGraph(t, s)
		d := newModel(1<<40, 7)
		raw, err := g.Counts(d)
		if err != nil {
			t.Fatal(err)
		}
		newID := datasets.DegreeOrder(&datasets.Graph{N: g.N, RowPtr: raw})
		datasets.InterleaveParts(newID, 2)
		gap, err := g.Shuffle(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(gap) != g.N {
			t.Fatalf("%s: Shuffle gave %d ids", g.Name, len(gap))
		}
		ids, orig := slices.Clone(newID), make([]int32, g.N)
		for i, v := range gap {
			ids[i] = newID[v]
		}
		for v, nv := range newID {
			orig[nv] = int32(v)
		}
		es := hostStream(t, s)
		for _, b := range [][2]int{{0, g.N / 2}, {g.N / 2, g.N}} {
			for _, withOrig := range []bool{true, false} {
				o := Options{IDs: ids}
				if withOrig {
					o.Orig = orig
				}
				p, err := g.Build(d, b[0], b[1], o)
				if err != nil {
					t.Fatal(err)
				}
				h, err := g.Host(d, p)
				p.Free(d)
				if err != nil {
					t.Fatal(err)
				}
				want := hostRows(t, es, s.Options, newID, b)
				want.Name, h.IDs = g.Name, want.IDs
				if !withOrig {
					want.W = nil // (no weights without the original ids)
				}
				if !reflect.DeepEqual(h, want) {
					t.Errorf("%s rows %v renumbered (original ids %v): the device's differ from the host stream's", g.Name, b, withOrig)
				}
			}
		}
		if d.used != 0 {
			t.Errorf("%s: %d bytes left allocated", g.Name, d.used)
		}
	}
	g := newGraph(t, Spec{urand(8, 16), datasets.Options{}})
	if _, err := g.Build(newModel(1<<40, 1), 0, g.N, Options{IDs: make([]int32, g.N)}); err == nil {
		t.Errorf("%s made renumbered: no error", g.Name)
	}
}

// hostRows is the host stream's rows b renumbered by newID.
func hostRows(t *testing.T, es *datasets.EdgeStream, opt datasets.Options, newID []int32, b [2]int) *datasets.Graph {
	t.Helper()
	g, err := datasets.BuildStreamRows(es, opt, newID, b[0], b[1])
	if err != nil {
		t.Fatal(err)
	}
	return g
}
