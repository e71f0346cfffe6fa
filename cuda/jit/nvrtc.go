//go:build cgo

package jit

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stdio.h>

typedef void* hp_prog;
typedef int (*hp_version_t)(int*, int*);
typedef const char* (*hp_errstr_t)(int);
typedef int (*hp_create_t)(hp_prog*, const char*, const char*, int, const char* const*, const char* const*);
typedef int (*hp_compile_t)(hp_prog, int, const char* const*);
typedef int (*hp_size_t)(hp_prog, size_t*);
typedef int (*hp_get_t)(hp_prog, char*);
typedef int (*hp_destroy_t)(hp_prog*);

static void* hp_nv;

static const char* hp_nvrtc_open(const char* name) {
	hp_nv = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!hp_nv) return dlerror();
	return 0;
}

static int hp_nvrtc_version(int* major, int* minor) {
	hp_version_t f = (hp_version_t)dlsym(hp_nv, "nvrtcVersion");
	if (!f) return -1;
	return f(major, minor);
}

static const char* hp_nvrtc_errstr(int r) {
	hp_errstr_t f = (hp_errstr_t)dlsym(hp_nv, "nvrtcGetErrorString");
	return f ? f(r) : "unknown NVRTC error";
}

// hp_nvrtc_compile compiles src; on return *log and (on success) *ptx are
// malloc'd for the caller to free: the PTX (NUL-terminated), or with
// cubin set the machine code (*size bytes). It returns the NVRTC result,
// or -1 when a symbol is missing.
static int hp_nvrtc_compile(const char* src, const char* name, int nopts, const char** opts, int cubin, char** ptx, size_t* size, char** log) {
	hp_create_t create = (hp_create_t)dlsym(hp_nv, "nvrtcCreateProgram");
	hp_compile_t compile = (hp_compile_t)dlsym(hp_nv, "nvrtcCompileProgram");
	hp_size_t logSize = (hp_size_t)dlsym(hp_nv, "nvrtcGetProgramLogSize");
	hp_get_t getLog = (hp_get_t)dlsym(hp_nv, "nvrtcGetProgramLog");
	hp_size_t ptxSize = (hp_size_t)dlsym(hp_nv, cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize");
	hp_get_t getPTX = (hp_get_t)dlsym(hp_nv, cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX");
	hp_destroy_t destroy = (hp_destroy_t)dlsym(hp_nv, "nvrtcDestroyProgram");
	*ptx = 0;
	*log = 0;
	if (!create || !compile || !logSize || !getLog || !ptxSize || !getPTX || !destroy) return -1;
	hp_prog prog = 0;
	int r = create(&prog, src, name, 0, 0, 0);
	if (r != 0) return r;
	int cr = compile(prog, nopts, opts);
	size_t n = 0;
	if (logSize(prog, &n) == 0 && n > 0) {
		*log = (char*)malloc(n + 1);
		getLog(prog, *log);
		(*log)[n] = 0;
	}
	if (cr == 0) {
		n = 0;
		r = ptxSize(prog, &n);
		if (r == 0) {
			*ptx = (char*)malloc(n + 1);
			r = getPTX(prog, *ptx);
			(*ptx)[n] = 0;
			*size = n;
		}
	} else {
		r = cr;
	}
	destroy(&prog);
	return r;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// The NVRTC library, opened once by Load (a process resource, like the
// driver library: every device's compiles go through it).
var nvrtc struct {
	once          sync.Once
	err           error
	name, version string
}

// Load opens NVRTC, once: HPGRAPH_NVRTC, or the first of libraries that
// opens. The error wraps ErrNoNVRTC.
func Load() error {
	nvrtc.once.Do(func() {
		names := libraries
		if s := os.Getenv("HPGRAPH_NVRTC"); s != "" {
			names = []string{s}
		}
		var tried []string
		for _, name := range names {
			cname := C.CString(name)
			msg := C.hp_nvrtc_open(cname)
			C.free(unsafe.Pointer(cname))
			if msg == nil {
				nvrtc.name = name
				var major, minor C.int
				if C.hp_nvrtc_version(&major, &minor) != 0 {
					nvrtc.err = fmt.Errorf("%w: %s has no nvrtcVersion: not NVRTC", ErrNoNVRTC, name)
					return
				}
				nvrtc.version = fmt.Sprintf("%d.%d", major, minor)
				return
			}
			tried = append(tried, C.GoString(msg))
		}
		nvrtc.err = fmt.Errorf("%w: tried %s (set HPGRAPH_NVRTC to its path): %s",
			ErrNoNVRTC, strings.Join(names, ", "), strings.Join(tried, "; "))
	})
	return nvrtc.err
}

// Library is the NVRTC library Load opened and its version ("" before).
func Library() (name, version string) {
	if Load() != nil {
		return "", ""
	}
	return nvrtc.name, nvrtc.version
}

// Compile compiles src to PTX, or with cubin to machine code (opts then
// name an sm_XY architecture), with NVRTC's flags opts (Options). A
// rejected source is a *CompileError with NVRTC's log.
func Compile(src string, opts []string, cubin bool) (string, error) {
	if err := Load(); err != nil {
		return "", err
	}
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	cname := C.CString("hpgraph.cu")
	defer C.free(unsafe.Pointer(cname))
	copts := (*[1 << 10]*C.char)(C.malloc(C.size_t(len(opts)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	for i, o := range opts {
		copts[i] = C.CString(o)
	}
	defer func() {
		for i := range opts {
			C.free(unsafe.Pointer(copts[i]))
		}
		C.free(unsafe.Pointer(copts))
	}()
	var cptx, clog *C.char
	var size C.size_t
	asCubin := C.int(0)
	if cubin {
		asCubin = 1
	}
	r := C.hp_nvrtc_compile(csrc, cname, C.int(len(opts)), &copts[0], asCubin, &cptx, &size, &clog)
	var log string
	if clog != nil {
		log = C.GoString(clog)
		C.free(unsafe.Pointer(clog))
	}
	if r == -1 {
		return "", fmt.Errorf("cuda: %s lacks an NVRTC entry point", nvrtc.name)
	}
	if r != 0 {
		if log != "" {
			return "", &CompileError{Log: log}
		}
		return "", fmt.Errorf("cuda: NVRTC (%s): %s", nvrtc.name, C.GoString(C.hp_nvrtc_errstr(r)))
	}
	out := C.GoStringN(cptx, C.int(size))
	C.free(unsafe.Pointer(cptx))
	return out, nil
}
