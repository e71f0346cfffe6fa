//go:build amd64 || arm64

package par

// pause tells the processor that the caller spins (x86 PAUSE, arm64
// YIELD): a spinning helper leaves its core's sibling thread the issue
// slots and saves power, and notices the next region a few ns later.
func pause()
