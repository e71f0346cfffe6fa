//go:build cgo

package cuda

import (
	"math/rand/v2"
	"testing"
)

// TestBackgroundTiles: the first ask starts a build and answers not
// ready; once done the tiles are ready, equal makePullTiles', and are
// handed over once; shapes build apart; forgetting one starts it afresh.
// (Host only: no device is opened.)
func TestBackgroundTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, _, _, _ := trialMatrix(t, rng, 1, 300, false)
	d := &device{}
	ts := tileSpec{rowBits: 3, maxArcs: 50, near: true}
	if d.tilesReady(m, ts) {
		t.Fatal("ready before any build")
	}
	if d.takeTiles(m, tileSpec{rowBits: 4, maxArcs: 50}) != nil {
		t.Fatal("tiles of another shape handed over")
	}
	<-d.tileBuilds[tileKey{m, ts}].done
	if !d.tilesReady(m, ts) {
		t.Fatal("not ready once built")
	}
	got := d.takeTiles(m, ts)
	if got == nil || !sameTiles(got, makePullTiles(m, ts.rowBits, ts.maxArcs, ts.near, false)) {
		t.Fatal("the background build differs from makePullTiles'")
	}
	if d.takeTiles(m, ts) != nil {
		t.Fatal("tiles handed over twice")
	}
	if !d.tilesReady(m, ts) {
		t.Fatal("not ready once handed over (the device has them)")
	}
	other := tileSpec{rowBits: 2, maxArcs: 7}
	if d.tilesReady(m, other) {
		t.Fatal("another shape ready at once")
	}
	<-d.tileBuilds[tileKey{m, other}].done
	if !d.tilesReady(m, ts) || !d.tilesReady(m, other) {
		t.Fatal("a shape's build cancelled the other's")
	}
	d.forgetTiles(m, got) // (the device's copy of ts's shape went)
	if d.tilesReady(m, ts) || !d.tilesReady(m, other) {
		t.Fatal("forgetTiles of one shape: wrong shapes forgotten")
	}
	d.forgetTiles(m, nil)
	if d.tilesReady(m, other) {
		t.Fatal("ready after forgetTiles of every shape")
	}
	for _, b := range d.tileBuilds {
		<-b.done
	}
}
