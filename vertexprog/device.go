package vertexprog

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// DeviceProgram is implemented by programs that can run on a GPU backend:
// they give CUDA C versions of their per-edge and per-vertex functions.
// Prepare and Init always run on the host; the backend copies X, the
// state arrays and the initial frontier to the device, runs the supersteps
// there, and copies X and the state arrays back at the end.
type DeviceProgram interface {
	Device() DeviceCode
}

// Relabel is g.RelabelParts(r, parts), made on the named backend's
// device where it is a driver.DegreeRelabeler that can run here ("auto"
// or "": the first available one; "cpu": the host), else on the host.
// parts is how many parts the graph's runs split into (PartsOf; 1: runs
// of the whole graph). The host's renumbering of a skewed graph takes
// hundreds of milliseconds and several times the graph's memory (kron21
// on 16 cores: 353-423 ms, 4.7 times the file at the peak).
func Relabel(g *datasets.Graph, r datasets.Relabeling, backend string, parts int) *datasets.Graph {
	if r.Resolve(g) != datasets.RelabelDegree {
		return g
	}
	if dr, ok := backendAs[driver.DegreeRelabeler](backend); ok {
		if p, err := dr.RelabelByDegree(g, parts); err == nil {
			return p
		}
	}
	return g.RelabelParts(r, parts)
}

// Pin page-locks s's memory for the copies of the named backend ("auto"
// or "": the first available device backend) and returns the function
// that unlocks it, which the caller must run before s is dropped. It
// returns nil, and nothing is locked, where the backend cannot (the CPU,
// no device, memory the device refuses): copies into s then work as
// before.
func Pin[T any](backend string, s []T) (unpin func()) {
	if len(s) == 0 || backend == "cpu" {
		return nil
	}
	var hp driver.HostPinner
	if backend == "" || backend == "auto" {
		hp, _ = firstBackend[driver.HostPinner]()
	} else if b, err := namedBackend(backend); err == nil {
		hp, _ = b.(driver.HostPinner)
	}
	if hp == nil {
		return nil
	}
	unpin, err := hp.Pin(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(s[0])))
	if err != nil {
		return nil
	}
	return unpin
}
