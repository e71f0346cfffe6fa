//go:build !amd64 && !arm64

package relaxed

import "sync/atomic"

// StoreInt32 stores v at p (sync/atomic's store where no plain one is
// written for the architecture).
func StoreInt32(p *int32, v int32) { atomic.StoreInt32(p, v) }
