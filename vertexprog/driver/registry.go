package driver

import (
	"sort"
	"sync"
)

// Backend is a device that runs programs (the GPU backend registers itself
// when the binary is built with cgo). The CPU engine is built in.
type Backend interface {
	// Name is what vertexprog.Options.Backend selects the backend by ("cuda").
	Name() string
	// Available returns nil when the backend can run here, else why not
	// (no device, no driver).
	Available() error
}

// Prober is implemented by a backend that can say cheaply, without
// opening its device (a GPU's driver and context take a quarter of a
// second), that it cannot run here: Probe returns why (no driver, a
// build without the backend's library), or nil where Available may
// succeed.
type Prober interface {
	Probe() error
}

var (
	mu       sync.Mutex
	backends = map[string]Backend{}
)

// Register makes b selectable by name (vertexprog.Options.Backend),
// replacing a backend registered under that name before.
func Register(b Backend) {
	mu.Lock()
	defer mu.Unlock()
	backends[b.Name()] = b
}

// Lookup returns the backend registered as name, whether or not it can
// run here.
func Lookup(name string) (Backend, bool) {
	mu.Lock()
	defer mu.Unlock()
	b, ok := backends[name]
	return b, ok
}

// Registered returns the registered backends sorted by name. (Callers
// ask Available outside the registry's lock: a GPU's may take hundreds
// of milliseconds the first time, which must not hold up others reading
// the registry.)
func Registered() []Backend {
	mu.Lock()
	defer mu.Unlock()
	bs := make([]Backend, 0, len(backends))
	for _, b := range backends {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Name() < bs[j].Name() })
	return bs
}
