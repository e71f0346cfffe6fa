package datasets

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// tinyChunks cuts files into chunks of 40 bytes (10 columns) and head
// pieces of 24, so that rows straddle many chunks, on 3 goroutines.
func tinyChunks(t testing.TB) {
	withProcs(t, 3)
	chunk, piece := readChunk, readPiece
	readChunk, readPiece = 40, 24
	t.Cleanup(func() { readChunk, readPiece = chunk, piece })
}

// sameRead reads data as a file (its arcs checked chunk by chunk as they
// are read) and as a stream (checked by Validate after the read) and
// fails unless both give the same graph, RepeatFree included, or the
// same error.
func sameRead(t *testing.T, dir string, data []byte) (*Graph, error) {
	t.Helper()
	path := filepath.Join(dir, "g.hpg")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, gotErr := ReadCacheFile(path)
	want, wantErr := ReadCache(bytes.NewReader(data), path)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("file read: error %v; stream read (Validate): %v", gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("file read gave another graph (RepeatFree %v) than the stream read (RepeatFree %v)", got.RepeatFree, want.RepeatFree)
	}
	return got, gotErr
}

// Checking the arcs as the chunks arrive finds what Validate finds, with
// its error, wherever a fault lies relative to the chunks: every column
// and weight of small graphs set, one at a time, to values that break a
// row's order, repeat a neighbour, leave the range or are not finite.
func TestReadCacheFileChecksArcs(t *testing.T) {
	tinyChunks(t)
	dir := t.TempDir()
	le := binary.LittleEndian
	r := rand.New(rand.NewPCG(5, 6))
	graphs := []*Graph{
		randomGraph(t, 11, 30, 200, true, true, false),
		randomGraph(t, 12, 40, 150, false, false, false),
		randomGraph(t, 13, 8, 60, true, false, true), // dense rows: many span chunks
	}
	faults, repeatsSeen := 0, 0
	for _, g := range graphs {
		good := cacheBytes(t, g)
		if back, err := sameRead(t, dir, good); err != nil || !back.RepeatFree {
			t.Fatalf("a good file: %v (RepeatFree %v)", err, back != nil && back.RepeatFree)
		}
		flags := uint32(0)
		if g.W != nil {
			flags = cacheWeighted
		}
		if g.Directed {
			flags |= cacheDirected
		}
		l := newCacheLayout(int64(g.N), g.NNZ(), g.IDBase, int64(len(g.Name)), flags)
		for i := range g.NNZ() {
			at := l.col + 4*i
			for _, v := range []int32{-1, int32(g.N), math.MaxInt32, 0, int32(g.N - 1), g.Col[max(i-1, 0)], g.Col[min(i+1, g.NNZ()-1)], int32(r.IntN(g.N))} {
				b := bytes.Clone(good)
				le.PutUint32(b[at:], uint32(v))
				back, err := sameRead(t, dir, rechecksum(b))
				if err != nil {
					faults++
				} else if !back.RepeatFree {
					repeatsSeen++
				}
			}
			if g.W != nil {
				for _, w := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 3} {
					b := bytes.Clone(good)
					le.PutUint32(b[l.w+4*i:], math.Float32bits(w))
					if _, err := sameRead(t, dir, rechecksum(b)); err != nil {
						faults++
					}
				}
			}
		}
		// Row offsets: a row of negative length, offsets past the arcs.
		for v := int64(1); v < l.n; v += 3 {
			b := bytes.Clone(good)
			le.PutUint64(b[l.rowPtr+8*v:], uint64(g.RowPtr[v]+int64(r.IntN(5))))
			if _, err := sameRead(t, dir, rechecksum(b)); err != nil {
				faults++
			}
		}
	}
	// The edits must have made both kinds of file (else nothing was tested).
	if faults == 0 || repeatsSeen == 0 {
		t.Fatalf("%d invalid files, %d with repeats: the edits tested nothing", faults, repeatsSeen)
	}
}

// FuzzReadCacheFile: reading a file, its arcs checked as they arrive,
// gives what reading the same bytes as a stream and validating after
// gives. fix rewrites the checksum first, so that edits reach the checks.
func FuzzReadCacheFile(f *testing.F) {
	tinyChunks(f)
	for _, g := range testGraphs(f) {
		f.Add(cacheBytes(f, g), true)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix && len(data) >= 4 {
			data = rechecksum(bytes.Clone(data))
		}
		sameRead(t, dir, data)
	})
}
