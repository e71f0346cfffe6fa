package datasets

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// crc32cCombine of the pieces' CRCs equals the CRC of the whole, for
// random data cut at random points (empty pieces included).
func TestCRC32CCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		data := make([]byte, rng.IntN(1<<rng.IntN(14)))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		want := crc32.Checksum(data, castagnoli)
		// Up to 6 cut points, in order, repeats (empty pieces) allowed.
		cuts := []int{0}
		for range rng.IntN(7) {
			cuts = append(cuts, cuts[len(cuts)-1]+rng.IntN(len(data)-cuts[len(cuts)-1]+1))
		}
		cuts = append(cuts, len(data))
		var crc uint32
		for i := 1; i < len(cuts); i++ {
			piece := data[cuts[i-1]:cuts[i]]
			crc = crc32cCombine(crc, crc32.Checksum(piece, castagnoli), int64(len(piece)))
		}
		if crc != want {
			t.Fatalf("trial %d: %d bytes cut at %v: combined %08x, want %08x", trial, len(data), cuts, crc, want)
		}
	}
	// Combining with an empty message changes nothing. Lengths of 32
	// bits and more: the CRC of 2^k zero bytes by doubling agrees with a
	// direct computation for 2^22, and appending 2^33 zeros at once equals
	// appending 2^32 zeros twice.
	if got := crc32cCombine(0x12345678, 0, 0); got != 0x12345678 {
		t.Errorf("combine with nothing: %08x", got)
	}
	zeros := make([]byte, 1<<22)
	zero := map[int]uint32{20: crc32.Checksum(zeros[:1<<20], castagnoli)}
	for k := 20; k < 33; k++ {
		zero[k+1] = crc32cCombine(zero[k], zero[k], int64(1)<<k)
	}
	if want := crc32.Checksum(zeros, castagnoli); zero[22] != want {
		t.Errorf("2^22 zero bytes by doubling: %08x, want %08x", zero[22], want)
	}
	a := crc32.Checksum([]byte("hpgraph"), castagnoli)
	twice := crc32cCombine(crc32cCombine(a, zero[32], 1<<32), zero[32], 1<<32)
	if once := crc32cCombine(a, zero[33], 1<<33); once != twice {
		t.Errorf("2^33 zeros appended at once: %08x, in two halves: %08x", once, twice)
	}
}

func TestChecksumParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 3*crcPiece+12345)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, p := range []int{1, 2, 3} {
		withProcs(t, p)
		for _, n := range []int{0, 1, crcPiece - 1, crcPiece, crcPiece + 1, 2 * crcPiece, len(data)} {
			if got, want := checksumParallel(data[:n]), crc32.Checksum(data[:n], castagnoli); got != want {
				t.Errorf("procs %d, %d bytes: %08x, want %08x", p, n, got, want)
			}
		}
	}
}
