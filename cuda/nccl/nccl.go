//go:build cgo

package nccl

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "nccl.h"

#define HP_NCCL_DEFINE(name, symbol, params) \
	static ncclResult_t hp_unloaded_##name params { return ncclSystemError; } \
	ncclResult_t(*hp_nccl_##name) params = hp_unloaded_##name;
HP_NCCL_FUNCTIONS(HP_NCCL_DEFINE)

static const char* hp_unloaded_string(ncclResult_t r) { return "NCCL is not loaded"; }
static const char* hp_unloaded_last(ncclComm_t c) { return ""; }
const char* (*hp_nccl_GetErrorString)(ncclResult_t r) = hp_unloaded_string;
const char* (*hp_nccl_GetLastError)(ncclComm_t comm) = hp_unloaded_last;

#define HP_NCCL_ENTRY(name, symbol, params) {symbol, (void**)&hp_nccl_##name},
static const struct {
	const char* symbol;
	void** slot;
} hp_nccl_table[] = {HP_NCCL_FUNCTIONS(HP_NCCL_ENTRY){"ncclGetErrorString", (void**)&hp_nccl_GetErrorString},
                     {"ncclGetLastError", (void**)&hp_nccl_GetLastError}};

static int hp_nccl_count(void) { return (int)(sizeof hp_nccl_table / sizeof hp_nccl_table[0]); }
static const char* hp_nccl_symbol(int i) { return hp_nccl_table[i].symbol; }

static void* hp_nccl_open(const char* name, char* msg, size_t n) {
	void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char* e = dlerror();
		snprintf(msg, n, "%s", e ? e : "dlopen failed");
	}
	return lib;
}
static int hp_nccl_has(void* lib, int i) { return dlsym(lib, hp_nccl_table[i].symbol) != NULL; }
static void hp_nccl_commit(void* lib) {
	for (int i = 0; i < hp_nccl_count(); i++) *hp_nccl_table[i].slot = dlsym(lib, hp_nccl_table[i].symbol);
}
static void hp_nccl_close(void* lib) { dlclose(lib); }

static ncclResult_t hp_init_rank(ncclComm_t* c, int n, const void* id, int r) {
	ncclUniqueId u;
	memcpy(u.internal, id, NCCL_UNIQUE_ID_BYTES);
	return hp_nccl_CommInitRank(c, n, u, r);
}
static ncclResult_t hp_version(int* v) { return hp_nccl_GetVersion(v); }
static ncclResult_t hp_unique(ncclUniqueId* id) { return hp_nccl_GetUniqueId(id); }
static ncclResult_t hp_destroy(ncclComm_t c) { return hp_nccl_CommDestroy(c); }
static ncclResult_t hp_abort(ncclComm_t c) { return hp_nccl_CommAbort(c); }
static ncclResult_t hp_async(ncclComm_t c, ncclResult_t* e) { return hp_nccl_CommGetAsyncError(c, e); }
static ncclResult_t hp_allreduce(unsigned long long s, unsigned long long d, size_t n, int t, int op, ncclComm_t c, uintptr_t st) {
	return hp_nccl_AllReduce((const void*)s, (void*)d, n, (ncclDataType_t)t, (ncclRedOp_t)op, c, (cudaStream_t)st);
}
static ncclResult_t hp_allgather(unsigned long long s, unsigned long long d, size_t n, int t, ncclComm_t c, uintptr_t st) {
	return hp_nccl_AllGather((const void*)s, (void*)d, n, (ncclDataType_t)t, c, (cudaStream_t)st);
}
static ncclResult_t hp_broadcast(unsigned long long s, unsigned long long d, size_t n, int t, int root, ncclComm_t c, uintptr_t st) {
	return hp_nccl_Broadcast((const void*)s, (void*)d, n, (ncclDataType_t)t, root, c, (cudaStream_t)st);
}
static ncclResult_t hp_group_start(void) { return hp_nccl_GroupStart(); }
static ncclResult_t hp_group_end(void) { return hp_nccl_GroupEnd(); }
static const char* hp_error_string(ncclResult_t r) { return hp_nccl_GetErrorString(r); }
static const char* hp_last_error(ncclComm_t c) { return hp_nccl_GetLastError(c); }
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

var (
	loadOnce sync.Once
	loadErr  error
)

// Load opens NCCL (once; later calls return the first answer), after
// keeping NVLink multicast off (KeepMulticastOff). The error wraps
// ErrNoNCCL and says what is missing.
func Load() error {
	loadOnce.Do(func() {
		KeepMulticastOff()
		name := libraryName()
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		const msgSize = 1024
		msg := (*C.char)(C.calloc(msgSize, 1))
		defer C.free(unsafe.Pointer(msg))
		lib := C.hp_nccl_open(cname, msg, msgSize)
		if lib == nil {
			loadErr = fmt.Errorf("%w: %s could not be opened (%s); install NCCL 2.x or name the library in $HPGRAPH_NCCL", ErrNoNCCL, name, C.GoString(msg))
			return
		}
		var missing []string
		for i := range int(C.hp_nccl_count()) {
			if C.hp_nccl_has(lib, C.int(i)) == 0 {
				missing = append(missing, C.GoString(C.hp_nccl_symbol(C.int(i))))
			}
		}
		if len(missing) > 0 {
			C.hp_nccl_close(lib)
			loadErr = fmt.Errorf("%w: %s lacks %s (hpgraph needs NCCL 2.12 or later)", ErrNoNCCL, name, strings.Join(missing, ", "))
			return
		}
		C.hp_nccl_commit(lib)
	})
	return loadErr
}

// Error is a failed NCCL call.
type Error struct {
	Op     string
	Code   int
	Detail string // ncclGetLastError's text, where NCCL gave one
}

func (e *Error) Error() string {
	s := fmt.Sprintf("nccl: %s: %s (%d)", e.Op, C.GoString(C.hp_error_string(C.ncclResult_t(e.Code))), e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func check(op string, c C.ncclComm_t, r C.ncclResult_t) error {
	if r == C.ncclSuccess {
		return nil
	}
	return &Error{Op: op, Code: int(r), Detail: C.GoString(C.hp_last_error(c))}
}

// Version is NCCL's version code (major*10000 + minor*100 + patch).
func Version() (int, error) {
	var v C.int
	err := check("ncclGetVersion", nil, C.hp_version(&v))
	return int(v), err
}

// NewUniqueID makes the id a new communicator's ranks share.
func NewUniqueID() (UniqueID, error) {
	var u C.ncclUniqueId
	var id UniqueID
	if err := check("ncclGetUniqueId", nil, C.hp_unique(&u)); err != nil {
		return id, err
	}
	copy(id[:], C.GoBytes(unsafe.Pointer(&u.internal[0]), UniqueIDBytes))
	return id, nil
}

// DataType is an element type of a collective.
type DataType int

const (
	Int32   DataType = C.ncclInt32
	Uint32  DataType = C.ncclUint32
	Int64   DataType = C.ncclInt64
	Uint64  DataType = C.ncclUint64
	Float32 DataType = C.ncclFloat32
	Float64 DataType = C.ncclFloat64
	Uint8   DataType = C.ncclUint8
)

// Op is a reduction.
type Op int

const (
	Sum Op = C.ncclSum
	Max Op = C.ncclMax
	Min Op = C.ncclMin
)

// Comm is one rank's communicator.
type Comm struct{ c C.ncclComm_t }

// CommInitRank joins rank of nranks to the communicator of id, on the
// device whose context is current on the calling thread. Every rank must
// call it (inside GroupStart/GroupEnd where one thread joins several).
func CommInitRank(nranks int, id UniqueID, rank int) (*Comm, error) {
	var c C.ncclComm_t
	if err := check("ncclCommInitRank", nil, C.hp_init_rank(&c, C.int(nranks), unsafe.Pointer(&id[0]), C.int(rank))); err != nil {
		return nil, err
	}
	return &Comm{c}, nil
}

// Destroy frees the communicator once its operations are done.
func (c *Comm) Destroy() error {
	if c == nil || c.c == nil {
		return nil
	}
	err := check("ncclCommDestroy", nil, C.hp_destroy(c.c))
	c.c = nil
	return err
}

// Abort frees the communicator at once, its operations cancelled (after
// an error: a rank that died).
func (c *Comm) Abort() {
	if c != nil && c.c != nil {
		C.hp_abort(c.c)
		c.c = nil
	}
}

// AsyncError reports an error of the communicator's operations so far.
func (c *Comm) AsyncError() error {
	var e C.ncclResult_t
	if err := check("ncclCommGetAsyncError", c.c, C.hp_async(c.c, &e)); err != nil {
		return err
	}
	return check("an operation in flight", c.c, e)
}

// AllReduce reduces count elements of t at send over the ranks into recv
// on every rank (in place where send == recv), in stream.
func (c *Comm) AllReduce(send, recv uint64, count int, t DataType, op Op, stream uintptr) error {
	return check("ncclAllReduce", c.c, C.hp_allreduce(C.ulonglong(send), C.ulonglong(recv), C.size_t(count), C.int(t), C.int(op), c.c, C.uintptr_t(stream)))
}

// AllGather puts each rank's count elements at send into recv at
// rank*count, on every rank.
func (c *Comm) AllGather(send, recv uint64, count int, t DataType, stream uintptr) error {
	return check("ncclAllGather", c.c, C.hp_allgather(C.ulonglong(send), C.ulonglong(recv), C.size_t(count), C.int(t), c.c, C.uintptr_t(stream)))
}

// Broadcast copies root's count elements at send to recv on every rank
// (in place on root where send == recv).
func (c *Comm) Broadcast(send, recv uint64, count int, t DataType, root int, stream uintptr) error {
	return check("ncclBroadcast", c.c, C.hp_broadcast(C.ulonglong(send), C.ulonglong(recv), C.size_t(count), C.int(t), C.int(root), c.c, C.uintptr_t(stream)))
}

// GroupStart and GroupEnd bracket operations that NCCL must see
// together: one thread's several communicators, or several collectives
// launched as one.
func GroupStart() error { return check("ncclGroupStart", nil, C.hp_group_start()) }
func GroupEnd() error   { return check("ncclGroupEnd", nil, C.hp_group_end()) }
