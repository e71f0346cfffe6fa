//go:build cgo

package jit

import (
	"os"
	"sync"

	"github.com/hpgraph/hpgraph/cuda/rt"
)

// Device is a device (rt.Device) with its module cache: each kernel
// source is looked up (prebuilt, the disk cache, or NVRTC) and loaded
// once per context.
type Device struct {
	*rt.Device

	mu      sync.Mutex
	modules map[string]*rt.Module
	images  map[string][2]string // Image's answers (image, key) by source
}

// New gives d a module cache.
func New(d *rt.Device) *Device {
	return &Device{Device: d, modules: map[string]*rt.Module{}, images: map[string][2]string{}}
}

// Image returns what Load loads for src on d: prebuilt machine code when
// there is, else PTX from NVRTC (or its disk cache), and the key the
// module is kept under. With HPGRAPH_CUDA_PREBUILD=DIR it also writes
// the machine code of src for d to DIR, for scripts/gpu-prebuild.sh.
func (d *Device) Image(src string) (image, key string, err error) {
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

// findImage is Image's first look-up of src.
func (d *Device) findImage(src string) (image, key string, err error) {
	arch := d.Arch()
	if dir := os.Getenv("HPGRAPH_CUDA_PREBUILD"); dir != "" {
		if err := WritePrebuilt(dir, src, arch); err != nil {
			return "", "", err
		}
	}
	if image, key = Prebuilt(src, arch); image != "" {
		return image, key, nil
	}
	return PTX(src, arch)
}

// Load loads image (Image's) once per key (modules live as long as the
// context) and looks up its kernels, names. Inside Do.
func (d *Device) Load(key, image string, names []string) (*rt.Module, error) {
	d.mu.Lock()
	m := d.modules[key]
	d.mu.Unlock()
	if m != nil {
		return m, nil
	}
	m, err := rt.LoadModule(image, names)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.modules[key] = m
	d.mu.Unlock()
	return m, nil
}

// Module finds (prebuilt, cached or compiled) and loads the module of
// src, a source that does not depend on a program (the device's
// PREPROCESS), with its kernels names; it panics on an error, as the
// steps inside Do that use it do. Inside Do.
func (d *Device) Module(src string, names []string) *rt.Module {
	image, key, err := d.Image(src)
	if err != nil {
		panic(err)
	}
	m, err := d.Load(key, image, names)
	if err != nil {
		panic(err)
	}
	return m
}
