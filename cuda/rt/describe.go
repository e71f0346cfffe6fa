//go:build cgo

package rt

/*
#include "../cu/cu.h"

// hp_copy_ms times one device-to-device copy of bytes with events.
static CUresult hp_copy_ms(CUdeviceptr dst, CUdeviceptr src, size_t bytes, float* ms) {
	CUevent a, b;
	CUresult r = cuEventCreate(&a, CU_EVENT_DEFAULT);
	if (r != CUDA_SUCCESS) return r;
	r = cuEventCreate(&b, CU_EVENT_DEFAULT);
	if (r != CUDA_SUCCESS) { cuEventDestroy(a); return r; }
	if ((r = cuEventRecord(a, 0)) == CUDA_SUCCESS &&
	    (r = cuMemcpyDtoDAsync(dst, src, bytes, 0)) == CUDA_SUCCESS &&
	    (r = cuEventRecord(b, 0)) == CUDA_SUCCESS &&
	    (r = cuEventSynchronize(b)) == CUDA_SUCCESS)
		r = cuEventElapsedTime(ms, a, b);
	cuEventDestroy(a);
	cuEventDestroy(b);
	return r;
}
*/
import "C"

import (
	"fmt"
	"os"
	"regexp"
	"sort"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Describe is the device, its driver, and its device-to-device copy
// bandwidth (measured once, then kept).
func (d *Device) Describe() (driver.DeviceInfo, error) {
	d.mu.Lock()
	if d.info != nil {
		info := *d.info
		d.mu.Unlock()
		return info, nil
	}
	d.mu.Unlock()
	info := driver.DeviceInfo{
		Name:              d.Name,
		ComputeCapability: fmt.Sprintf("%d.%d", d.Major, d.Minor),
		SMs:               d.SMs,
		MemoryBytes:       d.TotalMem,
	}
	err := d.Do("measuring the copy bandwidth", func() error {
		info.Driver = driverVersion(cu.Version())
		info.CopyBandwidth = measureCopy()
		return nil
	})
	if err != nil {
		return driver.DeviceInfo{}, err
	}
	d.mu.Lock()
	d.info = &info
	d.mu.Unlock()
	return info, nil
}

var nvidiaModuleRE = regexp.MustCompile(`Kernel Module.*?\s(\d+\.\d+(?:\.\d+)?)\s`)

// driverVersion is the kernel module's version from
// /proc/driver/nvidia/version (e.g. "580.159.04 (CUDA 13.0)"), or the CUDA
// driver API version alone where that file is missing.
func driverVersion(v int) string {
	api := fmt.Sprintf("CUDA %d.%d", v/1000, v%1000/10)
	if b, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		if m := nvidiaModuleRE.FindSubmatch(b); m != nil {
			return fmt.Sprintf("%s (%s)", m[1], api)
		}
	}
	return fmt.Sprintf("%s (%d)", api, v)
}

// copyMillis times a device-to-device copy of bytes. Inside Do.
func copyMillis(dst, src cu.DevicePtr, bytes int64) float64 {
	var ms C.float
	check("timing a device copy", C.hp_copy_ms(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes), &ms))
	return float64(ms)
}

// measureCopy times device-to-device copies of a 1 GiB buffer (less when
// memory is short) and returns the median rate in bytes per second,
// counting bytes read plus bytes written. Inside Do.
func measureCopy() float64 {
	free, _ := cu.MemGetInfo()
	size := int64(1 << 30)
	if 3*size > free {
		size = free / 4 &^ (1<<20 - 1)
	}
	if size < 16<<20 {
		return 0
	}
	src := cu.MemAlloc(size)
	defer cu.MemFree(src)
	dst := cu.MemAlloc(size)
	defer cu.MemFree(dst)
	cu.MemsetD32(src, 0x5a3c9617, size/4)
	cu.MemsetD32(dst, 0x01234567, size/4)
	copyMillis(dst, src, size) // warm-up
	var ms []float64
	for i := 0; i < 7; i++ {
		ms = append(ms, copyMillis(dst, src, size))
	}
	sort.Float64s(ms)
	if ms[3] <= 0 {
		return 0
	}
	return 2 * float64(size) / (ms[3] / 1e3)
}
