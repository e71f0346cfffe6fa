package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A model of vp_pull_coo + vp_pull_fixup (kernels.cu), statement for
// statement, run on the CPU with an accumulator that records the entries
// it folded, in order: reduce = concatenation (associative, not
// commutative), identity = empty. Every row must end with exactly its
// entries, in order, so a lost, doubled or misordered partial shows. It
// needs no GPU and no build tag.

type modelAcc []int64

func modelReduce(a, b modelAcc) modelAcc { return append(slices.Clip(a), b...) }

type modelCOO struct {
	block, items int
	rows         []int32
	skip         func(r int32) bool // vp_wants rejects the row
	y            map[int32]modelAcc
	carryFirst   []modelAcc
	carryLast    []modelAcc
}

func (m *modelCOO) tile() int64 { return int64(m.block * m.items) }

func (m *modelCOO) combineRow(r int32, part modelAcc) {
	if m.skip(r) {
		return
	}
	if _, dup := m.y[r]; dup {
		panic(fmt.Sprintf("row %d combined twice", r))
	}
	m.y[r] = modelReduce(nil, part)
}

func (m *modelCOO) emit(tile int64, r int32, v modelAcc, firstRow int32, headOpen bool, lastRow int32, tailOpen bool) {
	carryHead := headOpen && r == firstRow
	carryTail := tailOpen && r == lastRow
	if carryHead {
		m.carryFirst[tile] = v
	}
	if carryTail {
		m.carryLast[tile] = v
	}
	if !carryHead && !carryTail {
		m.combineRow(r, v)
	}
}

// runTile is one block of vp_pull_coo; its threads run phase by phase.
func (m *modelCOO) runTile(tile int64) {
	nnz := int64(len(m.rows))
	base := tile * m.tile()
	tileEnd := min(base+m.tile(), nnz)
	firstRow, lastRow := m.rows[base], m.rows[tileEnd-1]
	headOpen := base > 0 && m.rows[base-1] == firstRow
	tailOpen := tileEnd < nnz && m.rows[tileEnd] == lastRow

	type thread struct {
		lo           int64
		cnt, runs    int
		acc, head    modelAcc
		cur, myFirst int32
		contFromPrev bool
	}
	th := make([]thread, m.block)
	sval := make([]modelAcc, m.block)
	sflag := make([]bool, m.block)
	for t := range th {
		p := &th[t]
		p.lo = base + int64(t*m.items)
		p.cnt = int(max(0, min(int64(m.items), tileEnd-p.lo)))
		p.cur = -1
		skip := true
		for i := 0; i < m.items; i++ {
			if i < p.cnt {
				r := m.rows[p.lo+int64(i)]
				if r != p.cur {
					if p.runs == 1 {
						p.head = p.acc
					} else if p.runs > 1 {
						m.emit(tile, p.cur, p.acc, firstRow, headOpen, lastRow, tailOpen)
					}
					p.runs++
					p.cur = r
					p.acc = nil
					skip = m.skip(r)
				}
				if !skip {
					p.acc = modelReduce(p.acc, modelAcc{p.lo + int64(i)}) // vp_gather
				}
			}
		}
		p.myFirst = -1
		if p.cnt > 0 {
			p.myFirst = m.rows[p.lo]
		}
		p.contFromPrev = p.cnt > 0 && t > 0 && m.rows[p.lo-1] == p.myFirst
		sval[t] = p.acc
		sflag[t] = p.cnt == 0 || p.runs > 1 || !p.contFromPrev
	}
	for d := 1; d < m.block; d <<= 1 { // Hillis-Steele, one step for all threads
		nv, nf := slices.Clone(sval), slices.Clone(sflag)
		for t := range th {
			if !sflag[t] && t >= d {
				nv[t] = modelReduce(sval[t-d], sval[t])
				nf[t] = sflag[t-d]
			}
		}
		sval, sflag = nv, nf
	}
	for t := range th {
		p := &th[t]
		if p.cnt == 0 {
			continue
		}
		total := sval[t]
		if p.runs > 1 {
			v := p.head
			if p.contFromPrev {
				v = modelReduce(sval[t-1], p.head)
			}
			m.emit(tile, p.myFirst, v, firstRow, headOpen, lastRow, tailOpen)
		}
		closes := p.lo+int64(p.cnt) == tileEnd || m.rows[p.lo+int64(p.cnt)] != p.cur
		if closes {
			m.emit(tile, p.cur, total, firstRow, headOpen, lastRow, tailOpen)
		}
	}
}

// fixup is one thread of vp_pull_fixup.
func (m *modelCOO) fixup(t int64) {
	nnz := int64(len(m.rows))
	tiles := (nnz + m.tile() - 1) / m.tile()
	base, end := t*m.tile(), min(t*m.tile()+m.tile(), nnz)
	last := m.rows[end-1]
	if end >= nnz || m.rows[end] != last {
		return
	}
	single := m.rows[base] == last
	headOpen := base > 0 && m.rows[base-1] == last
	if single && headOpen {
		return
	}
	acc := m.carryLast[t]
	for t2 := t + 1; t2 < tiles; t2++ {
		acc = modelReduce(acc, m.carryFirst[t2])
		b2, e2 := t2*m.tile(), min(t2*m.tile()+m.tile(), nnz)
		through := m.rows[b2] == last && m.rows[e2-1] == last && e2 < nnz && m.rows[e2] == last
		if !through {
			break
		}
	}
	m.combineRow(last, acc)
}

func TestCOOSegmentedReductionModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 400; trial++ {
		block := []int{1, 2, 4, 8, 32}[trial%5]
		items := []int{1, 2, 4}[trial%3]
		// Row lengths from empty to many tiles long.
		var rows []int32
		nrows := 1 + rng.IntN(60)
		for r := 0; r < nrows; r++ {
			var l int
			switch rng.IntN(5) {
			case 0:
				l = 0
			case 1:
				l = 1
			case 2:
				l = rng.IntN(block*items + 2)
			case 3:
				l = rng.IntN(6 * block * items)
			default:
				l = rng.IntN(4)
			}
			for i := 0; i < l; i++ {
				rows = append(rows, int32(r))
			}
		}
		if len(rows) == 0 {
			continue
		}
		reject := int32(rng.IntN(nrows + 5))
		m := &modelCOO{block: block, items: items, rows: rows, y: map[int32]modelAcc{},
			skip: func(r int32) bool { return r%7 == reject%7 && trial%2 == 0 }}
		tiles := (int64(len(rows)) + m.tile() - 1) / m.tile()
		m.carryFirst, m.carryLast = make([]modelAcc, tiles), make([]modelAcc, tiles)
		for tile := int64(0); tile < tiles; tile++ {
			m.runTile(tile)
		}
		if tiles > 1 {
			for tile := int64(0); tile < tiles; tile++ {
				m.fixup(tile)
			}
		}
		want := map[int32]modelAcc{}
		for i, r := range rows {
			if !m.skip(r) {
				want[r] = append(want[r], int64(i))
			}
		}
		for r, w := range want {
			if !slices.Equal(m.y[r], w) {
				t.Fatalf("trial %d (block %d, items %d, %d entries): row %d got %v, want %v", trial, block, items, len(rows), r, m.y[r], w)
			}
		}
		for r := range m.y {
			if _, ok := want[r]; !ok {
				t.Fatalf("trial %d: row %d written though it has no entries to take", trial, r)
			}
		}
	}
}
