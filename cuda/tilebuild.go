//go:build cgo

package cuda

import "github.com/hpgraph/hpgraph/hyb"

// Tiles in the background. A pull matrix's tiles take the host about a
// second for kron21 on 16 cores (makePullTiles), and save ~0.35 ms a
// pull: with TilesResident the first resident run of a program that can
// use them starts their build on other goroutines and pulls by rows, and
// the runs that start once the build is done pull by tiles (their start
// uploads them). So a server's first PageRank query, or bench's first
// run, does not wait for them (its PREPROCESS: 785 ms on kron21 before,
// docs/perf.md). TilesAlways builds them in the run that asks, as before.

// tileKey names one shape of one matrix's tiles: programs with 4- and
// 8-byte accumulators ask for different shapes of the same matrix
// (tileRowBitsFor), and a build of one must not cancel the other's.
type tileKey struct {
	m  *hyb.Matrix
	ts tileSpec
}

// tileBuild is one matrix's tiles built on the host in the background.
type tileBuild struct {
	sig  matSig
	done chan struct{}
	// t is the tiles once done, until a run takes them (nil where the
	// build panicked: the run that asks next builds them itself, and says
	// why).
	t *pullTiles
}

// tilesReady reports whether m's tiles of shape ts are built (on the
// host, waiting for the next run to upload them, or already on the
// device), and starts their build in the background if nobody has.
// Safe for concurrent use (outside device.do).
func (d *device) tilesReady(m *hyb.Matrix, ts tileSpec) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := tileKey{m, ts}
	b := d.tileBuilds[k]
	if b != nil && b.sig != sigOf(m) {
		b = nil // (the matrix changed: build afresh)
	}
	if b == nil {
		b = &tileBuild{sig: sigOf(m), done: make(chan struct{})}
		if d.tileBuilds == nil {
			d.tileBuilds = map[tileKey]*tileBuild{}
		}
		d.tileBuilds[k] = b
		go d.buildTiles(k, b)
		return false
	}
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// buildTiles builds the tiles k names into b and marks b done.
func (d *device) buildTiles(k tileKey, b *tileBuild) {
	var t *pullTiles
	defer func() {
		_ = recover()
		d.mu.Lock()
		b.t = t
		d.mu.Unlock()
		close(b.done)
	}()
	t = makePullTiles(k.m, k.ts.rowBits, k.ts.maxArcs, k.ts.near, k.ts.symmetric)
}

// takeTiles hands over m's tiles of shape ts built in the background, or
// nil where there are none to take (the caller builds them). Safe for
// concurrent use.
func (d *device) takeTiles(m *hyb.Matrix, ts tileSpec) *pullTiles {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.tileBuilds[tileKey{m, ts}]
	if b == nil || b.sig != sigOf(m) {
		return nil
	}
	select {
	case <-b.done:
	default:
		return nil
	}
	t := b.t
	b.t = nil // (the device has them now; the host's arrays go)
	return t
}

// forgetTiles drops the record of m's tiles of the shape of old when its
// device copy goes (another shape replaces it), or of every shape for a
// nil old (the matrix's device copy goes): the next resident run asking
// for them builds them in the background again.
func (d *device) forgetTiles(m *hyb.Matrix, old *pullTiles) {
	d.mu.Lock()
	for k := range d.tileBuilds {
		if k.m == m && (old == nil || old.matches(k.ts)) {
			delete(d.tileBuilds, k)
		}
	}
	d.mu.Unlock()
}

// Settle implements vertexprog.Settler: it waits for the tiles being
// built in the background.
func (Backend) Settle() {
	d, err := getDevice()
	if err != nil {
		return
	}
	d.mu.Lock()
	var wait []chan struct{}
	for _, b := range d.tileBuilds {
		wait = append(wait, b.done)
	}
	d.mu.Unlock()
	for _, c := range wait {
		<-c
	}
}
