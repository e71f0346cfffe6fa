package jit

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
)

// These tests need NVRTC, no GPU (HPGRAPH_NVRTC names a libnvrtc on a
// machine without CUDA; make cuda-compile fetches one).

func needNVRTC(t *testing.T) { t.Helper(); gputest.NeedNVRTC(t, Load()) }

var archs = []string{"compute_80", "compute_90"}

const testKernel = `extern "C" __global__ void jit_add(float* a, float b) { a[threadIdx.x] += b; }
`

// TestPrebuiltImagesAreMachineCode: every shipped image is named as
// Prebuilt looks it up and is an ELF object (a cubin).
func TestPrebuiltImagesAreMachineCode(t *testing.T) {
	name := regexp.MustCompile(`^[0-9a-f]{32}\.sm_[0-9]+\.cubin$`)
	n := 0
	err := fs.WalkDir(prebuilt, "prebuilt", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() == "README.md" {
			return err
		}
		if !name.MatchString(e.Name()) {
			t.Errorf("%s: not KEY.sm_XY.cubin", path)
			return nil
		}
		if b, err := prebuilt.ReadFile(path); err != nil || !bytes.HasPrefix(b, []byte("\x7fELF")) {
			t.Errorf("%s: not an ELF object (%v)", path, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d prebuilt images", n)
}

// TestWritePrebuiltRoundTrip: WritePrebuilt writes machine code for the
// architecture asked for, under the name Prebuilt looks up.
func TestWritePrebuiltRoundTrip(t *testing.T) {
	needNVRTC(t)
	dir := t.TempDir()
	for _, arch := range archs {
		if err := WritePrebuilt(dir, testKernel, arch); err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		key := PrebuiltKey(testKernel, arch) + "." + SM(arch)
		img, err := os.ReadFile(filepath.Join(dir, key+".cubin"))
		if err != nil || !bytes.HasPrefix(img, []byte("\x7fELF")) {
			t.Fatalf("%s: not an ELF object (%v)", arch, err)
		}
		if _, k := Prebuilt(testKernel, arch); k != key {
			t.Errorf("%s: Prebuilt names it %s, WritePrebuilt %s", arch, k, key)
		}
	}
	if PrebuiltKey(testKernel+" ", "compute_90") == PrebuiltKey(testKernel, "compute_90") || PrebuiltKey(testKernel, "compute_80") == PrebuiltKey(testKernel, "compute_90") {
		t.Fatal("PrebuiltKey ignores the source or the architecture")
	}
}

// TestCheckPrebuilt: a source without an image is an error naming the
// image, or with HPGRAPH_CUDA_PREBUILD=DIR writes it there; a shipped
// image's source is nil either way.
func TestCheckPrebuilt(t *testing.T) {
	t.Setenv("HPGRAPH_CUDA_PREBUILD", "")
	key := PrebuiltKey(testKernel, "compute_90") + ".sm_90"
	if err := CheckPrebuilt(testKernel, "compute_90"); err == nil || !strings.Contains(err.Error(), key+".cubin") {
		t.Fatalf("no image: %v, want an error naming %s.cubin", err, key)
	}
	needNVRTC(t)
	dir := t.TempDir()
	t.Setenv("HPGRAPH_CUDA_PREBUILD", dir)
	if err := CheckPrebuilt(testKernel, "compute_90"); err != nil {
		t.Fatal(err)
	}
	if img, err := os.ReadFile(filepath.Join(dir, key+".cubin")); err != nil || !bytes.HasPrefix(img, []byte("\x7fELF")) {
		t.Fatalf("HPGRAPH_CUDA_PREBUILD: %s not written as machine code (%v)", key, err)
	}
}

// TestPTX compiles a kernel to PTX for each architecture, finds it in
// the disk cache the second time (the same key and text), and reports a
// source NVRTC rejects as a *CompileError carrying its log.
func TestPTX(t *testing.T) {
	needNVRTC(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, arch := range archs {
		ptx, key, err := PTX(testKernel, arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if !strings.Contains(ptx, ".entry jit_add") || !strings.Contains(ptx, ".target sm_"+strings.TrimPrefix(arch, "compute_")) {
			t.Fatalf("%s: PTX without jit_add for its target:\n%s", arch, ptx)
		}
		again, key2, err := PTX(testKernel, arch)
		if err != nil || again != ptx || key2 != key {
			t.Fatalf("%s: from the cache: %v, same text %v, key %s then %s", arch, err, again == ptx, key, key2)
		}
	}
	_, _, err := PTX(testKernel+"\n#line 1 \""+SnippetFile+"\"\nint broken = ;\n", archs[0])
	var ce *CompileError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCompile) || !strings.Contains(err.Error(), SnippetFile+"(1)") {
		t.Fatalf("a broken source: %v; want a *CompileError naming %s(1)", err, SnippetFile)
	}
	if name, version := Library(); name == "" || version == "" {
		t.Errorf("Library() = %q, %q after a compile", name, version)
	}
}

// TestExpand: each #include "NAME.cuh" line becomes the header (a
// layer's own before jit's), once however often it is included, between
// #line directives that name the file and line NVRTC reports; a header
// that is not there is an error naming the including line.
func TestExpand(t *testing.T) {
	local := fstest.MapFS{"a.cuh": {Data: []byte("#include \"b.cuh\"\nint a;\n")}, "b.cuh": {Data: []byte("int b;")}}
	src := "// top\n#include \"a.cuh\"\n#include \"b.cuh\"\n#include \"scan.cuh\"\nint main_;\n"
	got, err := Expand("m.cu", src, local)
	if err != nil {
		t.Fatal(err)
	}
	scan, _ := headers.ReadFile("include/scan.cuh")
	want := "// top\n#line 1 \"a.cuh\"\n#line 1 \"b.cuh\"\nint b;\n#line 2 \"a.cuh\"\nint a;\n#line 3 \"m.cu\"\n#line 4 \"m.cu\"\n" +
		"#line 1 \"scan.cuh\"\n" + string(scan) + "#line 5 \"m.cu\"\nint main_;\n"
	if got != want {
		t.Fatalf("Expand:\n%s\nwant:\n%s", got, want)
	}
	if _, err := Expand("m.cu", "x\n#include \"none.cuh\"\n", local); err == nil || !strings.Contains(err.Error(), "m.cu:2") {
		t.Errorf("a missing header: %v, want an error naming m.cu:2", err)
	}
	// (a line that only mentions an include is left alone)
	if s, err := Expand("m.cu", "// #include \"none.cuh\"\n", nil); err != nil || s != "// #include \"none.cuh\"\n" {
		t.Errorf("a comment: %q, %v", s, err)
	}
}
