package datasets

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
)

// digits parses the decimal digits at b[i:] and returns their value (it
// wraps past 19 digits; see parseUint) and the index after them. Numbers of up
// to 7 digits (almost every id) are found and converted 8 bytes at a time.
func digits(b []byte, i int) (uint64, int) {
	if i+8 <= len(b) {
		// t holds each byte minus '0'; a byte is a digit iff its t is 0..9,
		// that is iff neither t nor t+6 reaches the high nibble. A carry
		// between bytes only starts at a non-digit, so the lowest flagged
		// byte is exact.
		t := binary.LittleEndian.Uint64(b[i:]) ^ 0x3030303030303030
		if flags := (t | (t + 0x0606060606060606)) & 0xf0f0f0f0f0f0f0f0; flags != 0 {
			n := bits.TrailingZeros64(flags) / 8
			if n == 0 {
				return 0, i
			}
			return eightDigits(t << (64 - 8*n)), i + n
		}
	}
	var x uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		x = x*10 + uint64(d)
	}
	return x, i
}

// eightDigits converts 8 digit values, the first in the lowest byte, by
// combining neighbours pairwise: 2 digits per 16 bits, 4 per 32, then 8.
func eightDigits(t uint64) uint64 {
	t = (t & 0x0f0f0f0f0f0f0f0f) * (10<<8 + 1) >> 8
	t = (t & 0x00ff00ff00ff00ff) * (100<<16 + 1) >> 16
	return (t & 0x0000ffff0000ffff) * (10000<<32 + 1) >> 32
}

// parseUint parses the decimal digits at b[i:]. It returns the index after
// them (i when there are none) and the value, or -1 when it exceeds int64.
func parseUint(b []byte, i int) (int64, int) {
	x, j := digits(b, i)
	if j-i >= 19 {
		// Only 19 or more digits can overflow (digits wraps); redo with checks.
		x = 0
		for _, c := range b[i:j] {
			if x > (math.MaxInt64-uint64(c-'0'))/10 {
				return -1, j
			}
			x = x*10 + uint64(c-'0')
		}
	}
	return int64(x), j
}

func parseValue(tok []byte, kind valueKind) (float32, problem) {
	if kind == intValue {
		i := 0
		if len(tok) > 0 && (tok[0] == '+' || tok[0] == '-') {
			i++
		}
		if i == len(tok) {
			return 0, badSyntax
		}
		for _, c := range tok[i:] {
			if c-'0' > 9 {
				return 0, badSyntax
			}
		}
	}
	return parseReal(tok)
}

// exact powers of ten in float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseReal parses a decimal number to float32. The result is exactly
// float32(strconv.ParseFloat(tok, 64)). Simple decimals (at most 19
// significant digits, a mantissa below 2^53 and a power of ten up to 22)
// take Clinger's fast path: mantissa and power are exact float64s, so one
// multiplication or division is correctly rounded, as strconv's result is;
// everything else goes to strconv.
func parseReal(tok []byte) (float32, problem) {
	i, neg := 0, false
	if len(tok) > 0 && (tok[0] == '+' || tok[0] == '-') {
		neg = tok[0] == '-'
		i++
	}
	var mant uint64
	nd, sig, exp := 0, 0, 0
	dot := false
	for ; i < len(tok); i++ {
		c := tok[i]
		if c-'0' <= 9 {
			nd++
			if mant != 0 || c != '0' {
				sig++
			}
			mant = mant*10 + uint64(c-'0')
			if dot {
				exp--
			}
			continue
		}
		if c == '.' && !dot {
			dot = true
			continue
		}
		break
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') && nd > 0 {
		i++
		eneg := false
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			eneg = tok[i] == '-'
			i++
		}
		e, j := parseUint(tok, i)
		if j == i || e < 0 || e > 1000 {
			return parseRealSlow(tok)
		}
		i = j
		if eneg {
			e = -e
		}
		exp += int(e)
	}
	if i != len(tok) || nd == 0 || sig > 19 {
		return parseRealSlow(tok)
	}
	if mant == 0 {
		if neg {
			return float32(math.Copysign(0, -1)), entryOK
		}
		return 0, entryOK
	}
	if mant >= 1<<53 || exp < -22 || exp > 22 {
		return parseRealSlow(tok)
	}
	x := float64(mant)
	if exp >= 0 {
		x *= pow10[exp]
	} else {
		x /= pow10[-exp]
	}
	if neg {
		x = -x
	}
	return float32(x), entryOK
}

func parseRealSlow(tok []byte) (float32, problem) {
	x, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, badSyntax
	}
	if math.IsNaN(x) || (err == nil && math.IsInf(x, 0)) {
		return 0, badNonFinite
	}
	w := float32(x)
	if math.IsInf(float64(w), 0) {
		return 0, badTooLarge
	}
	return w, entryOK
}
