// Package build is PREPROCESS on the device: from a graph's CSR (uploaded
// once and kept, or prefetched while the host prepares the run: csr.go)
// it builds a HYB matrix's ELL and COO arrays (hybbuild.go), a directed
// graph's transpose and undirected view (transpose.go, symmetrize.go), a
// renumbering by degree (relabel.go), the pull bins and push degrees,
// the orientations (orient.go) and the column-sorted tiles (tilesdev.go;
// the host's builder, the reference, in tiles.go), and keeps the
// matrices' device copies across runs (Cache). Its per-device value,
// Device, embeds jit's (the module cache) and is embedded by the run
// layer's.
//
// Every step runs inside the device's Do and panics on a driver error,
// which Do returns. A step's kernels are in a .cu file of this folder
// (modules.go loads them); sizes and offsets the host needs come back,
// nothing else.
package build
