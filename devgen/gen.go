package devgen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

const vertexprogPath = "github.com/hpgraph/hpgraph/vertexprog"

type typeT = types.Type

// gen translates one program type.
type gen struct {
	pkg        *Package
	structs    []*cStruct
	usedStruct map[string]bool
	helpers    map[string]bool
	eqs        []string
	eqDone     map[string]bool
	fields     []*stateField
	// inInit: Init is being translated (tryInit); initReads are the
	// fields it reads.
	inInit    bool
	initReads map[*stateField]bool
	// funcs are the package-level functions the methods call, translated
	// to device functions, callees before callers (funcs.go).
	funcs   []*devFunc
	funcFor map[*types.Func]*devFunc
	// nonNeg: Gather carries //devgen:nonnegative (directives.go).
	nonNeg *ast.Comment
}

// stateField is a field of the program the device code uses: a state
// array (a slice) or a scalar, a member of State.
type stateField struct {
	v       *types.Var
	name    string // the C member
	array   bool
	written bool
	elem    numKind // the slice's element or the scalar's kind
	cMember string  // the member's C type (scalars: as the backend passes them)
	goValue string  // the Go expression of DeviceScalar.Value, %s the receiver
	// input: a number or bool only Init reads, passed as a one-element
	// read-only array (elem its kind; a bool as an int32 0 or 1).
	input bool
	// constant: the field is tagged `devgen:"constant"` (tags.go).
	constant bool
}

func (g *gen) qual(p *types.Package) string {
	if p == g.pkg.Types {
		return ""
	}
	return p.Name()
}

// useField registers a program field the device code reads (or writes)
// and returns its State member's name.
func (g *gen) useField(fld *types.Var, n ast.Node, write bool) string {
	for _, s := range g.fields {
		if s.v == fld {
			if s.input && !g.inInit {
				panic("devgen: input field used outside Init") // (Init is translated last)
			}
			s.written = s.written || write
			if g.inInit && !write {
				g.initReads[s] = true
			}
			return s.name
		}
	}
	s := &stateField{v: fld, written: write}
	if g.inInit && !write {
		g.initReads[s] = true
	}
	s.name = fld.Name()
	if !cIdentOK(s.name) {
		s.name = "vp_f_" + s.name
	}
	fail := func(format string, args ...any) {
		panic(&Error{Pos: g.pkg.Fset.Position(n.Pos()), Msg: fmt.Sprintf(format, args...)})
	}
	if sl, ok := fld.Type().Underlying().(*types.Slice); ok {
		k := kindOf(sl.Elem())
		if b, ok := sl.Elem().Underlying().(*types.Basic); !ok || k == kNone || k == kBool || b.Kind() == types.Int {
			fail("state slice %s is a %s; device state slices are []int32, []uint32, []int64, []uint64, []float32 or []float64", fld.Name(), types.TypeString(fld.Type(), g.qual))
		}
		s.array, s.elem = true, k
	} else {
		k := kindOf(fld.Type())
		switch k {
		case kNone:
			fail("program field %s is a %s; fields the device code reads are numbers, bools or slices of numbers", fld.Name(), types.TypeString(fld.Type(), g.qual))
		case kBool:
			s.cMember, s.goValue = "int", "vp_b2i(%s."+fld.Name()+")"
		default:
			s.cMember = k.cName()
			s.goValue = k.goName() + "(%s." + fld.Name() + ")"
		}
		s.elem = k
		if g.inInit {
			s.input = true
			if k == kBool {
				s.elem = kI32
			}
		}
	}
	g.fields = append(g.fields, s)
	return s.name
}

// goName is the Go type the backend takes for a kind.
func (k numKind) goName() string {
	return [...]string{"", "bool", "int32", "uint32", "int64", "uint64", "float32", "float64"}[k]
}

// Program is one vertex program found in a package.
type Program struct {
	Name    string // the Go type's name
	Pointer bool   // whether its methods are on the pointer
	X, A    types.Type
	Source  string // the device code
	// Init says Source has vp_init (the program's Init translated);
	// NoInit says why not when it has none.
	Init     bool
	NoInit   string
	Arrays   []Field
	Scalars  []Field
	HasWants bool
	HasDone  bool
	// HasPriority says Source has vp_priority (the Priority method's
	// translation: delta-stepping's order, Spec.Delta).
	HasPriority bool
	// FoldAtomic and ReduceAdd say which fast paths were derived;
	// NonNegative that the fold relies on Gather's //devgen:nonnegative.
	FoldAtomic, ReduceAdd string
	NonNegative           bool
	// Instance is set for an instantiation of a generic program (Name is
	// then "T[args]"): generic.go.
	Instance *instance
}

// Field is a State member and the program field it comes from.
type Field struct {
	Name, GoField string
	ReadOnly      bool
	// Input: a field only Init reads, passed as a one-element read-only
	// array (Data: []T{goValue}).
	Input bool
	// Constant: a read-only array tagged `devgen:"constant"`
	// (vertexprog.DeviceArray.Constant).
	Constant bool
	goValue  string
	goElem   string
}

// Find returns the package's named non-generic types that implement
// vertexprog.Program, sorted by name.
func Find(pkg *Package) ([]*types.Named, error) { return find(pkg, nil) }

// find is Find limited to the types named in only (all when nil): a
// package whose other programs keep hand-written device code (or are
// generic) names the ones to translate.
func find(pkg *Package, only map[string]bool) ([]*types.Named, error) {
	var vp *types.Package
	for _, im := range pkg.Types.Imports() {
		if im.Path() == vertexprogPath {
			vp = im
		}
	}
	if vp == nil {
		return nil, nil
	}
	progObj, _ := vp.Scope().Lookup("Program").(*types.TypeName)
	if progObj == nil {
		return nil, fmt.Errorf("devgen: %s has no Program type", vertexprogPath)
	}
	var out []*types.Named
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		if only != nil && !only[name] {
			continue
		}
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		if _, isIface := named.Underlying().(*types.Interface); isIface {
			continue
		}
		ptr := types.NewPointer(named)
		ms := types.NewMethodSet(ptr)
		init, ident := ms.Lookup(pkg.Types, "Init"), ms.Lookup(pkg.Types, "Identity")
		if init == nil || ident == nil {
			continue
		}
		is, ok1 := init.Type().(*types.Signature)
		ids, ok2 := ident.Type().(*types.Signature)
		if !ok1 || !ok2 || is.Results().Len() != 2 || ids.Results().Len() != 1 {
			continue
		}
		x, a := is.Results().At(0).Type(), ids.Results().At(0).Type()
		inst, err := types.Instantiate(nil, progObj.Type(), []types.Type{x, a}, true)
		if err != nil {
			continue
		}
		if !types.Implements(ptr, inst.Underlying().(*types.Interface)) {
			continue
		}
		if named.TypeParams().Len() > 0 {
			return nil, &Error{Pos: pkg.Fset.Position(tn.Pos()), Msg: fmt.Sprintf("program %s is generic: name the instantiations to translate, -type '%s[T]'", name, name)}
		}
		out = append(out, named)
	}
	return out, nil
}

// method returns the declaration of T's method name, nil when it has none.
func (pkg *Package) method(t *types.Named, name string) (*ast.FuncDecl, *types.Func) {
	for i := 0; i < t.NumMethods(); i++ {
		m := t.Method(i)
		if m.Name() != name {
			continue
		}
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && pkg.Info.Defs[fd.Name] == m {
					return fd, m
				}
			}
		}
	}
	return nil, nil
}

// Translate generates the device code of program type t.
func Translate(pkg *Package, t *types.Named) (prog *Program, err error) {
	return translateAs(pkg, t, t.Obj().Name())
}

// translateAs is Translate naming the program name in its messages (an
// instantiation's monomorphized copy: its "T[args]").
func translateAs(pkg *Package, t *types.Named, name string) (prog *Program, err error) {
	g := &gen{pkg: pkg, usedStruct: map[string]bool{}, helpers: map[string]bool{}, eqDone: map[string]bool{}, funcFor: map[*types.Func]*devFunc{}}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			prog, err = nil, e
		}
	}()
	return g.translate(t, name), nil
}

type poser interface{ Pos() token.Pos }

func (g *gen) failAt(n poser, format string, args ...any) {
	panic(&Error{Pos: g.pkg.Fset.Position(n.Pos()), Msg: fmt.Sprintf(format, args...)})
}

func (g *gen) translate(t *types.Named, name string) *Program {
	pkg := g.pkg
	p := &Program{Name: name}
	initDecl, _ := pkg.method(t, "Init")
	identDecl, _ := pkg.method(t, "Identity")
	if initDecl == nil || identDecl == nil {
		g.failAt(t.Obj(), "program %s's methods Init and Identity must be declared on the type itself (not promoted from an embedded field)", name)
	}
	p.X = pkg.Info.TypeOf(initDecl.Type.Results.List[0].Type)
	p.A = pkg.Info.TypeOf(identDecl.Type.Results.List[0].Type)
	for _, m := range []string{"Spec", "Init", "Identity", "Gather", "Reduce", "Update", "Wants", "Done", "Priority"} {
		if fd, _ := pkg.method(t, m); fd != nil {
			if _, isPtr := fd.Recv.List[0].Type.(*ast.StarExpr); isPtr {
				p.Pointer = true
			}
		}
	}
	g.directives(t)
	prio, _ := pkg.method(t, "Priority")
	if spec, _ := pkg.method(t, "Spec"); spec != nil && prio == nil {
		g.checkSpec(spec)
	}
	xt, err := g.cType(p.X)
	if err != nil {
		g.failAt(initDecl.Type.Results.List[0].Type, "the vertex value X: %v", err)
	}
	at, err := g.cType(p.A)
	if err != nil {
		g.failAt(identDecl.Type.Results.List[0].Type, "the accumulator A: %v", err)
	}

	var bodies strings.Builder
	emit := func(method, sig string, withState bool, vertices []int, writeV int, xPtr, step int) {
		fd, _ := pkg.method(t, method)
		if fd == nil {
			g.failAt(t.Obj(), "program %s's method %s must be declared on the type itself", name, method)
		}
		f := g.newFn(fd, method, withState)
		params := f.params(fd)
		for _, i := range vertices {
			if params[i] != nil {
				f.vertex[params[i]] = true
			}
		}
		if writeV >= 0 {
			f.writeV = params[writeV]
		}
		if xPtr >= 0 {
			f.xPtr = params[xPtr]
		}
		if step >= 0 {
			f.step = params[step]
		}
		var cparams []string
		gi := 0 // the Go parameter's index: State has none
		for _, pt := range strings.Split(sig, ",") {
			pt = strings.TrimSpace(pt)
			if pt == "" {
				continue
			}
			if pt == "const State&" {
				cparams = append(cparams, pt+" vp_s")
				continue
			}
			nm := fmt.Sprintf("vp_arg%d", gi)
			if gi < len(params) && params[gi] != nil {
				nm = f.name(params[gi])
			}
			gi++
			cparams = append(cparams, pt+" "+nm)
		}
		res := "bool"
		if fd.Type.Results != nil && len(fd.Type.Results.List) == 1 {
			f.result = pkg.Info.TypeOf(fd.Type.Results.List[0].Type)
			res = f.ctype(fd.Type.Results.List[0].Type, f.result)
		}
		f.ind = 1
		f.block(fd.Body.List)
		if !terminates(fd.Body.List) {
			g.failAt(rbrace(fd.Body.Rbrace), "%s: the body must end in a return on every path (no panics)", method)
		}
		fmt.Fprintf(&bodies, "__device__ %s vp_%s(%s) {\n%s}\n", res, strings.ToLower(method), strings.Join(cparams, ", "), f.b.String())
	}
	emit("Identity", "", false, nil, -1, -1, -1)
	emit("Gather", "A_t, int, int, X_t, float, const State&", true, []int{1, 2}, -1, -1, -1)
	emit("Reduce", "A_t, A_t", false, nil, -1, -1, -1)
	emit("Update", "int, A_t, X_t*, const State&, Step&", true, []int{0}, 0, 2, 3)
	if fd, _ := pkg.method(t, "Wants"); fd != nil {
		emit("Wants", "int, const State&", true, []int{0}, -1, -1, -1)
		p.HasWants = true
	}
	if fd, _ := pkg.method(t, "Done"); fd != nil {
		emit("Done", "A_t", false, nil, -1, -1, -1)
		p.HasDone = true
	}
	if prio != nil {
		g.checkPriority(prio, p.X)
		emit("Priority", "int, X_t, const State&", true, []int{0}, -1, -1, -1)
		p.HasPriority = true
	}
	initSrc, why := g.tryInit(t)
	p.Init, p.NoInit = initSrc != "", why
	bodies.WriteString(initSrc)
	fast := g.fastPaths(t, p)
	g.checkTags(t)

	var src strings.Builder
	src.WriteString("\n")
	src.WriteString(g.structDecls())
	fmt.Fprintf(&src, "typedef %s X_t;\ntypedef %s A_t;\n", xt, at)
	src.WriteString("struct State {")
	if len(g.fields) == 0 {
		src.WriteString("};\n")
	} else {
		src.WriteString("\n")
	}
	// Arrays first (per-run inputs among them), then scalars, as the
	// backend lays State out.
	sort.SliceStable(g.fields, func(i, j int) bool {
		return (g.fields[i].array || g.fields[i].input) && !(g.fields[j].array || g.fields[j].input)
	})
	for _, s := range g.fields {
		switch {
		case s.array:
			c := ""
			if !s.written {
				c = "const "
			}
			fmt.Fprintf(&src, "  %s%s* %s;\n", c, s.elem.cName(), s.name)
			p.Arrays = append(p.Arrays, Field{Name: s.name, GoField: s.v.Name(), ReadOnly: !s.written, Constant: s.constant})
		case s.input:
			fmt.Fprintf(&src, "  const %s* %s;  // one element\n", s.elem.cName(), s.name)
			p.Arrays = append(p.Arrays, Field{Name: s.name, GoField: s.v.Name(), ReadOnly: true, Input: true, goValue: s.goValue, goElem: s.elem.goName()})
		}
	}
	for _, s := range g.fields {
		if !s.array && !s.input {
			fmt.Fprintf(&src, "  %s %s;\n", s.cMember, s.name)
			p.Scalars = append(p.Scalars, Field{Name: s.name, GoField: s.v.Name(), goValue: s.goValue})
		}
	}
	if len(g.fields) > 0 {
		src.WriteString("};\n")
	}
	src.WriteString(g.helperDecls())
	src.WriteString(g.funcDecls())
	src.WriteString(bodies.String())
	src.WriteString(fast)
	p.Source = src.String()
	return p
}

// checkSpec rejects a Spec.Delta that may be positive in a program
// without a Priority method: delta-stepping needs a vp_priority, which
// the generator cannot derive.
func (g *gen) checkSpec(fd *ast.FuncDecl) {
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Delta" {
			if v := g.pkg.Info.Types[kv.Value].Value; v == nil || v.String() != "0" {
				g.failAt(kv, "Spec.Delta without a Priority method (delta-stepping orders vertices by vp_priority, the translation of Priority(v int32, x X) float32)")
			}
		}
		return true
	})
}

// terminates reports whether a statement list ends in a return on every
// path (Go's rule, for the forms of the subset).
func terminates(list []ast.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	switch s := list[len(list)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BlockStmt:
		return terminates(s.List)
	case *ast.IfStmt:
		if s.Else == nil || !terminates(s.Body.List) {
			return false
		}
		return terminates([]ast.Stmt{s.Else})
	case *ast.SwitchStmt:
		hasDefault := false
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			if cc.List == nil {
				hasDefault = true
			}
			if !terminates(cc.Body) || hasBreak(cc.Body) {
				return false
			}
		}
		return hasDefault
	}
	return false
}

func hasBreak(list []ast.Stmt) bool {
	found := false
	for _, s := range list {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				if n.Tok == token.BREAK {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

func (g *gen) newFn(fd *ast.FuncDecl, method string, withState bool) *fn {
	f := &fn{g: g, method: method, names: map[types.Object]string{}, used: map[string]bool{}, vertex: map[types.Object]bool{}, state: withState}
	if r := fd.Recv.List[0]; len(r.Names) == 1 {
		f.recv = g.pkg.Info.Defs[r.Names[0]]
	}
	return f
}

// params lists the method's parameter objects in order (nil for _ or
// unnamed ones).
func (f *fn) params(fd *ast.FuncDecl) []types.Object {
	var out []types.Object
	for _, fl := range fd.Type.Params.List {
		if len(fl.Names) == 0 {
			out = append(out, nil)
			continue
		}
		for _, n := range fl.Names {
			if n.Name == "_" {
				out = append(out, nil)
				continue
			}
			out = append(out, f.g.pkg.Info.Defs[n])
		}
	}
	return out
}

type rbrace token.Pos

func (p rbrace) Pos() token.Pos { return token.Pos(p) }

// field is the registered State member of program field fld.
func (g *gen) field(fld *types.Var) *stateField {
	for _, s := range g.fields {
		if s.v == fld {
			return s
		}
	}
	return nil
}
