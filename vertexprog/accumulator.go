package vertexprog

import (
	"fmt"
	"reflect"

	"github.com/hpgraph/hpgraph/spmv"
)

// checkIdentity enforces the rule for accumulators that hold references
// (see the package documentation, "Accumulators of reference types"): the
// engine copies the one value Identity returns into every vertex's
// accumulator and every partial one, on all cores at once, so a map,
// slice capacity, pointer or channel in it would be shared by all of
// them, and a Gather that writes through it races with every other (a
// "concurrent map writes" crash, or silently wrong sums). Identity must
// hold nil references only.
func checkIdentity[X, A any](p Program[X, A]) error {
	if spmv.PlainData[A]() {
		return nil
	}
	id := p.Identity()
	if where := sharedStorage(reflect.ValueOf(&id).Elem(), "Identity()"); where != "" {
		return fmt.Errorf("vertexprog: %T: %s: the engine copies Identity()'s value into every vertex's accumulator, so its storage would be shared by all vertices and written concurrently; return nil maps, slices and pointers and let Gather allocate each vertex's own", p, where)
	}
	return nil
}

// sharedStorage names the first non-nil reference inside v (path is v's
// name), or returns "" when v holds none: a non-nil map, pointer or
// channel, or a slice with capacity (an empty slice of capacity 0 is
// fine: appending to it allocates). Strings and funcs are immutable.
func sharedStorage(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Map:
		if !v.IsNil() {
			return path + " is a non-nil map"
		}
	case reflect.Slice:
		if v.Cap() > 0 {
			return fmt.Sprintf("%s is a slice of capacity %d", path, v.Cap())
		}
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
		if !v.IsNil() {
			return fmt.Sprintf("%s is a non-nil %s", path, v.Kind())
		}
	case reflect.Interface:
		if !v.IsNil() {
			return sharedStorage(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if s := sharedStorage(v.Field(i), path+"."+v.Type().Field(i).Name); s != "" {
				return s
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if s := sharedStorage(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); s != "" {
				return s
			}
		}
	}
	return ""
}
