//go:build cgo

package cuda

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

// prebuiltKey names a kernel source compiled with the options for arch
// (compute_XY), whatever NVRTC compiled it.
func prebuiltKey(src, arch string) string {
	h := sha256.New()
	for _, s := range append([]string{src}, compileOptions(arch)...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// smOf is the machine architecture (sm_XY) of arch (compute_XY).
func smOf(arch string) string { return "sm_" + strings.TrimPrefix(arch, "compute_") }

// prebuiltImage returns the prebuilt machine code of src for arch, or ""
// where there is none.
func prebuiltImage(src, arch string) (image, key string) {
	key = prebuiltKey(src, arch) + "." + smOf(arch)
	b, err := prebuilt.ReadFile("prebuilt/" + key + ".cubin")
	if err != nil || !bytes.HasPrefix(b, []byte("\x7fELF")) {
		return "", key
	}
	return string(b), key
}

// kernelImage returns what loadModule loads for src on d: prebuilt
// machine code when there is, else PTX from NVRTC (or its disk cache),
// and the key the module is kept under. With HPGRAPH_CUDA_PREBUILD=DIR
// it also writes the machine code of src for d to DIR, for
// scripts/gpu-prebuild.sh.
func (d *device) kernelImage(src string) (image, key string, err error) {
	// (a process that runs one program many times, as run --src and
	// bench do, looks its image up once: finding it again in the disk
	// cache costs a hash and a decompression, 1.5-7 ms a kron21 BFS query)
	d.mu.Lock()
	im, ok := d.images[src]
	d.mu.Unlock()
	if ok {
		return im[0], im[1], nil
	}
	image, key, err = d.findImage(src)
	if err == nil {
		d.mu.Lock()
		d.images[src] = [2]string{image, key}
		d.mu.Unlock()
	}
	return image, key, err
}

// findImage is kernelImage's first look-up of src.
func (d *device) findImage(src string) (image, key string, err error) {
	arch := d.Arch()
	if dir := os.Getenv("HPGRAPH_CUDA_PREBUILD"); dir != "" {
		if err := writePrebuilt(dir, src, arch); err != nil {
			return "", "", err
		}
	}
	if image, key = prebuiltImage(src, arch); image != "" {
		return image, key, nil
	}
	return compile(src, arch)
}

// writePrebuilt compiles src to machine code for arch's sm_XY and writes
// it to dir as prebuilt/ names it.
func writePrebuilt(dir, src, arch string) error {
	name := filepath.Join(dir, prebuiltKey(src, arch)+"."+smOf(arch)+".cubin")
	if _, err := os.Stat(name); err == nil {
		return nil
	}
	if err := loadNVRTC(); err != nil {
		return err
	}
	opts := compileOptions(arch)
	opts[0] = "--gpu-architecture=" + smOf(arch)
	cubin, err := nvrtcCompile(src, opts, true)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(cubin), 0o644)
}
