package devgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"slices"
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

// fastPaths derives the atomic folds: VP_REDUCE_ADD where Reduce is a + b
// on a type the backend's atomicAdd takes, VP_FOLD_ATOMIC where Reduce is
// min or max of a 32- or 64-bit number and Gather is min/max(acc, e).
func (g *gen) fastPaths(t *types.Named, p *Program) string {
	red, _ := g.pkg.method(t, "Reduce")
	op := g.reduceOp(red)
	k := kindOf(p.A)
	switch op {
	case "+":
		if g.nonNeg != nil {
			break
		}
		switch k {
		case kI32, kU32, kU64, kF32, kF64:
			p.ReduceAdd = "+"
			return "#define VP_REDUCE_ADD 1\n"
		}
	case "min", "max":
		if !k.isInt() && !k.isFloat() {
			break
		}
		gat, _ := g.pkg.method(t, "Gather")
		e := g.gatherFold(gat, op)
		if e == nil {
			break
		}
		f := g.newFn(gat, "Gather", true)
		params := f.params(gat)
		f.vertex[params[1]], f.vertex[params[2]] = params[1] != nil, params[2] != nil
		names := []string{"vp_acc", "vp_v", "vp_u", "vp_xu", "vp_w"}
		for i, o := range params {
			if o != nil {
				names[i] = f.name(o)
			}
		}
		c := f.arg(e, p.A)
		p.FoldAtomic = op
		head := fmt.Sprintf("#define VP_FOLD_ATOMIC 1\n__device__ int vp_fold_atomic(A_t* vp_y, int %s, int %s, X_t %s, float %s, const State& vp_s) {\n", names[1], names[2], names[3], names[4])
		if k.isInt() {
			if g.nonNeg != nil {
				g.failAt(g.nonNeg, "//devgen:nonnegative on a program whose accumulator is an integer (%s): its atomic fold is exact without a promise", types.TypeString(p.A, g.qual))
			}
			less, atomic := "<", "atomicMin"
			if op == "max" {
				less, atomic = ">", "atomicMax"
			}
			return head + fmt.Sprintf(`  const A_t vp_c = %s;
  const A_t vp_old = %s(vp_y, vp_c);
  return vp_c %s vp_old ? (vp_old == vp_identity() ? 2 : 1) : 0;
}
`, c, atomic, less)
		}
		if g.nonNeg != nil {
			g.checkNonNegIdentity(t)
			p.NonNegative = true
			return head + nonNegFold(k, op, c)
		}
		return head + floatFold(k, op, c)
	}
	if g.nonNeg != nil {
		g.failAt(g.nonNeg, "//devgen:nonnegative: the promise serves the float min or max fold only (Reduce return min(a, b) or max(a, b) and Gather return min(acc, e) or max(acc, e) on a float32 or float64 A), and this program has none")
	}
	return ""
}

// nonNegFold is the body of a float min or max fold by one signed
// integer atomic on the value's bits, for values Gather promises are
// never negative nor NaN (//devgen:nonnegative; the identity too). Their
// bits order as signed integers as the values do in Go's min and max:
// -0 (the sign bit alone, the lowest) < +0 < … < +Inf. It is the fold
// SSSP's hand-written device code had; floatFold, without the promise,
// also orders negative values and NaNs as Go does.
func nonNegFold(k numKind, op, c string) string {
	si, asInt := "int", "__float_as_int"
	if k == kF64 {
		si, asInt = "long long", "__double_as_longlong"
	}
	atomic, less := "atomicMin", "<"
	if op == "max" {
		atomic, less = "atomicMax", ">"
	}
	return fmt.Sprintf(`  const %[1]s vp_c = %[2]s(%[3]s);
  const %[1]s vp_old = %[4]s(reinterpret_cast<%[1]s*>(vp_y), vp_c);
  return vp_c %[5]s vp_old ? (vp_old == %[2]s(vp_identity()) ? 2 : 1) : 0;
}
`, si, asInt, c, atomic, less)
}

// floatFold is the body of a float min or max fold by integer atomics on
// the value's bits. Ordered as the bits of non-negative floats order as
// signed integers and those of negative ones in reverse as unsigned ones
// (-NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN), a signed atomic for a
// non-negative value and an unsigned one for a negative value give
// Go's min and max, -0 below +0 included. Go's NaN always wins: a NaN is
// stored as the extreme of that order (+NaN for max, -NaN for min), where
// no later value displaces it. Only a NaN's payload may differ from the
// CPU's.
func floatFold(k numKind, op, c string) string {
	si, ui, asInt, nan := "int", "unsigned int", "__float_as_int", "0x7fffffff"
	fromInt := "__int_as_float"
	if k == kF64 {
		si, ui, asInt, nan = "long long", "unsigned long long", "__double_as_longlong", "0x7fffffffffffffffLL"
		fromInt = "__longlong_as_double"
	}
	sAtomic, uAtomic, sCmp, uCmp := "atomicMax", "atomicMin", ">", "<"
	if op == "min" {
		sAtomic, uAtomic, sCmp, uCmp = "atomicMin", "atomicMax", "<", ">"
		nan = "~(" + si + ")0"
	}
	return fmt.Sprintf(`  A_t vp_c = %[1]s;
  if (vp_c != vp_c) vp_c = %[2]s(%[3]s);
  const %[4]s vp_cb = %[5]s(vp_c);
  %[4]s vp_ob;
  bool vp_ch;
  if (vp_cb >= 0) {
    vp_ob = %[6]s(reinterpret_cast<%[4]s*>(vp_y), vp_cb);
    vp_ch = vp_cb %[7]s vp_ob;
  } else {
    vp_ob = (%[4]s)%[8]s(reinterpret_cast<%[9]s*>(vp_y), (%[9]s)vp_cb);
    vp_ch = (%[9]s)vp_cb %[10]s (%[9]s)vp_ob;
  }
  return vp_ch ? (vp_ob == %[5]s(vp_identity()) ? 2 : 1) : 0;
}
`, c, fromInt, nan, si, asInt, sAtomic, sCmp, uAtomic, ui, uCmp)
}

// reduceOp recognises Reduce bodies `return a + b`, `return min(a, b)`
// and `return max(a, b)` (either order).
func (g *gen) reduceOp(fd *ast.FuncDecl) string {
	if fd == nil || len(fd.Body.List) != 1 {
		return ""
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return ""
	}
	ps := (&fn{g: g}).params(fd)
	if len(ps) != 2 || ps[0] == nil || ps[1] == nil {
		return ""
	}
	f := &fn{g: g}
	isPair := func(x, y ast.Expr) bool {
		ox, oy := f.objOf(x), f.objOf(y)
		return ox != nil && oy != nil && ((ox == ps[0] && oy == ps[1]) || (ox == ps[1] && oy == ps[0]))
	}
	switch e := unparen(ret.Results[0]).(type) {
	case *ast.BinaryExpr:
		if e.Op == token.ADD && isPair(e.X, e.Y) {
			return "+"
		}
	case *ast.CallExpr:
		if b, ok := unparen(e.Fun).(*ast.Ident); ok && len(e.Args) == 2 && isPair(e.Args[0], e.Args[1]) {
			if bi, ok := g.pkg.Info.Uses[b].(*types.Builtin); ok && (bi.Name() == "min" || bi.Name() == "max") {
				return bi.Name()
			}
		}
	}
	return ""
}

// gatherFold returns e where Gather's body is `return op(acc, e)` (or
// op(e, acc)) and e does not read acc; nil otherwise.
func (g *gen) gatherFold(fd *ast.FuncDecl, op string) ast.Expr {
	if fd == nil || len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	ps := (&fn{g: g}).params(fd)
	acc := ps[0]
	if acc == nil {
		return nil
	}
	call, ok := unparen(ret.Results[0]).(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return nil
	}
	b, ok := unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	if bi, ok := g.pkg.Info.Uses[b].(*types.Builtin); !ok || bi.Name() != op {
		return nil
	}
	f := &fn{g: g}
	var e ast.Expr
	switch {
	case f.objOf(call.Args[0]) == acc:
		e = call.Args[1]
	case f.objOf(call.Args[1]) == acc:
		e = call.Args[0]
	default:
		return nil
	}
	uses := false
	ast.Inspect(e, func(n ast.Node) bool {
		if i, ok := n.(*ast.Ident); ok && g.pkg.Info.Uses[i] == acc {
			uses = true
		}
		return true
	})
	if uses {
		return nil
	}
	return e
}

// Generate translates every program of pkg and returns the Go file that
// gives each its Device method (nil when the package has no programs).
func Generate(pkg *Package) ([]byte, []*Program, error) { return GenerateTypes(pkg, nil) }

// GenerateTypes is Generate for the programs named (all when names is
// empty); naming a type that is no program is an error. A name may be an
// instantiation of a generic program, T[float32] (generic.go).
func GenerateTypes(pkg *Package, names []string) ([]byte, []*Program, error) {
	var only map[string]bool
	var insts []*instance
	if len(names) > 0 {
		only = map[string]bool{}
		for _, n := range names {
			if !strings.Contains(n, "[") {
				if tn, ok := pkg.Types.Scope().Lookup(n).(*types.TypeName); ok {
					if nt, ok := tn.Type().(*types.Named); ok && nt.TypeParams().Len() > 0 {
						return nil, nil, fmt.Errorf("devgen: %s: %s is generic: name the instantiations to translate, -type '%s[T]'", pkg.Dir, n, n)
					}
				}
				only[n] = true
				continue
			}
			in, err := parseInstance(pkg, n)
			if err != nil {
				return nil, nil, err
			}
			if !slices.ContainsFunc(insts, func(o *instance) bool { return types.Identical(o.typ, in.typ) }) {
				insts = append(insts, in)
			}
		}
	}
	found, err := find(pkg, only)
	if err != nil {
		return nil, nil, err
	}
	if only != nil && len(found) != len(only) {
		got := map[string]bool{}
		for _, t := range found {
			got[t.Obj().Name()] = true
		}
		for _, n := range names {
			if only[n] && !got[n] {
				return nil, nil, fmt.Errorf("devgen: %s: %s is not a vertex program of package %s", pkg.Dir, n, pkg.Types.Name())
			}
		}
	}
	if len(found) == 0 && len(insts) == 0 {
		return nil, nil, nil
	}
	var progs []*Program
	var errs []error
	hasDevice := func(t *types.Named) bool {
		if fd, _ := pkg.method(t, "Device"); fd != nil {
			errs = append(errs, &Error{Pos: pkg.Fset.Position(fd.Pos()), Msg: fmt.Sprintf("%s already has a Device method; devgen writes it (delete the hand-written one)", t.Obj().Name())})
			return true
		}
		return false
	}
	for _, t := range found {
		if hasDevice(t) {
			continue
		}
		p, err := Translate(pkg, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		progs = append(progs, p)
	}
	if len(insts) > 0 {
		mono, err := monomorphize(pkg, insts)
		if err != nil {
			return nil, nil, err
		}
		for _, in := range insts {
			if hasDevice(in.base.Type().(*types.Named)) {
				continue
			}
			ts, err := find(mono, map[string]bool{in.mono: true})
			if err == nil && len(ts) == 0 {
				err = fmt.Errorf("devgen: %s: %s is not a vertex program", pkg.Dir, in.name)
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			p, err := translateAs(mono, ts[0], in.name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			p.Instance = in
			progs = append(progs, p)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n\npackage %s\n\nimport \"%s\"\n", generatedHeader, pkg.Types.Name(), vertexprogPath)
	if needB2i(progs) {
		b.WriteString("\nfunc vp_b2i(b bool) int32 {\n\tif b {\n\t\treturn 1\n\t}\n\treturn 0\n}\n")
	}
	consts := map[string]bool{}
	constName := func(p *Program) string {
		c := lowerFirst(p.Name) + "DeviceSource"
		if in := p.Instance; in != nil {
			c = lowerFirst(in.base.Name())
			for i := 0; i < in.typ.TypeArgs().Len(); i++ {
				c += goIdent(types.TypeString(in.typ.TypeArgs().At(i), func(*types.Package) string { return "" }))
			}
			c += "DeviceSource"
		}
		for base, i := c, 2; consts[c]; i++ {
			c = fmt.Sprintf("%s%d", base, i)
		}
		consts[c] = true
		return c
	}
	done := map[*types.TypeName]bool{}
	for _, p := range progs {
		if p.Instance != nil {
			if base := p.Instance.base; !done[base] {
				done[base] = true
				writeGenericDevice(&b, base, progs, constName)
			}
			continue
		}
		recv := p.Name
		if p.Pointer {
			recv = "*" + p.Name
		}
		c := constName(p)
		fmt.Fprintf(&b, "\n// %s is %s's device code, translated from its Go methods.\nconst %s = `%s`\n", c, p.Name, c, p.Source)
		if p.Init {
			fmt.Fprintf(&b, "\n// Device implements vertexprog.DeviceProgram. Its vp_init is Init's\n// translation: a device backend makes the initial state itself.\n")
		} else {
			fmt.Fprintf(&b, "\n// Device implements vertexprog.DeviceProgram. Init runs on the host:\n// %s\n", strings.ReplaceAll(p.NoInit, "\n", " "))
		}
		fmt.Fprintf(&b, "func (vp_p %s) Device() vertexprog.DeviceCode {\n\treturn ", recv)
		writeDeviceCode(&b, p, c)
		b.WriteString("}\n")
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, nil, fmt.Errorf("devgen: formatting the generated file: %v", err)
	}
	return out, progs, nil
}

// writeGenericDevice writes the device code of base's instantiations
// among progs and base's one Device method, which picks the
// instantiation's by a type switch.
func writeGenericDevice(b *bytes.Buffer, base *types.TypeName, progs []*Program, constName func(*Program) string) {
	var insts []*Program
	var names []string
	for _, p := range progs {
		if p.Instance != nil && p.Instance.base == base {
			insts = append(insts, p)
			names = append(names, p.Name)
		}
	}
	cs := make([]string, len(insts))
	usesP := false
	for i, p := range insts {
		cs[i] = constName(p)
		fmt.Fprintf(b, "\n// %s is %s's device code, translated from its Go methods.\nconst %s = `%s`\n", cs[i], p.Name, cs[i], p.Source)
		usesP = usesP || len(p.Arrays) > 0 || len(p.Scalars) > 0
	}
	tps := make([]string, base.Type().(*types.Named).TypeParams().Len())
	for i := range tps {
		tps[i] = "_"
	}
	recv := base.Name() + "[" + strings.Join(tps, ", ") + "]"
	if insts[0].Pointer {
		recv = "*" + recv
	}
	fmt.Fprintf(b, "\n// Device implements vertexprog.DeviceProgram for the instantiations of\n// %s translated from the Go methods:\n", base.Name())
	for _, p := range insts {
		if p.Init {
			fmt.Fprintf(b, "//   - %s (its vp_init is Init's translation)\n", p.Name)
		} else {
			fmt.Fprintf(b, "//   - %s (Init runs on the host: %s)\n", p.Name, strings.ReplaceAll(p.NoInit, "\n", " "))
		}
	}
	fmt.Fprintf(b, "//\n// Others get device code that does not compile: a device run of one\n// fails with an error naming the instantiations translated.\n")
	fmt.Fprintf(b, "func (vp_p %s) Device() vertexprog.DeviceCode {\n", recv)
	if usesP {
		b.WriteString("\tswitch vp_p := any(vp_p).(type) {\n")
	} else {
		b.WriteString("\tswitch any(vp_p).(type) {\n")
	}
	for i, p := range insts {
		t := p.Name
		if p.Pointer {
			t = "*" + t
		}
		fmt.Fprintf(b, "\tcase %s:\n\t\treturn ", t)
		writeDeviceCode(b, p, cs[i])
	}
	fmt.Fprintf(b, "\t}\n\treturn vertexprog.DeviceCode{Source: %q}\n}\n",
		fmt.Sprintf("\n#error \"devgen: no device code for this instantiation of %s; devgen -type translated %s\"\n", base.Name(), strings.Join(names, ", ")))
}

// writeDeviceCode writes p's DeviceCode literal, its source the constant c
// and its data the fields of vp_p.
func writeDeviceCode(b *bytes.Buffer, p *Program, c string) {
	fmt.Fprintf(b, "vertexprog.DeviceCode{\n\t\tSource: %s,\n", c)
	if p.Init {
		b.WriteString("\t\tInit: true,\n")
	}
	if len(p.Arrays) > 0 {
		b.WriteString("\t\tArrays: []vertexprog.DeviceArray{\n")
		for _, a := range p.Arrays {
			ro := ""
			if a.ReadOnly {
				ro = ", ReadOnly: true"
			}
			if a.Constant {
				ro += ", Constant: true"
			}
			if a.Input {
				fmt.Fprintf(b, "\t\t\t{Name: %q, Data: []%s{%s}%s},\n", a.Name, a.goElem, fmt.Sprintf(a.goValue, "vp_p"), ro)
				continue
			}
			fmt.Fprintf(b, "\t\t\t{Name: %q, Data: vp_p.%s%s},\n", a.Name, a.GoField, ro)
		}
		b.WriteString("\t\t},\n")
	}
	if len(p.Scalars) > 0 {
		b.WriteString("\t\tScalars: []vertexprog.DeviceScalar{\n")
		for _, s := range p.Scalars {
			fmt.Fprintf(b, "\t\t\t{Name: %q, Value: %s},\n", s.Name, fmt.Sprintf(s.goValue, "vp_p"))
		}
		b.WriteString("\t\t},\n")
	}
	b.WriteString("\t}\n")
}

func needB2i(progs []*Program) bool {
	for _, p := range progs {
		for _, s := range append(p.Scalars, p.Arrays...) {
			if strings.HasPrefix(s.goValue, "vp_b2i(") {
				return true
			}
		}
	}
	return false
}

// lowerFirst lowers s's leading initialism as Go names do: Program →
// program, BFSProgram → bfsProgram, CC → cc.
func lowerFirst(s string) string {
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	if i > 1 && i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i--
	}
	return strings.ToLower(s[:i]) + s[i:]
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
