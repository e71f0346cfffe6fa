//go:build cgo

package rt

/*
#include "../cu/cu.h"

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
*/
import "C"

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/cuda/cu"
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
	return fmt.Sprintf("cuda: %s: %s (%s)", e.Op, ResultName(e.Code), resultString(e.Code))
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

// ResultName is the CUDA error name (CUDA_ERROR_OUT_OF_MEMORY).
func ResultName(r cu.Result) string {
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

// Catch runs f and turns a panic (the binding's cu.Result, or an *Error)
// into an error; a Go runtime error (a bug) names where it happened.
func Catch(op string, f func() error) (err error) {
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

// noGPU wraps an error of opening the driver or a device as ErrNoGPU,
// naming a driver error's call and code.
func noGPU(err error) error {
	var de *Error
	switch {
	case errors.As(err, &de):
		return fmt.Errorf("%w: the CUDA driver did not start (%s): %s (%s)", ErrNoGPU, de.Op, ResultName(de.Code), resultString(de.Code))
	case errors.Is(err, ErrNoGPU):
		return err
	}
	return fmt.Errorf("%w: %w", ErrNoGPU, err)
}

// check panics with an *Error when a direct driver call failed; the
// panic is recovered by Device.Do like the binding's.
func check(op string, r C.CUresult) {
	if r != C.CUDA_SUCCESS {
		panic(&Error{Op: op, Code: cu.Result(r)})
	}
}
