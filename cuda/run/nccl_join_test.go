//go:build cgo

package run

import (
	"slices"
	"testing"
)

// TestHeldByAll: processes reuse a communicator only where every one
// holds the same (tag 1 and one id), whatever order the messages come
// in; each message comes back without its tag; a short one is an error.
func TestHeldByAll(t *testing.T) {
	tag := func(held byte, id byte, msg ...byte) []byte { return append([]byte{held, id, id}, msg...) }
	for _, c := range []struct {
		name string
		all  [][]byte
		want bool
	}{
		{"all hold one", [][]byte{tag(1, 7, 1), tag(1, 7, 2), tag(1, 7)}, true},
		{"one holds none", [][]byte{tag(1, 7, 1), tag(0, 0, 2), tag(1, 7)}, false},
		{"the first holds none", [][]byte{tag(0, 0, 1), tag(1, 7, 2)}, false},
		{"two ids", [][]byte{tag(1, 7, 1), tag(1, 8, 2)}, false},
		{"none hold one", [][]byte{tag(0, 0, 1), tag(0, 0, 2)}, false},
	} {
		got, err := heldByAll(c.all, 3)
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
		if !slices.Equal(c.all[0], []byte{1}) || !slices.Equal(c.all[1], []byte{2}) {
			t.Errorf("%s: messages %v, want their tags cut off", c.name, c.all)
		}
	}
	if _, err := heldByAll([][]byte{tag(1, 7), {1}}, 3); err == nil {
		t.Error("a message shorter than a tag: no error")
	}
}
