//go:build cgo

package run

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrewRunsEveryPartOnceAtATime: every call runs each part once, all
// of them at once (exchangeDense's parts wait for each other inside f),
// after the workers spun and after they slept; errors come back joined;
// a call from inside f runs on goroutines of its own; close stops the
// workers, and a call after it runs on goroutines.
func TestCrewRunsEveryPartOnceAtATime(t *testing.T) {
	const n = 4
	before := runtime.NumGoroutine()
	c := startCrew(n)
	var count [n]atomic.Int64
	calls := 0
	for k := range 300 {
		var arrived sync.WaitGroup
		arrived.Add(n)
		fail := errors.New("part 2 failed")
		err := fanOut(c, make([]int, n), func(i int, _ int) error {
			count[i].Add(1)
			arrived.Done()
			ok := make(chan struct{})
			go func() { arrived.Wait(); close(ok) }()
			select {
			case <-ok:
			case <-time.After(10 * time.Second):
				return fmt.Errorf("call %d: part %d waited for the others in vain", k, i)
			}
			if i == 2 && k%7 == 0 {
				return fail
			}
			if i == 1 && k%50 == 0 {
				// (a nested call: the crew is busy, so goroutines run it)
				var nested atomic.Int64
				if err := fanOut(c, make([]int, n), func(int, int) error { nested.Add(1); return nil }); err != nil || nested.Load() != n {
					return fmt.Errorf("nested call: %d parts ran, error %v", nested.Load(), err)
				}
			}
			return nil
		})
		calls++
		if k%7 == 0 && !errors.Is(err, fail) || k%7 != 0 && err != nil {
			t.Fatalf("call %d: error %v", k, err)
		}
		if k%60 == 0 {
			time.Sleep(3 * crewSpin) // (the workers go to sleep)
		}
	}
	for i := range count {
		if got := count[i].Load(); got != int64(calls) {
			t.Errorf("part %d ran %d times in %d calls", i, got, calls)
		}
	}
	c.close()
	var after atomic.Int64
	if err := fanOut(c, make([]int, n), func(int, int) error { after.Add(1); return nil }); err != nil || after.Load() != n {
		t.Errorf("a call after close: %d parts ran, error %v", after.Load(), err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		t.Errorf("%d goroutines after close, %d before the crew", got, before)
	}
}
