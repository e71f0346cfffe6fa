//go:build cgo

package run

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/apps/cdlp"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// Multiset programs on the GPU (multiset.go, multiset.cu): user programs
// of several element types, with and without a summary fold, masked
// pulls and aggregators, and CDLP, against the CPU engine, bit for bit,
// on graphs with hubs of every row class, empty rows, self loops and
// parallel arcs.

// msHubGraph has a hub of each row class and its boundaries (the chunk
// of 4- and of 8-byte keys and one more, several chunks, a warp's and a
// tiny group's limits), random arcs with parallel ones and self loops
// kept, and isolated vertices (the last tenth).
func msHubGraph(t *testing.T, directed bool, opt datasets.Options) *datasets.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(23, uint64(opt.Weights)))
	n := 60000
	el := &datasets.EdgeList{N: n, Directed: directed, Name: "hubs"}
	add := func(u, v int32) { el.Src, el.Dst = append(el.Src, u), append(el.Dst, v) }
	for h, d := range []int{41000, 8193, 8192, 4097, 4096, 513, 512, 257, 33, 32, 17, 3, 2, 1} {
		for i := 0; i < d; i++ {
			add(int32(h), int32(rng.IntN(n*9/10)))
		}
	}
	for i := 0; i < 120000; i++ {
		add(int32(rng.IntN(n*9/10)), int32(rng.IntN(n*9/10)))
	}
	opt.KeepSelfLoops, opt.KeepDuplicates = true, true
	return gputest.Build(t, el, opt)
}

// msGraphs are the graphs the device runs are compared on.
func msGraphs(t *testing.T) []testGraph {
	w := datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 9, Seed: 3}
	gs := []testGraph{
		{"hubs-directed", msHubGraph(t, true, datasets.Options{})},
		{"hubs-undirected", msHubGraph(t, false, datasets.Options{})},
		{"hubs-weighted", msHubGraph(t, true, w)},
	}
	for _, g := range testGraphs(t, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true}) {
		gs = append(gs, testGraph{g.name + "+loops+dups", g.g})
	}
	return append(gs, testGraphs(t, w)...)
}

// msSplits are the HYB gputest.Splits the device runs use: the default (the
// CSR), CUSP's rule with breakeven 0 (ELL and COO), and K = 3.
var msSplits = []hyb.Options{{}, {RelativeSpeed: 3, Breakeven: 0}, {RelativeSpeed: 1e-9, Breakeven: 0, MaxK: 3}}

// msCompare runs the program made by newP on the CPU and on the GPU
// (every split) and fails where supersteps, activity, aggregators or
// values (eq) differ; state compares the program's own state.
func msCompare[X any, K cmp.Ordered, A any, P vertexprog.MultisetProgram[X, K, A]](t *testing.T, name string, g *vertexprog.Graph,
	newP func() P, eq func(a, b X) bool, state func(cpu, gpu P) string) {
	t.Helper()
	pc := newP()
	want, err := vertexprog.RunMultiset[X, K, A](g, pc, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatalf("%s on the cpu: %v", name, err)
	}
	for _, split := range msSplits {
		pg := newP()
		got, err := vertexprog.RunMultiset[X, K, A](g, pg, vertexprog.Options{Backend: "cuda", HYB: split})
		if err != nil {
			t.Fatalf("%s on the gpu (%+v): %v", name, split, err)
		}
		what := fmt.Sprintf("%s (HYB %+v)", name, split)
		if got.Backend != "cuda" {
			t.Fatalf("%s: ran on %s", what, got.Backend)
		}
		if !slices.Equal(got.Active, want.Active) {
			t.Fatalf("%s: active %v, cpu %v", what, got.Active, want.Active)
		}
		if !slices.Equal(got.Aggregates, want.Aggregates) {
			t.Fatalf("%s: aggregates %v, cpu %v", what, got.Aggregates, want.Aggregates)
		}
		for v := range want.X {
			if !eq(got.X[v], want.X[v]) {
				t.Fatalf("%s: vertex %d is %+v, cpu %+v", what, v, got.X[v], want.X[v])
			}
		}
		if state != nil {
			if msg := state(pc, pg); msg != "" {
				t.Fatalf("%s: %s", what, msg)
			}
		}
	}
}

func TestMultisetMatchesCPU(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	for _, tg := range msGraphs(t) {
		g := vertexprog.NewGraph(tg.g)
		msCompare[msStatsX, int64, msStatsA](t, tg.name+": stats", g, func() msStats { return msStats{} },
			func(a, b msStatsX) bool { return a == b }, nil)
		msCompare[msFloatX, float64, msFloatA](t, tg.name+": float", g, func() msFloat { return msFloat{} },
			func(a, b msFloatX) bool { return a.A == b.A && canon(a.V) == canon(b.V) }, nil)
		msCompare[uint32, uint32, msMaskedA](t, tg.name+": masked", g, func() *msMasked { return &msMasked{} },
			func(a, b uint32) bool { return a == b }, func(c, d *msMasked) string {
				if !slices.Equal(c.seen, d.seen) {
					return "the state array differs"
				}
				return ""
			})
	}
}

// TestMultisetWithVptest: vptest.Compare runs a multiset adapter on every
// backend, the GPU included.
func TestMultisetWithVptest(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	n := 0
	for _, c := range vptest.Configs() {
		if c.Options.Backend == "cuda" {
			n++
		}
	}
	if n == 0 {
		t.Fatal("vptest has no cuda configuration")
	}
	for _, tg := range testGraphs(t, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true})[:4] {
		g := vertexprog.NewGraph(tg.g)
		vptest.Compare[msStatsX, msStatsA](t, g, func() *vertexprog.MultisetAdapter[msStatsX, int64, msStatsA] {
			return vertexprog.Multiset[msStatsX, int64, msStatsA](msStats{})
		}, func(_ *vertexprog.MultisetAdapter[msStatsX, int64, msStatsA], r *vertexprog.Result[msStatsX]) []msStatsX {
			if r.Backend != "cpu" && r.Backend != "cuda" {
				t.Fatalf("ran on %s", r.Backend)
			}
			return r.X
		}, func(a, b msStatsX) bool { return a == b })
	}
}

// CDLP on the GPU gives the reference's labels: ids contiguous (4-byte
// keys) and not (8-byte labels), directed and not, 0 to 10 iterations.
func TestCDLPOnDevice(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	gs := msGraphs(t)[:2]
	for _, tg := range testGraphs(t, datasets.Options{Relabel: datasets.RelabelDegree}) {
		gs = append(gs, testGraph{tg.name + "-relabelled", tg.g})
	}
	sparse := gputest.Build(t, &datasets.EdgeList{N: 6, Src: []int32{0, 4, 0, 0, 2}, Dst: []int32{4, 0, 1, 2, 5}, Directed: true,
		IDs: []int64{900, 40, 70, 10, 500, 60}}, datasets.Options{})
	gs = append(gs, testGraph{"sparse-ids", sparse})
	// Ids more than 2^32 apart (8-byte labels), negative ones too.
	for _, tg := range msGraphs(t)[:2] {
		d := *tg.g
		d.IDs = make([]int64, d.N)
		for v := range d.IDs {
			d.IDs[v] = int64(d.N-v)*3_000_000_007 - 1<<40
		}
		gs = append(gs, testGraph{tg.name + "-spread-ids", &d})
	}
	for _, tg := range gs {
		g := vertexprog.NewGraph(tg.g)
		for _, iters := range []int{0, 1, 3, 10} {
			want := reference.CDLP(tg.g, iters)
			r, err := cdlp.Run(g, iters, vertexprog.Options{Backend: "cuda"})
			if err != nil {
				t.Fatalf("%s, %d iterations: %v", tg.name, iters, err)
			}
			if r.Run.Backend != "cuda" {
				t.Fatalf("%s: ran on %s", tg.name, r.Run.Backend)
			}
			for v := range want {
				if r.Label[v] != want[v] {
					t.Fatalf("%s, %d iterations: vertex %d labelled %d, reference %d", tg.name, iters, v, r.Label[v], want[v])
				}
			}
		}
		// auto picks the GPU
		r, err := cdlp.Run(g, 2, vertexprog.Options{})
		if err != nil || r.Run.Backend != "cuda" {
			t.Fatalf("%s: auto: %v on %v", tg.name, err, r)
		}
	}
}

// msCodes are the multiset sources the compile tests build.
func msCodes(t *testing.T) []struct {
	name string
	code vertexprog.DeviceCode
	job  *driver.DeviceJob
} {
	g := smallGraph(t)
	contiguous := &cdlp.Program{Iterations: 10}
	if err := contiguous.Prepare(g); err != nil {
		t.Fatal(err)
	}
	sparse := &cdlp.Program{Iterations: 10}
	if err := sparse.Prepare(vertexprog.NewGraph(gputest.Build(t, &datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, IDs: []int64{7, 3 << 40, 5}}, datasets.Options{}))); err != nil {
		t.Fatal(err)
	}
	masked := &msMasked{}
	masked.Prepare(g)
	job := func(x, a int, aggs []vertexprog.Aggregator) *driver.DeviceJob {
		return &driver.DeviceJob{XSize: x, ASize: a, Spec: vertexprog.Spec{Aggregators: aggs}}
	}
	return []struct {
		name string
		code vertexprog.DeviceCode
		job  *driver.DeviceJob
	}{
		{"cdlp (vertex keys)", contiguous.Device(), job(8, 16, nil)},
		{"cdlp (labels)", sparse.Device(), job(8, 16, nil)},
		{"stats", msStats{}.Device(), job(32, 24, nil)},
		{"float", msFloat{}.Device(), job(40, 32, nil)},
		{"masked", masked.Device(), job(4, 12, masked.Spec().Aggregators)},
	}
}

// The multiset kernels compile with every kind of program to PTX, and
// to machine code (ptxas: registers and shared memory within bounds)
// for the device's architecture or sm_90, with the chunk of a device of
// large shared memory and of one of 48 KB.
func TestCompileMultiset(t *testing.T) {
	needNVRTC(t)
	archs := testArchs()
	for _, arch := range archs {
		for i, c := range msCodes(t) {
			l, err := layoutState(&c.code)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunkBytes := range []int{32768, 8192} {
				if chunkBytes != 32768 && i > 0 {
					continue
				}
				src := multisetProgram(&c.code, l, multisetFeatures(c.job), chunkBytes)
				ptx, _, err := jit.PTX(src, arch)
				if err != nil {
					t.Fatalf("%s, %s: %v", arch, c.name, err)
				}
				for _, k := range multisetKernels {
					if !strings.Contains(ptx, ".entry "+k+"(") {
						t.Errorf("%s, %s: PTX lacks kernel %s", arch, c.name, k)
					}
				}
				// (make cuda-regs: the PTX for ptxas)
				if dir := os.Getenv("HPGRAPH_PTX_DIR"); dir != "" && chunkBytes == 32768 {
					name := "multiset_" + strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(c.name) + "." + arch + ".ptx"
					if err := os.WriteFile(filepath.Join(dir, name), []byte(ptx), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if arch != archs[len(archs)-1] {
					continue
				}
				opts := jit.Options(arch)
				opts[0] = "--gpu-architecture=" + jit.SM(arch)
				if _, err := jit.Compile(src, opts, true); err != nil {
					t.Fatalf("%s, %s, machine code: %v", arch, c.name, err)
				}
			}
		}
	}
}

// TestMultisetKernelNames: multisetKernels lists exactly multiset.cu's
// kernels (and the layout check), and the row classes' kernels are
// among them.
func TestMultisetKernelNames(t *testing.T) {
	re := regexp.MustCompile(`extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(`)
	found := []string{"vp_state_layout"}
	for _, m := range re.FindAllStringSubmatch(multisetSource, -1) {
		found = append(found, m[1])
	}
	slices.Sort(found)
	if names := slices.Sorted(slices.Values(multisetKernels)); !slices.Equal(found, names) {
		t.Fatalf("multiset.cu defines %v, multisetKernels lists %v", found, names)
	}
	for _, k := range msClassKernels {
		if !slices.Contains(multisetKernels, k) {
			t.Errorf("class kernel %s is not in multisetKernels", k)
		}
	}
	for name, v := range map[string]int{"MS_BLOCK": rt.BlockSize, "MS_MK": msMergeK, "MS_HUB_PART": msHubPart} {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(multisetSource)
		if m == nil || m[1] != strconv.Itoa(v) {
			t.Errorf("multiset.cu's %s is %v; Go has %d", name, m, v)
		}
	}
}

// Every row goes to exactly one class, by its length, in increasing row
// order within the class, and hub rows' chunks cover them.
func TestMultisetBins(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sc := range [][2]int{{512, 4096}, {1024, 8192}, {512, 1024}, {1024, 2048}} {
		slice, chunk := sc[0], sc[1]
		for _, n := range []int{0, 1, 7, 5000, 70000} {
			deg := make([]int32, n)
			for v := range deg {
				switch rng.IntN(6) {
				case 0:
					deg[v] = 0
				case 1:
					deg[v] = int32(rng.IntN(33))
				case 2:
					deg[v] = int32(rng.IntN(600))
				case 3:
					deg[v] = int32(rng.IntN(chunk + 2))
				case 4:
					deg[v] = []int32{1, 2, 3, 4, 5, 16, 17, 32, 33, 64, 65, 512, 513, int32(chunk), int32(chunk) + 1}[rng.IntN(15)]
				default:
					if rng.IntN(50) == 0 {
						deg[v] = int32(chunk + rng.IntN(9*chunk))
					}
				}
			}
			b := makeMsBins(deg, 0, len(deg), slice, chunk)
			if len(b.rows) != n || b.first[0] != 0 || b.first[msClasses] != n {
				t.Fatalf("%d rows: %d binned, first %v", n, len(b.rows), b.first)
			}
			seen := make([]bool, n)
			for c := 0; c < msClasses; c++ {
				rows := b.rows[b.first[c]:b.first[c+1]]
				if !slices.IsSorted(rows) {
					t.Fatalf("class %d not in row order", c)
				}
				lo, hi := msLimits(c, slice, chunk)
				for _, v := range rows {
					if seen[v] {
						t.Fatalf("row %d twice", v)
					}
					seen[v] = true
					if d := int(deg[v]); d < lo || d > hi {
						t.Fatalf("row %d of length %d in class %d [%d, %d]", v, d, c, lo, hi)
					}
				}
			}
			hubs := b.rows[b.first[msHub]:]
			if len(b.hubFirst) != len(hubs)+1 || int64(len(b.chunkHub)) != b.chunks() {
				t.Fatalf("%d hubs, %d hub offsets, %d chunks of %d", len(hubs), len(b.hubFirst), len(b.chunkHub), b.chunks())
			}
			most := int64(0)
			for h, v := range hubs {
				k := b.hubFirst[h+1] - b.hubFirst[h]
				if k*int64(chunk) < int64(deg[v]) || (k-1)*int64(chunk) >= int64(deg[v]) {
					t.Fatalf("hub %d of length %d has %d chunks of %d", v, deg[v], k, chunk)
				}
				for c := b.hubFirst[h]; c < b.hubFirst[h+1]; c++ {
					if b.chunkHub[c] != int32(h) {
						t.Fatalf("chunk %d names hub %d, not %d", c, b.chunkHub[c], h)
					}
				}
				most = max(most, k)
			}
			if 1<<b.levels < most || (b.levels > 0 && 1<<(b.levels-1) >= most) {
				t.Fatalf("%d merge levels for %d chunks", b.levels, most)
			}
		}
	}
}

// msLimits are the row lengths of class c.
func msLimits(c, slice, chunk int) (lo, hi int) {
	switch {
	case c == msTiny:
		return 0, 1
	case c < msWarp:
		g := 1 << (c - msTiny)
		return g/2 + 1, g
	case c < msBlock:
		e := 2 << (c - msWarp)
		if 32*e > slice {
			return 1, 0 // (empty)
		}
		return 16*e + 1, 32 * e
	case c < msHub:
		cp := msCap(c)
		if cp > chunk || cp <= slice {
			return 1, 0
		}
		return cp/2 + 1, cp
	}
	return chunk + 1, math.MaxInt32
}

// The chunk size and shared memory fit the device class they are made
// for, and the sort key's chunk is what ms_info reports (checked on a
// GPU in startMultiset).
func TestMultisetChunks(t *testing.T) {
	for _, optin := range []int{48 << 10, 99 << 10, 227 << 10} {
		cb := msChunkBytes(optin)
		for _, key := range []int{4, 8} {
			chunk := cb / key
			if chunk%1024 != 0 || chunk&(chunk-1) != 0 || chunk%msHubPart != 0 {
				t.Errorf("shared %d, %d-byte keys: chunk %d", optin, key, chunk)
			}
			// (a few hundred bytes of static shared memory besides)
			if s := msShared(key, chunk); s+1024 > optin {
				t.Errorf("shared %d, %d-byte keys: %d bytes of dynamic shared memory", optin, key, s)
			}
		}
	}
}

// TestPrebuiltCoversMultisetApps rebuilds the multiset kernel source of
// each built-in multiset app (CDLP, with contiguous ids and without) as
// a run compiles it on an sm_90 device (227 KB of shared memory a block)
// and checks that its prebuilt image is there: a change to multiset.cu,
// prelude.cu, mat.cu or the app's device code without
// scripts/gpu-prebuild.sh fails here, not as a second of NVRTC on every
// fresh machine.
func TestPrebuiltCoversMultisetApps(t *testing.T) {
	for _, c := range msCodes(t)[:2] {
		l, err := layoutState(&c.code)
		if err != nil {
			t.Fatal(err)
		}
		src := multisetProgram(&c.code, l, multisetFeatures(c.job), msChunkBytes(227<<10))
		needPrebuilt(t, c.name, src)
	}
}

// msRegions is a user multiset program for the hub path's edge cases,
// with 4-byte (uint32) or 8-byte (int64) elements: it always gathers
// from the frontier only (neither GatherAll nor idempotent) and records
// every distinct value and count of a row, in order, in a hash. On
// msRegionGraph its hubs' chunks have no element (every neighbour
// masked), one value (the largest key, which the sort's padding equals),
// all distinct values, and a mix.
type msRegions[K uint32 | int64] struct{}

type msRegionX struct {
	Val            int64
	Distinct, Size int32
	Hash           uint64
}

type msRegionA struct {
	Distinct, Size int32
	Hash           uint64
}

// The regions of msRegionGraph: region i is vertices [msRegion0 +
// i*msRegionLen, msRegion0 + (i+1)*msRegionLen).
const (
	msRegion0   = 16
	msRegionLen = 8192
)

// value is vertex v's element in msRegionGraph: region 0 (inactive at
// first) distinct values, region 1 one value whose key is the largest
// (the sort's padding), region 2 distinct values, region 3 half distinct
// and half of five values, region 4's first half one other value, the
// rest three values.
func (msRegions[K]) value(v int32) int64 {
	r := -1
	if v >= msRegion0 {
		r = int(v-msRegion0) / msRegionLen
	}
	switch r {
	case 0:
		return int64(v)
	case 1:
		if unsafe.Sizeof(K(0)) == 4 {
			return math.MaxUint32
		}
		return math.MaxInt64
	case 2:
		return int64(v)*7 - 1<<40
	case 3:
		if v%2 == 1 {
			return int64(v)
		}
		return int64(v % 5)
	case 4:
		if int(v-msRegion0)%msRegionLen < msRegionLen/2 {
			return 12345
		}
	}
	return int64(v % 3)
}

func (msRegions[K]) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, MaxIterations: 4}
}

func (p msRegions[K]) Init(v int32, _ *vertexprog.Step) (msRegionX, bool) {
	return msRegionX{Val: p.value(v)}, v < msRegion0 || v >= msRegion0+msRegionLen
}

func (msRegions[K]) Element(_, _ int32, xu msRegionX, _ float32) K { return K(xu.Val) }

func msRegionHash(values []uint64, counts []int) uint64 {
	h := uint64(1469598103934665603)
	for i, x := range values {
		h = h*1000003 ^ x ^ uint64(uint32(counts[i]))<<32
	}
	return h
}

func (msRegions[K]) Summarize(_ int32, b vertexprog.Bag[K]) msRegionA {
	vals := make([]uint64, len(b.Values))
	for i, x := range b.Values {
		vals[i] = uint64(x)
	}
	return msRegionA{Distinct: int32(len(b.Values)), Size: int32(b.Size), Hash: msRegionHash(vals, b.Counts)}
}

func (msRegions[K]) Update(v int32, a msRegionA, x *msRegionX, _ *vertexprog.Step) bool {
	x.Distinct, x.Size, x.Hash = a.Distinct, a.Size, a.Hash
	return a.Size > 0 && (a.Hash^uint64(v))&1 != 0
}

func (msRegions[K]) Device() vertexprog.DeviceCode {
	k := "long long"
	if unsafe.Sizeof(K(0)) == 4 {
		k = "unsigned"
	}
	return vertexprog.DeviceCode{Source: "typedef " + k + ` K_t;
struct X_t { long long val; int distinct, size; unsigned long long hash; };
struct A_t { int distinct, size; unsigned long long hash; };
struct State {};
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return (K_t)xu.val; }
__device__ A_t vp_summarize(int v, const K_t* values, const int* counts, int distinct, int size, const State& s) {
  A_t a;
  a.distinct = distinct;
  a.size = size;
  unsigned long long h = 1469598103934665603ULL;
  for (int i = 0; i < distinct; i++) h = (h * 1000003ULL) ^ (unsigned long long)values[i] ^ ((unsigned long long)(unsigned)counts[i] << 32);
  a.hash = h;
  return a;
}
__device__ bool vp_update(int v, A_t a, X_t* x, const State& s, Step& st) {
  x->distinct = a.distinct;
  x->size = a.size;
  x->hash = a.hash;
  return a.size > 0 && ((a.hash ^ (unsigned long long)v) & 1) != 0;
}
`}
}

// msRegionGraph is undirected, its rows sorted, so that a hub's chunks
// are ranges of its neighbours: hub 0 has regions 0 to 3 and 100 more (5
// chunks of 4-byte keys, 9 of 8-byte ones), hub 1 regions 1 and 2 and
// one more (3 chunks, 5), hub 2 regions 0 and 1 (2 chunks, 4: the first
// half with every neighbour masked at first), hub 3 region 0 twice
// (parallel arcs: 2 chunks, 4, every one masked at first). Rows 4 to 9
// are of one value or nearly, where the sort stops early: 4 (3000, one
// value), 5 (2048: two values, each a whole slice), 6 (8192: two values,
// each a half, so that each warp of a block sees both), 7 (700, one
// value), 8 (301: two values, one of them once), 9 (100, one value).
// Random edges join the rest.
func msRegionGraph(t *testing.T) *datasets.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 8))
	n := msRegion0 + 5*msRegionLen + 1000
	el := &datasets.EdgeList{N: n, Name: "regions"}
	add := func(u, v int) { el.Src, el.Dst = append(el.Src, int32(u)), append(el.Dst, int32(v)) }
	r := func(i int) int { return msRegion0 + i*msRegionLen }
	for u := r(0); u < r(4)+100; u++ {
		add(0, u)
	}
	for u := r(1); u <= r(3); u++ {
		add(1, u)
	}
	for u := r(0); u < r(2); u++ {
		add(2, u)
	}
	for i := 0; i < 2; i++ {
		for u := r(0); u < r(1); u++ {
			add(3, u)
		}
	}
	for i, ns := range [][2]int{{3000, 0}, {1024, 1024}, {4096, 4096}, {700, 0}, {300, 1}, {0, 100}} {
		for u := r(1); u < r(1)+ns[0]; u++ {
			add(4+i, u)
		}
		for u := r(4); u < r(4)+ns[1]; u++ {
			add(4+i, u)
		}
	}
	for i := 0; i < 60000; i++ {
		add(msRegion0+rng.IntN(n-msRegion0), msRegion0+rng.IntN(n-msRegion0))
	}
	return gputest.Build(t, el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true})
}

// TestMultisetHubRegions: hub rows whose chunks have no element, one
// value, all distinct ones and a mix, of 2, 3, 4, 5 and 9 chunks, with
// 4- and 8-byte elements, a masked pull, and CDLP, against the CPU.
func TestMultisetHubRegions(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	d := msRegionGraph(t)
	g := vertexprog.NewGraph(d)
	eq := func(a, b msRegionX) bool { return a == b }
	msCompare[msRegionX, uint32, msRegionA](t, "regions (4-byte)", g, func() msRegions[uint32] { return msRegions[uint32]{} }, eq, nil)
	msCompare[msRegionX, int64, msRegionA](t, "regions (8-byte)", g, func() msRegions[int64] { return msRegions[int64]{} }, eq, nil)
	for _, iters := range []int{1, 2, 10} {
		want := reference.CDLP(d, iters)
		r, err := cdlp.Run(g, iters, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatalf("cdlp, %d iterations: %v", iters, err)
		}
		for v := range want {
			if r.Label[v] != want[v] {
				t.Fatalf("cdlp, %d iterations: vertex %d labelled %d, reference %d", iters, v, r.Label[v], want[v])
			}
		}
	}
}
