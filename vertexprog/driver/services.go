package driver

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/datasets"
)

// Services a device backend may offer besides running programs; the
// engine and the front ends ask for each where a backend implements it.

// Prefetcher is implemented by a device backend that can start copying a
// graph's adjacency (a CSR: row offsets, columns, weights or nil) to the
// device while the host prepares a run. vertexprog.Run calls Prefetch, which must
// return at once, with each adjacency the run's matrices are described
// from that already exists, before the program's Prepare and the
// matrices' description; the backend builds a matrix whose source is the
// same CSR (the same arrays) from the copy, and frees a copy no matrix
// took when the next run starts. A backend may skip a prefetch (a matrix
// already on the device, too little memory): it only saves time.
type Prefetcher interface {
	Prefetch(rowPtr []int64, col []int32, val []float32)
}

// Symmetrizer is implemented by a device backend that builds a directed
// graph's undirected view (the rows of AllEdges: each vertex's out- and
// in-neighbours merged, every neighbour once with its lightest weight, as
// datasets.Graph.Symmetrized makes them) on the device from the graph's
// out-CSR, so that the host builds neither it nor the transpose it merges.
// SymmetrizedRows builds it, keeps it on the device for the matrix that
// vertexprog.Run then describes from the returned row offsets
// (hyb.DescribeSymmetrized: that slice, not a copy, identifies it), and
// returns them; an error leaves the view to the host. Run calls it beside
// the host's PREPROCESS, after Prefetch, for a run on the backend that
// gathers along AllEdges on a directed graph whose view the host has not
// built.
type Symmetrizer interface {
	SymmetrizedRows(rowPtr []int64, col []int32, val []float32) ([]int64, error)
}

// DegreeRelabeler is implemented by a device backend that renumbers a
// graph by degree on its device: RelabelByDegree returns, array by array,
// what g.RelabelParts(datasets.RelabelDegree, parts) makes (g itself where
// g is in that order already); an error (no room on the device) leaves it
// to the host.
type DegreeRelabeler interface {
	Backend
	RelabelByDegree(g *datasets.Graph, parts int) (*datasets.Graph, error)
}

// HostPinner is implemented by a device backend that can page-lock host
// memory that runs copy results into again and again (a server's
// scratch arrays): its copies to that memory then go by DMA, without the
// staging a pageable destination needs (a served kron21 PageRank's 16 MB
// of ranks: ~1 ms staged). Pin locks the bytes at p until unpin runs,
// which must be before the memory is freed or used for anything else.
type HostPinner interface {
	Backend
	Pin(p unsafe.Pointer, bytes int) (unpin func(), err error)
}

// DeviceInfo describes the device a backend runs on, for benchmark records.
type DeviceInfo struct {
	Name              string // e.g. "NVIDIA H200"
	Driver            string // driver version, e.g. "580.159.04" or "13000"
	ComputeCapability string // e.g. "9.0"
	SMs               int
	MemoryBytes       int64
	// CopyBandwidth is the measured device-to-device copy rate in bytes
	// per second, counting bytes read plus bytes written: the roofline
	// that benchmarks compare achieved bandwidth with.
	CopyBandwidth float64
}

// Describer is implemented by backends that can describe their device.
type Describer interface {
	Describe() (DeviceInfo, error)
}

// MemoryReporter is implemented by device backends that can say how much
// device memory their runs have held.
type MemoryReporter interface {
	// DeviceMemory returns the most device memory this process has held
	// at once (above what the device's context itself takes) and the
	// device's total, in bytes.
	DeviceMemory() (peak, total int64)
}
