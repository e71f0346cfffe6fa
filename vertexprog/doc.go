// Package vertexprog is hpgraph's public API and its bulk-synchronous
// engine. A user writes a Program — per-vertex values, Gather, Reduce,
// Update, an edge type and an iteration limit — and Run executes it as
// generalized sparse matrix-vector products over HYB matrices: PREPROCESS
// (matrices, state, bitmasks), then supersteps of SPMV and APPLY until no
// vertex is active. Supersteps pull over the gathering matrix or, for
// sparse frontiers, push over its transpose; a cost model picks per
// superstep.
//
// The engine knows programs only through this interface and backends only
// through package vertexprog/driver, their contract (as database/sql's
// drivers know database/sql/driver): a program's author needs this
// package alone, a backend that author's. The engine never knows which
// algorithm runs.
//
// # Accumulators of reference types
//
// The engine copies the one value Identity returns into every vertex's
// accumulator and every partial one, on all cores at once. An accumulator
// that holds a map, a pointer, a channel or a slice with capacity would
// therefore share that storage among all vertices, and a Gather writing
// through it races with every other ("fatal error: concurrent map writes",
// or silently wrong results). Identity must hold nil references only
// (an empty slice of capacity 0 is fine: append allocates); Gather
// allocates a vertex's own storage on first use, and Reduce may return
// either argument's. Run checks Identity's value and refuses one that
// holds a non-nil reference. A program that needs all of its neighbours'
// values, not a fold of them, is better written as a MultisetProgram.
//
// # Operators
//
// Beside the semiring superstep, the engine offers three operators that a
// fold over the edges cannot express, or expresses slowly. Each is
// general: any program may use it, and the engine does not know which
// algorithm does. The examples folder holds programs built on each
// (examples/vote: a multiset; examples/mintag: components;
// examples/support: sorted-list intersection).
//
// Multiset gather (MultisetProgram, run through Multiset or RunMultiset).
// Computes, for every vertex and every superstep, the multiset of what its
// neighbours contribute (Element, one element per gathered edge), and
// hands it to Summarize as a Bag — the distinct elements in increasing
// order with their multiplicities — which makes the fixed-size
// accumulator that Update receives: a mode, a majority, a median, a count
// of distinct values. Contract: Element and Summarize are called
// concurrently and write nothing but their result; the Bag is the
// engine's scratch, valid only during Summarize; every superstep pulls
// every row (Spec.Sparse and Delta must be unset; push is refused with
// ErrPushUnsupported). Cost: a superstep gathers every edge and sorts
// each row's elements, O(m log d) for m edges and rows of at most d; the
// CPU engine keeps one buffer per worker as long as the longest row,
// reused from row to row and run to run (no allocation per edge or per
// vertex). Backends: the CPU engine runs every multiset program; a device
// backend that gathers multisets (driver.MultisetBackend: the GPU) runs
// one that also gives CUDA C for Element, Summarize and Update
// (MultisetDeviceProgram), with results equal to the CPU's bit for bit.
// Asked for a device that cannot run it, Run fails with ErrCPUOnly; auto
// then picks the CPU.
//
// Components (Spec.Components). Computes, for every vertex, the fold of
// the Init values of every vertex connected to it, arcs taken either way:
// a program that declares Components promises it is min-label propagation
// (Gather and Reduce take the smaller value, Update keeps it and only then
// activates, AllEdges, no iteration limit, aggregators or Delta; the
// driver.Spec field says it exactly), and the engine then labels the
// weakly connected components by union-find instead of running
// supersteps, folds each component's Init values with the program's
// Gather and hands every vertex the result through Update, so the values
// may be of any type (examples/mintag propagates int64 tags). Cost:
// Afforest's few passes over the vertices, O(n + m) with the largest
// component skipping most of its edges, where propagation needs as many
// supersteps as the largest component's diameter. Backends: the CPU
// engine (its own Afforest, on all cores) and a device backend with a
// union-find path (driver.ComponentsBackend: the GPU), neither needing
// device code; other backends, and runs whose Options force a direction,
// an iteration limit or per-edge gathers, run the program's supersteps.
//
// Sorted-list intersection (Orientation, CountCommon). Graph.Orientation
// gives every vertex a sorted list of its neighbours without self loops:
// those ranked above it by (degree, id) — a DAG whose lists stay short
// even at the hubs, so each triangle is found once, from its lowest
// vertex — or, with all, every neighbour; Graph.RankedOrientation holds
// the same lists in rank space. A Gather over the edge (v, u) intersects
// List(v) with List(u) (CountCommon, a merge) to count or visit the
// common neighbours: triangles, per-edge support (examples/support),
// clustering coefficients, neighbourhood overlaps. Contract: the
// Orientation is the graph's, shared by every run on it (Graph.Memo) and
// read only; its arrays are made on first use — Build on the host, which
// a program calls from PrepareHost (HostPreparer), so that a run on a
// device that builds them itself never builds them on the host. Cost:
// the build is O(m) on all cores (the ranked one adds a counting sort on
// the degree and a sort of each list), its arrays about m entries for m
// edges (2m with all) padded to blocks of OrientationBlock; an
// intersection is O(len(a) + len(b)), and all of them over the oriented
// lists O(m·√m) at worst. Backends: the CPU engine reads the host's
// arrays; a device backend builds them on the device from the run's
// gather matrix when the program gathers along AllEdges and its
// DeviceCode names them (DeviceArray.Orientation and Part), else copies
// the host's; the device code intersects the lists itself and sets
// DeviceCode.HeavyGather, so that the backend pulls row by row.
package vertexprog
