package vertexprog

import (
	"reflect"
	"strings"
	"testing"
)

// Identity values that would share storage among vertices are named;
// nil references and plain data pass.
func TestSharedStorage(t *testing.T) {
	type acc struct {
		N    int
		Seen map[int64]int
		L    []int64
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"plain", acc{N: 3}, ""},
		{"empty-slice", acc{L: []int64{}}, ""},
		{"map", acc{Seen: map[int64]int{}}, "Identity().Seen is a non-nil map"},
		{"slice-cap", acc{L: make([]int64, 0, 4)}, "Identity().L is a slice of capacity 4"},
		{"pointer", new(int), "Identity() is a non-nil ptr"},
	}
	for _, c := range cases {
		got := sharedStorage(reflect.ValueOf(c.v), "Identity()")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
