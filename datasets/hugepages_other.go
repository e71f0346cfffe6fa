//go:build !linux

package datasets

// adviseHuge does nothing where transparent huge pages are not Linux's.
func adviseHuge([]byte) {}
