package vertexprog

import "time"

// FreshOrientation is an Orientation of g, outside g's memo, its arrays
// not yet built: tests and benchmarks build one again with it (Build).
func FreshOrientation(g *Graph, all, ranked bool) *Orientation {
	return newOrientation(g, all, ranked)
}

// RankCap is rankCap: the degrees above it are ranked by a sort of their
// own, the ones below by a counting sort.
const RankCap = rankCap

// SetRaceDeviceFloor sets raceDeviceFloor until the test ends.
func SetRaceDeviceFloor(t interface{ Cleanup(func()) }, d time.Duration) {
	old := raceDeviceFloor
	raceDeviceFloor = d
	t.Cleanup(func() { raceDeviceFloor = old })
}

// SetRaceDeviceArc sets raceDeviceArc (a device run's time an arc) until
// the test ends.
func SetRaceDeviceArc(t interface{ Cleanup(func()) }, d time.Duration) {
	old := raceDeviceArc
	raceDeviceArc = float64(d)
	t.Cleanup(func() { raceDeviceArc = old })
}

// SetWarming sets whether Warm has begun opening a device (a race then
// waits for it rather than opening it lazily) until the test ends.
func SetWarming(t interface{ Cleanup(func()) }, on bool) {
	old := warming.Load()
	warming.Store(on)
	t.Cleanup(func() { warming.Store(old) })
}

// RaceOpenAfter is raceOpenAfter.
var RaceOpenAfter = raceOpenAfter
