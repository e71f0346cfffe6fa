package jit

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// PTX returns the PTX of src for arch (compute_XY) and the key it is
// kept under, from the disk cache (os.UserCacheDir()/hpgraph/ptx) when
// the same NVRTC compiled it before with the same options.
func PTX(src, arch string) (ptx, key string, err error) {
	if err := Load(); err != nil {
		return "", "", err
	}
	_, version := Library()
	opts := Options(arch)
	h := sha256.New()
	for _, s := range append([]string{src, version}, opts...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	key = hex.EncodeToString(h.Sum(nil))
	dir := ptxCacheDir()
	if dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, key+".ptx")); err == nil && len(b) > 0 {
			return string(b), key, nil
		}
	}
	ptx, err = Compile(src, opts, false)
	if err != nil {
		return "", "", err
	}
	if dir != "" {
		writeCache(dir, key+".ptx", ptx)
	}
	return ptx, key, nil
}

// ptxCacheDir is os.UserCacheDir()/hpgraph/ptx, or "" when there is none.
func ptxCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "hpgraph", "ptx")
}

// writeCache stores a file atomically; a cache that cannot be written is
// no error.
func writeCache(dir, name, content string) {
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return
	}
	_, werr := f.WriteString(content)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), filepath.Join(dir, name)) != nil {
		os.Remove(f.Name())
	}
}
