package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/cluster"
	"github.com/spf13/pflag"
)

// partFlags split a run into parts (--parts) and join the processes of
// a run over several (--world, --rank, --coordinator, or mpirun's
// variables).
type partFlags struct {
	parts       int
	world, rank int
	coordinator string
	timeout     time.Duration

	joined *joined // (a pointer: the flags are copied, the join is one)
}

// joined is the process's place in a run, found once.
type joined struct {
	once sync.Once
	comm *cluster.Comm
	err  error
}

func (p *partFlags) register(f *pflag.FlagSet) {
	f.IntVar(&p.parts, "parts", 0, "split the graph into this many parts (vertex ranges balanced by arcs and rows) that exchange between supersteps, as across GPUs: 0 = one per device of --devices (one on the CPU); with --world, parts per process")
	f.IntVar(&p.world, "world", 0, "processes in the run (one per GPU or host; default: mpirun's OMPI_COMM_WORLD_SIZE or PMI_SIZE, else 1)")
	f.IntVar(&p.rank, "rank", 0, "this process's rank in the run, 0 to --world - 1 (default: mpirun's)")
	f.StringVar(&p.coordinator, "coordinator", "", "HOST:PORT where rank 0 listens and the others connect (default $HPGRAPH_COORDINATOR)")
	f.DurationVar(&p.timeout, "join-timeout", time.Minute, "how long the processes of a run wait for each other to join")
}

// apply joins the run's processes (once) and sets o's parts and Comm.
// A process other than rank 0 then prints nothing and writes no file:
// rank 0 holds every process's results and answers for the run.
func (p *partFlags) apply(o *vertexprog.Options) error {
	if p.parts < 0 {
		return fmt.Errorf("--parts %d: want 0 or more", p.parts)
	}
	o.Parts = p.parts
	if p.joined == nil {
		p.joined = &joined{}
	}
	j := p.joined
	j.once.Do(func() {
		cfg, multi, err := cluster.FromEnv(cluster.Config{World: p.world, Rank: p.rank, Coordinator: p.coordinator, Timeout: p.timeout})
		if err != nil || !multi {
			j.err = err
			return
		}
		if j.comm, j.err = cluster.Join(cfg); j.err != nil {
			return
		}
		if cfg.Rank != 0 {
			quietRank = true
			if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
				os.Stdout = null
			}
		}
	})
	if j.err != nil {
		return j.err
	}
	if j.comm != nil {
		o.Comm = j.comm
	}
	return nil
}

// quietRank is set in a process of a run over several that is not rank
// 0: it writes no output file.
var quietRank bool
