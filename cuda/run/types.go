//go:build cgo

package run

import (
	"sync"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/nccl"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The run layer's types: its per-device value, a run and its buffers,
// a parked run, a CUDA graph's key, a superstep's record. Declared here,
// below the files that work on them, so that those stand on each other
// one way.

// progRun is one program's run on the device.
type progRun struct {
	buffers
	d      *Device
	job    *driver.DeviceJob
	mod    *rt.Module
	n      int
	words  int
	layout *stateLayout
	feats  features
	nagg   int
	recW   int // words per record

	pull, push *build.Matrix
	// whole, for a part whose program names an orientation, is the
	// whole graph's matrix (DeviceJob.Whole), which holds it.
	whole  *build.Matrix
	host   []uint64 // records read back (recHost)
	recArg [16]byte // vp_records' VP_Copy (no allocation a call)

	step    int      // supersteps run
	base    int      // the device's ctl[0]
	bias    int      // the device's ctl[1]: iteration of superstep 0
	edges   int64    // the device's ctl[2]: a push batch's edge limit
	last    []uint64 // record of superstep step-1
	yDirty  bool
	yLoopOK bool // yLoop holds the identity (filled before the first vp_loop)
	queued  bool // the frontier's queues are built (after a push superstep)
	// queueIn: a part's unpacks append the other parts' activated
	// vertices to its next push's queues (set by setRecord, which kept
	// the queues its own APPLY built).
	queueIn  bool
	tiles    bool // pulls run vp_pull_tiles
	closed   bool
	finished bool // Finish copied the results back: the run may be parked
	// queueCopies: send copies without waiting (HtoDQueued), for the
	// arrays of a start that waits once, at its end (fillOnDevice).
	queueCopies bool

	opt  Options // the backend's, read once, at the start
	loop int     // vp_loop's cluster size (Options.LoopCluster; 0: no loop)

	transfers time.Duration
	tr        *stepTrace // HPGRAPH_CUDA_TRACE: the call being traced
	// partTail, for a part of a partitioned run, is queued after a
	// superstep's records, before the wait for them (readRecords): what
	// the exchange needs of the part's superstep (s0: the superstep).
	// Inside Do.
	partTail func(s0 int)
}

// buffers are a run's device memory, textures, events and CUDA graphs:
// what a resident run, parked when it closes, hands to the next run of
// the same program on the same matrices (park.go).
type buffers struct {
	clock rt.Clock // DeviceTime

	bufs []cu.DevicePtr
	texs []uint64

	x, y        cu.DevicePtr
	xTex        uint64
	mask        [2]cu.DevicePtr
	maskTex     [2]uint64
	queue       [2]cu.DevicePtr
	chunks      [2]cu.DevicePtr
	touchedList cu.DevicePtr
	farBits     cu.DevicePtr // vp_loop's far set (delta-stepping)
	yLoop       cu.DevicePtr // vp_loop's second accumulator array
	probeBuf    cu.DevicePtr // VP_PROBE: per tile its start, end and multiprocessor (printTileProbe)
	frontDeg    cu.DevicePtr // a part's whole-graph push degrees (driver.Part.FrontierDegree); 0: the push matrix's
	partial     cu.DevicePtr
	heavyCount  cu.DevicePtr
	rec, ctl    cu.DevicePtr
	reduceMem   cu.DevicePtr // vp_reduce_values' VP_Reduce memory (reduceBytes), made by the first Reduce
	arrays      []cu.DevicePtr
	seeds       []seed // a resident run's uploads (X, then arrays), to send only what changed
	state       []byte
	runArg      []byte
	recHost     unsafe.Pointer // pinned memory vp_records copies the records to,
	recDev      uint64         // at this address on the device

	graphs   map[graphKey]*rt.Graph
	noGraphs bool
}

// Device is one device (build.Device: its context, stream, memory,
// module cache and matrices) and what runs keep on it: the per-device
// value of every layer, which nothing shares with another device's, so
// calls on different devices run at once.
type Device struct {
	*build.Device

	// parked are resident runs' buffers waiting for the next run (park.go).
	// On the context's thread only.
	parked []*parked
	// layoutOK are the modules whose vp_state_layout agreed with the
	// host's State layout. On the context's thread only.
	layoutOK map[*rt.Module]bool

	// kernelImages are the run kernels' images by sourceKey
	// (kernelImage): [image, key].
	kernelImages sync.Map

	// hooks are the tests' settings (tuning.go); counts what tests count.
	hooks  hooks
	counts counts

	// nets are the NCCL communicators the device keeps for the next run
	// of the same processes and parts (nccl.go's joinNCCL).
	netMu sync.Mutex
	nets  map[netKey]*netComm
}

// parkMax is the most runs kept parked; the oldest goes first, and goes
// below parkMax while the device is low on memory (see cacheKeep).
const parkMax = 16

// parked is a closed run's buffers and what they were made for.
type parked struct {
	mod        *rt.Module
	pull, push *build.Matrix
	n, recW    int
	tiles      bool
	sizes      []int64 // the state arrays' bytes
	xBytes     int64
	aSize      int
	// what the buffers' sizes and the graphs' launches were made for: the
	// pull matrix's bins and tiles (remade when another run asks for
	// another shape), the push chunks, the matrices' kernel arguments
	bins       *build.Bins
	tileSet    *build.Tiles
	pushChunks int64
	matArgs    [2][]byte
	buffers
}

// seed is what a resident run uploaded of one array at its start: the
// bytes, and for an array the run writes, their device copy, from which
// the next run's array starts (the run's own copy holds its results).
type seed struct {
	host     []byte
	pristine cu.DevicePtr
	constant unsafe.Pointer // the Constant array the device holds, or nil
}

// seedBlock is the unit in which a new initial state is compared with
// the last one.
const seedBlock = 64 << 10

// graphKey names a captured CUDA graph: steps supersteps in direction
// dir (the first unbatched when first is set; relative to the device's
// superstep base, which the graph advances past them), then, when records
// is set, their records' copy to the host (vp_records). With begin, the
// graph starts the run's device clock first (the run's first call).
type graphKey struct {
	dir                   driver.Direction
	steps                 int
	first, records, begin bool
}

// alloc allocates bytes of device memory owned by the run (0 for none).
func (r *progRun) alloc(bytes int64) cu.DevicePtr { return rt.Alloc(&r.bufs, bytes) }

// Superstep records (kernels.cu, VP_R_*): a ring of recordRing records of
// recordHead words plus one per aggregator.
const (
	recActive = iota
	recEdges
	recRan
	recSmall
	recMedium
	recChunks
	recTouched
	recordHead
)

const (
	recordRing = 512
	// maxBatch is the most supersteps one StepBatch call runs (the ring
	// must hold a batch's records and the one before it).
	maxBatch = recordRing - 8
)

// parts is the run StartParts returns.
type parts struct {
	runs []partRun
	// progs are runs as program runs (progRun), whose exchange may be
	// sparse and who may have Sum arrays; nil for a multiset program's
	// parts, which exchange densely.
	progs []*progRun
	n     int // the graph's vertices
	first int // the first local part's index among the run's
	total int
	xsize int
	nagg  int
	ops   []driver.Aggregator
	// sparse picks a superstep's exchange from its activated vertices
	// (driver.SparseExchange).
	sparse func(active int) bool
	// Per part, in its device's memory: its packed list and counter
	// (vp_pack), and where the others' lists arrive (vp_unpack).
	send, recv, count []cu.DevicePtr
	bufs              [][]cu.DevicePtr
	// packed[i] follows part i's vp_pack: the others' streams wait for
	// it on their devices before they copy its list (no host wait).
	packed []rt.Event
	// copied[i] follows part i's copies of the others' values and
	// frontier words (exchangeDense): the others' streams wait for it on
	// their devices before their next superstep overwrites what it read.
	copied []rt.Event
	// Per part, a program's Sum arrays' exchange (parts_sums.go), and
	// the event after its gathers and additions; nil without Sum arrays.
	sums     [][]sumBuf
	gathered []rt.Event
	net      *netParts // the other processes' parts (nccl.go), or nil
	crew     *crew     // runs the fan-outs where the parts are on several devices, or nil
	stats    []driver.PartStat
	closed   bool
}

// partRun is one part's run as its group (parts) drives it: a program's
// (progRun) or a multiset program's (msRun).
type partRun interface {
	dev() *Device
	part() *driver.Part
	// values is X on the device, every vertex's; frontier the mask the
	// part's last superstep wrote, which the next one reads.
	values() cu.DevicePtr
	frontier() cu.DevicePtr
	// stepPart runs superstep it on the part's rows, ready for the
	// exchange.
	stepPart(it int, dir driver.Direction) (driver.StepReport, error)
	// setRecord writes the whole run's counts and aggregators where the
	// next superstep reads them (queue: see progRun's). Inside Do.
	setRecord(active int, edges int64, aggs []float64, queue bool)
	// finishPart copies the part's own vertices' values (into x, unless
	// nil) and writable state back.
	finishPart(x []byte) error
	FinishSummary() error
	DeviceTime() time.Duration
	Transfers() time.Duration
	Close()
}

// sumBuf is one Sum array (parts_sums.go)'s exchange buffers on one part.
type sumBuf struct {
	array            int // in the run's layout
	n                int64
	kind             int // VP_Sum.kind
	snap, send, recv cu.DevicePtr
}

// netParts is a parts' NCCL side.
type netParts struct {
	g    *parts
	nc   []*nccl.Comm   // per local part
	recv []cu.DevicePtr // per local part: every part's packed list (sparse)
	cnt  []cu.DevicePtr // per local part: every part's counts (counts)
	// host is where the first local part's cnt is read back (pinned):
	// a program's parts gather their records in their supersteps
	// (gatherRecord), and gerr is what that met, per local part.
	host unsafe.Pointer
	gerr []error
	// early: every exchange of the run is dense (the rule never picks
	// sparse: it does not at 0 active) and a program's, so each superstep
	// queues its broadcasts with its record's gather (gatherRecord).
	early  bool
	bufs   [][]cu.DevicePtr
	lo, hi []int32 // every part's range
}

// pullRows is the rows of job's pull that its device copy holds: a
// part's own (the only rows its pull has: build.Window), else all.
func pullRows(job *driver.DeviceJob) build.Window {
	if p := job.Part; p != nil {
		return build.Window{Lo: int(p.Lo), Hi: int(p.Hi)}
	}
	return build.Window{}
}

// notePartPull counts md, a run's pull, in d's counts where part is not
// nil.
func (d *Device) notePartPull(part *driver.Part, md *build.Matrix) {
	if part == nil {
		return
	}
	have, whole := md.RowBytes()
	d.counts.partPulls++
	d.counts.partPullBytes += have
	d.counts.partPullWhole += whole
}

// oriented is the device's copy of orientMatrix: the run's whole-graph
// matrix where it has one, else its pull.
func (r *progRun) oriented() *build.Matrix {
	if r.whole != nil {
		return r.whole
	}
	return r.pull
}

// netKey names a device's communicator: the processes' Comm, the rank
// (the part) and the run's parts.
type netKey struct {
	comm        driver.Comm
	rank, total int
}

// netComm is a communicator a device keeps, and the id it was made by.
type netComm struct {
	c  *nccl.Comm
	id nccl.UniqueID
}
