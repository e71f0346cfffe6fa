package datasets

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/internal/benchtier"
)

// The benchmark input: an R-MAT graph with the Graph500 parameters
// (a=0.57, b=0.19, c=0.19), scale 20 and edge factor 16: 2^20 vertices and
// 16.8M undirected edges (scale 18 in make bench's light tier:
// internal/benchtier), written once per test binary run as a symmetric
// pattern Matrix Market file (about 240 MB at scale 20), the same edges as
// a 0-based edge list, a gzip copy of the Matrix Market file, and a cache
// of the built graph.
var benchScale = benchtier.Scale(18, 20)

const benchEdgeFactor = 16

var bench struct {
	once               sync.Once
	dir                string
	mtx, el, gz, cache string
	err                error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	if benchGraphs.cache != "" {
		os.RemoveAll(filepath.Dir(benchGraphs.cache))
	}
	os.Exit(code)
}

func benchFiles(b *testing.B) {
	b.Helper()
	bench.once.Do(func() { bench.err = writeBenchFiles() })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
}

func writeBenchFiles() error {
	dir, err := os.MkdirTemp("", "hpgraph-bench-")
	if err != nil {
		return err
	}
	bench.dir = dir
	n, m := 1<<benchScale, benchEdgeFactor<<benchScale
	src, dst := rmat(benchScale, m)
	write := func(name string, compress bool, header string, line func(dst []byte, i int) []byte) (string, error) {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 1<<20)
		var z *gzip.Writer
		var wr io.Writer = w
		if compress {
			z, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
			wr = z
		}
		buf := []byte(header)
		for i := range m {
			buf = line(buf, i)
			if len(buf) > 1<<20 {
				if _, err := wr.Write(buf); err != nil {
					return "", err
				}
				buf = buf[:0]
			}
		}
		if _, err := wr.Write(buf); err != nil {
			return "", err
		}
		if z != nil {
			if err := z.Close(); err != nil {
				return "", err
			}
		}
		return path, w.Flush()
	}
	mtxHeader := fmt.Sprintf("%%%%MatrixMarket matrix coordinate pattern symmetric\n%d %d %d\n", n, n, m)
	mtxLine := func(b []byte, i int) []byte {
		hi, lo := max(src[i], dst[i]), min(src[i], dst[i])
		return appendInt(appendInt(b, int64(hi)+1, ' '), int64(lo)+1, '\n')
	}
	if bench.mtx, err = write("rmat.mtx", false, mtxHeader, mtxLine); err != nil {
		return err
	}
	if bench.gz, err = write("rmat.mtx.gz", true, mtxHeader, mtxLine); err != nil {
		return err
	}
	if bench.el, err = write("rmat.txt", false, fmt.Sprintf("# R-MAT scale %d\n", benchScale), func(b []byte, i int) []byte {
		return appendInt(appendInt(b, int64(src[i]), '\t'), int64(dst[i]), '\n')
	}); err != nil {
		return err
	}
	g, err := Load(bench.mtx, Options{})
	if err != nil {
		return err
	}
	bench.cache = filepath.Join(dir, "rmat.hpg")
	return WriteCacheFile(bench.cache, g)
}

// rmat draws m edges of a 2^scale-vertex R-MAT graph, deterministically,
// in 16 independent streams drawn in parallel.
func rmat(scale, m int) (src, dst []int32) {
	src, dst = make([]int32, m), make([]int32, m)
	const streams = 16
	var wg sync.WaitGroup
	for s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(42, uint64(s)))
			for i := m * s / streams; i < m*(s+1)/streams; i++ {
				var u, v int32
				for bit := range scale {
					switch p := r.Float64(); {
					case p < 0.57:
					case p < 0.76:
						v |= 1 << bit
					case p < 0.95:
						u |= 1 << bit
					default:
						u, v = u|1<<bit, v|1<<bit
					}
				}
				src[i], dst[i] = u, v
			}
		}()
	}
	wg.Wait()
	return src, dst
}

func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

// procs are the core counts the parse benchmarks run at: 1, 2, and powers
// of two up to the machine's.
func procs() []int {
	ps := []int{1}
	for p := 2; p <= runtime.NumCPU(); p *= 2 {
		ps = append(ps, p)
	}
	if last := ps[len(ps)-1]; last != runtime.NumCPU() {
		ps = append(ps, runtime.NumCPU())
	}
	return ps
}

func benchParse(b *testing.B, path func() string) {
	benchFiles(b)
	for _, p := range procs() {
		b.Run("procs="+strconv.Itoa(p), func(b *testing.B) {
			withProcs(b, p)
			b.SetBytes(fileSize(b, path()))
			for b.Loop() {
				if _, err := LoadEdgeList(path()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadMatrixMarket: MB/s of Matrix Market text parsed.
func BenchmarkReadMatrixMarket(b *testing.B) { benchParse(b, func() string { return bench.mtx }) }

// BenchmarkReadEdgeList: MB/s of edge-list text parsed, id compaction
// included.
func BenchmarkReadEdgeList(b *testing.B) { benchParse(b, func() string { return bench.el }) }

// BenchmarkReadGzip: MB/s of compressed bytes; gunzip runs on one core,
// overlapped with parsing.
func BenchmarkReadGzip(b *testing.B) {
	benchFiles(b)
	b.SetBytes(fileSize(b, bench.gz))
	for b.Loop() {
		if _, err := LoadEdgeList(bench.gz); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild: edge list to CSR (symmetric: each edge stored both ways),
// reported per stored arc.
func BenchmarkBuild(b *testing.B) {
	benchFiles(b)
	el, err := LoadEdgeList(bench.mtx)
	if err != nil {
		b.Fatal(err)
	}
	var arcs int64
	for b.Loop() {
		g, err := Build(el, Options{})
		if err != nil {
			b.Fatal(err)
		}
		arcs = g.NNZ()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(arcs), "ns/arc")
}

// BenchmarkWriteCache: MB/s of cache file written (to the page cache).
func BenchmarkWriteCache(b *testing.B) {
	benchFiles(b)
	g, err := ReadCacheFile(bench.cache)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "w.hpg")
	b.SetBytes(fileSize(b, bench.cache))
	for b.Loop() {
		if err := WriteCacheFile(path, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCacheFile: MB/s of cache file loaded, checksum and
// validation included.
func BenchmarkReadCacheFile(b *testing.B) {
	benchFiles(b)
	b.SetBytes(fileSize(b, bench.cache))
	for b.Loop() {
		if _, err := ReadCacheFile(bench.cache); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad: Matrix Market file to CSR, end to end, all cores.
func BenchmarkLoad(b *testing.B) {
	benchFiles(b)
	b.SetBytes(fileSize(b, bench.mtx))
	for b.Loop() {
		if _, err := Load(bench.mtx, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The loading and relabelling benchmarks use the same R-MAT edges, built
// in memory (no text files): undirected and unweighted as a Kronecker
// graph from `hpgraph gen` is, directed, and undirected with random
// weights; the cache file is the undirected graph's.
var benchGraphs struct {
	once                           sync.Once
	undirected, directed, weighted *Graph
	cache                          string
	err                            error
}

func benchGraph(b *testing.B) {
	b.Helper()
	benchGraphs.once.Do(func() {
		n, m := 1<<benchScale, benchEdgeFactor<<benchScale
		src, dst := rmat(benchScale, m)
		el := &EdgeList{N: n, Src: src, Dst: dst, Name: "rmat"}
		bg := &benchGraphs
		if bg.undirected, bg.err = Build(el, Options{}); bg.err != nil {
			return
		}
		if bg.weighted, bg.err = Build(el, Options{Weights: WeightsRandom, WeightMin: 1, WeightMax: 64}); bg.err != nil {
			return
		}
		el.Directed = true
		if bg.directed, bg.err = Build(el, Options{}); bg.err != nil {
			return
		}
		var dir string
		if dir, bg.err = os.MkdirTemp("", "hpgraph-bench-graph-"); bg.err != nil {
			return
		}
		bg.cache = filepath.Join(dir, "rmat.hpg")
		bg.err = WriteCacheFile(bg.cache, bg.undirected)
	})
	if benchGraphs.err != nil {
		b.Fatal(benchGraphs.err)
	}
}

// forProcs runs f as sub-benchmarks at every core count of procs().
func forProcs(b *testing.B, f func(b *testing.B)) {
	for _, p := range procs() {
		b.Run("procs="+strconv.Itoa(p), func(b *testing.B) {
			withProcs(b, p)
			f(b)
		})
	}
}

// BenchmarkReadCacheParallel: MB/s of the R-MAT cache file (from
// the page cache) to a validated graph.
func BenchmarkReadCacheParallel(b *testing.B) {
	benchGraph(b)
	forProcs(b, func(b *testing.B) {
		b.SetBytes(fileSize(b, benchGraphs.cache))
		for b.Loop() {
			if _, err := ReadCacheFile(benchGraphs.cache); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkValidate: bytes of CSR checked per second.
func BenchmarkValidate(b *testing.B) {
	benchGraph(b)
	g := benchGraphs.undirected
	forProcs(b, func(b *testing.B) {
		b.SetBytes(8*int64(g.N) + 4*g.NNZ())
		for b.Loop() {
			if err := g.Validate(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDegreeOrder: the counting sort of the vertices by degree.
func BenchmarkDegreeOrder(b *testing.B) {
	benchGraph(b)
	forProcs(b, func(b *testing.B) {
		for b.Loop() {
			DegreeOrder(benchGraphs.undirected)
		}
	})
}

// BenchmarkPermute: renumbering by decreasing degree, per stored arc.
func BenchmarkPermute(b *testing.B) {
	benchGraph(b)
	for _, c := range []struct {
		name string
		g    *Graph
	}{{"undirected", benchGraphs.undirected}, {"directed", benchGraphs.directed}, {"weighted", benchGraphs.weighted}} {
		order := DegreeOrder(c.g)
		b.Run(c.name, func(b *testing.B) {
			forProcs(b, func(b *testing.B) {
				for b.Loop() {
					c.g.Permute(order)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.g.NNZ()), "ns/arc")
			})
		})
	}
}
