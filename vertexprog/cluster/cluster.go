// Package cluster joins the processes of one partitioned run
// (vertexprog.Comm): a rendezvous at a coordinator address, where rank 0
// listens and every other rank connects, then collective exchanges of
// bytes through rank 0. The engine uses it for what its supersteps
// decide together (counts, aggregators, and on the CPU the parts' states);
// a device backend uses it once, to hand NCCL's unique id from rank 0 to
// the others, and then exchanges on its devices.
//
// Processes learn their place from a Config: --world, --rank and
// --coordinator on the command line, or the variables mpirun sets
// (OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_RANK; PMI_SIZE and PMI_RANK
// for MPICH and Slurm), with the coordinator from HPGRAPH_COORDINATOR. Several
// processes on one host take the same path as several hosts.
package cluster

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"
)

// Config is a process's place in a run.
type Config struct {
	// World is the number of processes, Rank this one's, from 0.
	World, Rank int
	// Coordinator is the host:port where rank 0 listens (it listens on
	// exactly that address) and the others connect.
	Coordinator string
	// Timeout bounds the rendezvous: how long rank 0 waits for the others
	// and they retry connecting (default 60 s).
	Timeout time.Duration
	// Key, when set, must be the same on every process (a run's graph and
	// program, say): a process with another is refused at the rendezvous.
	Key string
}

// FromEnv fills what c lacks from the variables an MPI launcher sets
// and from HPGRAPH_COORDINATOR; ok says whether they describe a run of
// several processes.
func FromEnv(c Config) (Config, bool, error) {
	if c.World == 0 {
		for _, p := range [][2]string{{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}} {
			s, r := os.Getenv(p[0]), os.Getenv(p[1])
			if s == "" || r == "" {
				continue
			}
			var err1, err2 error
			c.World, err1 = strconv.Atoi(s)
			c.Rank, err2 = strconv.Atoi(r)
			if err1 != nil || err2 != nil {
				return c, false, fmt.Errorf("cluster: %s=%q and %s=%q are not a world size and rank", p[0], s, p[1], r)
			}
			break
		}
	}
	if c.Coordinator == "" {
		c.Coordinator = os.Getenv("HPGRAPH_COORDINATOR")
	}
	return c, c.World > 1, nil
}

// Check reports what is wrong with c.
func (c Config) Check() error {
	if c.World < 1 || c.Rank < 0 || c.Rank >= c.World {
		return fmt.Errorf("cluster: rank %d of a world of %d: want 0 <= rank < world", c.Rank, c.World)
	}
	if c.World > 1 {
		if _, _, err := net.SplitHostPort(c.Coordinator); err != nil {
			return fmt.Errorf("cluster: coordinator %q: want HOST:PORT (rank 0 listens there): %v", c.Coordinator, err)
		}
	}
	return nil
}

// Comm is one process's end of a run's connections (vertexprog.Comm).
type Comm struct {
	rank, world int
	// rank 0: one connection per other rank, by rank (nil at 0); other
	// ranks: conns[0], to rank 0.
	conns []*conn
	mu    sync.Mutex
	ln    net.Listener
}

type conn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

// magic and version open every handshake.
const (
	magic   = "HPGC"
	version = 1
)

// ErrRendezvous is returned (wrapped) when the processes of a run could
// not join.
var ErrRendezvous = errors.New("cluster: rendezvous failed")

// Join meets the other processes of c's run and returns this one's Comm
// once all have joined. A world of one needs no coordinator.
func Join(c Config) (*Comm, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	cm := &Comm{rank: c.Rank, world: c.World, conns: make([]*conn, max(c.World, 1))}
	if c.World == 1 {
		return cm, nil
	}
	deadline := time.Now().Add(c.Timeout)
	var err error
	if c.Rank == 0 {
		err = cm.accept(c, deadline)
	} else {
		err = cm.dial(c, deadline)
	}
	if err != nil {
		cm.Close()
		return nil, fmt.Errorf("%w: rank %d of %d at %s: %w", ErrRendezvous, c.Rank, c.World, c.Coordinator, err)
	}
	// Every rank knows the others are there once rank 0 has answered.
	if _, err := cm.AllGather(nil); err != nil {
		cm.Close()
		return nil, fmt.Errorf("%w: %w", ErrRendezvous, err)
	}
	return cm, nil
}

func hello(c Config) []byte {
	b := append([]byte(magic), version)
	b = binary.LittleEndian.AppendUint32(b, uint32(c.World))
	b = binary.LittleEndian.AppendUint32(b, uint32(c.Rank))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(c.Key)))
	return append(b, c.Key...)
}

func (cm *Comm) accept(c Config, deadline time.Time) error {
	ln, err := net.Listen("tcp", c.Coordinator)
	if err != nil {
		return err
	}
	cm.ln = ln
	if tl, ok := ln.(*net.TCPListener); ok {
		_ = tl.SetDeadline(deadline)
	}
	for joined := 1; joined < c.World; {
		nc, err := ln.Accept()
		if err != nil {
			return fmt.Errorf("%d of %d processes joined: %w", joined, c.World, err)
		}
		_ = nc.SetDeadline(deadline)
		cn := newConn(nc)
		rank, err := readHello(cn, c)
		if err == nil && cm.conns[rank] != nil {
			err = fmt.Errorf("rank %d joined twice", rank)
		}
		if err != nil {
			// (a stray connection, or a process of another run: refused,
			// and the rendezvous goes on)
			_ = nc.Close()
			continue
		}
		_ = nc.SetDeadline(time.Time{})
		cm.conns[rank] = cn
		joined++
	}
	_ = ln.Close()
	cm.ln = nil
	return nil
}

func readHello(cn *conn, c Config) (int, error) {
	head := make([]byte, len(magic)+1+12)
	if _, err := io.ReadFull(cn.r, head); err != nil {
		return 0, err
	}
	if string(head[:len(magic)]) != magic || head[len(magic)] != version {
		return 0, errors.New("not an hpgraph process of this version")
	}
	p := head[len(magic)+1:]
	world, rank, klen := int(binary.LittleEndian.Uint32(p)), int(binary.LittleEndian.Uint32(p[4:])), int(binary.LittleEndian.Uint32(p[8:]))
	if klen > 1<<16 {
		return 0, errors.New("key too long")
	}
	key := make([]byte, klen)
	if _, err := io.ReadFull(cn.r, key); err != nil {
		return 0, err
	}
	switch {
	case world != c.World:
		return 0, fmt.Errorf("a process of a world of %d joined a world of %d", world, c.World)
	case rank <= 0 || rank >= c.World:
		return 0, fmt.Errorf("rank %d is not in a world of %d", rank, c.World)
	case string(key) != c.Key:
		return 0, fmt.Errorf("rank %d runs another job (key %q, want %q)", rank, key, c.Key)
	}
	return rank, nil
}

func (cm *Comm) dial(c Config, deadline time.Time) error {
	var last error
	for wait := 10 * time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, time.Second) {
		nc, err := net.DialTimeout("tcp", c.Coordinator, time.Until(deadline))
		if err != nil {
			last = err
			time.Sleep(min(wait, time.Until(deadline)))
			continue
		}
		cn := newConn(nc)
		if _, err := cn.w.Write(hello(c)); err == nil {
			err = cn.w.Flush()
		}
		if err != nil {
			_ = nc.Close()
			last = err
			continue
		}
		cm.conns[0] = cn
		return nil
	}
	if last == nil {
		last = errors.New("timed out")
	}
	return fmt.Errorf("rank 0 did not answer: %w", last)
}

func newConn(nc net.Conn) *conn {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return &conn{c: nc, r: bufio.NewReaderSize(nc, 1<<16), w: bufio.NewWriterSize(nc, 1<<16)}
}

// Rank is this process's rank.
func (cm *Comm) Rank() int { return cm.rank }

// Size is the number of processes.
func (cm *Comm) Size() int { return cm.world }

// maxMessage bounds what one process sends in one exchange (a guard
// against a corrupt length, not a limit of runs: 1 TiB).
const maxMessage = 1 << 40

// AllGather implements vertexprog.Comm: rank 0 collects every rank's
// bytes and sends all of them to each.
func (cm *Comm) AllGather(b []byte) ([][]byte, error) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if cm.world == 1 {
		return [][]byte{b}, nil
	}
	if cm.rank != 0 {
		cn := cm.conns[0]
		if err := writeFrame(cn, b); err != nil {
			return nil, cm.lost(0, err)
		}
		if err := cn.w.Flush(); err != nil {
			return nil, cm.lost(0, err)
		}
		all := make([][]byte, cm.world)
		for r := range all {
			var err error
			if all[r], err = readFrame(cn); err != nil {
				return nil, cm.lost(0, err)
			}
		}
		return all, nil
	}
	all := make([][]byte, cm.world)
	all[0] = b
	for r := 1; r < cm.world; r++ {
		var err error
		if all[r], err = readFrame(cm.conns[r]); err != nil {
			return nil, cm.lost(r, err)
		}
	}
	for r := 1; r < cm.world; r++ {
		cn := cm.conns[r]
		for _, a := range all {
			if err := writeFrame(cn, a); err != nil {
				return nil, cm.lost(r, err)
			}
		}
		if err := cn.w.Flush(); err != nil {
			return nil, cm.lost(r, err)
		}
	}
	return all, nil
}

func (cm *Comm) lost(r int, err error) error {
	return fmt.Errorf("cluster: rank %d lost rank %d: %w", cm.rank, r, err)
}

func writeFrame(cn *conn, b []byte) error {
	var h [8]byte
	binary.LittleEndian.PutUint64(h[:], uint64(len(b)))
	if _, err := cn.w.Write(h[:]); err != nil {
		return err
	}
	_, err := cn.w.Write(b)
	return err
}

func readFrame(cn *conn) ([]byte, error) {
	var h [8]byte
	if _, err := io.ReadFull(cn.r, h[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint64(h[:])
	if n > maxMessage {
		return nil, fmt.Errorf("a message of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(cn.r, b)
	return b, err
}

// Broadcast returns root's b on every process (b is ignored elsewhere).
func (cm *Comm) Broadcast(b []byte, root int) ([]byte, error) {
	if cm.rank != root {
		b = nil
	}
	all, err := cm.AllGather(b)
	if err != nil {
		return nil, err
	}
	return all[root], nil
}

// Close ends this process's connections.
func (cm *Comm) Close() error {
	if cm.ln != nil {
		_ = cm.ln.Close()
	}
	for _, cn := range cm.conns {
		if cn != nil {
			_ = cn.c.Close()
		}
	}
	return nil
}
