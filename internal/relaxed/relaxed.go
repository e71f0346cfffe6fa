// Package relaxed stores to memory other goroutines read atomically,
// without the barrier of sync/atomic's stores: C's memory_order_relaxed.
// sync/atomic's StoreInt32 is a locked exchange on amd64, which waits
// for the core's earlier stores to drain; a relaxed store is a plain
// move. A reader's atomic load then sees the old value or the new one,
// never a torn one, and nothing orders the store with the writer's other
// stores. Use it where a value only ever moves between valid states (a
// union-find compress pointing a vertex at its root).
package relaxed
