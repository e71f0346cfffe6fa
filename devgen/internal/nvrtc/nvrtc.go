//go:build cgo

// Package nvrtc compiles CUDA C with NVRTC, opened with dlopen, for
// devgen's tests: the generated device code must compile as the backend
// compiles it. It needs no GPU.
package nvrtc

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void* dg_prog;
typedef int (*dg_create_t)(dg_prog*, const char*, const char*, int, const char* const*, const char* const*);
typedef int (*dg_compile_t)(dg_prog, int, const char* const*);
typedef int (*dg_size_t)(dg_prog, size_t*);
typedef int (*dg_get_t)(dg_prog, char*);
typedef int (*dg_destroy_t)(dg_prog*);

static void* dg_lib;

static const char* dg_open(const char* name) {
	dg_lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	return dg_lib ? 0 : dlerror();
}

// dg_compile compiles src; *log (malloc'd) gets NVRTC's log. It returns
// NVRTC's result, -1 when a symbol is missing.
static int dg_compile(const char* src, int nopts, const char** opts, char** log) {
	dg_create_t create = (dg_create_t)dlsym(dg_lib, "nvrtcCreateProgram");
	dg_compile_t compile = (dg_compile_t)dlsym(dg_lib, "nvrtcCompileProgram");
	dg_size_t logSize = (dg_size_t)dlsym(dg_lib, "nvrtcGetProgramLogSize");
	dg_get_t getLog = (dg_get_t)dlsym(dg_lib, "nvrtcGetProgramLog");
	dg_destroy_t destroy = (dg_destroy_t)dlsym(dg_lib, "nvrtcDestroyProgram");
	*log = 0;
	if (!create || !compile || !logSize || !getLog || !destroy) return -1;
	dg_prog prog = 0;
	int r = create(&prog, src, "devgen.cu", 0, 0, 0);
	if (r != 0) return r;
	r = compile(prog, nopts, opts);
	size_t n = 0;
	if (logSize(prog, &n) == 0 && n > 0) {
		*log = (char*)malloc(n + 1);
		getLog(prog, *log);
		(*log)[n] = 0;
	}
	destroy(&prog);
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// ErrUnavailable is returned when no NVRTC library could be opened.
var ErrUnavailable = errors.New("nvrtc: not available (set HPGRAPH_NVRTC to libnvrtc's path)")

var (
	once    sync.Once
	openErr error
	mu      sync.Mutex
)

func open() error {
	once.Do(func() {
		names := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}
		if s := os.Getenv("HPGRAPH_NVRTC"); s != "" {
			names = []string{s}
		}
		openErr = ErrUnavailable
		for _, n := range names {
			cs := C.CString(n)
			e := C.dg_open(cs)
			C.free(unsafe.Pointer(cs))
			if e == nil {
				openErr = nil
				return
			}
		}
	})
	return openErr
}

// Compile compiles src with the options the CUDA backend uses (arch
// like "compute_80"); the error carries NVRTC's log.
func Compile(src, arch string) error {
	if err := open(); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	opts := []string{"--gpu-architecture=" + arch, "--fmad=false", "--std=c++17", "-default-device"}
	copts := make([]*C.char, len(opts))
	for i, o := range opts {
		copts[i] = C.CString(o)
		defer C.free(unsafe.Pointer(copts[i]))
	}
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	var log *C.char
	r := C.dg_compile(csrc, C.int(len(opts)), &copts[0], &log)
	msg := ""
	if log != nil {
		msg = C.GoString(log)
		C.free(unsafe.Pointer(log))
	}
	if r != 0 {
		return fmt.Errorf("nvrtc: compile failed (%d): %s", int(r), msg)
	}
	return nil
}
