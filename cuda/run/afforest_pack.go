//go:build cgo

package run

import (
	"encoding/binary"
	"math"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The last merge of components in parts with packed forests, where the
// parts are on several devices or in several processes. After a
// part's last pass nearly every vertex of its forest is labelled with the
// part's largest component (its giant: kron26 in 2 parts, 132.5 MB of
// labels into the first part); a forest packed (af_pack) is a bit a
// vertex of the spans for "labelled with the giant" and a list of
// (vertex, label) for the vertices labelled otherwise but not by
// themselves: the same links (af_link_bits, af_link_list) as the whole
// forest's (af_link_pairs), in 1/32 of the bytes and a list. A list
// that outgrows the buffer's room (a graph of many small components)
// makes every part send its forest whole instead (merge).

// ccBufBytes is a part's forest buffer (snap, recv): a forest over n
// vertices, or a packed one in the same room.
func ccBufBytes(n int) int64 { return int64(max(1, n))*4 + 64 }

// afHead is the packed forest's header (afforest.cu's AF_HEAD ints):
// the list's length, the giant, the list's capacity, the bits' words.
const afHead = 4

// ccPacking is how a run's forests pack.
type ccPacking struct {
	spans []driver.Span // the spans packed: every part's rows with arcs
	word0 []int32       // each span's first word in the bits
	words int64         // the bits' words
	cap   int64         // the list's most pairs
	count []int32       // every part's list length, from its last pack
	use   bool          // the run packs (its parts are on several devices or in several processes)
	on    bool          // this run's last merge packs its forests
}

// newPacking is the packing of forests of the spans in buffers of
// bufBytes for total parts, the list capped at capHook pairs (if
// positive: hooks.ccPack).
func newPacking(spans []driver.Span, bufBytes int64, total, capHook int) ccPacking {
	pk := ccPacking{spans: spans, word0: make([]int32, len(spans)), count: make([]int32, total)}
	for k, s := range spans {
		pk.word0[k] = int32(pk.words)
		pk.words += (int64(s.Hi-s.Lo) + 31) / 32
	}
	pk.cap = min((bufBytes/4-afHead-pk.words)/2, math.MaxInt32)
	if capHook > 0 {
		pk.cap = min(pk.cap, int64(capHook))
	}
	return pk
}

// bytes is the size of part p's packed forest.
func (pk *ccPacking) bytes(p int) int64 { return 4 * (afHead + pk.words + 2*int64(pk.count[p])) }

// afPackArg is an AF_Pack (afforest.cu).
func afPackArg(comp, buf cu.DevicePtr, lo, hi, word0 int32) []byte {
	b := make([]byte, 32)
	le := binary.LittleEndian
	le.PutUint64(b, uint64(comp))
	le.PutUint64(b[8:], uint64(buf))
	le.PutUint32(b[16:], uint32(lo))
	le.PutUint32(b[20:], uint32(hi))
	le.PutUint32(b[24:], uint32(word0))
	return b
}

// blocksOf is the blocks of a launch over the span s, a vertex a thread.
func blocksOf(s driver.Span) int64 { return rt.Blocks(int64(s.Hi-s.Lo), rt.BlockSize) }
