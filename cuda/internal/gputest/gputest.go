// Package gputest holds what the tests of cuda's packages share: how a
// test that needs a GPU (or NVRTC) skips without one, or fails where
// HPGRAPH_REQUIRE_GPU (HPGRAPH_REQUIRE_NVRTC) says there must be one.
package gputest

import (
	"os"
	"testing"
)

// Required reports whether the GPU tests must run (HPGRAPH_REQUIRE_GPU):
// on the GPU machine, where a skip would hide a failure.
func Required() bool { return os.Getenv("HPGRAPH_REQUIRE_GPU") != "" }

// Need skips t when err says why the GPU cannot be used, or fails it
// where the GPU is required.
func Need(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if Required() {
		t.Fatal(err)
	}
	t.Skip(err)
}

// NeedNVRTC skips t when err says why NVRTC cannot be loaded, or fails
// it where the GPU or NVRTC is required (HPGRAPH_REQUIRE_NVRTC).
func NeedNVRTC(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if Required() || os.Getenv("HPGRAPH_REQUIRE_NVRTC") != "" {
		t.Fatal(err)
	}
	t.Skip(err)
}
