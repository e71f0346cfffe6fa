//go:build cgo

package cuda

/*
#include "cu/cu.h"
#include <stdlib.h>
#include <string.h>

static const char* hp_error_name(CUresult r) {
	const char* s = 0;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS) return 0;
	return s;
}

static const char* hp_error_string(CUresult r) {
	const char* s = 0;
	if (cuGetErrorString(r, &s) != CUDA_SUCCESS) return 0;
	return s;
}

static CUresult hp_tex_create(CUdeviceptr p, size_t bytes, unsigned long long* out) {
	CUDA_RESOURCE_DESC rd;
	memset(&rd, 0, sizeof rd);
	rd.resType = CU_RESOURCE_TYPE_LINEAR;
	rd.res.linear.devPtr = p;
	rd.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
	rd.res.linear.numChannels = 1;
	rd.res.linear.sizeInBytes = bytes;
	CUDA_TEXTURE_DESC td;
	memset(&td, 0, sizeof td);
	CUtexObject t = 0;
	CUresult r = cuTexObjectCreate(&t, &rd, &td, NULL);
	*out = (unsigned long long)t;
	return r;
}

static CUresult hp_tex_destroy(unsigned long long t) { return cuTexObjectDestroy((CUtexObject)t); }

static CUresult hp_tex_max_width(CUdevice dev, size_t* w) {
	return cuDeviceGetTexture1DLinearMaxWidth(w, CU_AD_FORMAT_UNSIGNED_INT32, 1, dev);
}

static CUresult hp_module_load(const char* ptx, CUmodule* m, char* log, size_t logSize) {
	CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void* vals[2] = {log, (void*)logSize};
	return cuModuleLoadDataEx(m, ptx, 2, opts, vals);
}

static CUresult hp_module_function(CUmodule m, const char* name, CUfunction* f) {
	return cuModuleGetFunction(f, m, name);
}

static CUresult hp_launch1(CUfunction f, CUdeviceptr out) {
	void* params[1] = {&out};
	return cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params, NULL);
}

static CUresult hp_launch(CUfunction f, unsigned grid, unsigned block, CUstream st, void* a, void* b, void* c, void* d) {
	void* params[4] = {a, b, c, d};
	return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, st, params, NULL);
}

// hp_launch_cluster launches f as one cluster of `cluster` blocks of
// `block` threads (a plain launch of one block when cluster is 1), each
// with `shared` bytes of dynamic shared memory.
static CUresult hp_launch_cluster(CUfunction f, unsigned cluster, unsigned block, unsigned shared, CUstream st, void* a, void* b, void* c, void* d) {
	void* params[4] = {a, b, c, d};
	CUresult r = cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
	if (r != CUDA_SUCCESS) return r;
	if (cluster <= 1) return cuLaunchKernel(f, 1, 1, 1, block, 1, 1, shared, st, params, NULL);
	if (cluster > 8) {
		r = cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
		if (r != CUDA_SUCCESS) return r;
	}
	CUlaunchAttribute at;
	memset(&at, 0, sizeof at);
	at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	at.value.clusterDim.x = cluster;
	at.value.clusterDim.y = 1;
	at.value.clusterDim.z = 1;
	CUlaunchConfig cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.gridDimX = cluster;
	cfg.gridDimY = 1;
	cfg.gridDimZ = 1;
	cfg.blockDimX = block;
	cfg.blockDimY = 1;
	cfg.blockDimZ = 1;
	cfg.sharedMemBytes = shared;
	cfg.hStream = st;
	cfg.attrs = &at;
	cfg.numAttrs = 1;
	return cuLaunchKernelEx(&cfg, f, params, NULL);
}

// hp_launch_shared launches f on grid blocks of block threads with
// `shared` bytes of dynamic shared memory, allowing that much first when
// `allow` is set.
static CUresult hp_launch_shared(CUfunction f, unsigned grid, unsigned block, unsigned shared, int allow, CUstream st, void* a, void* b, void* c, void* d) {
	void* params[4] = {a, b, c, d};
	if (allow) {
		CUresult r = cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
		if (r != CUDA_SUCCESS) return r;
	}
	return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared, st, params, NULL);
}

static CUresult hp_launch2(CUfunction f, unsigned grid, unsigned block, CUstream st, void* a, void* b) {
	void* params[2] = {a, b};
	return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, st, params, NULL);
}

static CUresult hp_host_device_ptr(void* p, CUdeviceptr* out) { return cuMemHostGetDevicePointer(out, p, 0); }

static CUresult hp_stream_create(CUstream* s) { return cuStreamCreate(s, CU_STREAM_NON_BLOCKING); }
static CUresult hp_stream_sync(CUstream s) { return cuStreamSynchronize(s); }

// hp_occupancy is how many blocks of block threads (no dynamic shared
// memory) of f a multiprocessor holds at once.
static int hp_occupancy(CUfunction f, int block) {
	int n = 0;
	if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, block, 0) != CUDA_SUCCESS) return 0;
	return n;
}

static CUresult hp_capture_begin(CUstream s) { return cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL); }

// hp_capture_end ends a capture and instantiates its graph (the graph
// itself is freed: the executable keeps what it needs).
static CUresult hp_capture_end(CUstream s, CUgraphExec* exec) {
	CUgraph g = 0;
	CUresult r = cuStreamEndCapture(s, &g);
	if (r != CUDA_SUCCESS) {
		if (g) cuGraphDestroy(g);
		return r;
	}
	r = cuGraphInstantiateWithFlags(exec, g, 0);
	cuGraphDestroy(g);
	if (r != CUDA_SUCCESS) return r;
	// (uploaded now, or its first launch does it: ~20 us on an H200)
	return cuGraphUpload(*exec, s);
}
static CUresult hp_graph_launch(CUgraphExec e, CUstream s) { return cuGraphLaunch(e, s); }
static CUresult hp_graph_destroy(CUgraphExec e) { return cuGraphExecDestroy(e); }

static CUresult hp_event_create(CUevent* e) { return cuEventCreate(e, CU_EVENT_BLOCKING_SYNC); }
static CUresult hp_event_record(CUevent e, CUstream s) { return cuEventRecord(e, s); }
static CUresult hp_event_sync(CUevent e) { return cuEventSynchronize(e); }
static CUresult hp_event_destroy(CUevent e) { return cuEventDestroy(e); }

// hp_copy_ms times one device-to-device copy of bytes with events.
static CUresult hp_copy_ms(CUdeviceptr dst, CUdeviceptr src, size_t bytes, float* ms) {
	CUevent a, b;
	CUresult r = cuEventCreate(&a, CU_EVENT_DEFAULT);
	if (r != CUDA_SUCCESS) return r;
	r = cuEventCreate(&b, CU_EVENT_DEFAULT);
	if (r != CUDA_SUCCESS) { cuEventDestroy(a); return r; }
	if ((r = cuEventRecord(a, 0)) == CUDA_SUCCESS &&
	    (r = cuMemcpyDtoDAsync(dst, src, bytes, 0)) == CUDA_SUCCESS &&
	    (r = cuEventRecord(b, 0)) == CUDA_SUCCESS &&
	    (r = cuEventSynchronize(b)) == CUDA_SUCCESS)
		r = cuEventElapsedTime(ms, a, b);
	cuEventDestroy(a);
	cuEventDestroy(b);
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// ErrNoGPU is returned (wrapped) when there is no usable CUDA driver or
// device.
var ErrNoGPU = errors.New("cuda: no GPU")

// ErrOutOfMemory is returned (wrapped) when a job does not fit in the
// device's free memory; the message states the bytes needed and free.
var ErrOutOfMemory = errors.New("cuda: out of device memory")

// Error is a failed CUDA driver call.
type Error struct {
	Op   string    // what the backend was doing
	Code cu.Result // the driver's CUresult
}

func (e *Error) Error() string {
	return fmt.Sprintf("cuda: %s: %s (%s)", e.Op, resultName(e.Code), resultString(e.Code))
}

// Is makes errors.Is(err, ErrOutOfMemory) and errors.Is(err, ErrNoGPU)
// hold for the matching driver codes.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrOutOfMemory:
		return e.Code == cu.ERROR_OUT_OF_MEMORY
	case ErrNoGPU:
		return e.Code == cu.ERROR_NO_DEVICE || e.Code == cu.ERROR_INVALID_DEVICE ||
			e.Code == cu.Result(C.CUDA_ERROR_STUB_LIBRARY) || e.Code == 35 /* CUDA_ERROR_INSUFFICIENT_DRIVER */ ||
			e.Code == cu.Result(C.CUDA_ERROR_NO_BINARY_FOR_GPU)
	}
	return false
}

// driverOnly are codes the binding does not name and a stub or old
// driver cannot name either (cuGetErrorName fails there).
var driverOnly = map[cu.Result][2]string{
	34:  {"CUDA_ERROR_STUB_LIBRARY", "libcuda.so.1 is the toolkit's stub, not an NVIDIA driver"},
	35:  {"CUDA_ERROR_INSUFFICIENT_DRIVER", "the installed NVIDIA driver is older than the CUDA runtime"},
	36:  {"CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "the call needs a newer driver"},
	46:  {"CUDA_ERROR_DEVICES_UNAVAILABLE", "all CUDA devices are busy or unavailable"},
	100: {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
}

// resultName is the CUDA error name (CUDA_ERROR_OUT_OF_MEMORY).
func resultName(r cu.Result) string {
	if s := C.hp_error_name(C.CUresult(r)); s != nil {
		return C.GoString(s)
	}
	if d, ok := driverOnly[r]; ok {
		return d[0]
	}
	return r.String()
}

func resultString(r cu.Result) string {
	if s := C.hp_error_string(C.CUresult(r)); s != nil {
		return C.GoString(s)
	}
	if d, ok := driverOnly[r]; ok {
		return d[1]
	}
	return "code " + strconv.Itoa(int(r))
}

// check panics with an *Error when a direct driver call failed; the
// panic is recovered by device.do like the binding's.
func check(op string, r C.CUresult) {
	if r != C.CUDA_SUCCESS {
		panic(&Error{Op: op, Code: cu.Result(r)})
	}
}

// catch runs f and turns a panic (the binding's cu.Result, or ours) into
// an error; a Go runtime error (a bug) names where it happened.
func catch(op string, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			switch v := p.(type) {
			case *Error:
				err = v
			case cu.Result:
				err = &Error{Op: op, Code: v}
			case runtime.Error:
				err = fmt.Errorf("cuda: %s: %w (at %s)", op, v, panicSite())
			case error:
				err = fmt.Errorf("cuda: %s: %w", op, v)
			default:
				err = fmt.Errorf("cuda: %s: %v", op, v)
			}
		}
	}()
	return f()
}

// panicSite is where the panic being recovered was raised: the first
// frames outside the runtime, innermost first. Called by a deferred
// function during the panic.
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	var site []string
	for len(site) < 3 {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") {
			site = append(site, fmt.Sprintf("%s %s:%d", f.Function, filepath.Base(f.File), f.Line))
		}
		if !more {
			break
		}
	}
	return strings.Join(site, " < ")
}

// device is one device's CUDA context and everything the backend keeps
// on it, used by one goroutine at a time (do): nothing of it is shared
// with another device's, so calls on different devices run at once.
type device struct {
	ordinal      int
	dev          cu.Device
	ctx          cu.Context
	name         string
	major, minor int
	totalMem     int64
	sharedOptin  int   // the most dynamic shared memory a block may be allowed
	texMaxWidth  int64 // texels of a linear 32-bit texture
	sms          int   // multiprocessors
	stream       C.CUstream
	// calls serializes do: one caller at a time has the context.
	calls sync.Mutex

	// cache holds matrices' device copies across runs (on the context's
	// thread only).
	cache matCache
	// info is Describe's answer, once measured (under mu).
	info   *vertexprog.DeviceInfo
	locked time.Time // when do took the lock (HPGRAPH_CUDA_TRACE)

	// spare holds pinned host buffers runs gave back, by size, for the
	// next run (pinning costs ~1 ms a run). On the context's thread only.
	spare map[int64][]unsafe.Pointer
	// stage is the pinned staging memory of large copies (transfer.go).
	stage staging
	// pinnedRanges are the host ranges Pin page-locked (start address →
	// bytes), which dtoh copies into by DMA. On the context's thread only.
	pinnedRanges map[uintptr]int64
	// parked are resident runs' buffers waiting for the next run (park.go).
	// On the context's thread only.
	parked []*parked

	// base is the device memory in use once the context was made; peak
	// the most in use since, above base (notePeak).
	base, peak int64

	// hooks are the tests' settings (tuning.go); counts what tests count.
	hooks  hooks
	counts counts

	mu      sync.Mutex
	csrs    []*csrCopy // graphs' CSRs on the device (prefetch.go)
	modules map[string]*module
	images  map[string][2]string // kernelImage's answers (image, key) by source
}

// openDevice opens device ordinal: a context of its own, its stream, and
// the modules every run loads.
func openDevice(ordinal int) (*device, error) {
	d := &device{ordinal: ordinal, modules: map[string]*module{}, images: map[string][2]string{},
		pinnedRanges: map[uintptr]int64{}, hooks: defaultHooks()}
	d.cache.d = d
	if ordinal < 0 {
		return nil, fmt.Errorf("%w: device %d is not a device ordinal", ErrNoGPU, ordinal)
	}
	// The driver library is opened now, not linked: without one the
	// binary runs on the CPU, and this says why.
	if err := cu.Load(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoGPU, err)
	}
	err := d.do("initializing the driver", d.open)
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			err = fmt.Errorf("%w: the CUDA driver did not start (%s): %s (%s)", ErrNoGPU, de.Op, resultName(de.Code), resultString(de.Code))
		} else if !errors.Is(err, ErrNoGPU) {
			err = fmt.Errorf("%w: %w", ErrNoGPU, err)
		}
		return nil, err
	}
	return d, nil
}

// DeviceCount is how many CUDA devices the driver reports, or why there
// is no driver.
func DeviceCount() (int, error) {
	if err := cu.Load(); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNoGPU, err)
	}
	n := 0
	err := catch("counting the devices", func() error {
		cu.Init(0)
		n = cu.DeviceGetCount()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNoGPU, err)
	}
	return n, nil
}

func (d *device) open() error {
	cu.Init(0)
	if n := cu.DeviceGetCount(); n == 0 {
		return fmt.Errorf("%w: the CUDA driver reports no device", ErrNoGPU)
	} else if d.ordinal >= n {
		return fmt.Errorf("%w: device %d requested, the driver reports %d", ErrNoGPU, d.ordinal, n)
	}
	d.dev = cu.DeviceGet(d.ordinal)
	d.name = d.dev.Name()
	d.major, d.minor = d.dev.ComputeCapability()
	d.totalMem = d.dev.TotalMem()
	if d.major < 6 {
		return fmt.Errorf("%w: %s has compute capability %d.%d; hpgraph needs 6.0 or later (double atomicAdd)", ErrNoGPU, d.name, d.major, d.minor)
	}
	d.ctx = cu.CtxCreate(cu.CTX_SCHED_AUTO, d.dev)
	d.ctx.SetCurrent()
	d.sms = d.dev.Attribute(cu.MULTIPROCESSOR_COUNT)
	d.sharedOptin = d.dev.Attribute(cu.DeviceAttribute(C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
	check("creating a stream", C.hp_stream_create(&d.stream))
	free, total := d.memInfo()
	d.base = total - free
	var w C.size_t
	if C.hp_tex_max_width(C.CUdevice(d.dev), &w) == C.CUDA_SUCCESS && w > 0 {
		d.texMaxWidth = int64(w)
	} else {
		d.texMaxWidth = 1 << 27
	}
	// The pinned staging buffers now, beside the graph's load: the first
	// upload paid ~6 ms for them. So the module of PREPROCESS's kernels,
	// which every run that builds a matrix loads: the first module a
	// context loads took ~9.6 ms of a fresh kron21 run's PREPROCESS (H200).
	// (Where it cannot load, the first build says why.) The transpose's
	// too, which builds a directed graph's in-matrix (transpose.go).
	d.stageReady()
	_ = catch("loading PREPROCESS's kernels", func() error { d.hybBuildModule(); return nil })
	_ = catch("loading the transpose's kernels", func() error { d.transposeModule(); return nil })
	return nil
}

// do runs f with the context current on the calling goroutine's thread,
// which stays locked to it meanwhile, and returns f's error or the error
// of a panic inside it. Calls are serialized. (A context may be current
// on several threads; making it current costs far less than handing f to
// a thread of its own, measured at 25-55 µs a superstep: cuda/trace.go.)
func (d *device) do(op string, f func() error) error {
	d.calls.Lock()
	defer d.calls.Unlock()
	if traceSteps {
		d.locked = time.Now()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if d.ctx != 0 {
		if err := catch("making the CUDA context current", func() error { d.ctx.SetCurrent(); return nil }); err != nil {
			return err
		}
	}
	return catch(op, f)
}

// arch is the NVRTC target of the device.
func (d *device) arch() string { return fmt.Sprintf("compute_%d%d", d.major, d.minor) }

// memInfo returns the device's free and total memory. On the context's
// thread.
func (d *device) memInfo() (free, total int64) {
	if d.hooks.memInfo != nil {
		return d.hooks.memInfo()
	}
	return cu.MemGetInfo()
}

// pinned returns bytes of pinned host memory, a spare one if there is.
// Inside device.do.
func (d *device) pinned(bytes int64) unsafe.Pointer {
	if s := d.spare[bytes]; len(s) > 0 {
		d.spare[bytes] = s[:len(s)-1]
		return s[len(s)-1]
	}
	return cu.MemAllocHost(bytes)
}

// unpin gives pinned memory back for a later run (a few kept a size).
// Inside device.do.
func (d *device) unpin(p unsafe.Pointer, bytes int64) {
	if d.spare == nil {
		d.spare = map[int64][]unsafe.Pointer{}
	}
	if len(d.spare[bytes]) >= 4 {
		cu.MemFreeHost(p)
		return
	}
	d.spare[bytes] = append(d.spare[bytes], p)
}

// notePeak samples the device memory in use for DeviceMemory, at the
// points where it is highest (a run's buffers and matrices allocated, a
// matrix's CSR still there while the device builds it). Inside device.do.
func (d *device) notePeak() {
	free, total := d.memInfo()
	d.mu.Lock()
	d.peak = max(d.peak, total-free-d.base)
	d.mu.Unlock()
}

// module is a loaded PTX module with the kernels looked up.
type module struct {
	funcs    map[string]C.CUfunction
	layoutOK bool           // vp_state_layout agreed with the host's State layout
	shared   map[string]int // the dynamic shared memory each kernel was allowed
	occ      map[string]int // resident's answers
}

var kernelNames = []string{"vp_records", "vp_ctl", "vp_fill", "vp_compact", "vp_pull_ell", "vp_pull_coo", "vp_pull_tiles", "vp_apply_pull", "vp_apply_push", "vp_push", "vp_loop", "vp_state_layout", "vp_init_state"}

// stateOffsets runs vp_state_layout: the offsets of State's n members,
// then sizeof(State). Inside device.do.
func (m *module) stateOffsets(n int) []uint64 {
	out := make([]uint64, n+1)
	buf := cu.MemAlloc(int64(8 * len(out)))
	defer cu.MemFree(buf)
	check("launching vp_state_layout", C.hp_launch1(m.funcs["vp_state_layout"], C.CUdeviceptr(buf)))
	cu.MemcpyDtoH(unsafe.Pointer(&out[0]), buf, int64(8*len(out)))
	return out
}

// loadModule loads ptx (PTX, or machine code: prebuilt.go) once per key
// (modules live as long as the context) and looks up its kernels, names.
// Inside device.do.
func (d *device) loadModule(key, ptx string, names []string) (*module, error) {
	d.mu.Lock()
	m := d.modules[key]
	d.mu.Unlock()
	if m != nil {
		return m, nil
	}
	cptx := C.CString(ptx)
	defer C.free(unsafe.Pointer(cptx))
	const logSize = 16 << 10
	log := (*C.char)(C.calloc(logSize, 1))
	defer C.free(unsafe.Pointer(log))
	var mod C.CUmodule
	if r := C.hp_module_load(cptx, &mod, log, logSize); r != C.CUDA_SUCCESS {
		e := &Error{Op: "loading the kernels' PTX", Code: cu.Result(r)}
		if s := C.GoString(log); s != "" {
			return nil, fmt.Errorf("%w\n%s", e, s)
		}
		return nil, e
	}
	m = &module{funcs: map[string]C.CUfunction{}}
	for _, name := range names {
		cname := C.CString(name)
		var f C.CUfunction
		r := C.hp_module_function(mod, cname, &f)
		C.free(unsafe.Pointer(cname))
		check("looking up kernel "+name, r)
		m.funcs[name] = f
	}
	d.mu.Lock()
	d.modules[key] = m
	d.mu.Unlock()
	return m, nil
}

const blockSize = 256

// launch runs kernel name on grid blocks of blockSize threads, in stream
// st, with the four arguments every kernel takes (VP_Mat, VP_Run, State,
// VP_Arg), given as their bytes. Inside device.do.
func (m *module) launch(name string, grid int64, st C.CUstream, mat, run, state, arg []byte) {
	if grid <= 0 {
		return
	}
	if grid > 1<<31-1 {
		panic(fmt.Errorf("launch %s: %d blocks is beyond the grid limit", name, grid))
	}
	r := C.hp_launch(m.funcs[name], C.uint(grid), C.uint(blockSize), st,
		unsafe.Pointer(&mat[0]), unsafe.Pointer(&run[0]), unsafe.Pointer(&state[0]), unsafe.Pointer(&arg[0]))
	check("launching "+name, r)
}

// launchShared is launch with `block` threads a block and `shared` bytes
// of dynamic shared memory. Inside device.do.
func (m *module) launchShared(name string, grid int64, block, shared int, st C.CUstream, mat, run, state, arg []byte) {
	if grid <= 0 {
		return
	}
	if grid > 1<<31-1 {
		panic(fmt.Errorf("launch %s: %d blocks is beyond the grid limit", name, grid))
	}
	if m.shared == nil {
		m.shared = map[string]int{}
	}
	allow := 0
	if m.shared[name] < shared {
		allow = 1
	}
	r := C.hp_launch_shared(m.funcs[name], C.uint(grid), C.uint(block), C.uint(shared), C.int(allow), st,
		unsafe.Pointer(&mat[0]), unsafe.Pointer(&run[0]), unsafe.Pointer(&state[0]), unsafe.Pointer(&arg[0]))
	check("launching "+name, r)
	if allow == 1 {
		m.shared[name] = shared
	}
}

// resident is how many blocks of blockSize threads of kernel name a
// multiprocessor holds at once (0 when the driver cannot say), asked once
// per module: a driver call costs a superstep's host time several
// microseconds. Inside device.do.
func (m *module) resident(name string) int {
	k, ok := m.occ[name]
	if !ok {
		k = int(C.hp_occupancy(m.funcs[name], C.int(blockSize)))
		if m.occ == nil {
			m.occ = map[string]int{}
		}
		m.occ[name] = k
	}
	return k
}

// launch2 runs kernel name, which takes two arguments (given as their
// bytes), on grid blocks of blockSize threads in stream st. Inside
// device.do.
func (m *module) launch2(name string, grid int64, st C.CUstream, a, b []byte) {
	if grid <= 0 {
		return
	}
	if grid > 1<<31-1 {
		panic(fmt.Errorf("launch %s: %d blocks is beyond the grid limit", name, grid))
	}
	check("launching "+name, C.hp_launch2(m.funcs[name], C.uint(grid), C.uint(blockSize), st, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])))
}

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

// launchLoop launches vp_loop as one cluster of `cluster` blocks. It
// returns the driver's error (a device that cannot run clusters that
// large) rather than panicking, so the caller can fall back.
func (m *module) launchLoop(cluster, shared int, st C.CUstream, mat, run, state, arg []byte) error {
	r := C.hp_launch_cluster(m.funcs["vp_loop"], C.uint(cluster), C.uint(loopBlock), C.uint(shared), st,
		unsafe.Pointer(&mat[0]), unsafe.Pointer(&run[0]), unsafe.Pointer(&state[0]), unsafe.Pointer(&arg[0]))
	if r != C.CUDA_SUCCESS {
		return &Error{Op: fmt.Sprintf("launching vp_loop as a cluster of %d blocks", cluster), Code: cu.Result(r)}
	}
	return nil
}

// hostDevicePtr is the device's address of pinned host memory p.
func hostDevicePtr(p unsafe.Pointer) uint64 {
	var dp C.CUdeviceptr
	check("mapping pinned memory", C.hp_host_device_ptr(p, &dp))
	return uint64(dp)
}

// syncStream waits for the device stream's work. Inside device.do.
func (d *device) syncStream() { check("waiting for the GPU", C.hp_stream_sync(d.stream)) }

// beginCapture starts recording the stream's launches into a graph.
func (d *device) beginCapture() { check("starting a CUDA graph capture", C.hp_capture_begin(d.stream)) }

// graphExec is an instantiated CUDA graph.
type graphExec = C.CUgraphExec

// endCapture ends the recording and returns the instantiated graph,
// uploaded to the device.
func (d *device) endCapture() C.CUgraphExec {
	var e C.CUgraphExec
	check("instantiating a CUDA graph", C.hp_capture_end(d.stream, &e))
	return e
}

func (d *device) launchGraph(e C.CUgraphExec) {
	check("launching a CUDA graph", C.hp_graph_launch(e, d.stream))
}

func destroyGraph(e C.CUgraphExec) {
	if e != nil {
		C.hp_graph_destroy(e)
	}
}

// copyMillis times a device-to-device copy of bytes. Inside device.do.
func copyMillis(dst, src cu.DevicePtr, bytes int64) float64 {
	var ms C.float
	check("timing a device copy", C.hp_copy_ms(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes), &ms))
	return float64(ms)
}

// event is a CUDA event for ordering host work after stream work.
type event struct{ e C.CUevent }

func newEvent() event {
	var e C.CUevent
	check("creating an event", C.hp_event_create(&e))
	return event{e}
}

func (d *device) record(e event) { check("recording an event", C.hp_event_record(e.e, d.stream)) }
func (e event) wait()            { check("waiting for an event", C.hp_event_sync(e.e)) }
func (e event) destroy()         { C.hp_event_destroy(e.e) }

// texCreate makes a texture object over bytes of 32-bit words at p.
func texCreate(p cu.DevicePtr, bytes int64) uint64 {
	var t C.ulonglong
	check("creating a texture object", C.hp_tex_create(C.CUdeviceptr(p), C.size_t(bytes), &t))
	return uint64(t)
}

func texDestroy(t uint64) {
	if t != 0 {
		C.hp_tex_destroy(C.ulonglong(t))
	}
}
