package huge

import "testing"

func TestMakeSmallAndEmpty(t *testing.T) {
	for _, n := range []int{0, 1, 1000} {
		s := Make[int32](n)
		if len(s) != n {
			t.Fatalf("len(Make(%d)) = %d", n, len(s))
		}
		for i, x := range s {
			if x != 0 {
				t.Fatalf("Make(%d)[%d] = %d, want 0", n, i, x)
			}
		}
	}
	Advise([]struct{}{}) // (zero-size elements: nothing to advise)
	Advise(make([]struct{}, 10))
}
