package driver

// MultisetBackend is a device backend that gathers multisets: it runs a
// multiset program's supersteps (every one a pull over every row: the
// elements of each row sorted and counted, summarized, then Update on
// every vertex), driven by the engine like a DeviceBackend's. The job's
// Code is the program's vertexprog.MultisetDeviceProgram code, Push is nil, and
// HasWants and HasDone are false; the run's Step reports no frontier
// edges. Results must equal the CPU engine's bit for bit.
type MultisetBackend interface {
	Backend
	StartMultiset(job *DeviceJob) (DeviceRun, error)
}
