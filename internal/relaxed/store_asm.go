//go:build amd64 || arm64

package relaxed

// StoreInt32 stores v at p: one aligned 4-byte store, no barrier.
//
//go:noescape
func StoreInt32(p *int32, v int32)
