package jit

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// prebuilt holds machine code made ahead of time for the kernels the
// built-in apps compile (prebuilt/README.md).
//
//go:embed prebuilt
var prebuilt embed.FS

// PrebuiltKey names a kernel source compiled with the options for arch
// (compute_XY), whatever NVRTC compiled it.
func PrebuiltKey(src, arch string) string {
	h := sha256.New()
	for _, s := range append([]string{src}, Options(arch)...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// SM is the machine architecture (sm_XY) of arch (compute_XY).
func SM(arch string) string { return "sm_" + strings.TrimPrefix(arch, "compute_") }

// Prebuilt returns the prebuilt machine code of src for arch, or ""
// where there is none, and the name it has or would have (KEY.sm_XY).
func Prebuilt(src, arch string) (image, key string) {
	key = PrebuiltKey(src, arch) + "." + SM(arch)
	b, err := prebuilt.ReadFile("prebuilt/" + key + ".cubin")
	if err != nil || !bytes.HasPrefix(b, []byte("\x7fELF")) {
		return "", key
	}
	return string(b), key
}

// WritePrebuilt compiles src to machine code for arch's sm_XY and writes
// it to dir as prebuilt/ names it (unless it is there).
func WritePrebuilt(dir, src, arch string) error {
	name := filepath.Join(dir, PrebuiltKey(src, arch)+"."+SM(arch)+".cubin")
	if _, err := os.Stat(name); err == nil {
		return nil
	}
	opts := Options(arch)
	opts[0] = "--gpu-architecture=" + SM(arch)
	cubin, err := Compile(src, opts, true)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(cubin), 0o644)
}

// CheckPrebuilt is nil where src has a prebuilt image for arch, for the
// tests that keep prebuilt/ complete. Else, with HPGRAPH_CUDA_PREBUILD=DIR,
// it writes the missing image to DIR (NVRTC 12 or later assembles sm_90:
// HPGRAPH_NVRTC; no GPU needed), and without it says which is missing.
func CheckPrebuilt(src, arch string) error {
	image, key := Prebuilt(src, arch)
	if image != "" {
		return nil
	}
	if dir := os.Getenv("HPGRAPH_CUDA_PREBUILD"); dir != "" {
		return WritePrebuilt(dir, src, arch)
	}
	return fmt.Errorf("no prebuilt image %s.cubin (HPGRAPH_CUDA_PREBUILD=DIR writes it: cuda/jit/prebuilt/README.md)", key)
}
