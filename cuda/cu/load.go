//go:build cgo

package cu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "cu.h"

// Each hp_cu_X starts at a function that answers as an uninitialized
// driver does; hp_cu_commit points them at the driver's.
#define HP_CU_DEFINE(name, symbol, params) \
	static CUresult hp_unloaded_##name params { return CUDA_ERROR_NOT_INITIALIZED; } \
	CUresult(*hp_cu_##name) params = hp_unloaded_##name;
HP_CU_FUNCTIONS(HP_CU_DEFINE)

#define HP_CU_ENTRY(name, symbol, params) {symbol, (void**)&hp_cu_##name},
static const struct {
	const char* symbol;
	void** slot;
} hp_cu_table[] = {HP_CU_FUNCTIONS(HP_CU_ENTRY)};

static int hp_cu_count(void) { return (int)(sizeof hp_cu_table / sizeof hp_cu_table[0]); }
static const char* hp_cu_symbol(int i) { return hp_cu_table[i].symbol; }

// hp_cu_open dlopens name; on failure it copies dlerror's text to msg.
static void* hp_cu_open(const char* name, char* msg, size_t n) {
	void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char* e = dlerror();
		snprintf(msg, n, "%s", e ? e : "dlopen failed");
	}
	return lib;
}

static int hp_cu_has(void* lib, int i) { return dlsym(lib, hp_cu_table[i].symbol) != NULL; }

// hp_cu_commit points every hp_cu_X at lib's symbol (all of them present:
// Load checked).
static void hp_cu_commit(void* lib) {
	for (int i = 0; i < hp_cu_count(); i++) *hp_cu_table[i].slot = dlsym(lib, hp_cu_table[i].symbol);
}

static void hp_cu_close(void* lib) { dlclose(lib); }
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

var (
	loadOnce sync.Once
	loadErr  error
	loaded   atomic.Bool
)

// Load opens the NVIDIA driver, libcuda.so.1, and resolves every entry
// point this package and the C code that includes cu.h call. It does the
// work once; later calls return the first answer. The error wraps
// ErrNoDriver when there is no driver library, ErrDriverTooOld when it
// lacks an entry point (the message names them).
func Load() error {
	loadOnce.Do(func() {
		var lib unsafe.Pointer
		lib, loadErr = open(Library)
		if loadErr == nil {
			C.hp_cu_commit(lib)
			loaded.Store(true)
		}
	})
	return loadErr
}

// Loaded reports whether Load succeeded.
func Loaded() bool { return loaded.Load() }

// open dlopens name and checks it has every entry point, without
// committing anything: it returns the library handle, or an error (the
// library closed again).
func open(name string) (unsafe.Pointer, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	const msgSize = 1024
	msg := (*C.char)(C.calloc(msgSize, 1))
	defer C.free(unsafe.Pointer(msg))
	lib := C.hp_cu_open(cname, msg, msgSize)
	if lib == nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoDriver, C.GoString(msg))
	}
	var missing []string
	for i := range int(C.hp_cu_count()) {
		if C.hp_cu_has(lib, C.int(i)) == 0 {
			missing = append(missing, C.GoString(C.hp_cu_symbol(C.int(i))))
		}
	}
	if len(missing) > 0 {
		C.hp_cu_close(lib)
		return nil, fmt.Errorf("%w: %s lacks %s (hpgraph needs a driver for CUDA %s or later)",
			ErrDriverTooOld, name, strings.Join(missing, ", "), MinDriver)
	}
	return lib, nil
}

// symbols lists the driver entry points Load resolves.
func symbols() []string {
	s := make([]string, int(C.hp_cu_count()))
	for i := range s {
		s[i] = C.GoString(C.hp_cu_symbol(C.int(i)))
	}
	return s
}
