//go:build cgo

package run

import (
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/nccl"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Components in parts (driver.PartComponentsBackend; docs/parts.md;
// vertexprog/components_parts.go says why it is right): each part runs
// Afforest over its own rows into a forest of every vertex, the vertices
// of its largest component skipping their edges after the first rounds,
// keeps a copy of it, then receives every other part's copy (peer copies
// in one process, NCCL broadcasts between processes) and links each
// vertex with its label there (af_link_pairs), so every part ends with
// the whole graph's labels, unless the parts' largest components did not
// all end in one component: then it runs again with no vertex skipping.

// ccParts is a run's local parts (driver.ComponentsRun).
type ccParts struct {
	runs        []*ccRun
	n           int // the graph's vertices
	first       int
	total       int
	snap, recv  []cu.DevicePtr // per part: its forest's copy (or packed), another's
	spans       []driver.Span  // every part's rows with arcs (nil: unknown)
	pk          ccPacking
	bufs        [][]cu.DevicePtr
	nc          []*nccl.Comm   // per part, over several processes
	words       []cu.DevicePtr // per part, over several processes: every part's list length and giant (queueGather)
	host        unsafe.Pointer // pinned, over several processes: the first part's words, read back
	gerr        []error        // per part, over several processes: what its words' all-gather met (queueGather)
	crew        *crew          // runs the fan-outs where the parts are on several devices, or nil
	stats       []driver.PartStat
	closed, ran bool
}

// StartPartComponents starts parts[i] (info[i] says which, over comm's
// processes) on devs[i] (driver.PartComponentsBackend).
func StartPartComponents(devs []*Device, parts []*driver.Matrix, info []driver.Part, comm driver.Comm) (driver.ComponentsRun, error) {
	if len(parts) == 0 || len(devs) != len(parts) || len(info) != len(parts) {
		return nil, fmt.Errorf("cuda: %d parts for %d devices", len(parts), len(devs))
	}
	n := parts[0].N
	first, total := info[0].Index, info[0].Count
	g := &ccParts{n: n, first: first, total: total, spans: info[0].Arcs, runs: make([]*ccRun, len(parts)),
		snap: make([]cu.DevicePtr, len(parts)), recv: make([]cu.DevicePtr, len(parts)), bufs: make([][]cu.DevicePtr, len(parts))}
	if g.spans != nil && len(g.spans) != total {
		return nil, fmt.Errorf("cuda: %d spans of rows with arcs for a run of %d parts", len(g.spans), total)
	}
	for i, m := range parts {
		if m.N != n {
			return nil, errors.New("cuda: the parts of a partitioned run must be parts of one graph")
		}
		if info[i].Index != first+i || info[i].Count != total {
			return nil, errors.New("cuda: a process's parts must be consecutive parts of one run")
		}
		g.stats = append(g.stats, driver.PartStat{Index: first + i, Lo: info[i].Lo, Hi: info[i].Hi, Arcs: m.NNZ()})
	}
	err := EachDevice(devs, func(i int, d *Device) error {
		r, err := startCC(d, parts[i], &info[i], 2*int64(n)*4)
		if err != nil {
			return err
		}
		// (a part's other rows are empty; its forest is over every part's
		// rows with arcs, which its links reach)
		r.lo, r.hi, r.spans = int(info[i].Lo), r.md.RowsEnd(int(info[i].Lo), int(info[i].Hi)), g.sent(-1, true)
		g.runs[i] = r
		return d.Do("allocating a part's forests", func() error {
			for _, o := range devs {
				d.EnablePeer(o.RT())
			}
			g.snap[i] = rt.Alloc(&g.bufs[i], ccBufBytes(n))
			g.recv[i] = rt.Alloc(&g.bufs[i], ccBufBytes(n))
			return nil
		})
	})
	g.pk = newPacking(g.sent(-1, true), ccBufBytes(n), total, devs[0].hooks.ccPack)
	// (packing pays where forests cross between devices or processes:
	// on one device a forest's copy is cheaper than its pack)
	g.pk.use = devs[0].hooks.ccPack > 0 || comm != nil && comm.Size() > 1 || slices.ContainsFunc(devs, func(d *Device) bool { return d != devs[0] })
	if err == nil && comm != nil && comm.Size() > 1 {
		g.nc, _, err = joinNCCL(comm, devs, first, total, nil)
		g.words, g.gerr = make([]cu.DevicePtr, len(devs)), make([]error, len(devs))
		for i, d := range devs {
			if err == nil {
				err = d.Do("allocating a part's counts", func() error {
					g.words[i] = rt.Alloc(&g.bufs[i], 8*int64(total))
					if i == 0 {
						g.host = d.Pinned(8 * int64(total))
					}
					return nil
				})
			}
		}
	}
	if err == nil && g.nc != nil {
		err = alignStart(devs, g.nc, g.words, first)
	}
	if err != nil {
		g.Close()
		return nil, err
	}
	g.crew = newCrew(len(devs), distinct(devs))
	return g, nil
}

func (g *ccParts) each(f func(i int, r *ccRun) error) error {
	return fanOut(g.crew, g.runs, f)
}

// Run implements driver.ComponentsRun: every part's forest, then the
// others' linked into it; again without skipping where the parts'
// largest components did not join.
func (g *ccParts) Run() (int, error) {
	if g.closed {
		return 0, errors.New("cuda: Run on a closed components run")
	}
	g.ran = false
	passes := afRounds + 1 + 4*(g.total-1) // (two merges, each linking total-1 forests and compressing)
	if g.n == 0 {
		g.ran = true
		return 0, nil
	}
	ok, err := g.run(true)
	if err == nil && !ok {
		_, err = g.run(false)
		passes *= 2
	}
	if err != nil {
		return 0, err
	}
	g.ran = true
	return passes, nil
}

// run makes the forests (skip: as Afforest on the whole graph does) and
// links them; ok says whether the parts' largest components joined. The
// parts merge their forests twice: after the first round, and at the
// end. A part's rows hold no other part's own row, so after the first
// round the hubs, whose rows are in the first part, had not joined in
// the others, and their second round's links all went to the same few
// roots, a chain of retried CASes each: 3.0 of the 5.2 ms that kron24's
// part of the short rows took, 19.5 ms at kron26, against 0.16 and 0.9
// for the whole graph, whose hubs join each other in their first round.
func (g *ccParts) run(skip bool) (ok bool, err error) {
	giants := make([]int32, len(g.runs))
	var tr ccTrace
	defer tr.report()
	tr.mark("")
	if err := g.pass("linking a part's first neighbours", false, func(i int, r *ccRun) { r.linkFirst() }); err != nil {
		return false, err
	}
	tr.mark("first links")
	if err := g.merge(false); err != nil {
		return false, err
	}
	tr.mark("first merge")
	// (the last merge packs each forest where its giant is known)
	g.pk.on = skip && g.pk.use && g.pk.cap > 0
	if err := g.pass("labelling a part's components", true, func(i int, r *ccRun) {
		giants[i] = r.linkRest(skip)
		if g.pk.on {
			g.pack(i, r, giants[i])
		}
		if g.nc != nil {
			g.queueGather(i, r, giants[i])
		}
	}); err != nil {
		return false, err
	}
	tr.mark("labels")
	if g.nc != nil {
		if giants, err = g.gathered(); err != nil {
			return false, err
		}
	}
	if err := g.mergeLast(); err != nil {
		return false, err
	}
	tr.mark("last merge")
	if !skip {
		return true, nil
	}
	defer tr.mark("giants")
	return g.giantsJoined(giants)
}

// queueGather queues, after part i's labels and pack, the all-gather
// over the processes (NCCL) of its list length (af_pack's count, on the
// device) and its largest component (giant), and on the first local part
// the copy of every part's to pinned host memory: the labels pass's one
// wait covers them (gathered reads them). The last merge and giantsJoined
// read every part's. (Through the processes' Comm, by way of rank 0 over
// TCP, these two gathers had cost about 0.2 ms of kron22's 0.84; as an
// NCCL all-gather of its own after the pack's wait and read-back, a third
// wait, 25-43 µs.) Inside Do.
func (g *ccParts) queueGather(i int, r *ccRun, giant int32) {
	p := g.first + i
	slot, st := g.words[i]+cu.DevicePtr(8*p), r.d.Stream().Handle()
	mine := [2]int32{g.pk.count[p], giant}
	r.d.HtoDQueued(slot, unsafe.Pointer(&mine[0]), 8)
	if g.pk.on {
		r.d.CopyFrom(slot, r.d.RT(), g.snap[i], 4)
	}
	if g.gerr[i] = g.nc[i].AllGather(uint64(slot), uint64(g.words[i]), 2, nccl.Int32, uintptr(st)); g.gerr[i] == nil && i == 0 {
		cu.MemcpyDtoHAsync(g.host, g.words[i], 8*int64(g.total), st)
	}
}

// gathered is every part's giant, once the labels pass waited for the
// all-gathers queueGather queued, and puts every part's list length in
// pk.count.
func (g *ccParts) gathered() ([]int32, error) {
	err := errors.Join(g.gerr...)
	for i, c := range g.nc {
		g.gerr[i] = nil
		err = errors.Join(err, c.AsyncError())
	}
	if err != nil {
		return nil, err
	}
	all := unsafe.Slice((*int32)(g.host), 2*g.total)
	giants := make([]int32, g.total)
	for p := range g.total {
		g.pk.count[p], giants[p] = all[2*p], all[2*p+1]
	}
	return giants, nil
}

// pass runs f on every part's device (the clock started before the
// first), then keeps a copy of what its forest sends in the merge after
// it (the last: sent).
func (g *ccParts) pass(what string, last bool, f func(i int, r *ccRun)) error {
	return g.each(func(i int, r *ccRun) error {
		return r.d.Do(what, func() error {
			t := time.Now()
			r.clock.Begin(r.d.RT()) // (once a run)
			f(i, r)
			if !last || !g.pk.on {
				g.snapshot(i, r, last)
			}
			if last || !g.netFirst() { // (else the first merge follows in the stream: mergeFirstNet)
				r.d.Sync()
			}
			g.stats[i].Compute += time.Since(t)
			return nil
		})
	})
}

// snapshot copies what part i's forest sends in the merge after this
// pass (last: the last merge's, whole) into its snap. Inside Do.
func (g *ccParts) snapshot(i int, r *ccRun, last bool) {
	for _, s := range g.sent(g.first+i, last) {
		if s.Hi == s.Lo {
			continue
		}
		off := cu.DevicePtr(4 * int64(s.Lo))
		r.d.CopyFrom(g.snap[i]+off, r.d.RT(), r.comp+off, 4*int64(s.Hi-s.Lo))
	}
}

// sent is what part p's forest sends in a merge. In the last, the span of
// rows with arcs of every part (outside them each forest is the identity:
// driver.Part.Arcs): a forest links the neighbours of its own rows, which
// lie in any part's span. In the first, only the first rows of p's own
// span, its hubs in an order by degree, which is what the other parts'
// second round needs (without them nearly every vertex of a part links
// the same few roots) and which may leave links out (the last merge
// brings them all). Where the spans are not known, every vertex.
// (sent(-1, true): every span.)
func (g *ccParts) sent(p int, last bool) []driver.Span {
	switch {
	case g.spans == nil:
		return []driver.Span{{Lo: 0, Hi: int32(g.n)}}
	case last:
		return g.spans
	}
	s := g.spans[p]
	s.Hi = min(s.Hi, s.Lo+max(ccHubRows, (s.Hi-s.Lo)/64))
	return []driver.Span{s}
}

// ccHubRows is the fewest rows of a part's span that its first merge
// sends.
const ccHubRows = 1 << 16

// merge links into the parts' forests every other part's copy of what it
// sends (sent). The first merge links into every part; the last
// (which stops the clock) only into each process's first part, whose
// labels Finish and giantsJoined read.
func (g *ccParts) merge(last bool) error {
	if !last && g.netFirst() {
		return g.mergeFirstNet()
	}
	return g.mergeEach("linking the other parts' forests", last, func(i int, r *ccRun, p int, into bool) error {
		for _, s := range g.sent(p, last) {
			if s.Lo == s.Hi {
				continue // (on every rank alike: the spans are the run's)
			}
			count := int64(s.Hi - s.Lo)
			link, err := g.receive(i, r, p, 4*int64(s.Lo), 4*count, into)
			if err != nil {
				return err
			}
			if !link {
				continue // (every span broadcast all the same)
			}
			r.launch("af_link_pairs", rt.Blocks(count, rt.BlockSize), r.argRows(g.recv[i], 0, 0, int(s.Lo), int(s.Hi)))
		}
		return nil
	})
}

// netFirst says whether the first merge is mergeFirstNet's: over
// several processes, where every part's span is known (what each part
// sends lies in its own span, so no two parts' land on each other).
func (g *ccParts) netFirst() bool { return g.nc != nil && g.spans != nil }

// mergeFirstNet is the first merge over several processes: each part
// broadcasts what it sends (in place) and receives every other part's in
// one NCCL group, then links them and compresses, all in its stream,
// after the first pass's with no host wait between them (the host waits
// in the next pass). Against merge's broadcast a part and a wait at
// each end: kron22's first merge took 230-340 µs so, against 53 µs for
// peer copies in one process.
func (g *ccParts) mergeFirstNet() error {
	t1 := time.Now()
	err := g.each(func(i int, r *ccRun) error {
		return r.d.Do("linking the other parts' forests (NCCL)", func() error {
			st := uintptr(r.d.Stream().Handle())
			own := g.first + i
			if err := nccl.GroupStart(); err != nil {
				return err
			}
			for p := range g.total {
				s := g.sent(p, false)[0]
				if s.Hi == s.Lo {
					continue // (on every rank alike: the spans are the run's)
				}
				off := cu.DevicePtr(4 * int64(s.Lo))
				send, recv := g.snap[i]+off, g.recv[i]+off
				if p == own {
					recv = send
				}
				if err := g.nc[i].Broadcast(uint64(send), uint64(recv), int(4*(s.Hi-s.Lo)), nccl.Uint8, p, st); err != nil {
					return errors.Join(err, nccl.GroupEnd())
				}
			}
			if err := nccl.GroupEnd(); err != nil {
				return err
			}
			for p := range g.total {
				s := g.sent(p, false)[0]
				if p == own || s.Hi == s.Lo {
					continue
				}
				count := int64(s.Hi - s.Lo)
				g.stats[i].ExchangeBytes += 4 * count
				r.launch("af_link_pairs", rt.Blocks(count, rt.BlockSize), r.argRows(g.recv[i], 0, 0, int(s.Lo), int(s.Hi)))
			}
			r.compressRows()
			return g.nc[i].AsyncError()
		})
	})
	for i := range g.stats {
		g.stats[i].Exchange += time.Since(t1)
	}
	return err
}

// mergeEach is a merge: on every part's device, root(i, r, p, into)
// for every part p of the run (what p sends, and the links into part i
// where into), then a compression where into. The first merge links
// into every part, the last (last: it stops the clock) only into each
// process's first part.
func (g *ccParts) mergeEach(what string, last bool, root func(i int, r *ccRun, p int, into bool) error) error {
	t1 := time.Now()
	err := g.each(func(i int, r *ccRun) error {
		into := !last || i == 0
		return r.d.Do(what, func() error {
			for p := range g.total {
				if err := root(i, r, p, into); err != nil {
					return err
				}
			}
			switch {
			case into && last:
				r.overSpans("af_compress", 0, 0)
			case into:
				r.compressRows() // (the rows' labels are what the next passes read)
			}
			if last {
				r.clock.End(r.d.RT())
			}
			r.d.Sync()
			if g.nc != nil {
				return g.nc[i].AsyncError()
			}
			return nil
		})
	})
	for i := range g.stats {
		g.stats[i].Exchange += time.Since(t1)
	}
	return err
}

// receive brings bytes at offset off of part p's snap into part i's recv
// (a peer copy in one process where i links, an NCCL broadcast, in which
// every rank takes part, between processes), and reports whether part i
// links them: p is another part and into. Inside Do.
func (g *ccParts) receive(i int, r *ccRun, p int, off, bytes int64, into bool) (bool, error) {
	own, o := p == g.first+i, cu.DevicePtr(off)
	if g.nc != nil {
		if err := g.nc[i].Broadcast(uint64(g.snap[i]+o), uint64(g.recv[i]+o), int(bytes), nccl.Uint8, p, uintptr(r.d.Stream().Handle())); err != nil {
			return false, err
		}
	} else if !own && into {
		r.d.CopyFrom(g.recv[i]+o, g.runs[p-g.first].d.RT(), g.snap[p-g.first]+o, bytes)
	}
	if own || !into {
		return false, nil
	}
	g.stats[i].ExchangeBytes += bytes
	return true, nil
}

// giantsJoined reports whether every part's largest component (giants:
// every part's, queueGather) has one label in the final labels, which
// every part holds.
func (g *ccParts) giantsJoined(giants []int32) (bool, error) {
	r := g.runs[0]
	labels := make([]int32, len(giants))
	err := r.d.Do("reading the largest components' labels", func() error {
		for k, x := range giants {
			if x >= 0 {
				r.d.DtoH(unsafe.Pointer(&labels[k]), r.comp+cu.DevicePtr(4*int64(x)), 4)
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	root := int32(-1)
	for k, x := range giants {
		switch {
		case x < 0:
		case root < 0:
			root = labels[k]
		case labels[k] != root:
			return false, nil
		}
	}
	return true, nil
}

// Finish implements driver.ComponentsRun: the first part's labels,
// every vertex's.
func (g *ccParts) Finish(labels []int32) error {
	if g.closed || !g.ran {
		return errors.New("cuda: Finish on a components run closed or not run")
	}
	return g.runs[0].Finish(labels)
}

// Parts is what each part did (vertexprog.Result.Parts).
func (g *ccParts) Parts() []driver.PartStat { return g.stats }

// DeviceTime implements driver.DeviceTimer: the slowest part's.
func (g *ccParts) DeviceTime() time.Duration {
	var d time.Duration
	for _, r := range g.runs {
		d = max(d, r.DeviceTime())
	}
	return d
}

// Transfers implements driver.TransferReporter: the first part's (the
// labels' copy back).
func (g *ccParts) Transfers() time.Duration { return g.runs[0].Transfers() }

// Close implements driver.ComponentsRun.
func (g *ccParts) Close() {
	if g.closed {
		return
	}
	g.closed = true
	g.crew.close()
	for i, r := range g.runs {
		if r == nil {
			continue
		}
		_ = r.d.Do("freeing a part's forests", func() error {
			if i < len(g.nc) {
				r.d.leaveNCCL(g.nc[i])
			}
			if i == 0 && g.host != nil {
				r.d.Unpin(g.host, 8*int64(g.total))
			}
			rt.FreeAll(g.bufs[i])
			return nil
		})
		r.Close()
	}
}

// pack writes part i's forest, whose giant is giant, packed into its
// snap, and reads back its list's length (over several processes
// queueGather gathers it instead). Inside Do.
func (g *ccParts) pack(i int, r *ccRun, giant int32) {
	pk := &g.pk
	head := [afHead]int32{0, giant, int32(pk.cap), int32(pk.words)}
	r.d.HtoDQueued(g.snap[i], unsafe.Pointer(&head[0]), 4*afHead)
	for k, s := range pk.spans {
		if s.Hi > s.Lo {
			r.launch("af_pack", blocksOf(s), afPackArg(r.comp, g.snap[i], s.Lo, s.Hi, pk.word0[k]))
		}
	}
	if g.nc == nil { // (else the list's length goes with queueGather's all-gather)
		r.d.Sync()
		r.d.DtoH(unsafe.Pointer(&pk.count[g.first+i]), g.snap[i], 4)
	}
}

// mergeLast is the last merge: of the packed forests where this run
// packed them and every list fit, else of the whole forests.
func (g *ccParts) mergeLast() error {
	d := g.runs[0].d
	if g.pk.on {
		if g.packedFit() {
			d.counts.packedMerge++
			return g.mergePacked()
		}
		d.counts.wholeMerge++
		err := g.each(func(i int, r *ccRun) error {
			return r.d.Do("copying a part's forest", func() error { g.snapshot(i, r, true); r.d.Sync(); return nil })
		})
		if err != nil {
			return err
		}
	}
	return g.merge(true)
}

// packedFit reports whether every part's list (pk.count: over the
// processes, queueGather) fit its buffer.
func (g *ccParts) packedFit() bool {
	for _, c := range g.pk.count {
		if c < 0 || int64(c) > g.pk.cap {
			return false
		}
	}
	return true
}

// mergePacked links into each process's first part every other part's
// packed forest, then compresses it, as merge(true) does with the whole
// forests.
func (g *ccParts) mergePacked() error {
	pk := &g.pk
	return g.mergeEach("linking the other parts' packed forests", true, func(i int, r *ccRun, p int, into bool) error {
		if link, err := g.receive(i, r, p, 0, pk.bytes(p), into); err != nil || !link {
			return err
		}
		for k, s := range pk.spans {
			if s.Hi > s.Lo {
				r.launch("af_link_bits", blocksOf(s), afPackArg(r.comp, g.recv[i], s.Lo, s.Hi, pk.word0[k]))
			}
		}
		if c := pk.count[p]; c > 0 {
			r.launch("af_link_list", blocksOf(driver.Span{Hi: c}), afPackArg(r.comp, g.recv[i], 0, c, 0))
		}
		return nil
	})
}
