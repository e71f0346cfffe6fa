//go:build cgo

package rt

/*
#include "../cu/cu.h"
#include <stdlib.h>
#include <string.h>

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

// hp_occupancy is how many blocks of block threads (no dynamic shared
// memory) of f a multiprocessor holds at once.
static int hp_occupancy(CUfunction f, int block) {
	int n = 0;
	if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, block, 0) != CUDA_SUCCESS) return 0;
	return n;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
)

// BlockSize is the threads a block of most kernels (VP_BLOCK).
const BlockSize = 256

// Blocks is the blocks of per threads that cover n.
func Blocks(n int64, per int64) int64 { return (n + per - 1) / per }

// Module is a loaded module (PTX or machine code) with its kernels
// looked up. Its launches run inside Do.
type Module struct {
	funcs  map[string]C.CUfunction
	shared map[string]int // the dynamic shared memory each kernel was allowed
	occ    map[string]int // Resident's answers
}

// LoadModule loads image (PTX, or machine code) and looks up its kernels,
// names. Modules live as long as the context. Inside Do.
func LoadModule(image string, names []string) (*Module, error) {
	cimage := C.CString(image)
	defer C.free(unsafe.Pointer(cimage))
	const logSize = 16 << 10
	log := (*C.char)(C.calloc(logSize, 1))
	defer C.free(unsafe.Pointer(log))
	var mod C.CUmodule
	if r := C.hp_module_load(cimage, &mod, log, logSize); r != C.CUDA_SUCCESS {
		e := &Error{Op: "loading the kernels' PTX", Code: cu.Result(r)}
		if s := C.GoString(log); s != "" {
			return nil, fmt.Errorf("%w\n%s", e, s)
		}
		return nil, e
	}
	m := &Module{funcs: map[string]C.CUfunction{}}
	for _, name := range names {
		cname := C.CString(name)
		var f C.CUfunction
		r := C.hp_module_function(mod, cname, &f)
		C.free(unsafe.Pointer(cname))
		check("looking up kernel "+name, r)
		m.funcs[name] = f
	}
	return m, nil
}

// LaunchPtr runs kernel name on one thread with the argument p, on the
// context's default stream.
func (m *Module) LaunchPtr(name string, p cu.DevicePtr) {
	check("launching "+name, C.hp_launch1(m.funcs[name], C.CUdeviceptr(p)))
}

func gridOK(name string, grid int64) bool {
	if grid > 1<<31-1 {
		panic(fmt.Errorf("launch %s: %d blocks is beyond the grid limit", name, grid))
	}
	return grid > 0
}

// Launch runs kernel name on grid blocks of BlockSize threads, in stream
// st, with the four arguments a program's kernels take (VP_Mat, VP_Run,
// State, VP_Arg), given as their bytes.
func (m *Module) Launch(name string, grid int64, st Stream, mat, run, state, arg []byte) {
	if !gridOK(name, grid) {
		return
	}
	r := C.hp_launch(m.funcs[name], C.uint(grid), C.uint(BlockSize), st.s,
		unsafe.Pointer(&mat[0]), unsafe.Pointer(&run[0]), unsafe.Pointer(&state[0]), unsafe.Pointer(&arg[0]))
	check("launching "+name, r)
}

// LaunchShared is Launch with `block` threads a block and `shared` bytes
// of dynamic shared memory.
func (m *Module) LaunchShared(name string, grid int64, block, shared int, st Stream, mat, run, state, arg []byte) {
	if !gridOK(name, grid) {
		return
	}
	if m.shared == nil {
		m.shared = map[string]int{}
	}
	allow := 0
	if m.shared[name] < shared {
		allow = 1
	}
	r := C.hp_launch_shared(m.funcs[name], C.uint(grid), C.uint(block), C.uint(shared), C.int(allow), st.s,
		unsafe.Pointer(&mat[0]), unsafe.Pointer(&run[0]), unsafe.Pointer(&state[0]), unsafe.Pointer(&arg[0]))
	check("launching "+name, r)
	if allow == 1 {
		m.shared[name] = shared
	}
}

// Resident is how many blocks of BlockSize threads of kernel name a
// multiprocessor holds at once (0 when the driver cannot say), asked once
// per module: a driver call costs a superstep's host time several
// microseconds.
func (m *Module) Resident(name string) int {
	k, ok := m.occ[name]
	if !ok {
		k = int(C.hp_occupancy(m.funcs[name], C.int(BlockSize)))
		if m.occ == nil {
			m.occ = map[string]int{}
		}
		m.occ[name] = k
	}
	return k
}

// Launch2 runs kernel name, which takes two arguments (given as their
// bytes), on grid blocks of BlockSize threads in stream st.
func (m *Module) Launch2(name string, grid int64, st Stream, a, b []byte) {
	if !gridOK(name, grid) {
		return
	}
	check("launching "+name, C.hp_launch2(m.funcs[name], C.uint(grid), C.uint(BlockSize), st.s, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0])))
}

// LaunchCluster launches kernel name as one cluster of `cluster` blocks
// of `block` threads with `shared` bytes of dynamic shared memory each.
// It returns the driver's error (a device that cannot run clusters that
// large) rather than panicking, so the caller can fall back.
func (m *Module) LaunchCluster(name string, cluster, block, shared int, st Stream, mat, run, state, arg []byte) error {
	r := C.hp_launch_cluster(m.funcs[name], C.uint(cluster), C.uint(block), C.uint(shared), st.s,
		unsafe.Pointer(&mat[0]), unsafe.Pointer(&run[0]), unsafe.Pointer(&state[0]), unsafe.Pointer(&arg[0]))
	if r != C.CUDA_SUCCESS {
		return &Error{Op: fmt.Sprintf("launching %s as a cluster of %d blocks", name, cluster), Code: cu.Result(r)}
	}
	return nil
}
