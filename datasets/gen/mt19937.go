package gen

// mt19937 is the 32-bit Mersenne Twister, the same sequence as C++'s
// std::mt19937 and gonum's prng.MT19937 (TestMT19937MatchesGonum). It is
// written out here rather than taken from gonum because the Kronecker
// generator spends nearly all its time drawing numbers: this version hands
// them out in batches (read) and twists without branches, which makes it
// several times faster.
type mt19937 struct {
	state [mtN]uint32
	pos   int // next state word to temper; mtN means twist first
}

const (
	mtN      = 624
	mtM      = 397
	mtMatrix = 0x9908b0df
	mtUpper  = 0x80000000
	mtLower  = 0x7fffffff
)

// seed initialises the state from a 32-bit seed as std::mt19937::seed does.
func (g *mt19937) seed(s uint32) {
	g.state[0] = s
	for i := 1; i < mtN; i++ {
		p := g.state[i-1]
		g.state[i] = 1812433253*(p^p>>30) + uint32(i)
	}
	g.pos = mtN
}

// uint32 returns the next output.
func (g *mt19937) uint32() uint32 {
	if g.pos >= mtN {
		g.twist()
	}
	y := g.state[g.pos]
	g.pos++
	return temper(y)
}

// read fills p with the next len(p) outputs. Hot loops draw through read
// rather than uint32, which is too big to inline: one call per batch
// instead of one per number.
func (g *mt19937) read(p []uint32) {
	for len(p) > 0 {
		if g.pos >= mtN {
			g.twist()
		}
		k := min(len(p), mtN-g.pos)
		for i, y := range g.state[g.pos : g.pos+k] {
			p[i] = temper(y)
		}
		g.pos += k
		p = p[k:]
	}
}

func temper(y uint32) uint32 {
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// twist regenerates the whole state; the matrix term is selected by a mask
// rather than a branch on the low bit.
func (g *mt19937) twist() {
	s := &g.state
	for i := 0; i < mtN-mtM; i++ {
		y := s[i]&mtUpper | s[i+1]&mtLower
		s[i] = s[i+mtM] ^ y>>1 ^ -(y&1)&mtMatrix
	}
	for i := mtN - mtM; i < mtN-1; i++ {
		y := s[i]&mtUpper | s[i+1]&mtLower
		s[i] = s[i+mtM-mtN] ^ y>>1 ^ -(y&1)&mtMatrix
	}
	y := s[mtN-1]&mtUpper | s[0]&mtLower
	s[mtN-1] = s[mtM-1] ^ y>>1 ^ -(y&1)&mtMatrix
	g.pos = 0
}
