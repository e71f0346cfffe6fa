// Package huge allocates the large arrays that graph kernels reach at
// random (a vertex's depth, parent, rank or label, read or written along
// each edge) on transparent huge pages where the kernel gives them on
// request (Linux's common default, enabled=madvise). With 4 KiB pages a
// gather over a 16 MB array misses the TLB on most loads; on 2 MiB pages
// it does not: on the GPU machine's Xeon a gather of 64 M random
// float64s took 210-260 ms from a 16 MB array advised, 250-320 not, and
// 350-430 against 670-690 ms from 128 MB. The file buffers and built
// CSRs gain too: 2 MiB faults instead of 512 4 KiB ones.
package huge

import "unsafe"

// MinBytes is the size from which arrays are advised: below it, the two
// whole huge pages an array would get at most are not worth a system call.
const MinBytes = 4 << 20

// Make is make([]T, n), on huge pages where it is at least MinBytes and
// fresh from the system (a T with pointers is zeroed by the runtime
// first: its pages are already there, and the advice comes too late).
func Make[T any](n int) []T {
	s := make([]T, n)
	Advise(s)
	return s
}

// Advise asks for huge pages under s, memory not yet touched (a fresh
// make, say): the whole 2 MiB pages inside it, where it is at least
// MinBytes. Memory already touched keeps its pages until the kernel's
// khugepaged merges them. A refusal changes nothing but speed.
func Advise[T any](s []T) {
	if len(s) == 0 {
		return
	}
	size := uintptr(len(s)) * unsafe.Sizeof(s[0])
	if size < MinBytes {
		return
	}
	adviseBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size))
}
