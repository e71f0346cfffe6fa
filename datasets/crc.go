package datasets

import (
	"hash/crc32"

	"github.com/hpgraph/hpgraph/internal/par"
)

// The cache's checksum is computed in pieces, one per goroutine, and the
// pieces' CRCs combined as zlib's crc32_combine does: appending len2 bytes
// to a message multiplies the first message's CRC register by x^(8 len2)
// modulo the polynomial, in GF(2).

// castagnoliReversed is the CRC-32C polynomial, bit-reversed (the form
// hash/crc32 and zlib compute with: bit 31 holds x^0).
const castagnoliReversed = 0x82f63b78

// x2nTable[k] is x^(2^k) modulo the polynomial.
var x2nTable = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	t[0] = p
	for k := 1; k < 32; k++ {
		p = multModP(p, p)
		t[k] = p
	}
	return t
}()

// multModP returns a(x) b(x) modulo the polynomial (reflected: bit 31 is
// x^0).
func multModP(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				break
			}
		}
		if b&1 != 0 {
			b = b>>1 ^ castagnoliReversed
		} else {
			b >>= 1
		}
	}
	return p
}

// x2nModP returns x^(n 2^k) modulo the polynomial.
func x2nModP(n uint64, k uint) uint32 {
	p := uint32(1) << 31 // x^0
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			p = multModP(x2nTable[k&31], p)
		}
		k++
	}
	return p
}

// crc32cCombine returns the CRC-32C of A followed by B, from crc1 (the
// CRC-32C of A), crc2 (that of B) and len2 = len(B).
func crc32cCombine(crc1, crc2 uint32, len2 int64) uint32 {
	return multModP(x2nModP(uint64(len2), 3), crc1) ^ crc2
}

// crcPiece is the bytes over which one goroutine computes a CRC.
const crcPiece = 4 << 20

// checksumParallel is crc32.Checksum(b, castagnoli) computed on all cores.
func checksumParallel(b []byte) uint32 {
	parts := (len(b) + crcPiece - 1) / crcPiece
	if parts <= 1 || par.Workers() == 1 {
		return crc32.Checksum(b, castagnoli)
	}
	crcs := make([]uint32, parts)
	bounds := make([]int, parts+1)
	for i := range bounds {
		bounds[i] = i
	}
	par.Dynamic(bounds, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			crcs[i] = crc32.Checksum(b[i*crcPiece:min(len(b), (i+1)*crcPiece)], castagnoli)
		}
	})
	crc := crcs[0]
	for i := 1; i < parts; i++ {
		crc = crc32cCombine(crc, crcs[i], int64(min(len(b), (i+1)*crcPiece)-i*crcPiece))
	}
	return crc
}
