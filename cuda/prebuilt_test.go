//go:build cuda

package cuda

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestPrebuiltImagesAreMachineCode: every shipped image is named as
// prebuiltImage looks it up and is an ELF object (a cubin).
func TestPrebuiltImagesAreMachineCode(t *testing.T) {
	name := regexp.MustCompile(`^[0-9a-f]{32}\.sm_[0-9]+\.cubin\.gz$`)
	n := 0
	err := fs.WalkDir(prebuilt, "prebuilt", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() == "README.md" {
			return err
		}
		if !name.MatchString(e.Name()) {
			t.Errorf("%s: not KEY.sm_XY.cubin.gz", path)
			return nil
		}
		f, err := prebuilt.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if b, err := io.ReadAll(zr); err != nil || !bytes.HasPrefix(b, []byte("\x7fELF")) {
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

// TestWritePrebuiltRoundTrip: writePrebuilt writes machine code for the
// architecture asked for, under the name prebuiltImage looks up.
func TestWritePrebuiltRoundTrip(t *testing.T) {
	needNVRTC(t)
	dir := t.TempDir()
	for _, arch := range testArchs() {
		if err := writePrebuilt(dir, hybBuildSource, arch); err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		key := prebuiltKey(hybBuildSource, arch) + "." + smOf(arch)
		b, err := os.ReadFile(filepath.Join(dir, key+".cubin.gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		img, err := io.ReadAll(zr)
		if err != nil || !bytes.HasPrefix(img, []byte("\x7fELF")) {
			t.Fatalf("%s: not an ELF object (%v)", arch, err)
		}
		if prebuiltKey(hybBuildSource+" ", arch) == prebuiltKey(hybBuildSource, arch) || prebuiltKey(hybBuildSource, "compute_80") == prebuiltKey(hybBuildSource, "compute_90") {
			t.Fatal("prebuiltKey ignores the source or the architecture")
		}
	}
}

// TestPrebuiltCoversFixedModules: the kernels whose source does not
// depend on a program (the device's PREPROCESS and Afforest) have an
// image for sm_90, so a change to hybbuild.cu, mat.cu or afforest.cu
// without scripts/gpu-prebuild.sh fails here instead of compiling at run
// time on every fresh machine.
func TestPrebuiltCoversFixedModules(t *testing.T) {
	for name, src := range map[string]string{"hybbuild.cu": hybBuildSource, "afforest.cu": afforestProgram()} {
		if image, key := prebuiltImage(src, "compute_90"); image == "" {
			t.Errorf("%s: no prebuilt image %s.cubin.gz (run scripts/gpu-prebuild.sh)", name, key)
		}
	}
}
