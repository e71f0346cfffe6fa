//go:build cgo

package run

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/nccl"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The parts of a run over several processes exchange through NCCL: every
// part is an NCCL rank (its index among the run's parts), and after each
// superstep the parts all-gather their counts, which choose the
// exchange, then each part broadcasts its range (dense) or its packed
// list (sparse) to all. The processes' Comm (vertexprog/cluster) hands
// NCCL's unique id from rank 0 to the others once: a superstep's counts
// through it (TCP, by way of rank 0) had made two processes 1.63× slower
// than one process on the same two GPUs (kron22 BFS).

func newNetParts(g *parts, comm driver.Comm) (*netParts, error) {
	n := &netParts{g: g, recv: make([]cu.DevicePtr, len(g.runs)), cnt: make([]cu.DevicePtr, len(g.runs)),
		bufs: make([][]cu.DevicePtr, len(g.runs))}
	// Every part's range, in part order (a process's parts are
	// consecutive).
	var msg []byte
	devs := make([]*Device, len(g.runs))
	for i, r := range g.runs {
		msg = binary.LittleEndian.AppendUint32(msg, uint32(r.part().Lo))
		msg = binary.LittleEndian.AppendUint32(msg, uint32(r.part().Hi))
		devs[i] = r.dev()
	}
	var all [][]byte
	var err error
	if n.nc, all, err = joinNCCL(comm, devs, g.first, g.total, msg); err != nil {
		return nil, err
	}
	for _, b := range all {
		for i := 0; i+8 <= len(b); i += 8 {
			n.lo = append(n.lo, int32(binary.LittleEndian.Uint32(b[i:])))
			n.hi = append(n.hi, int32(binary.LittleEndian.Uint32(b[i+4:])))
		}
	}
	if len(n.lo) != g.total {
		n.close()
		return nil, fmt.Errorf("cuda: the processes hold %d parts of a run of %d", len(n.lo), g.total)
	}
	sparse, nv := g.sparse(0), int64(g.n)
	n.gerr = make([]error, len(g.runs))
	n.early = !sparse && g.progs != nil
	err = g.each(func(i int, r partRun) error {
		return r.dev().Do("allocating a part's exchange (NCCL)", func() error {
			n.cnt[i] = rt.Alloc(&n.bufs[i], int64(g.total*n.countBytes()))
			if i == 0 {
				n.host = r.dev().Pinned(int64(g.total * n.countBytes()))
			}
			if sparse {
				n.recv[i] = rt.Alloc(&n.bufs[i], packBytes(nv, g.xsize)+32*int64(g.total)+16)
			}
			return nil
		})
	})
	if err != nil {
		n.close()
		return nil, err
	}
	return n, nil
}

// joinNCCL gives the NCCL communicator of a run of total parts over
// comm's processes: one rank per local part (devs[i] is part first+i's
// device). msg is what this process tells the others; every process's
// comes back, by rank. A device keeps its rank's communicator for the
// next run of the same processes and parts (Device.nets): the processes
// reuse theirs where every one of them holds the same one, else they
// make a new one (netJoin). Making one took 160-200 ms of each run's
// PREPROCESS over two processes (kron22: 164-199 ms against one
// process's 1-21).
func joinNCCL(comm driver.Comm, devs []*Device, first, total int, msg []byte) ([]*nccl.Comm, [][]byte, error) {
	if err := nccl.Load(); err != nil {
		return nil, nil, fmt.Errorf("cuda: a run over %d processes exchanges through NCCL: %w", comm.Size(), err)
	}
	key := func(i int) netKey { return netKey{comm: comm, rank: first + i, total: total} }
	// What this process holds: the id of its devices' communicators
	// where they all hold one of the same id.
	held := make([]*netComm, len(devs))
	same := true
	for i, d := range devs {
		held[i] = d.netComm(key(i))
		same = same && held[i] != nil && held[i].id == held[0].id
	}
	tag := make([]byte, 1+nccl.UniqueIDBytes)
	if same {
		tag[0] = 1
		copy(tag[1:], held[0].id[:])
	}
	all, err := comm.AllGather(append(tag, msg...))
	if err != nil {
		return nil, nil, err
	}
	reuse, err := heldByAll(all, len(tag))
	if err != nil {
		return nil, nil, err
	}
	ncs := make([]*nccl.Comm, len(devs))
	if reuse {
		for i, h := range held {
			ncs[i] = h.c
		}
		return ncs, all, nil
	}
	for i, d := range devs {
		d.dropNetComm(key(i))
	}
	if ncs, err = netJoin(comm, devs, first, total); err != nil {
		return nil, nil, err
	}
	return ncs, all, nil
}

// heldByAll reports whether every process's tag (the first n bytes of
// its message in all: a byte 1 and the id of the communicator its
// devices hold, or 0) says it holds the same one, and cuts the tags off.
func heldByAll(all [][]byte, n int) (bool, error) {
	for r, b := range all {
		if len(b) < n {
			return false, fmt.Errorf("cuda: process %d sent %d bytes to join the run's NCCL communicator", r, len(b))
		}
	}
	same := len(all) > 0
	for _, b := range all {
		same = same && b[0] == 1 && string(b[:n]) == string(all[0][:n])
	}
	for r, b := range all {
		all[r] = b[n:]
	}
	return same, nil
}

// netJoin makes a new communicator: rank 0's unique id, handed through
// comm, then each local part joins (ncclCommInitRank waits for every
// rank), broadcasts a word from every rank to all and all-gathers a
// word of each, once: NCCL connects its ranks on a communicator's first
// collective (NCCL 2.22's runtime connection), which would otherwise
// fall in the run's first exchange. Each device keeps its rank's.
func netJoin(comm driver.Comm, devs []*Device, first, total int) ([]*nccl.Comm, error) {
	var mine []byte
	if comm.Rank() == 0 {
		id, err := nccl.NewUniqueID()
		if err != nil {
			return nil, err
		}
		mine = id[:]
	}
	all, err := comm.AllGather(mine)
	if err != nil {
		return nil, err
	}
	if len(all[0]) != nccl.UniqueIDBytes {
		return nil, errors.New("cuda: rank 0 sent no NCCL id")
	}
	var id nccl.UniqueID
	copy(id[:], all[0])
	ncs := make([]*nccl.Comm, len(devs))
	err = EachDevice(devs, func(i int, d *Device) error {
		return d.Do("joining the run's NCCL communicator", func() error {
			c, err := nccl.CommInitRank(total, id, first+i)
			if err != nil {
				return err
			}
			ncs[i] = c
			var bufs []cu.DevicePtr
			defer func() { rt.FreeAll(bufs) }()
			buf := rt.Alloc(&bufs, 8*int64(total))
			st := uintptr(d.Stream().Handle())
			if err := nccl.GroupStart(); err != nil {
				return err
			}
			for root := range total {
				p := uint64(buf) + uint64(4*root)
				if err := c.Broadcast(p, p, 1, nccl.Uint32, root, st); err != nil {
					return errors.Join(err, nccl.GroupEnd())
				}
			}
			words := uint64(buf) + uint64(4*total)
			if err := c.AllGather(words+uint64(4*(first+i)), words, 1, nccl.Uint32, st); err != nil {
				return errors.Join(err, nccl.GroupEnd())
			}
			if err := nccl.GroupEnd(); err != nil {
				return err
			}
			d.Sync()
			return c.AsyncError()
		})
	})
	if err != nil {
		for i, c := range ncs {
			if c != nil {
				_ = devs[i].Do("leaving the run's NCCL communicator", func() error { return c.Destroy() })
			}
		}
		return nil, err
	}
	for i, d := range devs {
		d.keepNetComm(netKey{comm: comm, rank: first + i, total: total}, &netComm{c: ncs[i], id: id})
	}
	return ncs, nil
}

func (d *Device) netComm(k netKey) *netComm {
	d.netMu.Lock()
	defer d.netMu.Unlock()
	return d.nets[k]
}

func (d *Device) keepNetComm(k netKey, c *netComm) {
	d.netMu.Lock()
	defer d.netMu.Unlock()
	if d.nets == nil {
		d.nets = map[netKey]*netComm{}
	}
	d.nets[k] = c
}

// dropNetComm destroys the communicator d keeps under k, if any.
func (d *Device) dropNetComm(k netKey) {
	d.netMu.Lock()
	c := d.nets[k]
	delete(d.nets, k)
	d.netMu.Unlock()
	if c != nil {
		_ = d.Do("leaving a run's NCCL communicator", func() error { return c.c.Destroy() })
	}
}

// leaveNCCL is a run's end with communicator c of rank's part on d
// (inside Do, its collectives done): d keeps it for the next run, unless
// it reports an error, when it is destroyed.
func (d *Device) leaveNCCL(c *nccl.Comm) {
	if c == nil || c.AsyncError() == nil {
		return
	}
	d.netMu.Lock()
	for k, h := range d.nets {
		if h.c == c {
			delete(d.nets, k)
		}
	}
	d.netMu.Unlock()
	_ = c.Destroy()
}

// alignStart all-gathers a word over each local part's communicator
// (ncs[i], whose rank is first+i; buf[i] has room for a word of every
// part on part i's device) and waits for it, so that the processes of a
// run leave its start within a few µs of each other. Their start's
// allocations and host exchanges differ in length, and a run's first
// collective waited out the difference: 100-300 µs of kron22 BFS's first
// superstep over two processes, which the compute time counted.
func alignStart(devs []*Device, ncs []*nccl.Comm, buf []cu.DevicePtr, first int) error {
	return EachDevice(devs, func(i int, d *Device) error {
		return d.Do("aligning the processes' start (NCCL)", func() error {
			p := uint64(buf[i])
			if err := ncs[i].AllGather(p+uint64(8*(first+i)), p, 8, nccl.Uint8, uintptr(d.Stream().Handle())); err != nil {
				return err
			}
			d.Sync()
			return ncs[i].AsyncError()
		})
	})
}

// EachDevice runs f on every device at once, one goroutine each (parts
// on one device take turns at its lock).
func EachDevice(devs []*Device, f func(i int, d *Device) error) error {
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for i, d := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i, d)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// countBytes is the size of a part's counts: a program run's record of
// its last superstep (its activated vertices, their edges and its
// aggregators among its words), or for a multiset program's parts those
// three, 8 bytes each.
func (n *netParts) countBytes() int {
	if n.g.progs != nil {
		return 8 * n.g.progs[0].recW
	}
	return 8 * (2 + n.g.nagg)
}

// gatherRecord queues, after part i's superstep s, the all-gather of
// its record with every part's (NCCL) and, on the first local part, the
// copy of theirs to the host, which the superstep's one wait for its
// record covers (partTail; a host wait and a call less a superstep than
// gathering after it: kron22 PageRank's counts took 36-46 µs a superstep
// so). Inside Do.
//
// Where every exchange of the run is dense (early), the superstep's
// broadcasts go in the same NCCL group: its one launch and the record's
// one wait then cover the exchange too, which the host had queued after
// reading the counts (an NCCL call's 15-20 µs of host time, and a
// kernel's start, a superstep at kron22).
func (n *netParts) gatherRecord(i int, r *progRun, s int) {
	st := r.d.Stream().Handle()
	gather := func() error {
		return n.nc[i].AllGather(uint64(r.record(s)), uint64(n.cnt[i]), n.countBytes(), nccl.Uint8, uintptr(st))
	}
	if !n.early {
		n.gerr[i] = gather()
	} else if n.gerr[i] = nccl.GroupStart(); n.gerr[i] == nil {
		err := gather()
		if err == nil {
			// (the frontier superstep s wrote: frontier() once the run is
			// past s)
			err = n.broadcastDense(i, r.x, r.mask[(s+1)&1], uintptr(st))
		}
		n.gerr[i] = errors.Join(err, nccl.GroupEnd())
	}
	if n.gerr[i] == nil && i == 0 {
		cu.MemcpyDtoHAsync(n.host, n.cnt[i], int64(n.g.total*n.countBytes()), st)
	}
}

// counts is every part's report, in part order. A program's parts
// gathered their records in their supersteps (gatherRecord); a multiset
// run's parts put their counts in their slots (a queued copy), all-gather
// them (NCCL) and the first local part copies everyone's to the pinned
// host memory, under one wait a part.
func (n *netParts) counts(local []driver.StepReport) ([]driver.StepReport, error) {
	per := n.countBytes()
	all := make([]byte, n.g.total*per)
	var err error
	if n.g.progs != nil {
		err = errors.Join(n.gerr...)
		for i := range n.gerr {
			n.gerr[i] = nil
		}
	} else {
		err = n.g.each(func(i int, r partRun) error {
			d := r.dev()
			return d.Do("gathering the parts' counts (NCCL)", func() error {
				slot := n.cnt[i] + cu.DevicePtr((n.g.first+i)*per)
				rep := local[i]
				msg := make([]byte, 0, per)
				msg = binary.LittleEndian.AppendUint64(msg, uint64(rep.Active))
				msg = binary.LittleEndian.AppendUint64(msg, uint64(rep.FrontierEdges))
				for _, a := range rep.Aggregates {
					msg = binary.LittleEndian.AppendUint64(msg, math.Float64bits(a))
				}
				d.HtoDQueued(slot, unsafe.Pointer(&msg[0]), int64(per))
				st := d.Stream().Handle()
				if err := n.nc[i].AllGather(uint64(slot), uint64(n.cnt[i]), per, nccl.Uint8, uintptr(st)); err != nil {
					return err
				}
				if i == 0 {
					cu.MemcpyDtoHAsync(n.host, n.cnt[i], int64(len(all)), st)
				}
				d.Sync()
				return n.nc[i].AsyncError()
			})
		})
	}
	if err != nil {
		return nil, err
	}
	copy(all, unsafe.Slice((*byte)(n.host), len(all)))
	active, edges, agg := 0, 8, 16 // (the counts' bytes)
	if n.g.progs != nil {
		active, edges, agg = 8*recActive, 8*recEdges, 8*recordHead
	}
	reps := make([]driver.StepReport, n.g.total)
	le := binary.LittleEndian
	for p := range reps {
		b := all[p*per:]
		reps[p] = driver.StepReport{Active: int(le.Uint64(b[active:])), FrontierEdges: int64(le.Uint64(b[edges:]))}
		for k := range n.g.nagg {
			reps[p].Aggregates = append(reps[p].Aggregates, math.Float64frombits(le.Uint64(b[agg+8*k:])))
		}
	}
	return reps, nil
}

// dense writes each local part's record (record), then broadcasts every
// part's values and frontier words to all, unless the superstep's
// gatherRecord did (early). The host does not wait: the next superstep
// follows the broadcasts in each part's stream, and a root overwrites its
// values only after its broadcast is done.
func (n *netParts) dense(record func(partRun)) error {
	return n.g.each(func(i int, r partRun) error {
		d := r.dev()
		return d.Do("exchanging the parts' values (NCCL)", func() error {
			record(r)
			if !n.early {
				if err := nccl.GroupStart(); err != nil {
					return err
				}
				err := n.broadcastDense(i, r.values(), r.frontier(), uintptr(d.Stream().Handle()))
				if err := errors.Join(err, nccl.GroupEnd()); err != nil {
					return err
				}
			}
			return n.nc[i].AsyncError()
		})
	})
}

// broadcastDense queues, inside an NCCL group, local part i's broadcasts
// of every part's values (x) and frontier words (mask) from the part
// that holds them. Inside Do.
func (n *netParts) broadcastDense(i int, x, mask cu.DevicePtr, st uintptr) error {
	xs := int64(n.g.xsize)
	me := n.g.runs[i].part()
	for root := range n.g.total {
		lo, hi := int64(n.lo[root]), sentHi(me, root, n.hi[root])
		if hi <= lo {
			continue
		}
		if xs > 0 {
			p := uint64(x) + uint64(lo*xs)
			if err := n.nc[i].Broadcast(p, p, int((hi-lo)*xs), nccl.Uint8, root, st); err != nil {
				return err
			}
		}
		wlo, whi := lo/32, (hi+31)/32
		p := uint64(mask) + uint64(wlo*4)
		if err := n.nc[i].Broadcast(p, p, int(whi-wlo), nccl.Uint32, root, st); err != nil {
			return err
		}
		if root != n.g.first+i {
			n.g.stats[i].ExchangeBytes += (hi-lo)*xs + (whi-wlo)*4
		}
	}
	return nil
}

// sparse writes each local part's record (record), packs its activated
// vertices (counts) and broadcasts every part's list to all (all: every
// part's report), then unpacks the others'. As in dense, the host does
// not wait: a part's next pack and broadcast come after these in its
// stream.
func (n *netParts) sparse(counts []int, all []driver.StepReport, record func(partRun)) error {
	if err := n.g.pack(counts, record); err != nil {
		return err
	}
	off := make([]int64, n.g.total+1)
	for p, rep := range all {
		off[p+1] = off[p] + (packBytes(int64(rep.Active), n.g.xsize)+15)&^15
	}
	return n.g.eachProg(func(i int, r *progRun) error {
		return r.d.Do("exchanging the parts' changes (NCCL)", func() error {
			st := uintptr(r.d.Stream().Handle())
			if err := nccl.GroupStart(); err != nil {
				return err
			}
			for root, rep := range all {
				if rep.Active == 0 {
					continue
				}
				send := uint64(0)
				if root == n.g.first+i {
					send = uint64(n.g.send[i])
				}
				bytes := packBytes(int64(rep.Active), n.g.xsize)
				if err := n.nc[i].Broadcast(send, uint64(n.recv[i])+uint64(off[root]), int(bytes), nccl.Uint8, root, st); err != nil {
					return errors.Join(err, nccl.GroupEnd())
				}
			}
			if err := nccl.GroupEnd(); err != nil {
				return err
			}
			for root, rep := range all {
				if rep.Active == 0 || root == n.g.first+i {
					continue
				}
				r.unpack(n.recv[i]+cu.DevicePtr(off[root]), rep.Active)
				n.g.stats[i].ExchangeBytes += packBytes(int64(rep.Active), n.g.xsize)
			}
			return n.nc[i].AsyncError()
		})
	})
}

// close frees the communicators and buffers, once the exchange's last
// collectives and unpacks are done.
func (n *netParts) close() {
	for i, r := range n.g.runs {
		if r == nil {
			continue
		}
		_ = r.dev().Do("waiting for the run's last exchange", func() error { r.dev().Sync(); return nil })
		_ = r.dev().Do("leaving the run's NCCL communicator", func() error {
			r.dev().leaveNCCL(n.nc[i])
			rt.FreeAll(n.bufs[i])
			if i == 0 && n.host != nil {
				r.dev().Unpin(n.host, int64(n.g.total*n.countBytes()))
				n.host = nil
			}
			return nil
		})
	}
}
