package nccl

import (
	"errors"
	"os"
	"testing"
)

// Where NCCL is missing (this machine, CI), Load says so clearly; a
// named library that does not exist likewise.
func TestLoadSaysWhatIsMissing(t *testing.T) {
	if os.Getenv("HPGRAPH_NCCL") != "" {
		t.Skip("HPGRAPH_NCCL is set")
	}
	err := Load()
	if err == nil {
		v, verr := Version()
		if verr != nil || v < 21200 {
			t.Fatalf("NCCL loaded, version %d, %v", v, verr)
		}
		t.Logf("NCCL %d", v)
		return
	}
	if !errors.Is(err, ErrNoNCCL) && !errors.Is(err, ErrNoCgo) {
		t.Fatalf("Load: %v; want ErrNoNCCL", err)
	}
	t.Log(err)
}

func TestMulticastStaysOff(t *testing.T) {
	t.Setenv("NCCL_NVLS_ENABLE", "1")
	if v := KeepMulticastOff(); v != "1" || os.Getenv("NCCL_NVLS_ENABLE") != "1" {
		t.Fatalf("a value the user set was overridden: %q", v)
	}
	os.Unsetenv("NCCL_NVLS_ENABLE")
	if v := KeepMulticastOff(); v != "0" || os.Getenv("NCCL_NVLS_ENABLE") != "0" {
		t.Fatalf("unset NCCL_NVLS_ENABLE became %q", os.Getenv("NCCL_NVLS_ENABLE"))
	}
}
