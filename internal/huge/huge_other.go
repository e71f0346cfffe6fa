//go:build !linux

package huge

// adviseBytes does nothing where transparent huge pages are not Linux's.
func adviseBytes([]byte) {}
