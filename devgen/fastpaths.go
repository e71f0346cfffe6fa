package devgen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

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
