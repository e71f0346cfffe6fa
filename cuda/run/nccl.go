//go:build cgo

package run

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/nccl"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The parts of a run over several processes exchange through NCCL: every
// part is an NCCL rank (its index among the run's parts), and after each
// superstep each part broadcasts its range (dense) or its packed list
// (sparse) to all. The counts that choose between the two go through
// the processes' Comm (vertexprog/cluster), which also hands NCCL's
// unique id from rank 0 to the others once.

func newNetParts(g *parts, comm driver.Comm) (*netParts, error) {
	if err := nccl.Load(); err != nil {
		return nil, fmt.Errorf("cuda: a run over %d processes exchanges through NCCL: %w", comm.Size(), err)
	}
	n := &netParts{g: g, comm: comm, nc: make([]*nccl.Comm, len(g.runs)), recv: make([]cu.DevicePtr, len(g.runs)), bufs: make([][]cu.DevicePtr, len(g.runs))}
	// Every part's range, in part order (a process's parts are
	// consecutive), and rank 0's unique id.
	var msg []byte
	for _, r := range g.runs {
		msg = binary.LittleEndian.AppendUint32(msg, uint32(r.job.Part.Lo))
		msg = binary.LittleEndian.AppendUint32(msg, uint32(r.job.Part.Hi))
	}
	if comm.Rank() == 0 {
		id, err := nccl.NewUniqueID()
		if err != nil {
			return nil, err
		}
		msg = append(msg, id[:]...)
	}
	all, err := comm.AllGather(msg)
	if err != nil {
		return nil, err
	}
	var id nccl.UniqueID
	for r, b := range all {
		ranges := len(b)
		if r == 0 {
			ranges -= nccl.UniqueIDBytes
			if ranges < 0 {
				return nil, errors.New("cuda: rank 0 sent no NCCL id")
			}
			copy(id[:], b[ranges:])
		}
		for i := 0; i+8 <= ranges; i += 8 {
			n.lo = append(n.lo, int32(binary.LittleEndian.Uint32(b[i:])))
			n.hi = append(n.hi, int32(binary.LittleEndian.Uint32(b[i+4:])))
		}
	}
	if len(n.lo) != g.total {
		return nil, fmt.Errorf("cuda: the processes hold %d parts of a run of %d", len(n.lo), g.total)
	}
	sparse := g.sparse(0)
	nv := int64(g.runs[0].n)
	// Each local part joins (ncclCommInitRank waits for every rank).
	err = g.each(func(i int, r *progRun) error {
		return r.d.Do("joining the run's NCCL communicator", func() error {
			c, err := nccl.CommInitRank(g.total, id, g.first+i)
			if err != nil {
				return err
			}
			n.nc[i] = c
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

// counts is every part's report, in part order: the local ones sent to
// every process, and theirs received.
func (n *netParts) counts(local []driver.StepReport) ([]driver.StepReport, error) {
	var msg []byte
	for _, rep := range local {
		msg = binary.LittleEndian.AppendUint64(msg, uint64(rep.Active))
		msg = binary.LittleEndian.AppendUint64(msg, uint64(rep.FrontierEdges))
		for _, a := range rep.Aggregates {
			msg = binary.LittleEndian.AppendUint64(msg, math.Float64bits(a))
		}
	}
	all, err := n.comm.AllGather(msg)
	if err != nil {
		return nil, err
	}
	per := 8 * (2 + n.g.nagg)
	var reps []driver.StepReport
	for r, b := range all {
		if len(b)%per != 0 {
			return nil, fmt.Errorf("cuda: process %d sent %d bytes of counts", r, len(b))
		}
		for ; len(b) > 0; b = b[per:] {
			rep := driver.StepReport{Active: int(binary.LittleEndian.Uint64(b)), FrontierEdges: int64(binary.LittleEndian.Uint64(b[8:]))}
			for k := range n.g.nagg {
				rep.Aggregates = append(rep.Aggregates, math.Float64frombits(binary.LittleEndian.Uint64(b[16+8*k:])))
			}
			reps = append(reps, rep)
		}
	}
	if len(reps) != n.g.total {
		return nil, fmt.Errorf("cuda: %d parts reported, the run has %d", len(reps), n.g.total)
	}
	return reps, nil
}

// dense broadcasts every part's values and frontier words to all.
func (n *netParts) dense() error {
	xs := int64(n.g.xsize)
	return n.g.each(func(i int, r *progRun) error {
		return r.d.Do("exchanging the parts' values (NCCL)", func() error {
			st := uintptr(r.d.Stream().Handle())
			mask := r.mask[r.next()]
			if err := nccl.GroupStart(); err != nil {
				return err
			}
			for root := range n.g.total {
				lo, hi := int64(n.lo[root]), int64(n.hi[root])
				if hi <= lo {
					continue
				}
				if xs > 0 {
					p := uint64(r.x) + uint64(lo*xs)
					if err := n.nc[i].Broadcast(p, p, int((hi-lo)*xs), nccl.Uint8, root, st); err != nil {
						return errors.Join(err, nccl.GroupEnd())
					}
				}
				wlo, whi := lo/32, (hi+31)/32
				p := uint64(mask) + uint64(wlo*4)
				if err := n.nc[i].Broadcast(p, p, int(whi-wlo), nccl.Uint32, root, st); err != nil {
					return errors.Join(err, nccl.GroupEnd())
				}
				if root != n.g.first+i {
					n.g.stats[i].ExchangeBytes += (hi-lo)*xs + (whi-wlo)*4
				}
			}
			if err := nccl.GroupEnd(); err != nil {
				return err
			}
			r.d.Sync()
			return n.nc[i].AsyncError()
		})
	})
}

// sparse packs each local part's activated vertices (counts) and
// broadcasts every part's list to all (all: every part's report), then
// unpacks the others'.
func (n *netParts) sparse(counts []int, all []driver.StepReport) error {
	if err := n.g.pack(counts); err != nil {
		return err
	}
	off := make([]int64, n.g.total+1)
	for p, rep := range all {
		off[p+1] = off[p] + (packBytes(int64(rep.Active), n.g.xsize)+15)&^15
	}
	return n.g.each(func(i int, r *progRun) error {
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
			r.d.Sync()
			return n.nc[i].AsyncError()
		})
	})
}

// close frees the communicators and buffers.
func (n *netParts) close() {
	for i, r := range n.g.runs {
		if r == nil {
			continue
		}
		_ = r.d.Do("leaving the run's NCCL communicator", func() error {
			if n.nc[i] != nil {
				_ = n.nc[i].Destroy()
			}
			rt.FreeAll(n.bufs[i])
			return nil
		})
	}
}
