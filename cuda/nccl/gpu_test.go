//go:build cgo

package nccl_test

import (
	"bytes"
	"errors"
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/nccl"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// A communicator of one rank on the backend's own device, context and
// stream: NCCL's collectives run on what the backend's runs use (a
// context of the backend's own, not the device's primary one, made
// every collective fail with 'invalid resource handle' on two H200s).
// One rank is what one GPU allows (NCCL refuses two ranks on a GPU); the
// collectives between GPUs are checked by scripts/gpu-parts.sh nccl.
func TestOneRankOnTheBackendsStream(t *testing.T) {
	d, err := rt.Open(0)
	gputest.Need(t, err)
	if err := nccl.Load(); errors.Is(err, nccl.ErrNoNCCL) {
		gputest.Need(t, err)
	} else if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 20
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + 3)
	}
	got := make([]byte, n)
	err = d.Do("a collective of one rank", func() error {
		id, err := nccl.NewUniqueID()
		if err != nil {
			return err
		}
		c, err := nccl.CommInitRank(1, id, 0)
		if err != nil {
			return err
		}
		defer c.Destroy()
		var bufs []cu.DevicePtr
		defer func() { rt.FreeAll(bufs) }()
		a, b := rt.Alloc(&bufs, n), rt.Alloc(&bufs, n)
		d.HtoD(a, unsafe.Pointer(&src[0]), n)
		st := uintptr(d.Stream().Handle())
		if err := c.Broadcast(uint64(a), uint64(b), n, nccl.Uint8, 0, st); err != nil {
			return err
		}
		if err := nccl.GroupStart(); err != nil {
			return err
		}
		if err := c.AllReduce(uint64(b), uint64(b), n/4, nccl.Int32, nccl.Sum, st); err != nil {
			return errors.Join(err, nccl.GroupEnd())
		}
		if err := nccl.GroupEnd(); err != nil {
			return err
		}
		d.Sync()
		d.DtoH(unsafe.Pointer(&got[0]), b, n)
		return c.AsyncError()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Fatal("a broadcast and an all-reduce of one rank changed the bytes")
	}
	v, _ := nccl.Version()
	t.Logf("NCCL %d", v)
}
