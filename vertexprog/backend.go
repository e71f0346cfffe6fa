package vertexprog

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Backend is a device that runs programs (the GPU backend registers itself
// when the binary is built with the cuda tag). The CPU engine is built in.
type Backend interface {
	// Name is what Options.Backend selects the backend by ("cuda").
	Name() string
	// Available returns nil when the backend can run here, else why not
	// (no device, no driver).
	Available() error
}

// ErrNoBackend is returned when the requested backend is missing or
// unusable.
var ErrNoBackend = errors.New("backend not available")

var (
	backendsMu sync.Mutex
	backends   = map[string]Backend{}
)

// RegisterBackend makes b selectable by name.
func RegisterBackend(b Backend) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	backends[b.Name()] = b
}

// Backends lists the backends that can run here, "cpu" first.
func Backends() []string {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	names := []string{}
	for n, b := range backends {
		if b.Available() == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append([]string{"cpu"}, names...)
}

// selectBackend resolves Options.Backend: nil means the CPU engine.
func selectBackend[X, A any](name string, p Program[X, A]) (Backend, error) {
	switch name {
	case "", "auto", "cpu":
		return nil, nil
	}
	backendsMu.Lock()
	b, ok := backends[name]
	backendsMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q is not built into this binary (GPU support needs the cuda build tag: make cuda)", ErrNoBackend, name)
	}
	if err := b.Available(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoBackend, name, err)
	}
	return nil, fmt.Errorf("%w: %s cannot run %T", ErrNoBackend, name, p)
}
