// Package benchtier says which tier of the benchmarks runs. `make bench`
// runs the light tier: graphs a few times smaller than the performance
// notes quote, every engine benchmark, and only the gonum references
// that take seconds, so that it finishes in minutes on a 2-core machine.
// The heavy tier (HPGRAPH_BENCH=heavy: `make bench HEAVY=1`) runs the
// notes' sizes and every reference (the LCC reference alone takes ~2
// minutes a run on kron18 there).
package benchtier

import (
	"os"
	"testing"
)

// Env is the variable that picks the tier; "heavy" is the heavy one.
const Env = "HPGRAPH_BENCH"

// Heavy says whether the heavy tier runs.
func Heavy() bool { return os.Getenv(Env) == "heavy" }

// Scale is light in the light tier and heavy in the heavy one: a
// benchmark graph's size.
func Scale(light, heavy int) int {
	if Heavy() {
		return heavy
	}
	return light
}

// HeavyOnly skips b in the light tier.
func HeavyOnly(b *testing.B) {
	b.Helper()
	if !Heavy() {
		b.Skip("heavy tier only: make bench HEAVY=1 (" + Env + "=heavy)")
	}
}
