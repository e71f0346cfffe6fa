package serve

import (
	"context"
	"errors"
	"sync"
)

var (
	errQueueFull = errors.New("the query queue is full")
	errClosed    = errors.New("the server is shutting down")
)

// job is one query: fn runs on a worker unless ctx ended while it waited.
type job struct {
	ctx  context.Context
	fn   func(ctx context.Context)
	done chan struct{}
}

// scheduler runs queries on a fixed number of workers from a bounded queue.
type scheduler struct {
	workers int
	queue   chan *job
	m       *metrics

	mu     sync.RWMutex // guards closed against sends on a closed queue
	closed bool
	wg     sync.WaitGroup
}

func newScheduler(workers, maxQueue int, m *metrics) *scheduler {
	s := &scheduler{workers: workers, queue: make(chan *job, maxQueue), m: m}
	for range workers {
		s.wg.Add(1)
		go s.work()
	}
	return s
}

func (s *scheduler) work() {
	defer s.wg.Done()
	for j := range s.queue {
		s.m.queued.Dec()
		if j.ctx.Err() == nil {
			s.m.running.Inc()
			j.fn(j.ctx)
			s.m.running.Dec()
		}
		close(j.done)
	}
}

// submit queues fn; errQueueFull when the queue is full. The returned
// channel closes once fn ran (or was skipped: its ctx had ended).
func (s *scheduler) submit(ctx context.Context, fn func(ctx context.Context)) (<-chan struct{}, error) {
	j := &job{ctx: ctx, fn: fn, done: make(chan struct{})}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	select {
	case s.queue <- j:
		s.m.queued.Inc()
		return j.done, nil
	default:
		return nil, errQueueFull
	}
}

func (s *scheduler) queued() int { return len(s.queue) }

// close stops taking queries and waits for the queued and running ones (or ctx).
func (s *scheduler) close(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
