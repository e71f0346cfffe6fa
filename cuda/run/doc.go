// Package run is the CUDA backend's top layer: a vertex program's runs
// on a device. A run's life: its start, the kernels' features, the
// device memory it needs and its module (run.go, memory.go, source.go:
// the kernel template kernels*.cu with the program's snippet spliced
// in), its state on the device (upload.go, or a parked resident run's
// buffers: park.go), its supersteps (steps.go; the launches of one in
// launch.go, replayed from CUDA graphs in graphs.go), its results and
// end (finish.go). Multiset programs (multiset.go) and Afforest
// (afforest.go) run kernels of their own on the same matrices.
//
// Device is the whole per-device value (it embeds build's, which embeds
// jit's and rt's): what runs keep on the device beside what the layers
// below keep. Backend is what a backend does for vertexprog on one
// device; package cuda's Backend embeds it. Options are a backend's,
// read by each run at its start.
package run
