package jit

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoNVRTC is returned (wrapped) when no NVRTC library can be opened
// (or the build has no cgo).
var ErrNoNVRTC = errors.New("cuda: NVRTC (the CUDA runtime compiler) not available")

// ErrCompile is returned (wrapped in a *CompileError) when NVRTC rejects
// the kernels with a program's device code spliced in.
var ErrCompile = errors.New("cuda: device code does not compile")

// SnippetFile is the name NVRTC's log gives a program's snippet (the
// run layer's sources mark it with #line).
const SnippetFile = "device_code.cu"

// CompileError carries NVRTC's log. Lines of the program's snippet are
// reported as device_code.cu(LINE), numbered from the snippet's first
// line.
type CompileError struct {
	Log string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("%v (NVRTC log follows; %s(N) is line N of DeviceCode.Source)\n%s", ErrCompile, SnippetFile, strings.TrimSpace(e.Log))
}

func (e *CompileError) Unwrap() error { return ErrCompile }

// Options are NVRTC's flags for arch (compute_XY, or sm_XY for machine
// code). FMA contraction is off so floating point matches the Go
// programs bit for bit.
func Options(arch string) []string {
	return []string{"--gpu-architecture=" + arch, "--fmad=false", "--std=c++17", "-default-device"}
}

// libraries are the NVRTC libraries Load tries, in order, unless
// HPGRAPH_NVRTC names one.
var libraries = []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}
