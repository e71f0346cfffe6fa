package huge

import (
	"syscall"
	"unsafe"
)

// adviseBytes advises the whole 2 MiB pages inside b (MADV_HUGEPAGE).
func adviseBytes(b []byte) {
	const page = 2 << 20
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + page - 1) &^ (page - 1)
	hi := (p + uintptr(len(b))) &^ (page - 1)
	if hi > lo {
		_ = syscall.Madvise(b[lo-p:hi-p], syscall.MADV_HUGEPAGE)
	}
}
