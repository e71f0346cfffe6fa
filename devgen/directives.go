package devgen

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// Promises and optional methods that devgen cannot derive from the code.
//
// //devgen:nonnegative, a line of Gather's doc comment, promises that
// every value Gather folds into the accumulator (the e of return
// min(acc, e) or max(acc, e)), and Identity, is >= 0: no negative
// number, no NaN (-0 is allowed). The bits of such floats order as
// signed integers as the values do in Go's min and max (-0, the sign bit
// alone, below +0, +Inf the highest), so the fold is one signed
// atomicMin or atomicMax on the bits, where the fold without the promise
// (floatFold) tests the sign and NaN to order negative values and NaN as
// Go does. devgen cannot see the promise in the code — it is about the
// program's inputs — so the program states it, and its Prepare must
// reject the inputs that would break it (SSSP's rejects negative and NaN
// weights). Broken, the push fold would order negative values wrongly and
// drop NaNs, unlike the pull's vp_gather, which always follows Go.
//
// Priority(v int32, x X) float32 is the Go form of vp_priority, the
// order delta-stepping (Spec.Delta > 0) runs vertices in on a device
// backend (vertexprog.Prioritizer): devgen translates it like Wants (it
// may read the program's scalars and state at v), and accepts a Spec
// with a Delta only in a program that has it.

const directivePrefix = "//devgen:"

// directives reads the //devgen: lines of the doc comments of t's
// methods: nonnegative on Gather; any other is an error.
func (g *gen) directives(t *types.Named) {
	for i := 0; i < t.NumMethods(); i++ {
		fd, _ := g.pkg.method(t, t.Method(i).Name())
		if fd == nil || fd.Doc == nil {
			continue
		}
		for _, c := range fd.Doc.List {
			if !strings.HasPrefix(c.Text, directivePrefix) {
				continue
			}
			d := strings.TrimPrefix(c.Text, directivePrefix)
			if f := strings.Fields(d); len(f) > 0 {
				d = f[0] // (the rest of the line may say why the promise holds)
			}
			switch {
			case d != "nonnegative":
				g.failAt(c, "unknown directive %s (the one devgen knows is //devgen:nonnegative, on Gather)", c.Text)
			case fd.Name.Name != "Gather":
				g.failAt(c, "//devgen:nonnegative on %s: it promises what Gather folds, and belongs on Gather", fd.Name.Name)
			}
			g.nonNeg = c
		}
	}
}

// checkPriority checks that Priority is func(v int32, x X) float32.
func (g *gen) checkPriority(fd *ast.FuncDecl, x types.Type) {
	sig := g.pkg.Info.Defs[fd.Name].(*types.Func).Type().(*types.Signature)
	ok := sig.Params().Len() == 2 && sig.Results().Len() == 1 &&
		types.Identical(sig.Params().At(0).Type(), types.Typ[types.Int32]) &&
		types.Identical(sig.Params().At(1).Type(), x) &&
		types.Identical(sig.Results().At(0).Type(), types.Typ[types.Float32])
	if !ok {
		g.failAt(fd.Name, "Priority is %s; delta-stepping's priority is func(v int32, x %s) float32", types.TypeString(sig, g.qual), types.TypeString(x, g.qual))
	}
}

// checkNonNegIdentity rejects //devgen:nonnegative where Identity returns
// a value devgen can see is negative or NaN (a constant, math.Inf,
// math.NaN, conversions and negations of them).
func (g *gen) checkNonNegIdentity(t *types.Named) {
	fd, _ := g.pkg.method(t, "Identity")
	if fd == nil || len(fd.Body.List) != 1 {
		return
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return
	}
	switch g.sign(ret.Results[0]) {
	case signNeg:
		g.failAt(ret.Results[0], "//devgen:nonnegative, but Identity returns a negative value (the promise covers the identity: the fold compares the bits the accumulator starts with)")
	case signNaN:
		g.failAt(ret.Results[0], "//devgen:nonnegative, but Identity returns NaN")
	}
}

const (
	signUnknown = iota
	signNonNeg  // >= 0, -0 included
	signNeg
	signNaN
)

// sign is what devgen can tell of e's sign.
func (g *gen) sign(e ast.Expr) int {
	info := g.pkg.Info
	if tv := info.Types[e]; tv.Value != nil {
		if v := constant.ToFloat(tv.Value); v.Kind() == constant.Float || v.Kind() == constant.Int {
			if constant.Sign(v) < 0 {
				return signNeg
			}
			return signNonNeg
		}
		return signUnknown
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return g.sign(e.X)
	case *ast.UnaryExpr:
		s := g.sign(e.X)
		switch {
		case e.Op == token.ADD:
			return s
		case e.Op != token.SUB:
			return signUnknown
		case s == signNeg:
			return signNonNeg
		case s == signNonNeg:
			return signUnknown // (-x of x >= 0: negative unless x is +0)
		}
		return s
	case *ast.CallExpr:
		if tv := info.Types[e.Fun]; tv.IsType() && len(e.Args) == 1 {
			return g.sign(e.Args[0])
		}
		sel, ok := unparen(e.Fun).(*ast.SelectorExpr)
		if !ok {
			return signUnknown
		}
		fn, ok := info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "math" {
			return signUnknown
		}
		switch fn.Name() {
		case "NaN":
			return signNaN
		case "Inf":
			if v := info.Types[e.Args[0]].Value; v != nil {
				if constant.Sign(v) < 0 {
					return signNeg
				}
				return signNonNeg
			}
		}
	}
	return signUnknown
}
