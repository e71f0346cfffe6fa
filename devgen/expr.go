package devgen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// Error is a construct outside the subset, or a program the generator
// cannot translate, at a position of the Go source.
type Error struct {
	Pos    token.Position
	Method string // the Go method being translated ("" for the type)
	Msg    string
}

func (e *Error) Error() string {
	if e.Method == "" {
		return fmt.Sprintf("%s: devgen: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: devgen: %s: %s", e.Pos, e.Method, e.Msg)
}

// fn translates one method into a C function body.
type fn struct {
	g      *gen
	method string
	names  map[types.Object]string
	used   map[string]bool
	recv   types.Object
	vertex map[types.Object]bool // int32 vertex parameters (v, u): state indices
	xPtr   types.Object          // Update's x *X
	initX  string                // Init's translation: the C name of the X_t* it sets
	step   types.Object          // Update's *vertexprog.Step
	state  bool                  // the C function has State (vp_s)
	writeV types.Object          // Update's v: state may be written at [v]
	result types.Type            // the method's result type
	b      strings.Builder
	ind    int
	brk    []*breakable
	labels int
}

// breakable is an enclosing for or switch: what an unlabeled break leaves.
type breakable struct {
	isSwitch bool
	label    string // a switch's end label, when a break used it
}

func (f *fn) fail(n ast.Node, format string, args ...any) {
	panic(&Error{Pos: f.g.pkg.Fset.Position(n.Pos()), Method: f.method, Msg: fmt.Sprintf(format, args...)})
}

func (f *fn) check(n ast.Node, err error) {
	if err != nil {
		f.fail(n, "%v", err)
	}
}

// name gives obj a C name unique in the function.
func (f *fn) name(obj types.Object) string {
	if n, ok := f.names[obj]; ok {
		return n
	}
	base := obj.Name()
	switch {
	case base == "_" || base == "":
		base = "vp_arg"
	case !cIdentOK(base) && asciiIdent(base):
		base = "vp_l_" + base
	case !cIdentOK(base):
		base = "vp_local"
	}
	n := f.fresh(base)
	f.names[obj] = n
	return n
}

// fresh is a C name starting with base that the function does not use yet.
func (f *fn) fresh(base string) string {
	n := base
	for i := 2; f.used[n]; i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	f.used[n] = true
	return n
}

func asciiIdent(n string) bool {
	for _, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (f *fn) typeOf(e ast.Expr) types.Type { return f.g.pkg.Info.TypeOf(e) }

func (f *fn) ctype(n ast.Node, t types.Type) string {
	s, err := f.g.cType(t)
	f.check(n, err)
	return s
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// objOf is the object an identifier expression refers to, or nil.
func (f *fn) objOf(e ast.Expr) types.Object {
	if id, ok := unparen(e).(*ast.Ident); ok {
		return f.g.pkg.Info.ObjectOf(id)
	}
	return nil
}

// progField resolves p.F (p the receiver) to the program's field F.
func (f *fn) progField(e ast.Expr) (*types.Var, bool) {
	sel, ok := unparen(e).(*ast.SelectorExpr)
	if !ok || f.recv == nil || f.objOf(sel.X) != f.recv {
		return nil, false
	}
	s := f.g.pkg.Info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal {
		return nil, false
	}
	if len(s.Index()) != 1 {
		f.fail(sel, "field %s is promoted from an embedded field; use the program's own fields", sel.Sel.Name)
	}
	return s.Obj().(*types.Var), true
}

// expr translates an expression to C of the C type of its Go type.
func (f *fn) expr(e ast.Expr) string {
	info := f.g.pkg.Info
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		s, err := f.g.constLit(tv.Value, tv.Type)
		f.check(e, err)
		return s
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return f.expr(e.X)
	case *ast.Ident:
		obj := info.ObjectOf(e)
		switch o := obj.(type) {
		case *types.Var:
			switch {
			case o == f.recv:
				f.fail(e, "the receiver %s used as a value (only its fields %s.F and slices %s.S[v] may be used)", e.Name, e.Name, e.Name)
			case o == f.xPtr:
				f.fail(e, "the pointer %s used as a value (use *%s or %s.Field)", e.Name, e.Name, e.Name)
			case o == f.step:
				f.fail(e, "the Step %s used as a value (use %s.Iteration, %s.Aggregate(i), %s.Add(i, v))", e.Name, e.Name, e.Name, e.Name)
			case o.Parent() == f.g.pkg.Types.Scope() || o.Pkg() != f.g.pkg.Types:
				f.fail(e, "package-level variable %s (only constants, parameters, locals and the program's fields)", e.Name)
			}
			if _, ok := f.names[o]; !ok {
				f.fail(e, "variable %s is not declared in the translated method", e.Name)
			}
			return f.names[o]
		case *types.Nil:
			f.fail(e, "nil")
		case *types.Func:
			f.fail(e, "function %s used as a value (functions may only be called)", e.Name)
		}
		f.fail(e, "identifier %s (%T) is outside the subset", e.Name, obj)
	case *ast.BasicLit:
		f.fail(e, "literal %s is outside the subset", e.Value)
	case *ast.SelectorExpr:
		return f.selector(e)
	case *ast.IndexExpr:
		fld, ok := f.progField(e.X)
		if !ok {
			f.fail(e, "indexing is allowed only on the program's slices (p.S[v])")
		}
		if _, ok := fld.Type().Underlying().(*types.Slice); !ok {
			f.fail(e, "index of %s, which is not a slice", fld.Name())
		}
		if !f.state {
			f.fail(e, "%s reads the program's state, which the device function has no access to (vp_%s gets no State)", f.method, strings.ToLower(f.method))
		}
		if idx := f.objOf(e.Index); idx == nil || !f.vertex[idx] {
			f.fail(e.Index, "slice %s indexed by %s: state slices may be indexed only by a vertex parameter of the method (in range by construction)", fld.Name(), exprString(e.Index))
		}
		return "vp_s." + f.g.useField(fld, e, false) + "[" + f.expr(e.Index) + "]"
	case *ast.StarExpr:
		if f.objOf(e.X) == f.xPtr && f.xPtr != nil {
			return "(*" + f.names[f.xPtr] + ")"
		}
		f.fail(e, "pointer dereference (only Update's *x)")
	case *ast.UnaryExpr:
		return f.unary(e)
	case *ast.BinaryExpr:
		t := f.typeOf(e.X)
		if isComparison(e.Op) {
			return f.compare(e, e.Op, f.expr(e.X), f.expr(e.Y), t)
		}
		return f.binary(e, e.Op, f.expr(e.X), f.expr(e.Y), f.typeOf(e), e.Y)
	case *ast.CallExpr:
		return f.call(e)
	case *ast.CompositeLit:
		return f.composite(e)
	case *ast.FuncLit:
		f.fail(e, "function literal")
	case *ast.SliceExpr:
		f.fail(e, "slice expression")
	case *ast.TypeAssertExpr:
		f.fail(e, "type assertion")
	case *ast.IndexListExpr:
		f.fail(e, "generic instantiation")
	case *ast.KeyValueExpr:
		f.fail(e, "key-value expression")
	}
	f.fail(e, "expression %s (%T) is outside the subset", exprString(e), e)
	return ""
}

func exprString(e ast.Expr) string { return types.ExprString(e) }

func isComparison(op token.Token) bool {
	switch op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		return true
	}
	return false
}

func (f *fn) selector(e *ast.SelectorExpr) string {
	info := f.g.pkg.Info
	sel := info.Selections[e]
	if sel == nil {
		// A qualified identifier: constants were folded already.
		f.fail(e, "%s (only constants of other packages)", exprString(e))
	}
	if sel.Kind() != types.FieldVal {
		f.fail(e, "method value %s (methods may only be called: Step's Aggregate and Add)", exprString(e))
	}
	if fld, ok := f.progField(e); ok {
		if _, isSlice := fld.Type().Underlying().(*types.Slice); isSlice {
			f.fail(e, "state slice %s used without an index (only %s[v])", exprString(e), exprString(e))
		}
		if !f.state {
			f.fail(e, "%s reads the program's field %s, which the device function has no access to (vp_%s gets no State)", f.method, fld.Name(), strings.ToLower(f.method))
		}
		name := f.g.useField(fld, e, false)
		if f.g.field(fld).input {
			if kindOf(fld.Type()) == kBool {
				return "(vp_s." + name + "[0] != 0)"
			}
			return "vp_s." + name + "[0]"
		}
		if kindOf(fld.Type()) == kBool {
			return "(vp_s." + name + " != 0)"
		}
		return "vp_s." + name
	}
	if len(sel.Index()) != 1 {
		f.fail(e, "promoted field %s (embedded structs are outside the subset)", exprString(e))
	}
	base := f.objOf(e.X)
	if base != nil && base == f.step {
		if e.Sel.Name == "Iteration" && f.initX == "" {
			return "((long long)" + f.names[f.step] + ".iteration)"
		}
		f.fail(e, "Step field %s", e.Sel.Name)
	}
	if base != nil && base == f.xPtr {
		return f.names[f.xPtr] + "->" + f.fieldName(e, f.typeOf(e.X).Underlying().(*types.Pointer).Elem(), sel.Index()[0])
	}
	if _, ok := f.typeOf(e.X).Underlying().(*types.Pointer); ok {
		f.fail(e, "field of a pointer %s", exprString(e.X))
	}
	return "(" + f.expr(e.X) + ")." + f.fieldName(e, f.typeOf(e.X), sel.Index()[0])
}

// fieldName is the C member name of field i of struct type t.
func (f *fn) fieldName(n ast.Node, t types.Type, i int) string {
	f.ctype(n, t)
	return f.g.structOf(t).fields[i]
}

func (f *fn) unary(e *ast.UnaryExpr) string {
	t := f.typeOf(e)
	k := kindOf(t)
	x := f.expr(e.X)
	switch e.Op {
	case token.ADD:
		return x
	case token.NOT:
		return "(!" + x + ")"
	case token.SUB:
		switch {
		case k.isFloat():
			return "(-" + x + ")"
		case k.isSigned():
			return "((" + k.cName() + ")(0 - (" + k.unsigned() + ")" + x + "))"
		case k.isUnsigned():
			return "((" + k.cName() + ")(0 - " + x + "))"
		}
	case token.XOR:
		if k.isInt() {
			return "((" + k.cName() + ")~" + x + ")"
		}
	case token.AND:
		f.fail(e, "address-of operator &")
	case token.ARROW:
		f.fail(e, "channel receive")
	}
	f.fail(e, "unary %s on %s", e.Op, types.TypeString(t, f.g.qual))
	return ""
}

// compare translates a comparison of two operands of type t.
func (f *fn) compare(n ast.Node, op token.Token, a, b string, t types.Type) string {
	if k := kindOf(t); k != kNone {
		return "(" + a + " " + op.String() + " " + b + ")"
	}
	if _, ok := t.Underlying().(*types.Struct); ok && (op == token.EQL || op == token.NEQ) {
		ct := f.ctype(n, t)
		h := f.g.structEq(ct, t)
		if op == token.NEQ {
			return "(!" + h + "(" + a + ", " + b + "))"
		}
		return h + "(" + a + ", " + b + ")"
	}
	f.fail(n, "comparison %s of %s", op, types.TypeString(t, f.g.qual))
	return ""
}

// binary translates a op b of result type t with Go's semantics; y is
// the right operand's expression (its constant value and type decide
// divisions and shifts), nil for the 1 of x++.
func (f *fn) binary(n ast.Node, op token.Token, a, b string, t types.Type, y ast.Expr) string {
	k := kindOf(t)
	if k == kNone || k == kBool {
		if k == kBool && (op == token.LAND || op == token.LOR) {
			return "(" + a + " " + op.String() + " " + b + ")"
		}
		f.fail(n, "operator %s on %s", op, types.TypeString(t, f.g.qual))
	}
	var yv constant.Value
	if y != nil {
		yv = f.g.pkg.Info.Types[y].Value
	} else {
		yv = constant.MakeInt64(1)
	}
	ct := k.cName()
	switch op {
	case token.ADD, token.SUB, token.MUL:
		if k.isFloat() {
			fn := map[token.Token]string{token.ADD: "add", token.SUB: "sub", token.MUL: "mul"}[op]
			if k == kF32 {
				return "__f" + fn + "_rn(" + a + ", " + b + ")"
			}
			return "__d" + fn + "_rn(" + a + ", " + b + ")"
		}
		if k.isSigned() {
			u := k.unsigned()
			return "((" + ct + ")((" + u + ")" + a + " " + op.String() + " (" + u + ")" + b + "))"
		}
		return "((" + ct + ")(" + a + " " + op.String() + " " + b + "))"
	case token.QUO, token.REM:
		if k.isFloat() {
			if op == token.REM {
				break
			}
			if k == kF32 {
				return "__fdiv_rn(" + a + ", " + b + ")"
			}
			return "__ddiv_rn(" + a + ", " + b + ")"
		}
		if yv != nil {
			d := constant.ToInt(yv)
			if constant.Sign(d) == 0 {
				f.fail(n, "integer division by constant zero")
			}
			if k.isSigned() && constant.Compare(d, token.EQL, constant.MakeInt64(-1)) {
				// Go: x / -1 is -x, wrapping (MinInt / -1 == MinInt); x % -1 is 0.
				if op == token.REM {
					return "((" + ct + ")0)"
				}
				return "((" + ct + ")(0 - (" + k.unsigned() + ")" + a + "))"
			}
			return "((" + ct + ")(" + a + " " + op.String() + " " + b + "))"
		}
		h := "div"
		if op == token.REM {
			h = "rem"
		}
		return f.g.helper("vp_dg_"+h+"_"+k.tag()) + "(" + a + ", " + b + ")"
	case token.AND, token.OR, token.XOR:
		if k.isInt() {
			return "((" + ct + ")(" + a + " " + op.String() + " " + b + "))"
		}
	case token.AND_NOT:
		if k.isInt() {
			return "((" + ct + ")(" + a + " & ~" + b + "))"
		}
	case token.SHL, token.SHR:
		if !k.isInt() {
			break
		}
		w := int64(k.bits())
		if yv != nil {
			c, ok := constant.Int64Val(constant.ToInt(yv))
			if !ok || c < 0 {
				f.fail(n, "shift count %s", yv)
			}
			switch {
			case c >= w && (op == token.SHL || k.isUnsigned()):
				return "((" + ct + ")0)"
			case c >= w:
				return "((" + ct + ")(" + a + " >> " + fmt.Sprint(w-1) + "))"
			case op == token.SHL && k.isSigned():
				return "((" + ct + ")((" + k.unsigned() + ")" + a + " << " + fmt.Sprint(c) + "))"
			}
			return "((" + ct + ")(" + a + " " + op.String() + " " + fmt.Sprint(c) + "))"
		}
		cnt := "((unsigned long long)" + b + ")"
		if kindOf(f.typeOf(y)).isSigned() {
			// Go panics on a negative count: the kernel traps.
			cnt = f.g.helper("vp_dg_shcount") + "((long long)" + b + ")"
		}
		h := "shl"
		if op == token.SHR {
			h = "shr"
		}
		return f.g.helper("vp_dg_"+h+"_"+k.tag()) + "(" + a + ", " + cnt + ")"
	}
	f.fail(n, "operator %s on %s", op, types.TypeString(t, f.g.qual))
	return ""
}

// convert translates a conversion of c from type from to type to.
func (f *fn) convert(n ast.Node, c string, from, to types.Type) string {
	kf, kt := kindOf(from), kindOf(to)
	if kf == kNone || kt == kNone {
		cf, ct := f.ctype(n, from), f.ctype(n, to)
		if cf != ct {
			f.fail(n, "conversion from %s to %s", types.TypeString(from, f.g.qual), types.TypeString(to, f.g.qual))
		}
		return c
	}
	if kf == kt {
		return c
	}
	if kf == kBool || kt == kBool {
		f.fail(n, "conversion from %s to %s", types.TypeString(from, f.g.qual), types.TypeString(to, f.g.qual))
	}
	if kf.isFloat() && kt.isInt() {
		// Out of range and NaN as Go on amd64 (the hosts the CPU backend's
		// results come from): the integer indefinite of the cvtt
		// instructions, through int64 for the unsigned types.
		return f.g.helper("vp_dg_f2"+kt.tag()) + "((double)" + c + ")"
	}
	return "((" + kt.cName() + ")" + c + ")"
}

func (f *fn) composite(e *ast.CompositeLit) string {
	t := f.typeOf(e)
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		f.fail(e, "composite literal of %s (only structs)", types.TypeString(t, f.g.qual))
	}
	ct := f.ctype(e, t)
	vals := make([]string, st.NumFields())
	for i, el := range e.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			name := kv.Key.(*ast.Ident).Name
			for j := 0; j < st.NumFields(); j++ {
				if st.Field(j).Name() == name {
					vals[j] = f.arg(kv.Value, st.Field(j).Type())
				}
			}
			continue
		}
		vals[i] = f.arg(el, st.Field(i).Type())
	}
	for i, v := range vals {
		if v == "" {
			z, err := f.g.zero(st.Field(i).Type())
			f.check(e, err)
			vals[i] = z
		}
	}
	return ct + "{" + strings.Join(vals, ", ") + "}"
}

// mathFuncs are the math functions with bit-exact device equivalents:
// the C template, %s the translated arguments in order.
var mathFuncs = map[string]string{
	"Sqrt":            "__dsqrt_rn(%s)",
	"Abs":             "fabs(%s)",
	"Floor":           "floor(%s)",
	"Ceil":            "ceil(%s)",
	"Trunc":           "trunc(%s)",
	"Round":           "round(%s)",
	"RoundToEven":     "rint(%s)",
	"Copysign":        "copysign(%s, %s)",
	"FMA":             "fma(%s, %s, %s)",
	"Signbit":         "(signbit(%s) != 0)",
	"Float64bits":     "((unsigned long long)__double_as_longlong(%s))",
	"Float64frombits": "__longlong_as_double((long long)%s)",
	"Float32bits":     "((unsigned int)__float_as_int(%s))",
	"Float32frombits": "__int_as_float((int)%s)",
	"NaN":             "__longlong_as_double(0x7ff8000000000001LL)",
	"IsNaN":           "vp_dg_isnan(%s)",
	"IsInf":           "vp_dg_isinf(%s, %s)",
	"Min":             "vp_dg_math_min(%s, %s)",
	"Max":             "vp_dg_math_max(%s, %s)",
}

// bitsFuncs are math/bits' functions the subset has.
var bitsFuncs = map[string]string{
	"OnesCount32":     "((long long)__popc(%s))",
	"OnesCount64":     "((long long)__popcll(%s))",
	"LeadingZeros32":  "((long long)__clz((int)%s))",
	"LeadingZeros64":  "((long long)__clzll((long long)%s))",
	"TrailingZeros32": "vp_dg_ctz32(%s)",
	"TrailingZeros64": "vp_dg_ctz64(%s)",
	"Len32":           "(32 - (long long)__clz((int)%s))",
	"Len64":           "(64 - (long long)__clzll((long long)%s))",
	"RotateLeft32":    "vp_dg_rotl32(%s, %s)",
	"RotateLeft64":    "vp_dg_rotl64(%s, %s)",
}

func (f *fn) call(e *ast.CallExpr) string {
	info := f.g.pkg.Info
	if e.Ellipsis.IsValid() {
		f.fail(e, "variadic call with ...")
	}
	// A conversion.
	if tv := info.Types[e.Fun]; tv.IsType() {
		if len(e.Args) != 1 {
			f.fail(e, "conversion with %d arguments", len(e.Args))
		}
		return f.convert(e, f.expr(e.Args[0]), f.typeOf(e.Args[0]), tv.Type)
	}
	args := func() []any {
		a := make([]any, len(e.Args))
		for i, x := range e.Args {
			a[i] = f.expr(x)
		}
		return a
	}
	switch fun := unparen(e.Fun).(type) {
	case *ast.Ident:
		if b, ok := info.Uses[fun].(*types.Builtin); ok {
			if b.Name() != "min" && b.Name() != "max" {
				f.fail(e, "builtin %s (only min and max)", b.Name())
			}
			t := f.typeOf(e)
			k := kindOf(t)
			if k == kNone || k == kBool {
				f.fail(e, "%s of %s", b.Name(), types.TypeString(t, f.g.qual))
			}
			var h string
			if k.isFloat() {
				h = f.g.helper("vp_dg_" + b.Name() + "_" + k.tag())
			} else {
				h = f.g.helper("vp_dg_i"+b.Name()) + "<" + k.cName() + ">"
			}
			acc := f.arg(e.Args[0], t)
			for _, a := range e.Args[1:] {
				acc = h + "(" + acc + ", " + f.arg(a, t) + ")"
			}
			return acc
		}
		if fo, ok := info.Uses[fun].(*types.Func); ok {
			return f.callFunc(e, fo)
		}
	case *ast.SelectorExpr:
		if id, ok := fun.X.(*ast.Ident); ok {
			if pn, ok := info.Uses[id].(*types.PkgName); ok {
				path := pn.Imported().Path()
				var tmpl string
				switch path {
				case "math":
					tmpl = mathFuncs[fun.Sel.Name]
					if fun.Sel.Name == "Inf" {
						return f.inf(e)
					}
				case "math/bits":
					tmpl = bitsFuncs[fun.Sel.Name]
				}
				if tmpl == "" {
					what := "has no bit-exact device equivalent"
					if path != "math" && path != "math/bits" {
						what = "is outside the subset (calls: conversions, min, max, the package's own functions, math's and math/bits' exact functions, Step's methods)"
					}
					f.fail(e, "%s.%s %s", path, fun.Sel.Name, what)
				}
				if i := strings.Index(tmpl, "vp_dg_"); i >= 0 {
					f.g.helper(tmpl[i : i+strings.IndexByte(tmpl[i:], '(')])
				}
				return fmt.Sprintf(tmpl, args()...)
			}
		}
		if f.step != nil && f.objOf(fun.X) == f.step {
			switch fun.Sel.Name {
			case "Aggregate":
				return f.names[f.step] + ".aggregate((int)" + f.expr(e.Args[0]) + ")"
			case "Add":
				return f.names[f.step] + ".add((int)" + f.expr(e.Args[0]) + ", " + f.expr(e.Args[1]) + ")"
			}
		}
	}
	f.fail(e, "call of %s (calls: conversions, min, max, the package's own functions, math's and math/bits' exact functions, Step's Aggregate and Add)", exprString(e.Fun))
	return ""
}

// arg translates e converted to t (min and max's untyped constants).
func (f *fn) arg(e ast.Expr, t types.Type) string {
	if tv := f.g.pkg.Info.Types[e]; tv.Value != nil {
		s, err := f.g.constLit(tv.Value, t)
		f.check(e, err)
		return s
	}
	return f.expr(e)
}

// inf translates math.Inf(sign).
func (f *fn) inf(e *ast.CallExpr) string {
	const pos, neg = "__longlong_as_double(0x7ff0000000000000LL)", "__longlong_as_double((long long)0xfff0000000000000ULL)"
	if v := f.g.pkg.Info.Types[e.Args[0]].Value; v != nil {
		if constant.Sign(v) >= 0 {
			return pos
		}
		return neg
	}
	return "(" + f.expr(e.Args[0]) + " >= 0 ? " + pos + " : " + neg + ")"
}
