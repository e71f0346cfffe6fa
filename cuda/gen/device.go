//go:build cgo

package gen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// OnDevice is a CUDA device (jit.Device: rt's context, stream and memory,
// jit's module cache) as a Device, with Source's kernels loaded like
// every other module: prebuilt, from the disk cache, or by NVRTC. Its
// methods run inside the device's Do.
type OnDevice struct {
	d   *jit.Device
	mod *rt.Module
}

// NewDevice loads the kernels on d. Inside d.Do; it panics where they
// do not load, as the steps inside Do do.
func NewDevice(d *jit.Device) *OnDevice { return &OnDevice{d: d, mod: d.Module(Source, Kernels)} }

// Alloc implements Device.
func (o *OnDevice) Alloc(bytes int64) (Ptr, error) {
	var p cu.DevicePtr
	err := rt.Catch("allocating device memory", func() error { p = cu.MemAlloc(bytes); return nil })
	if errors.Is(err, rt.ErrOutOfMemory) {
		free, total := o.d.MemInfo()
		return 0, fmt.Errorf("%w (%d bytes asked, %d of %d free): %w", ErrOutOfMemory, bytes, free, total, err)
	}
	return Ptr(p), err
}

// Free implements Device.
func (o *OnDevice) Free(p Ptr) {
	o.d.Sync()
	rt.FreeAll([]cu.DevicePtr{cu.DevicePtr(p)})
}

// HtoD implements Device.
func (o *OnDevice) HtoD(dst Ptr, src unsafe.Pointer, bytes int64) {
	o.d.HtoD(cu.DevicePtr(dst), src, bytes)
}

// DtoH implements Device.
func (o *OnDevice) DtoH(dst unsafe.Pointer, src Ptr, bytes int64) {
	o.d.Sync()
	o.d.DtoH(dst, cu.DevicePtr(src), bytes)
}

// Launch implements Device.
func (o *OnDevice) Launch(kernel string, grid int64, arg []byte, mode int32) {
	o.mod.Launch2(kernel, grid, o.d.Stream(), arg, binary.LittleEndian.AppendUint32(nil, uint32(mode)))
}

// FreeMemory implements Device.
func (o *OnDevice) FreeMemory() int64 {
	free, _ := o.d.MemInfo()
	return free
}

// SMs implements Device.
func (o *OnDevice) SMs() int { return o.d.SMs }

// (Launch2 launches rt.BlockSize threads a block: gen.cu's GEN_THREADS)
const _ = uint(BlockSize-rt.BlockSize) + uint(rt.BlockSize-BlockSize)
