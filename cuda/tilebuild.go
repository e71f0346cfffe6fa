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

// tileBuild is one matrix's tiles built on the host in the background.
type tileBuild struct {
	ts   tileSpec
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
	b := d.tileBuilds[m]
	if b != nil && (b.ts != ts || b.sig != sigOf(m)) {
		b = nil // (another shape, or the matrix changed: build afresh)
	}
	if b == nil {
		b = &tileBuild{ts: ts, sig: sigOf(m), done: make(chan struct{})}
		if d.tileBuilds == nil {
			d.tileBuilds = map[*hyb.Matrix]*tileBuild{}
		}
		d.tileBuilds[m] = b
		go d.buildTiles(m, b)
		return false
	}
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// buildTiles builds b's tiles of m and marks b done.
func (d *device) buildTiles(m *hyb.Matrix, b *tileBuild) {
	var t *pullTiles
	defer func() {
		_ = recover()
		d.mu.Lock()
		b.t = t
		d.mu.Unlock()
		close(b.done)
	}()
	t = makePullTiles(m, b.ts.rowBits, b.ts.maxArcs, b.ts.near, b.ts.symmetric)
}

// takeTiles hands over m's tiles of shape ts built in the background, or
// nil where there are none to take (the caller builds them). Safe for
// concurrent use.
func (d *device) takeTiles(m *hyb.Matrix, ts tileSpec) *pullTiles {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.tileBuilds[m]
	if b == nil || b.ts != ts || b.sig != sigOf(m) {
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

// forgetTiles drops the record of m's tiles when its device copy goes:
// the next resident run builds them in the background again.
func (d *device) forgetTiles(m *hyb.Matrix) {
	d.mu.Lock()
	delete(d.tileBuilds, m)
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
