package jit

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
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
