//go:build cgo

package run

import (
	"cmp"
	"embed"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

//go:embed prelude.cu
var preludeSource string

// The kernel template is kernels.cu and its parts, one concern a file
// (kernels.cu's header lists them), joined in order, each without its
// header, then its headers spliced in (jit.Expand: scan.cuh, and read.cuh,
// which multiset.cu shares).
var (
	//go:embed kernels.cu
	kernelsMain string
	//go:embed kernels_init.cu
	kernelsInit string
	//go:embed kernels_pull.cu
	kernelsPull string
	//go:embed kernels_frontier.cu
	kernelsFrontier string
	//go:embed kernels_tiles.cu
	kernelsTiles string
	//go:embed kernels_push.cu
	kernelsPush string
	//go:embed kernels_loop.cu
	kernelsLoop string
	//go:embed kernels_parts.cu
	kernelsParts string

	kernelSource = jit.MustExpand("hpgraph_kernels.cu", jit.WithoutHeader(kernelsMain)+jit.WithoutHeader(kernelsInit)+jit.WithoutHeader(kernelsPull)+
		jit.WithoutHeader(kernelsFrontier)+jit.WithoutHeader(kernelsTiles)+jit.WithoutHeader(kernelsPush)+jit.WithoutHeader(kernelsLoop)+jit.WithoutHeader(kernelsParts), headers)
)

// kernelsReduce follows the template for a program that declares
// Spec.Reductions (features.Reds); other programs' sources, and their
// images, are as without it.
//
//go:embed kernels_reduce.cu
var kernelsReduce string

// headers are the run layer's own headers (read.cuh).
//
//go:embed *.cuh
var headers embed.FS

//go:embed mat.cu
var matSource string

// features are the compile-time switches of one kernel build.
type features struct {
	XSize, ASize      int
	HasWants, HasDone bool
	Priority          bool   // Spec.Delta > 0: vp_loop defers by vp_priority (VP_HAS_PRIORITY)
	Texture           bool   // bitmasks through texture objects
	TextureX          bool   // X through a texture object
	Unroll            int    // pull entries a thread loads at a time (VP_UNROLL; 0: the template's 4)
	Stream            bool   // pulls load the matrix evict-first (VP_STREAM)
	Probe             bool   // vp_loop prints its phases' cycles, vp_pull_tiles records its tiles' times (VP_PROBE)
	LoopList          int    // vp_loop's touched list capacity before rows spill (VP_LOOP_LIST; 0: VP_LOOP_CAP)
	TileChunk         int    // vp_pull_tiles' groups of 32 entries a chunk (VP_TILE_CHUNK; 0: build.TileChunkFor)
	ApplyRows         int    // rows a thread of vp_apply_pull takes at a time (VP_APPLY_ROWS; 0: applyRowsDefault)
	Aggs              string // the aggregators' ops (driver.Aggregator), each followed by a comma (VP_AGG_OPS)
	Reds, RedsFinite  string // Spec.Reductions' ops (driver.Reduce) and whether each is of finite values (1 or 0), each followed by a comma (VP_RED_OPS, VP_RED_FINITE)
}

func (f features) applyRows() int { return cmp.Or(f.ApplyRows, applyRowsDefault) }

// aggOps is Spec.Aggregators as features.Aggs.
func aggOps(aggs []driver.Aggregator) string {
	var b strings.Builder
	for _, a := range aggs {
		fmt.Fprintf(&b, "%d,", int(a))
	}
	return b.String()
}

// redOps is Spec.Reductions as features.Reds and RedsFinite.
func redOps(rs []driver.Reduction) (ops, finite string) {
	var o, f strings.Builder
	for _, r := range rs {
		fin := 0
		if r.Finite {
			fin = 1
		}
		fmt.Fprintf(&o, "%d,", int(r.Op))
		fmt.Fprintf(&f, "%d,", fin)
	}
	return o.String(), f.String()
}

// moduleKernels are the kernels of a module built with f: kernelNames,
// and vp_reduce_values where the program declares reductions.
func moduleKernels(f features) []string {
	if f.Reds == "" {
		return kernelNames
	}
	return append(slices.Clip(kernelNames), reduceKernel)
}

// reduceKernel is kernels_reduce.cu's kernel.
const reduceKernel = "vp_reduce_values"

// elemType describes a state array's element or a scalar's type.
type elemType struct {
	size  int
	cType string // as CUDA spells it
	goTyp string
}

var elemTypes = map[reflect.Kind]elemType{
	reflect.Int32:   {4, "int", "int32"},
	reflect.Uint32:  {4, "unsigned int", "uint32"},
	reflect.Int64:   {8, "long long", "int64"},
	reflect.Uint64:  {8, "unsigned long long", "uint64"},
	reflect.Float32: {4, "float", "float32"},
	reflect.Float64: {8, "double", "float64"},
}

// stateArray is a DeviceArray resolved to raw memory.
type stateArray struct {
	name     string
	elem     elemType
	ptr      unsafe.Pointer // the Go slice's first element (nil when empty)
	bytes    int64
	readOnly bool
	constant bool // DeviceArray.Constant
	scratch  bool // DeviceArray.Scratch: zeroed on the device, not copied back
	sum      bool // DeviceArray.Sum: a partitioned run adds up the parts' additions (parts_sums.go)
	// orient, part: the array is that part of an Orientation, which the
	// device builds (orientDev), or, after orientOnHost, the host.
	orient *driver.Orientation
	part   driver.OrientationPart
}

// stateLayout is the State struct argument: one pointer per array, then
// the scalars, laid out as a C compiler does.
type stateLayout struct {
	arrays  []stateArray
	offsets []int // of arrays, then scalars
	scalars []scalarValue
	size    int
}

type scalarValue struct {
	name string
	elem elemType
	bits uint64
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// layoutState checks the program's arrays and scalars and lays out State.
func layoutState(code *driver.DeviceCode) (*stateLayout, error) {
	l := &stateLayout{}
	off, align := 0, 1
	place := func(size int) int {
		off = (off + size - 1) / size * size
		o := off
		off += size
		align = max(align, size)
		return o
	}
	seen := map[string]bool{}
	for i, a := range code.Arrays {
		if !identRE.MatchString(a.Name) || seen[a.Name] {
			return nil, fmt.Errorf("cuda: DeviceCode.Arrays[%d]: %q is not a C identifier, or is repeated", i, a.Name)
		}
		seen[a.Name] = true
		if a.Orientation != nil {
			if a.Data != nil || !a.ReadOnly || a.Part < driver.OrientationDeg || a.Part > driver.OrientationBoth ||
				(a.Part >= driver.OrientationRank && !a.Orientation.Ranked) {
				return nil, fmt.Errorf("cuda: DeviceCode.Arrays[%d] (%s): an Orientation's array is ReadOnly, has no Data and names a Part (Rank and Both: of a ranked one)", i, a.Name)
			}
			et := elemTypes[reflect.Int32]
			switch a.Part {
			case driver.OrientationOff:
				et = elemTypes[reflect.Int64]
			case driver.OrientationBoth:
				et = elemTypes[reflect.Uint32]
			}
			l.arrays = append(l.arrays, stateArray{name: a.Name, elem: et, readOnly: true, orient: a.Orientation, part: a.Part})
			l.offsets = append(l.offsets, place(8))
			continue
		}
		v := reflect.ValueOf(a.Data)
		if v.Kind() != reflect.Slice {
			return nil, fmt.Errorf("cuda: DeviceCode.Arrays[%d] (%s) is a %T, not a slice", i, a.Name, a.Data)
		}
		et, ok := elemTypes[v.Type().Elem().Kind()]
		if !ok {
			return nil, fmt.Errorf("cuda: DeviceCode.Arrays[%d] (%s) is a %T; state arrays are []int32, []uint32, []int64, []uint64, []float32 or []float64", i, a.Name, a.Data)
		}
		if a.Scratch && a.ReadOnly {
			return nil, fmt.Errorf("cuda: DeviceCode.Arrays[%d] (%s): a Scratch array is written by the device code, not ReadOnly", i, a.Name)
		}
		sa := stateArray{name: a.Name, elem: et, bytes: int64(v.Len()) * int64(et.size), readOnly: a.ReadOnly, constant: a.ReadOnly && a.Constant, scratch: a.Scratch, sum: a.Sum}
		if v.Len() > 0 {
			sa.ptr = v.UnsafePointer()
		}
		l.arrays = append(l.arrays, sa)
		l.offsets = append(l.offsets, place(8))
	}
	for i, s := range code.Scalars {
		if !identRE.MatchString(s.Name) || seen[s.Name] {
			return nil, fmt.Errorf("cuda: DeviceCode.Scalars[%d]: %q is not a C identifier, or is repeated", i, s.Name)
		}
		seen[s.Name] = true
		sv := scalarValue{name: s.Name}
		switch x := s.Value.(type) {
		case int32:
			sv.elem, sv.bits = elemTypes[reflect.Int32], uint64(uint32(x))
		case uint32:
			sv.elem, sv.bits = elemTypes[reflect.Uint32], uint64(x)
		case int64:
			sv.elem, sv.bits = elemTypes[reflect.Int64], uint64(x)
		case uint64:
			sv.elem, sv.bits = elemTypes[reflect.Uint64], x
		case float32:
			sv.elem, sv.bits = elemTypes[reflect.Float32], uint64(math.Float32bits(x))
		case float64:
			sv.elem, sv.bits = elemTypes[reflect.Float64], math.Float64bits(x)
		default:
			return nil, fmt.Errorf("cuda: DeviceCode.Scalars[%d] (%s) is a %T; scalars are int32, uint32, int64, uint64, float32 or float64", i, s.Name, s.Value)
		}
		l.scalars = append(l.scalars, sv)
		l.offsets = append(l.offsets, place(sv.elem.size))
	}
	l.size = (off + align - 1) / align * align
	return l, nil
}

// bytes is the State argument with the arrays at device addresses ptrs.
func (l *stateLayout) bytes(ptrs []uint64) []byte {
	b := make([]byte, max(8, l.size))
	for i, p := range ptrs {
		binary.LittleEndian.PutUint64(b[l.offsets[i]:], p)
	}
	for i, s := range l.scalars {
		o := l.offsets[len(l.arrays)+i]
		if s.elem.size == 4 {
			binary.LittleEndian.PutUint32(b[o:], uint32(s.bits))
		} else {
			binary.LittleEndian.PutUint64(b[o:], s.bits)
		}
	}
	return b
}

// checks are static_asserts that the program's State, X_t and A_t match
// what the host passes, so a mismatch is a compile error naming the
// member rather than wrong results.
func (l *stateLayout) checks(f features) string {
	var b strings.Builder
	b.WriteString(`template <class A, class B> struct vp_same { enum { value = 0 }; };
template <class A> struct vp_same<A, A> { enum { value = 1 }; };
template <class T> struct vp_bare { typedef T type; };
template <class T> struct vp_bare<const T> { typedef T type; };
template <class T> struct vp_bare<volatile T> { typedef T type; };
template <class T> struct vp_bare<const volatile T> { typedef T type; };
template <class T> struct vp_pointee { typedef void type; };
template <class T> struct vp_pointee<T*> { typedef typename vp_bare<T>::type type; };
template <class T> struct vp_pointee<T* const> { typedef typename vp_bare<T>::type type; };
template <class T> struct vp_pointee<T* __restrict__> { typedef typename vp_bare<T>::type type; };
template <class T> struct vp_pointee<T* const __restrict__> { typedef typename vp_bare<T>::type type; };
`)
	if f.XSize == 0 {
		b.WriteString("static_assert(sizeof(X_t) <= 1, \"hpgraph: the Go program's X has no bytes (struct{}): X_t must be an empty struct\");\n")
	} else {
		fmt.Fprintf(&b, "static_assert(sizeof(X_t) == %d, \"hpgraph: X_t must have the %d bytes of the Go program's X, laid out alike\");\n", f.XSize, f.XSize)
	}
	fmt.Fprintf(&b, "static_assert(sizeof(A_t) == %d, \"hpgraph: A_t must have the %d bytes of the Go program's accumulator, laid out alike\");\n", f.ASize, f.ASize)
	if len(l.offsets) == 0 {
		b.WriteString("static_assert(sizeof(State) == 1, \"hpgraph: DeviceCode has no Arrays or Scalars, so State must be empty: struct State {};\");\n")
	} else {
		fmt.Fprintf(&b, "static_assert(sizeof(State) == %d, \"hpgraph: State must be %d bytes: one pointer per DeviceCode.Arrays entry, then one member per DeviceCode.Scalars entry, in order, and nothing else\");\n", l.size, l.size)
	}
	for _, a := range l.arrays {
		fmt.Fprintf(&b, "static_assert(vp_same<vp_pointee<decltype(State::%s)>::type, %s>::value, \"hpgraph: State member %s must be a %s* (the Go slice is []%s)\");\n",
			a.name, a.elem.cType, a.name, a.elem.cType, a.elem.goTyp)
	}
	for _, s := range l.scalars {
		fmt.Fprintf(&b, "static_assert(vp_same<vp_bare<decltype(State::%s)>::type, %s>::value, \"hpgraph: State member %s must be a %s (the Go value is a %s)\");\n",
			s.name, s.elem.cType, s.name, s.elem.cType, s.elem.goTyp)
	}
	// Member offsets are not constant expressions without offsetof, which
	// NVRTC lacks: a kernel reports them and the host compares (layoutErr).
	b.WriteString("extern \"C\" __global__ void vp_state_layout(unsigned long long* out) {\n")
	if len(l.offsets) > 0 {
		b.WriteString("  const State* st = reinterpret_cast<const State*>(out);\n")
	}
	for i, a := range l.arrays {
		fmt.Fprintf(&b, "  out[%d] = (const char*)&st->%s - (const char*)st;\n", i, a.name)
	}
	for i, s := range l.scalars {
		fmt.Fprintf(&b, "  out[%d] = (const char*)&st->%s - (const char*)st;\n", len(l.arrays)+i, s.name)
	}
	fmt.Fprintf(&b, "  out[%d] = sizeof(State);\n}\n", len(l.offsets))
	return b.String()
}

// layoutErr compares the offsets vp_state_layout reported (then the
// size) with the layout the host passes.
func (l *stateLayout) layoutErr(got []uint64) error {
	for i, o := range l.offsets {
		if got[i] != uint64(o) {
			name, what := "", ""
			if i < len(l.arrays) {
				name, what = l.arrays[i].name, fmt.Sprintf("DeviceCode.Arrays[%d]", i)
			} else {
				name, what = l.scalars[i-len(l.arrays)].name, fmt.Sprintf("DeviceCode.Scalars[%d]", i-len(l.arrays))
			}
			return fmt.Errorf("%w: State member %s (%s) is at byte %d of State; the backend passes it at byte %d: State's members must be the Arrays, then the Scalars, in order",
				jit.ErrCompile, name, what, got[i], o)
		}
	}
	return nil
}

// orientOnHost makes l's Orientation arrays host arrays
// (Orientation.Build), copied in like any constant array: for a run whose
// gather matrix is not the graph's Neighbors, from which the device builds
// them.
func (l *stateLayout) orientOnHost() {
	for i := range l.arrays {
		a := &l.arrays[i]
		if a.orient == nil {
			continue
		}
		v := reflect.ValueOf(driver.DeviceArray{Orientation: a.orient, Part: a.part}.Slice())
		a.bytes, a.ptr, a.constant, a.orient = int64(v.Len())*int64(a.elem.size), nil, true, nil
		if v.Len() > 0 {
			a.ptr = v.UnsafePointer()
		}
	}
}

// orientations reports which kinds of Orientation (build.OrientKind) l's
// arrays name.
func (l *stateLayout) orientations() (kinds [3]bool) {
	for _, a := range l.arrays {
		if a.orient != nil {
			kinds[build.OrientKind(a.orient)] = true
		}
	}
	return
}

// sourceKey is what a run's kernel source depends on (buildSource): the
// program's snippet, whether it defines vp_init, its State's checks and
// the features.
type sourceKey struct {
	code   string
	init   bool
	checks string
	f      features
}

// keyOf is the sourceKey of buildSource(code, l, f).
func keyOf(code *driver.DeviceCode, l *stateLayout, f features) sourceKey {
	return sourceKey{code: code.Source, init: code.Init, checks: l.checks(f), f: f}
}

// buildSource splices a program's snippet into the kernel template.
func buildSource(code *driver.DeviceCode, l *stateLayout, f features) string {
	var b strings.Builder
	b01 := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	fmt.Fprintf(&b, "#define VP_XSIZE %d\n#define VP_ASIZE %d\n#define VP_HAS_WANTS %d\n#define VP_HAS_DONE %d\n#define VP_HAS_PRIORITY %d\n#define VP_TEXTURE %d\n#define VP_TEXTURE_X %d\n",
		f.XSize, f.ASize, b01(f.HasWants), b01(f.HasDone), b01(f.Priority), b01(f.Texture), b01(f.TextureX))
	if f.Unroll > 0 {
		fmt.Fprintf(&b, "#define VP_UNROLL %d\n", f.Unroll)
	}
	fmt.Fprintf(&b, "#define VP_STREAM %d\n#define VP_PROBE %d\n", b01(f.Stream), b01(f.Probe))
	if code.Init {
		b.WriteString("#define VP_HAS_INIT 1\n") // (the program defines vp_init)
	}
	if f.LoopList > 0 {
		fmt.Fprintf(&b, "#define VP_LOOP_LIST %d\n", f.LoopList)
	}
	fmt.Fprintf(&b, "#define VP_TILE_CHUNK %d\n", cmp.Or(f.TileChunk, build.TileChunkFor(f.ASize)))
	fmt.Fprintf(&b, "#define VP_APPLY_ROWS %d\n", f.applyRows())
	fmt.Fprintf(&b, "#define VP_NAGG %d\n#define VP_AGG_OPS %s\n", strings.Count(f.Aggs, ","), f.Aggs)
	writeProgram(&b, code, l, f)
	b.WriteString("#line 1 \"hpgraph_kernels.cu\"\n")
	b.WriteString(kernelSource)
	if f.Reds != "" {
		fmt.Fprintf(&b, "#define VP_NRED %d\n#define VP_RED_OPS %s\n#define VP_RED_FINITE %s\n", strings.Count(f.Reds, ","), f.Reds, f.RedsFinite)
		b.WriteString("#line 1 \"hpgraph_kernels_reduce.cu\"\n")
		b.WriteString(jit.WithoutHeader(kernelsReduce))
	}
	return b.String()
}

// writeProgram writes what a program's kernel modules (kernels.cu's and
// multiset.cu's) hold after their #defines: the prelude, the program's
// snippet, the checks of its State layout and the matrix's accessors.
func writeProgram(b *strings.Builder, code *driver.DeviceCode, l *stateLayout, f features) {
	b.WriteString("#line 1 \"hpgraph_prelude.cu\"\n")
	b.WriteString(preludeSource)
	fmt.Fprintf(b, "\n#line 1 %q\n", jit.SnippetFile)
	// (a program's code may include jit's headers: #include "search.cuh";
	// one that names none NVRTC reports where the line stands)
	src, err := jit.Expand(jit.SnippetFile, code.Source, nil)
	if err != nil {
		src = code.Source
	}
	b.WriteString(src)
	b.WriteString("\n#line 1 \"hpgraph_checks.cu\"\n")
	b.WriteString(l.checks(f))
	b.WriteString("#line 1 \"hpgraph_mat.cu\"\n")
	b.WriteString(matSource)
}

var kernelNames = []string{"vp_records", "vp_ctl", "vp_fill", "vp_compact", "vp_pull_ell", "vp_pull_coo", "vp_pull_tiles", "vp_apply_pull", "vp_apply_push", "vp_push", "vp_loop", "vp_state_layout", "vp_init_state", "vp_pack", "vp_unpack", "vp_sum"}

// vp_loop's block size (VP_LOOP_BLOCK), dynamic shared memory per block
// (VP_LOOP_SHARED_BASE, and VP_LOOP_SHARED_FAR more for delta-stepping),
// largest cluster (VP_LOOP_MAX) and most frontier edges a superstep
// (VP_LOOP_CAP).
const (
	loopBlock      = 1024
	loopSharedBase = 212992
	loopCap        = 16384
	loopSharedFar  = 16384
	maxLoopCluster = MaxLoopCluster
)

func loopShared(priority bool) int {
	if priority {
		return loopSharedBase + loopSharedFar
	}
	return loopSharedBase
}

// orientMatrix is the matrix of job whose orientations the device
// builds where l's arrays name one (after orientOnHost, none): a part's
// Whole, else its Pull.
func orientMatrix(job *driver.DeviceJob, l *stateLayout) *driver.Matrix {
	if job.Part != nil && job.Whole != nil && l.orientations() != [3]bool{} {
		return job.Whole
	}
	return job.Pull
}
