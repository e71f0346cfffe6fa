package gen

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// model is a Device whose kernels are gen.cu's, written again in Go: the
// same blocks, rounds, warps and lanes where they decide a result (the
// twist in chunks of 32, the tail of draws kept across twists, the
// ballots that place a warp's arcs, the stable ranks of the radix sort),
// plain loops where they only add up. Blocks run in a random order and
// the shuffle's steps are listed in one, as atomics leave them on the
// device; every result must come out the same. Memory is Go slices, a
// block of addresses to each allocation, so that an access outside one
// panics.
type model struct {
	mem      map[Ptr][]uint64
	next     Ptr
	capacity int64 // bytes the device has
	used     int64
	rng      *rand.Rand
	launches map[string]int
}

const modelShift = 40 // an allocation's addresses: [id<<modelShift, ...)

func newModel(capacity int64, seed uint64) *model {
	return &model{mem: map[Ptr][]uint64{}, capacity: capacity, rng: rand.New(rand.NewPCG(seed, 1)), launches: map[string]int{}}
}

func (m *model) Alloc(bytes int64) (Ptr, error) {
	if m.used+bytes > m.capacity {
		return 0, fmt.Errorf("%d bytes with %d of %d in use: %w", bytes, m.used, m.capacity, ErrOutOfMemory)
	}
	m.next += 1 << modelShift
	m.mem[m.next] = make([]uint64, (bytes+7)/8)
	m.used += int64(len(m.mem[m.next])) * 8
	return m.next, nil
}

func (m *model) Free(p Ptr) {
	if _, ok := m.mem[p]; !ok {
		panic(fmt.Sprintf("model: freeing %#x, not an allocation", p))
	}
	m.used -= int64(len(m.mem[p])) * 8
	delete(m.mem, p)
}

// bytes are the bytes from p to the end of its allocation (nil for 0).
func (m *model) bytes(p Ptr) []byte {
	if p == 0 {
		return nil
	}
	words, ok := m.mem[p&^(1<<modelShift-1)]
	if !ok {
		panic(fmt.Sprintf("model: %#x is in no allocation", p))
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)
	return b[p&(1<<modelShift-1):]
}

func view[T any](m *model, p Ptr) []T {
	b := m.bytes(p)
	if b == nil {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

func (m *model) HtoD(dst Ptr, src unsafe.Pointer, bytes int64) {
	copy(m.bytes(dst)[:bytes], unsafe.Slice((*byte)(src), bytes))
}

func (m *model) DtoH(dst unsafe.Pointer, src Ptr, bytes int64) {
	copy(unsafe.Slice((*byte)(dst), bytes), m.bytes(src)[:bytes])
}

func (m *model) FreeMemory() int64 { return m.capacity - m.used }
func (m *model) SMs() int          { return 4 }

func (m *model) Launch(kernel string, grid int64, raw []byte, mode int32) {
	var a arg
	if err := decodeArg(raw, &a); err != nil {
		panic(err)
	}
	m.launches[kernel]++
	switch kernel {
	case "gen_zero":
		clear(view[uint64](m, a.Zero)[:a.ZeroWords])
	case "sc_reduce":
		m.scReduce(&a, grid)
	case "sc_top":
		m.scTop(&a)
	case "sc_apply":
		m.scApply(&a, grid)
	case "sh_count":
		off, t := view[int64](m, a.Off), view[int32](m, a.Targets)
		for k := int64(1); k < a.N; k++ {
			off[t[k]]++
		}
	case "sh_fill":
		m.shFill(&a)
	case "sh_sort":
		m.shSort(&a)
	case "sh_place":
		m.shPlace(&a)
	case "gen_edges":
		m.genEdges(&a, grid, mode != 0)
	case "rs_hist":
		m.rsHist(&a, grid)
	case "rs_scatter":
		m.rsScatter(&a, grid)
	case "u_reduce":
		m.uReduce(&a, grid)
	case "u_emit":
		m.uEmit(&a, grid)
	case "u_fill":
		rp := view[int64](m, a.RowPtr)
		for r := a.FillFrom; r <= a.FillTo; r++ {
			rp[r-a.PartLo] = a.FillValue
		}
	default:
		panic("model: no kernel " + kernel)
	}
}

// order is 0..n-1 in a random order: the order blocks run in.
func (m *model) order(n int64) []int64 {
	o := make([]int64, n)
	for i := range o {
		o[i] = int64(i)
	}
	m.rng.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
	return o
}

func (m *model) scReduce(a *arg, grid int64) {
	scan, sums := view[int64](m, a.Scan), view[int64](m, a.Sums)
	for _, blk := range m.order(grid) {
		var s int64
		for i := blk * tile; i < min((blk+1)*tile, a.ScanLen); i++ {
			s += scan[i]
		}
		sums[blk] = s
	}
}

func (m *model) scTop(a *arg) {
	sums := view[int64](m, a.Sums)
	var carry int64
	for i := range a.ScanTiles {
		carry, sums[i] = carry+sums[i], carry
	}
	view[int64](m, a.Scan)[a.ScanLen] = carry
}

func (m *model) scApply(a *arg, grid int64) {
	scan, sums := view[int64](m, a.Scan), view[int64](m, a.Sums)
	for _, blk := range m.order(grid) {
		x := sums[blk]
		for i := blk * tile; i < min((blk+1)*tile, a.ScanLen); i++ {
			x, scan[i] = x+scan[i], x
		}
	}
}

// shFill lists the steps in a random order, as the device's atomics may.
func (m *model) shFill(a *arg) {
	off, t, lists, cnt := view[int64](m, a.Off), view[int32](m, a.Targets), view[int32](m, a.Lists), view[int32](m, a.PermOut)
	for _, k := range m.order(a.N) {
		if k == 0 {
			continue
		}
		lists[off[t[k]]+int64(cnt[t[k]])] = int32(k)
		cnt[t[k]]++
	}
}

func (m *model) shSort(a *arg) {
	off, lists := view[int64](m, a.Off), view[int32](m, a.Lists)
	for x := range a.N {
		s, e := off[x], off[x+1]
		for i := s + 1; i < e; i++ {
			v, j := lists[i], i
			for ; j > s && lists[j-1] > v; j-- {
				lists[j] = lists[j-1]
			}
			lists[j] = v
		}
	}
}

func (m *model) shPlace(a *arg) {
	off, t, lists, out := view[int64](m, a.Off), view[int32](m, a.Targets), view[int32](m, a.Lists), view[int32](m, a.PermOut)
	next := func(x int64) int64 {
		if off[x] < off[x+1] {
			return int64(lists[off[x]])
		}
		return -1
	}
	for v := range a.N {
		var at, nx int64
		if v == 0 {
			at, nx = 0, next(0)
		} else {
			at = int64(t[v])
			q, e := off[at], off[at+1]
			for q < e && int64(lists[q]) != v {
				q++
			}
			nx = -1
			if q+1 < e {
				nx = int64(lists[q+1])
			}
		}
		for nx >= 0 {
			at, nx = nx, next(nx)
		}
		out[at] = int32(v)
	}
}

const (
	mtN  = 624
	mtM  = 397
	tail = 32
)

func temper(y uint32) uint32 {
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// twist is gen_twist: 32 lanes read, then write.
func twist(st *[mtN]uint32) {
	var next [32]uint32
	for c := 0; c < mtN; c += 32 {
		k := min(32, mtN-c)
		for lane := range k {
			i := c + lane
			y := st[i]&0x80000000 | st[(i+1)%mtN]&0x7fffffff
			next[lane] = st[(i+mtM)%mtN] ^ y>>1 ^ -(y&1)&0x9908b0df
		}
		copy(st[c:c+k], next[:k])
	}
}

// warpState is a warp's shared memory in gen_edges, kept across its GAP
// blocks as on the device.
type warpState struct {
	st  [mtN]uint32
	out [tail + mtN]uint32
}

func (m *model) genEdges(a *arg, grid int64, fill bool) {
	perm := view[int32](m, a.Perm)
	count, keys, stats := view[uint64](m, a.Count), view[uint64](m, a.Keys), view[uint64](m, a.Stats)
	per := a.PerEntry
	in := func(v int32) bool { return int64(v) >= a.Lo && int64(v) < a.Hi }
	for _, blk := range m.order(grid) {
		for w := range int64(warps) {
			ws := new(warpState)
			var loops [32]uint64
			for b := blk*warps + w; b < a.Blocks; b += grid * warps {
				x := uint32(a.Seed) + uint32(b)
				ws.st[0] = x
				for i := 1; i < mtN; i++ {
					x = 1812433253*(x^x>>30) + uint32(i)
					ws.st[i] = x
				}
				first := b * a.BlockEntries
				k := min(a.BlockEntries, a.Entries-first)
				for base := int64(0); base < k*per; base += mtN {
					twist(&ws.st)
					copy(ws.out[:tail], ws.out[mtN:])
					for i := range mtN {
						ws.out[tail+i] = temper(ws.st[i])
					}
					eLo, eHi := base/per, min(k, (base+mtN)/per)
					for e0 := eLo; e0 < eHi; e0 += 32 {
						var src, dst [32]int32
						var valid [32]bool
						for lane := range int64(32) {
							e := e0 + lane
							if valid[lane] = e < eHi; !valid[lane] {
								continue
							}
							r := ws.out[tail+e*per-base:]
							if perm != nil {
								var u, v uint32
								for l := range per {
									x := r[l]
									gtA, geAB, gtABC := b2u(x > uint32(a.RMATA)), b2u(x >= uint32(a.RMATAB)), b2u(x > uint32(a.RMATABC))
									u = u<<1 | geAB
									v = v<<1 | gtA ^ geAB ^ gtABC
								}
								src[lane], dst[lane] = perm[u], perm[v]
							} else {
								dst[lane], src[lane] = int32(r[0]&uint32(a.Mask)), int32(r[1]&uint32(a.Mask))
							}
						}
						if !fill {
							for lane := range 32 {
								s, d := src[lane], dst[lane]
								switch {
								case !valid[lane]:
								case s == d && in(s):
									loops[lane]++
									if a.KeepLoops != 0 {
										count[int64(s)-a.Lo]++
									}
								case s != d:
									if in(s) {
										count[int64(s)-a.Lo]++
									}
									if in(d) {
										count[int64(d)-a.Lo]++
									}
								}
							}
							continue
						}
						var b0, b1 uint32
						for lane := range 32 {
							s, d := src[lane], dst[lane]
							if valid[lane] && in(s) && (s != d || a.KeepLoops != 0) {
								b0 |= 1 << lane
							}
							if valid[lane] && s != d && in(d) {
								b1 |= 1 << lane
							}
						}
						total := uint64(bits.OnesCount32(b0) + bits.OnesCount32(b1))
						if total == 0 {
							continue
						}
						at := stats[0]
						stats[0] += total
						if at+total > uint64(a.Capacity) {
							stats[2] = 1
							continue
						}
						for lane := range 32 {
							below := uint32(1)<<lane - 1
							s, d := src[lane], dst[lane]
							if b0>>lane&1 != 0 {
								keys[at+uint64(bits.OnesCount32(b0&below))] = uint64(int64(s)-a.Lo)<<a.ColBits | uint64(uint32(d))
							}
							if b1>>lane&1 != 0 {
								keys[at+uint64(bits.OnesCount32(b0)+bits.OnesCount32(b1&below))] = uint64(int64(d)-a.Lo)<<a.ColBits | uint64(uint32(s))
							}
						}
					}
				}
			}
			if !fill {
				for _, l := range loops {
					stats[1] += l
				}
			}
		}
	}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func digit(key uint64, shift int64) int { return int(key >> shift & (radix - 1)) }

func (m *model) rsHist(a *arg, grid int64) {
	keys, hist := view[uint64](m, a.KeyIn), view[int64](m, a.Hist)
	for _, t := range m.order(grid) {
		var cnt [radix]int64
		for i := t * tile; i < min((t+1)*tile, a.NKeys); i++ {
			cnt[digit(keys[i], a.Shift)]++
		}
		for d := range radix {
			hist[int64(d)*a.Tiles+t] = cnt[d]
		}
	}
}

// rsScatter ranks a tile's keys as rs_scatter does: rounds of BlockSize,
// a warp's equal digits counted by their leader into wc, the warps'
// counts turned into ranks by each digit's thread.
func (m *model) rsScatter(a *arg, grid int64) {
	keyIn, keyOut, hist := view[uint64](m, a.KeyIn), view[uint64](m, a.KeyOut), view[int64](m, a.Hist)
	const items = tile / BlockSize
	for _, t := range m.order(grid) {
		first := t * tile
		count := int(min(tile, a.NKeys-first))
		var gbase [radix]int64
		for d := range radix {
			gbase[d] = hist[int64(d)*a.Tiles+t]
		}
		var key [items][BlockSize]uint64
		var pos [items][BlockSize]int
		var tot [radix]int
		for r := range items {
			var wc [warps][radix]int
			var d, wrank [BlockSize]int
			for tid := range BlockSize {
				i := r*BlockSize + tid
				d[tid] = radix
				if i < count {
					key[r][tid] = keyIn[first+int64(i)]
					d[tid] = digit(key[r][tid], a.Shift)
				}
			}
			for tid := range BlockSize {
				w, lane := tid/32, tid%32
				for l := range lane {
					if d[w*32+l] == d[tid] {
						wrank[tid]++
					}
				}
				if d[tid] < radix && wrank[tid] == 0 {
					for l := range 32 {
						if d[w*32+l] == d[tid] {
							wc[w][d[tid]]++
						}
					}
				}
			}
			for dg := range radix {
				run := tot[dg]
				for v := range warps {
					wc[v][dg], run = run, run+wc[v][dg]
				}
				tot[dg] = run
			}
			for tid := range BlockSize {
				pos[r][tid] = -1
				if d[tid] < radix {
					pos[r][tid] = wc[tid/32][d[tid]] + wrank[tid]
				}
			}
		}
		var lstart [radix]int
		for dg := 1; dg < radix; dg++ {
			lstart[dg] = lstart[dg-1] + tot[dg-1]
		}
		var buf [tile]uint64
		for r := range items {
			for tid := range BlockSize {
				if pos[r][tid] >= 0 {
					buf[lstart[digit(key[r][tid], a.Shift)]+pos[r][tid]] = key[r][tid]
				}
			}
		}
		for j := range count {
			dg := digit(buf[j], a.Shift)
			keyOut[gbase[dg]+int64(j-lstart[dg])] = buf[j]
		}
	}
}

func (m *model) kept(keys []uint64, a *arg, i int64) bool {
	return a.KeepDups != 0 || i == 0 || keys[i] != keys[i-1]
}

func (m *model) uReduce(a *arg, grid int64) {
	keys, scan := view[uint64](m, a.KeyIn), view[int64](m, a.Scan)
	for _, t := range m.order(grid) {
		var s int64
		for i := t * tile; i < min((t+1)*tile, a.NKeys); i++ {
			if m.kept(keys, a, i) {
				s++
			}
		}
		scan[t] = s
	}
}

// weight is gen_weight, datasets' pairWeight written again.
func weight(a *arg, s, d int32) float32 {
	lo, hi := min(s, d), max(s, d)
	z := (uint64(uint32(lo))<<32 | uint64(uint32(hi))) ^ uint64(a.WSeed)*0x9e3779b97f4a7c15
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float32(uint64(a.WLo) + z%uint64(a.WSpan))
}

func (m *model) uEmit(a *arg, grid int64) {
	keys, scan, rp := view[uint64](m, a.KeyIn), view[int64](m, a.Scan), view[int64](m, a.RowPtr)
	col, w, orig := view[int32](m, a.Col), view[float32](m, a.W), view[int32](m, a.Orig)
	const items = tile / BlockSize
	for _, t := range m.order(grid) {
		at := a.Base + scan[t] // the block scan of the threads' counts, in order
		for tid := range int64(BlockSize) {
			for q := range int64(items) {
				i := t*tile + tid*items + q
				if i >= a.NKeys {
					break
				}
				if !m.kept(keys, a, i) {
					continue
				}
				row := a.Lo + int64(keys[i]>>a.ColBits)
				c := int32(keys[i] & (1<<a.ColBits - 1))
				prev := a.Lo - 1
				if i > 0 {
					prev = a.Lo + int64(keys[i-1]>>a.ColBits)
				}
				for r := prev + 1; r <= row; r++ {
					rp[r-a.PartLo] = at
				}
				col[at] = c
				if w != nil && orig != nil {
					w[at] = weight(a, orig[row], orig[c])
				} else if w != nil {
					w[at] = weight(a, int32(row), c)
				}
				at++
			}
		}
	}
}

// decodeArg reads a GEN_Arg's bytes.
func decodeArg(raw []byte, a *arg) error {
	n, err := binary.Decode(raw, binary.LittleEndian, a)
	if err == nil && n != len(raw) {
		err = fmt.Errorf("GEN_Arg of %d bytes, %d read", len(raw), n)
	}
	return err
}
