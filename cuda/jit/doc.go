// Package jit is how the CUDA backend gets device code: NVRTC, opened at
// run time (dlopen; HPGRAPH_NVRTC overrides the libraries it tries), the
// disk cache of PTX it compiled (os.UserCacheDir()/hpgraph/ptx), the
// machine code prebuilt for the built-in apps (prebuilt/, made by
// scripts/gpu-prebuild.sh), and a device's module cache (Device: each
// source loaded once per context). devgen's tests compile with it too:
// the one NVRTC loader. Built without cgo, Load says why NVRTC is not
// there and nothing compiles.
package jit
