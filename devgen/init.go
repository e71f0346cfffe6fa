package devgen

import (
	"fmt"
	"go/ast"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
)

// Init's translation: vp_init, with DeviceCode.Init, so a device backend
// makes the initial state itself (vertexprog.DeviceCode). Init is
// translated last, when the other methods have said which arrays they
// write, and only when the result is certain to do what the host's Init
// does; otherwise the program keeps its host Init and gets no vp_init
// (no error: Init may use all of Go).
//
// The device starts a run with the writable arrays and X zeroed, not
// copied in, so vp_init is generated only when Init
//   - is in the subset, reading v, the program's read-only arrays at v,
//     its fields and the Step's Aggregate (not Iteration), and writing
//     state only at v;
//   - reads no array that any translated method writes (on the host it
//     would see what Prepare left there, on the device zeros);
//   - writes every such array at v on every path to a return.
//
// A number or bool field that only Init reads (a source vertex, say) is
// a per-run input: it reaches the device as a one-element read-only
// array, not as a scalar, since a scalar is part of the kernels'
// arguments and a resident backend re-records its launches when one
// changes. vertexprog.DeviceCode says the same of hand-written code.

// genState is what translating a method adds to gen, saved so that a
// failed Init leaves no trace.
type genState struct {
	nFields    int
	written    []bool
	structs    []*cStruct
	usedStruct map[string]bool
	helpers    map[string]bool
	eqs        []string
	eqDone     map[string]bool
	funcs      []*devFunc
	funcFor    map[*types.Func]*devFunc
}

func (g *gen) save() genState {
	s := genState{nFields: len(g.fields), structs: slices.Clone(g.structs), usedStruct: maps.Clone(g.usedStruct),
		helpers: maps.Clone(g.helpers), eqs: slices.Clone(g.eqs), eqDone: maps.Clone(g.eqDone),
		funcs: slices.Clone(g.funcs), funcFor: maps.Clone(g.funcFor)}
	for _, f := range g.fields {
		s.written = append(s.written, f.written)
	}
	return s
}

func (g *gen) restore(s genState) {
	g.fields = g.fields[:s.nFields]
	for i, w := range s.written {
		g.fields[i].written = w
	}
	g.structs, g.usedStruct, g.helpers, g.eqs, g.eqDone = s.structs, s.usedStruct, s.helpers, s.eqs, s.eqDone
	g.funcs, g.funcFor = s.funcs, s.funcFor
}

// tryInit translates Init into vp_init, or returns "" and why not, with
// g as it was.
func (g *gen) tryInit(t *types.Named) (src string, why string) {
	fd, _ := g.pkg.method(t, "Init")
	if fd == nil {
		return "", "Init is not declared on the type itself"
	}
	saved := g.save()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			g.restore(saved)
			g.inInit = false
			src, why = "", fmt.Sprintf("%s:%d: %s", filepath.Base(e.Pos.Filename), e.Pos.Line, e.Msg)
		}
	}()
	g.inInit = true
	g.initReads = map[*stateField]bool{}
	f := g.newFn(fd, "Init", true)
	params := f.params(fd)
	if len(params) != 2 {
		f.fail(fd, "Init has %d parameters", len(params))
	}
	vName, stName := "vp_v", "vp_st"
	if params[0] != nil {
		f.vertex[params[0]] = true
		f.writeV = params[0]
		vName = f.name(params[0])
	}
	if params[1] != nil {
		f.step = params[1]
		stName = f.name(params[1])
	}
	f.initX = f.fresh("vp_x")
	f.used["vp_s"] = true
	f.result = g.pkg.Info.TypeOf(fd.Type.Results.List[0].Type)
	f.ind = 1
	f.block(fd.Body.List)
	if !terminates(fd.Body.List) {
		g.failAt(rbrace(fd.Body.Rbrace), "Init: the body must end in a return on every path (no panics)")
	}
	g.inInit = false
	// The arrays some method writes: Init may not read them, and must
	// write each on every path.
	need := map[*types.Var]bool{}
	for _, s := range g.fields {
		if s.array && s.written {
			need[s.v] = true
			if g.initReads[s] {
				g.failAt(fd, "Init reads %s, which the device code writes (the device starts it zeroed, the host as Prepare left it)", s.v.Name())
			}
		}
	}
	c := &initCheck{f: f, v: f.writeV, need: need}
	c.list(fd.Body.List, map[*types.Var]bool{})
	if c.missing != "" {
		g.failAt(fd, "Init does not write %s[v] on every path (the device starts it zeroed)", c.missing)
	}
	return fmt.Sprintf("__device__ bool vp_init(int %s, X_t* %s, const State& vp_s, Step& %s) {\n%s}\n", vName, f.initX, stName, f.b.String()), ""
}

// initCheck finds an array of need that Init does not write at v on
// some path to a return (conservatively: writes inside loops and
// switches do not count).
type initCheck struct {
	f       *fn
	v       types.Object
	need    map[*types.Var]bool
	missing string
}

// list walks stmts with w, the arrays written so far, and returns the
// set where the list falls through, nil where it cannot.
func (c *initCheck) list(stmts []ast.Stmt, w map[*types.Var]bool) map[*types.Var]bool {
	for _, s := range stmts {
		if w = c.stmt(s, w); w == nil {
			return nil
		}
	}
	return w
}

func (c *initCheck) stmt(s ast.Stmt, w map[*types.Var]bool) map[*types.Var]bool {
	switch s := s.(type) {
	case *ast.AssignStmt:
		w = maps.Clone(w)
		for _, l := range s.Lhs {
			if ix, ok := unparen(l).(*ast.IndexExpr); ok && c.v != nil && c.f.objOf(ix.Index) == c.v {
				if fld, ok := c.f.progField(ix.X); ok {
					w[fld] = true
				}
			}
		}
		return w
	case *ast.ReturnStmt:
		for fld := range c.need {
			if !w[fld] && c.missing == "" {
				c.missing = fld.Name()
			}
		}
		return nil
	case *ast.BlockStmt:
		return c.list(s.List, w)
	case *ast.IfStmt:
		if s.Init != nil {
			w = c.stmt(s.Init, w)
		}
		a := c.list(s.Body.List, w)
		b := w
		if s.Else != nil {
			b = c.stmt(s.Else, w)
		}
		switch {
		case a == nil:
			return b
		case b == nil:
			return a
		}
		both := map[*types.Var]bool{}
		for k := range a {
			if b[k] {
				both[k] = true
			}
		}
		return both
	case *ast.ForStmt:
		c.list(s.Body.List, w)
	case *ast.RangeStmt:
		c.list(s.Body.List, w)
	case *ast.SwitchStmt:
		if s.Init != nil {
			w = c.stmt(s.Init, w)
		}
		for _, cc := range s.Body.List {
			c.list(cc.(*ast.CaseClause).Body, w)
		}
	}
	return w
}
