// Package driver is the contract between hpgraph's engine (package
// vertexprog) and the backends that run programs on a device, as
// database/sql/driver is database/sql's: a program's author needs only
// vertexprog; a backend (the GPU's, package cuda) implements these
// interfaces and registers itself with Register.
//
// A backend is a Backend; one that runs programs is a DeviceBackend,
// which the engine hands a DeviceJob (the program's Spec and DeviceCode,
// its gathering and pushing Matrix, the initial values and frontier)
// and drives the DeviceRun it starts one superstep, or one batch of
// them, at a time, so that the loop and the direction choice are the
// engine's. Every other service is optional, an interface the engine
// asks for: Prefetcher, Symmetrizer and DegreeRelabeler take parts of
// PREPROCESS to the device, HostPinner page-locks result memory,
// Describer, MemoryReporter, TransferReporter and DeviceTimer report,
// SummaryFinisher, Reducer, DeviceBatchRun and DeviceInitReporter make runs
// cheaper, and ComponentsBackend, MultisetBackend and PartBackend run
// the engine's other kinds of run (union-find components, multiset
// gathers, partitioned runs).
//
// The program's declaration (Spec, EdgeType, Aggregator, Direction,
// DeviceCode, DeviceArray, Orientation) is defined here, because a
// backend reads it; package vertexprog names each for program authors.
package driver
