package devgen

import (
	"go/types"
	"reflect"
	"strings"
)

// The program's struct tags: `devgen:"constant"` on a state slice says
// its contents never change once made — data derived from the graph
// alone and kept with vertexprog.Graph.Memo, as PageRank's out-degrees —
// so the generated DeviceArray has Constant: true and a resident backend
// reuses its device copy whenever a run passes the same slice. devgen
// cannot see that promise in the code (it is about every run of every
// program prepared on the graph), so the program states it; devgen
// checks what it can: the field is a slice the device code does not
// write. A tag devgen does not know is an error, not ignored.

// checkTags reads the devgen tags of the program's fields and marks the
// constant arrays.
func (g *gen) checkTags(t *types.Named) {
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for i := 0; i < st.NumFields(); i++ {
		fld, tag := st.Field(i), st.Tag(i)
		v, ok := reflect.StructTag(tag).Lookup("devgen")
		if !ok {
			if strings.Contains(tag, "devgen") {
				g.failAt(fld, "field %s: malformed struct tag %q (want `devgen:\"constant\"`)", fld.Name(), tag)
			}
			continue
		}
		if v != "constant" {
			g.failAt(fld, "field %s: unknown devgen tag %q (the one devgen knows is \"constant\")", fld.Name(), v)
		}
		if _, isSlice := fld.Type().Underlying().(*types.Slice); !isSlice {
			g.failAt(fld, "field %s is tagged devgen:\"constant\" but has type %s (only state slices are constant arrays)", fld.Name(), types.TypeString(fld.Type(), g.qual))
		}
		s := g.field(fld)
		if s == nil {
			continue // the device code does not use it
		}
		if s.written {
			g.failAt(fld, "field %s is tagged devgen:\"constant\" but the device code writes it", fld.Name())
		}
		s.constant = true
	}
}
