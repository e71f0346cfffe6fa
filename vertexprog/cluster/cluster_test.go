package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// joinAll joins world processes (goroutines) at one coordinator.
func joinAll(t *testing.T, world int, key func(rank int) string, timeout time.Duration) ([]*Comm, []error) {
	t.Helper()
	addr := freeAddr(t)
	comms, errs := make([]*Comm, world), make([]error, world)
	var wg sync.WaitGroup
	for r := range world {
		wg.Add(1)
		go func() {
			defer wg.Done()
			comms[r], errs[r] = Join(Config{World: world, Rank: r, Coordinator: addr, Timeout: timeout, Key: key(r)})
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range comms {
			if c != nil {
				c.Close()
			}
		}
	})
	return comms, errs
}

func TestAllGatherAndBroadcast(t *testing.T) {
	const world = 4
	comms, errs := joinAll(t, world, func(int) string { return "run" }, 10*time.Second)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	// Rounds of messages of several sizes, empty and large among them.
	msg := func(round, r int) []byte {
		n := (round*7919 + r*104729) % 70000
		if round == 1 {
			n = 0
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*31 + r + round)
		}
		return b
	}
	for round := range 5 {
		var wg sync.WaitGroup
		got := make([][][]byte, world)
		for r := range world {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if got[r], err = comms[r].AllGather(msg(round, r)); err != nil {
					t.Errorf("round %d rank %d: %v", round, r, err)
				}
			}()
		}
		wg.Wait()
		for r := range world {
			if len(got[r]) != world {
				t.Fatalf("round %d: rank %d got %d messages", round, r, len(got[r]))
			}
			for q := range world {
				if !bytes.Equal(got[r][q], msg(round, q)) {
					t.Fatalf("round %d: rank %d got rank %d's message wrong", round, r, q)
				}
			}
		}
	}
	var wg sync.WaitGroup
	for r := range world {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := comms[r].Broadcast([]byte(fmt.Sprint("from ", r)), 2)
			if err != nil || string(b) != "from 2" {
				t.Errorf("rank %d: broadcast gave %q, %v", r, b, err)
			}
		}()
	}
	wg.Wait()
}

func TestRendezvousRefusesAnotherRun(t *testing.T) {
	// Rank 2 carries another run's key: it is refused, so nobody joins
	// within the timeout, and each says so.
	_, errs := joinAll(t, 3, func(r int) string {
		if r == 2 {
			return "other"
		}
		return "run"
	}, 500*time.Millisecond)
	if !errors.Is(errs[0], ErrRendezvous) {
		t.Fatalf("rank 0: %v; want a rendezvous error", errs[0])
	}
}

func TestConfig(t *testing.T) {
	for _, c := range []Config{{World: 0}, {World: 2, Rank: 2, Coordinator: "h:1"}, {World: 2, Rank: 0, Coordinator: "nohost"}} {
		if err := c.Check(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	t.Setenv("OMPI_COMM_WORLD_SIZE", "4")
	t.Setenv("OMPI_COMM_WORLD_RANK", "3")
	t.Setenv("HPGRAPH_COORDINATOR", "10.0.0.1:5000")
	c, multi, err := FromEnv(Config{})
	if err != nil || !multi || c.World != 4 || c.Rank != 3 || c.Coordinator != "10.0.0.1:5000" {
		t.Fatalf("FromEnv: %+v %v %v", c, multi, err)
	}
	t.Setenv("OMPI_COMM_WORLD_RANK", "x")
	if _, _, err := FromEnv(Config{}); err == nil {
		t.Fatal("a bad rank variable was accepted")
	}
}

func TestLostRank(t *testing.T) {
	comms, errs := joinAll(t, 2, func(int) string { return "" }, 5*time.Second)
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	comms[1].Close()
	if _, err := comms[0].AllGather([]byte("x")); err == nil {
		t.Fatal("rank 0 gathered from a closed rank")
	}
}
