package pagerank

import (
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDeviceCode: both PageRanks' generated device code names the
// programs' own state, makes the initial state (vp_init), reads the
// out-degrees as a Constant array and reduces by atomicAdd, as the
// hand-written code had; LDBC's float32 and float64 instantiations get
// code of their own, and one devgen did not translate gets code that
// does not compile, naming the ones it did (a device run fails with
// that).
func TestDeviceCode(t *testing.T) {
	g := apptest.DeviceGraph(t)
	pr := &Program{Damping: 0.85, Tolerance: 1e-7}
	apptest.Prepare(t, g, pr)
	prCode := pr.Device()
	apptest.CheckDeviceCode(t, "pagerank", prCode, []apptest.Array{{"outDeg", pr.outDeg, true}, {"Rank", pr.Rank, false}},
		[]apptest.Scalar{{"Damping", 0.85}, {"Tolerance", 1e-7}})
	if !prCode.Init || !prCode.Arrays[0].Constant || !strings.Contains(prCode.Source, "#define VP_REDUCE_ADD 1\n") {
		t.Errorf("pagerank: vp_init %v, out-degrees Constant %v, VP_REDUCE_ADD %v; want all (as the hand-written code had)",
			prCode.Init, prCode.Arrays[0].Constant, strings.Contains(prCode.Source, "VP_REDUCE_ADD"))
	}

	ldbc := &LDBCProgram[float64]{Damping: 0.85, Iterations: 3}
	apptest.Prepare(t, g, ldbc)
	ldbcCode := ldbc.Device()
	apptest.CheckDeviceCode(t, "pagerank-ldbc", ldbcCode, []apptest.Array{{"outDeg", ldbc.outDeg, true}, {"Rank", ldbc.Rank, false}},
		[]apptest.Scalar{{"Damping", 0.85}, {"n", float64(g.N())}})
	ldbc32 := &LDBCProgram[float32]{Damping: 0.85, Iterations: 3}
	apptest.Prepare(t, g, ldbc32)
	ldbc32Code := ldbc32.Device()
	apptest.CheckDeviceCode(t, "pagerank-ldbc float32", ldbc32Code, []apptest.Array{{"outDeg", ldbc32.outDeg, true}, {"Rank", ldbc32.Rank, false}},
		[]apptest.Scalar{{"Damping", 0.85}, {"n", float64(g.N())}})
	for _, c := range []vertexprog.DeviceCode{ldbcCode, ldbc32Code} {
		if !c.Init || !c.Arrays[0].Constant || !strings.Contains(c.Source, "#define VP_REDUCE_ADD 1\n") {
			t.Errorf("pagerank-ldbc: vp_init %v, out-degrees Constant %v, VP_REDUCE_ADD %v; want all (as the hand-written code had)",
				c.Init, c.Arrays[0].Constant, strings.Contains(c.Source, "VP_REDUCE_ADD"))
		}
	}
	if !strings.Contains(ldbc32Code.Source, "typedef float X_t;") || !strings.Contains(ldbcCode.Source, "typedef double X_t;") {
		t.Error("pagerank-ldbc: the float32 and float64 instantiations do not get their own device code")
	}
	type f32 float32
	if src := (&LDBCProgram[f32]{}).Device().Source; !strings.Contains(src, "#error") || !strings.Contains(src, "LDBCProgram[float32]") {
		t.Errorf("pagerank-ldbc[f32]: device source %q, want an #error naming the translated instantiations", src)
	}
	apptest.TypeSizes(t, "pagerank", programDeviceSource, 8, 8)
	apptest.TypeSizes(t, "pagerank-ldbc", ldbcCode.Source, 8, 8)
	apptest.TypeSizes(t, "pagerank-ldbc float32", ldbc32Code.Source, 4, 4)
}
