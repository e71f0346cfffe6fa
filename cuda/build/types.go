//go:build cgo

package build

import (
	"sync"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/hyb"
)

// PREPROCESS's types: its per-device value, a matrix's device copy and
// their cache, a tile shape, an orientation, a CSR copy. Declared here,
// below the files that build them, so that those stand on each other one
// way.

// Matrix is a HYB matrix in device memory: the arrays every superstep
// reads, the pull bins when it has been a pull matrix, the row degrees
// when it has been a push matrix. It outlives runs (Cache).
type Matrix struct {
	m                                         *hyb.Matrix
	sig                                       matSig
	ellCol, ellVal, cooCol, cooVal, cooPtr    cu.DevicePtr
	Bins                                      *Bins
	binRows, chunkHeavy, heavyRow, heavyFirst cu.DevicePtr
	binBufs                                   []cu.DevicePtr
	Tiles                                     *Tiles
	tileArcs, tileVal, tileBase               cu.DevicePtr
	tileFirst, tileInfo, tileWarp, tileMulti  cu.DevicePtr
	tileVFirst, tileVRow                      cu.DevicePtr
	tileBufs                                  []cu.DevicePtr
	PushDeg                                   cu.DevicePtr
	PushChunks                                int64           // the degrees' push chunks (hb_degrees), with PushDeg
	orient                                    [3]*Orientation // the graph's Orientations, by OrientKind
	bufs                                      []cu.DevicePtr
	bytes                                     int64
	users                                     int
	used                                      uint64 // Cache.clock at the last use
	Arg                                       []byte // the VP_Mat argument
	// rows are the rows whose ELL slots and COO offsets the copy holds
	// (rowsOf: a part's pull its own, else all), pitch its ELL's pitch.
	rows  Window
	pitch int
}

// Window is the rows [Lo, Hi) of a matrix that a device copy holds
// (Cache.Get): a part's pull asks for its own rows, the only ones with
// entries, and its copy then holds ELL slots and COO offsets for those
// rows only (its first row rounded down to a multiple of 32, so that a
// warp's rows stay in one warp's slots); the kernels index them by the
// matrix's rows all the same (VP_Mat's arrays are shifted back by the
// window's first row: matArg). At kron29 in 2 parts the whole-N arrays
// were K × 1.07 GB of ELL and 2.1 GB of offsets a part more
// (docs/parts.md). The zero Window asks for every row.
type Window struct{ Lo, Hi int }

// byRow is p, a device array of size-byte elements over md's rows,
// shifted back by its first row, so that element v is row v's (null
// stays null): the kernels index a copy of a window of rows by the
// matrix's rows.
func (md *Matrix) byRow(p cu.DevicePtr, size int64) cu.DevicePtr {
	if p == 0 {
		return 0
	}
	return p - cu.DevicePtr(size*int64(md.rows.Lo))
}

// Cache keeps device copies of matrices across runs, keyed by the
// *hyb.Matrix (vertexprog.Graph keeps its matrices, so repeated runs on one
// graph pass the same pointer). Matrices no run uses are freed, least
// recently used first, when a run needs their memory, beyond cacheKeep of
// them, and while the device is low on memory. Used inside Do
// only.
type Cache struct {
	d            *Device
	m            map[*hyb.Matrix]*Matrix
	clock        uint64
	hits, misses int
}

// matSig identifies a matrix's contents cheaply: its sizes and where its
// arrays are (a guard against a matrix changed in place).
type matSig struct {
	n, k, pitch              int
	lens                     [4]int
	rowPtr, col, val, cooPtr unsafe.Pointer
	of                       [3]unsafe.Pointer // TransposeOf's or SymmetrizeOf's arrays
	ofLens                   [3]int
}

// (The ELL and COO arrays derive from Src, which may be materialized into
// them later: Src and CooPtr identify the contents.)
func sigOf(m *hyb.Matrix) matSig {
	s := matSig{
		n: m.N, k: m.K, pitch: m.Pitch,
		lens:   [4]int{len(m.Src.RowPtr), len(m.Src.Col), len(m.Src.Val), len(m.CooPtr)},
		rowPtr: unsafe.Pointer(unsafe.SliceData(m.Src.RowPtr)), col: unsafe.Pointer(unsafe.SliceData(m.Src.Col)),
		val: unsafe.Pointer(unsafe.SliceData(m.Src.Val)), cooPtr: unsafe.Pointer(unsafe.SliceData(m.CooPtr)),
	}
	if of := derivedOf(m); of != nil {
		s.of = [3]unsafe.Pointer{unsafe.Pointer(unsafe.SliceData(of.RowPtr)), unsafe.Pointer(unsafe.SliceData(of.Col)), unsafe.Pointer(unsafe.SliceData(of.Val))}
		s.ofLens = [3]int{len(of.RowPtr), len(of.Col), len(of.Val)}
	}
	return s
}

// consistent reports whether a cached copy still matches its matrix.
func (md *Matrix) consistent() bool { return sigOf(md.m) == md.sig }

// TileSpec asks for a pull matrix's tiles (rowBits 0: none); symmetric
// says the matrix is its own transpose (the tiles are the same either
// way, only built faster).
type TileSpec struct {
	RowBits, MaxArcs int
	Near             bool // groups for 4-byte accumulators (groupsNear)
	Symmetric        bool
	// Columns launches the tiles by the column where each starts
	// (costliest first at one place), not costliest first: where X is
	// larger than the L2, the tiles of many segments that read the same
	// stretch of X then run together (launchOrder).
	Columns bool
	// Chunks is the pieces the device builds them in (0 or 1: whole), a
	// piece's temporaries at a time where the whole build would not fit
	// (the same tiles: Matches does not compare it).
	Chunks int
}

// Matches reports whether t (nil: no tiles) are tiles of shape ts.
func (t *Tiles) Matches(ts TileSpec) bool {
	return t != nil && t.rowBits == ts.RowBits && t.maxArcs == ts.MaxArcs && t.near == ts.Near && t.columns == ts.Columns
}

// Orientation is a graph's driver.Orientation on the device, built
// from the matrix of its Neighbors and kept with it (Matrix.orient).
type Orientation struct {
	deg, cnt, off, adj cu.DevicePtr
	adjLen             int64 // Adj's entries (Off[N])
	// rank, both: a ranked orientation's (both one zero word for an
	// undirected graph), both of bothWords words
	rank, both cu.DevicePtr
	bothWords  int64
	// used is the device memory in use at the build's peak (its
	// temporaries still held), for the test of OrientBytes' bound.
	used int64
}

// A graph's CSR on the device. Every matrix built on the device
// (buildOnDevice, transposedOnDevice) borrows it (borrowCSR) instead of
// uploading the same arrays, and it stays while a cached matrix is built
// from it: the next app's matrix on the same graph (other HYB options,
// weights or none, a multiset program's, a transpose) is built without
// an upload. kron21's first LDBC PageRank after BFS, SSSP and TC in one
// process uploaded its 270 MB again: 21.5 ms of its 44.6 ms PREPROCESS
// (docs/perf/device-preprocess.md#a-graphs-csr-kept-on-the-device-union-find-for-any-program).
//
// The copy is made early where it can be (driver.Prefetcher): in a
// goroutine of its own while the host prepares the run, so that the
// upload overlaps the host's PREPROCESS where the device is open already
// (a server loading a graph, bench's first run; a fresh process opens the
// device after the host's passes are done, so there it only moves the
// upload: docs/perf/time-to-answer.md#the-first-preprocess-on-the-device-and-a-servers-many-queries).
//
// Copies go when nothing is built from them (dropCSRs): a run's start
// drops the pending copies (too late for it) and those no cached matrix
// is built from, a trim of the matrix cache the copies of the graphs
// whose matrices it freed, and a run short of device memory every copy
// (a copy costs an upload to make again, a matrix a build).
type csrCopy struct {
	src              hyb.CSR // the host arrays (Val nil: the copy has no values)
	rowPtr, col, val cu.DevicePtr
	bufs             []cu.DevicePtr
	done, cancelled  bool // under device.mu
	// uploading: the device is making the copy now (inside its Do);
	// readers: other devices copying from it (assemble), which DropCSRs
	// leaves it to. Under device.mu.
	uploading bool
	readers   int
}

// Device is a device (jit.Device: its context, stream, memory and module
// cache) with what PREPROCESS keeps on it: the matrices' device copies
// (Cache) and the graphs' CSRs they are built from (csr.go).
type Device struct {
	*jit.Device

	// Cache holds matrices' device copies across runs (inside Do only).
	Cache Cache

	mu   sync.Mutex
	csrs []*csrCopy // graphs' CSRs on the device (csr.go)
	// peers are the devices whose CSR copies this one may copy pieces of
	// (AddPeers; assemble), and finding is set while it looks for them.
	// Under mu.
	peers   []*Device
	finding bool
}

// CSRs is how many graphs' CSRs are on the device (or coming).
func (d *Device) CSRs() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.csrs)
}

// derivedOf is the CSR a transposed or symmetrized matrix is described
// from (hyb.Matrix.TransposeOf, SymmetrizeOf), or nil.
func derivedOf(m *hyb.Matrix) *hyb.CSR {
	if m.TransposeOf != nil {
		return m.TransposeOf
	}
	return m.SymmetrizeOf
}
