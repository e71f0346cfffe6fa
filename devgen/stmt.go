package devgen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

func (f *fn) line(format string, args ...any) {
	f.b.WriteString(strings.Repeat("  ", f.ind))
	fmt.Fprintf(&f.b, format, args...)
	f.b.WriteString("\n")
}

func (f *fn) block(stmts []ast.Stmt) {
	for _, s := range stmts {
		f.stmt(s)
	}
}

func (f *fn) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		f.line("{")
		f.ind++
		f.block(s.List)
		f.ind--
		f.line("}")
	case *ast.EmptyStmt:
	case *ast.ReturnStmt:
		f.ret(s)
	case *ast.AssignStmt:
		f.assign(s)
	case *ast.IncDecStmt:
		op := token.ADD
		if s.Tok == token.DEC {
			op = token.SUB
		}
		lhs := f.lvalue(s.X)
		f.line("%s = %s;", lhs, f.binary(s, op, lhs, f.one(s, f.typeOf(s.X)), f.typeOf(s.X), nil))
	case *ast.DeclStmt:
		f.decl(s)
	case *ast.IfStmt:
		f.line("{")
		f.ind++
		if s.Init != nil {
			f.stmt(s.Init)
		}
		f.ifChain(s)
		f.ind--
		f.line("}")
	case *ast.ForStmt:
		f.forStmt(s)
	case *ast.RangeStmt:
		f.rangeStmt(s)
	case *ast.SwitchStmt:
		f.switchStmt(s)
	case *ast.BranchStmt:
		f.branch(s)
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			f.fail(s, "expression statement %s", exprString(s.X))
		}
		if sel, ok := unparen(call.Fun).(*ast.SelectorExpr); !ok || f.step == nil || f.objOf(sel.X) != f.step || sel.Sel.Name != "Add" {
			f.fail(s, "call statement %s (only Step's Add)", exprString(call.Fun))
		}
		f.line("%s;", f.expr(call))
	case *ast.GoStmt:
		f.fail(s, "go statement")
	case *ast.DeferStmt:
		f.fail(s, "defer statement")
	case *ast.LabeledStmt:
		f.fail(s, "labeled statement")
	case *ast.TypeSwitchStmt:
		f.fail(s, "type switch")
	case *ast.SelectStmt:
		f.fail(s, "select statement")
	case *ast.SendStmt:
		f.fail(s, "send statement")
	default:
		f.fail(s, "statement %T", s)
	}
}

// one is the constant 1 of t's kind.
func (f *fn) one(n ast.Node, t types.Type) string {
	s, err := f.g.constLit(constant.MakeInt64(1), t)
	f.check(n, err)
	return s
}

func (f *fn) ret(s *ast.ReturnStmt) {
	if f.initX != "" {
		// Init's (x, active): X_t is set through the pointer.
		if len(s.Results) != 2 {
			f.fail(s, "return with %d results (Init returns x and whether v is active)", len(s.Results))
		}
		f.line("*%s = %s;", f.initX, f.arg(s.Results[0], f.result))
		f.line("return %s;", f.arg(s.Results[1], types.Typ[types.Bool]))
		return
	}
	if len(s.Results) != 1 {
		f.fail(s, "return with %d results (translated methods return one)", len(s.Results))
	}
	f.line("return %s;", f.arg(s.Results[0], f.result))
}

// lvalue translates an assignable expression: a local, *x or x.F (Update's
// x), a field of a local struct, or p.S[v] in Update.
func (f *fn) lvalue(e ast.Expr) string {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		o, ok := f.g.pkg.Info.ObjectOf(x).(*types.Var)
		if !ok || o == f.recv || o == f.xPtr || o == f.step || f.names[o] == "" {
			f.fail(e, "assignment to %s", x.Name)
		}
		// Parameters are locals in C as in Go (passed by value).
		return f.names[o]
	case *ast.StarExpr:
		if f.xPtr != nil && f.objOf(x.X) == f.xPtr {
			return "(*" + f.names[f.xPtr] + ")"
		}
	case *ast.SelectorExpr:
		if _, ok := f.progField(x); ok {
			f.fail(e, "assignment to the program's field %s (device code may write only state slices at Update's v)", x.Sel.Name)
		}
		sel := f.g.pkg.Info.Selections[x]
		if sel != nil && sel.Kind() == types.FieldVal && len(sel.Index()) == 1 {
			if f.xPtr != nil && f.objOf(x.X) == f.xPtr {
				return f.expr(x)
			}
			if _, ok := f.typeOf(x.X).Underlying().(*types.Struct); ok {
				return f.lvalue(x.X) + "." + f.fieldName(x, f.typeOf(x.X), sel.Index()[0])
			}
		}
	case *ast.IndexExpr:
		fld, ok := f.progField(x.X)
		if !ok {
			f.fail(e, "assignment to an index of %s (only the program's slices, p.S[v])", exprString(x.X))
		}
		if f.writeV == nil {
			f.fail(e, "%s writes the program's state %s (only Update may, at its own vertex v)", f.method, fld.Name())
		}
		if f.objOf(x.Index) != f.writeV {
			f.fail(x.Index, "Update writes %s[%s]: state may be written only at Update's own vertex %s (others update concurrently)", fld.Name(), exprString(x.Index), f.writeV.Name())
		}
		return "vp_s." + f.g.useField(fld, x, true) + "[" + f.names[f.writeV] + "]"
	}
	f.fail(e, "assignment to %s", exprString(e))
	return ""
}

func (f *fn) assign(s *ast.AssignStmt) {
	info := f.g.pkg.Info
	switch s.Tok {
	case token.DEFINE, token.ASSIGN:
	default:
		// x op= y
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
			f.fail(s, "%s with several operands", s.Tok)
		}
		op := map[token.Token]token.Token{
			token.ADD_ASSIGN: token.ADD, token.SUB_ASSIGN: token.SUB, token.MUL_ASSIGN: token.MUL,
			token.QUO_ASSIGN: token.QUO, token.REM_ASSIGN: token.REM, token.AND_ASSIGN: token.AND,
			token.OR_ASSIGN: token.OR, token.XOR_ASSIGN: token.XOR, token.SHL_ASSIGN: token.SHL,
			token.SHR_ASSIGN: token.SHR, token.AND_NOT_ASSIGN: token.AND_NOT,
		}[s.Tok]
		lhs := f.lvalue(s.Lhs[0])
		t := f.typeOf(s.Lhs[0])
		rhs := f.arg(s.Rhs[0], t)
		if op == token.SHL || op == token.SHR {
			rhs = f.expr(s.Rhs[0]) // the count keeps its own type
		}
		f.line("%s = %s;", lhs, f.binary(s, op, lhs, rhs, t, s.Rhs[0]))
		return
	}
	if len(s.Lhs) != len(s.Rhs) {
		f.fail(s, "assignment of a multi-valued expression")
	}
	// Go evaluates every right side before assigning: temporaries when
	// there are several.
	vals := make([]string, len(s.Rhs))
	for i, r := range s.Rhs {
		t := f.typeOf(s.Lhs[i])
		if lid, ok := s.Lhs[i].(*ast.Ident); ok && lid.Name == "_" {
			t = f.typeOf(r)
		} else if s.Tok == token.DEFINE {
			if o := info.Defs[id(s.Lhs[i])]; o != nil {
				t = o.Type()
			}
		}
		vals[i] = f.arg(r, t)
		if len(s.Rhs) > 1 {
			tmp := f.fresh("vp_tmp")
			f.line("const %s %s = %s;", f.ctype(r, t), tmp, vals[i])
			vals[i] = tmp
		}
	}
	for i, l := range s.Lhs {
		if lid, ok := l.(*ast.Ident); ok && lid.Name == "_" {
			if len(s.Rhs) == 1 {
				f.line("(void)%s;", vals[i])
			}
			continue
		}
		if s.Tok == token.DEFINE {
			if o := info.Defs[id(l)]; o != nil {
				f.line("%s %s = %s;", f.ctype(l, o.Type()), f.name(o), vals[i])
				continue
			}
		}
		f.line("%s = %s;", f.lvalue(l), vals[i])
	}
}

func id(e ast.Expr) *ast.Ident {
	i, _ := e.(*ast.Ident)
	return i
}

func (f *fn) decl(s *ast.DeclStmt) {
	gd, ok := s.Decl.(*ast.GenDecl)
	if !ok {
		f.fail(s, "declaration")
	}
	switch gd.Tok {
	case token.CONST:
		return // folded where used
	case token.TYPE:
		f.fail(s, "type declaration inside a method (declare types at package level)")
	case token.VAR:
	default:
		f.fail(s, "declaration %s", gd.Tok)
	}
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Values) != 0 && len(vs.Values) != len(vs.Names) {
			f.fail(vs, "var of a multi-valued expression")
		}
		vals := make([]string, len(vs.Names))
		for i, n := range vs.Names {
			o := f.g.pkg.Info.Defs[n]
			if len(vs.Values) > 0 {
				vals[i] = f.arg(vs.Values[i], o.Type())
			} else {
				z, err := f.g.zero(o.Type())
				f.check(n, err)
				vals[i] = z
			}
		}
		for i, n := range vs.Names {
			if n.Name == "_" {
				continue
			}
			o := f.g.pkg.Info.Defs[n]
			f.line("%s %s = %s;", f.ctype(n, o.Type()), f.name(o), vals[i])
		}
	}
}

func (f *fn) cond(e ast.Expr) string {
	c := f.expr(e)
	if kindOf(f.typeOf(e)) != kBool {
		f.fail(e, "condition of type %s", types.TypeString(f.typeOf(e), f.g.qual))
	}
	return c
}

func (f *fn) ifChain(s *ast.IfStmt) {
	f.line("if (%s) {", f.cond(s.Cond))
	f.ind++
	f.block(s.Body.List)
	f.ind--
	switch e := s.Else.(type) {
	case nil:
		f.line("}")
	case *ast.BlockStmt:
		f.line("} else {")
		f.ind++
		f.block(e.List)
		f.ind--
		f.line("}")
	case *ast.IfStmt:
		f.line("} else {")
		f.ind++
		f.stmt(e)
		f.ind--
		f.line("}")
	}
}

// constInt reports whether e is a constant.
func (f *fn) constInt(e ast.Expr) bool {
	return f.g.pkg.Info.Types[e].Value != nil
}

// forStmt translates for i := a; i < N; i++ {...} with constant N (and
// i not assigned in the body), so that every loop ends as Go's would on
// the host; and for cond {} loops are rejected (unbounded on the device).
func (f *fn) forStmt(s *ast.ForStmt) {
	as, ok := s.Init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || s.Cond == nil || s.Post == nil {
		f.fail(s, "for loop without a constant bound (only for i := a; i < N; i++ with constant N, or for i := range N)")
	}
	iv := f.g.pkg.Info.Defs[id(as.Lhs[0])]
	cond, ok := unparen(s.Cond).(*ast.BinaryExpr)
	if !ok || f.objOf(cond.X) != iv || !f.constInt(cond.Y) || (cond.Op != token.LSS && cond.Op != token.LEQ && cond.Op != token.GTR && cond.Op != token.GEQ && cond.Op != token.NEQ) {
		f.fail(s.Cond, "for loop condition %s (only i < N, i <= N, i > N, i >= N, i != N with constant N)", exprString(s.Cond))
	}
	post, ok := s.Post.(*ast.IncDecStmt)
	if !ok || f.objOf(post.X) != iv {
		f.fail(s.Post, "for loop post statement (only i++ or i-- of the loop variable)")
	}
	if !f.constInt(as.Rhs[0]) {
		f.fail(as.Rhs[0], "for loop start %s is not a constant", exprString(as.Rhs[0]))
	}
	if assigned(f.g.pkg.Info, s.Body, iv) {
		f.fail(s, "loop variable %s is assigned in the body (the bound must be constant)", iv.Name())
	}
	f.loop(s, iv, as.Rhs[0], cond.Op, cond.Y, post.Tok, s.Body)
}

func (f *fn) rangeStmt(s *ast.RangeStmt) {
	t := f.typeOf(s.X)
	if kindOf(t) == kNone || !kindOf(t).isInt() || !f.constInt(s.X) {
		f.fail(s, "range over %s (only over a constant integer)", exprString(s.X))
	}
	if s.Value != nil {
		f.fail(s, "range with two variables")
	}
	if s.Key == nil || id(s.Key) == nil || id(s.Key).Name == "_" || s.Tok != token.DEFINE {
		// Body repeated N times with a hidden counter.
		f.loopHidden(s, s.X, s.Body)
		return
	}
	iv := f.g.pkg.Info.Defs[id(s.Key)]
	if assigned(f.g.pkg.Info, s.Body, iv) {
		f.fail(s, "loop variable %s is assigned in the body", iv.Name())
	}
	f.loop(s, iv, &ast.BasicLit{Kind: token.INT, Value: "0"}, token.LSS, s.X, token.INC, s.Body)
}

func (f *fn) loop(n ast.Node, iv types.Object, start ast.Expr, op token.Token, end ast.Expr, inc token.Token, body *ast.BlockStmt) {
	ct := f.ctype(n, iv.Type())
	var startC string
	if tv := f.g.pkg.Info.Types[start]; tv.Value != nil {
		s, err := f.g.constLit(tv.Value, iv.Type())
		f.check(start, err)
		startC = s
	} else {
		startC = f.zeroLit(n, iv.Type())
	}
	endC := f.arg(end, iv.Type())
	// The counter wraps as Go's would: step it in unsigned arithmetic.
	step := f.binary(n, map[token.Token]token.Token{token.INC: token.ADD, token.DEC: token.SUB}[inc], "vp_i", f.one(n, iv.Type()), iv.Type(), nil)
	name := f.name(iv)
	f.line("for (%s vp_i = %s; vp_i %s %s; vp_i = %s) {", ct, startC, op, endC, step)
	f.ind++
	// Go 1.22+: a fresh variable per iteration.
	f.line("const %s %s = vp_i;", ct, name)
	f.brk = append(f.brk, &breakable{})
	f.block(body.List)
	f.brk = f.brk[:len(f.brk)-1]
	f.ind--
	f.line("}")
}

func (f *fn) loopHidden(n ast.Node, end ast.Expr, body *ast.BlockStmt) {
	c := f.fresh("vp_n")
	f.line("for (long long %s = 0; %s < %s; %s++) {", c, c, f.arg(end, types.Typ[types.Int64]), c)
	f.ind++
	f.brk = append(f.brk, &breakable{})
	f.block(body.List)
	f.brk = f.brk[:len(f.brk)-1]
	f.ind--
	f.line("}")
}

func (f *fn) zeroLit(n ast.Node, t types.Type) string {
	z, err := f.g.zero(t)
	f.check(n, err)
	return z
}

// assigned reports whether obj is assigned or incremented inside body.
func assigned(info *types.Info, body ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if i, ok := l.(*ast.Ident); ok && info.ObjectOf(i) == obj {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if i, ok := s.X.(*ast.Ident); ok && info.ObjectOf(i) == obj {
				found = true
			}
		}
		return !found
	})
	return found
}

// switchStmt translates a switch to an if-else chain; a break inside it
// jumps past its end.
func (f *fn) switchStmt(s *ast.SwitchStmt) {
	f.line("{")
	f.ind++
	if s.Init != nil {
		f.stmt(s.Init)
	}
	var tag string
	var tagT types.Type
	if s.Tag != nil {
		tagT = f.typeOf(s.Tag)
		if tv := f.g.pkg.Info.Types[s.Tag]; tv.Value != nil && (tv.Type.Underlying().(*types.Basic).Info()&types.IsUntyped) != 0 {
			tagT = types.Default(tv.Type)
		}
		tag = f.fresh("vp_tag")
		f.line("const %s %s = %s;", f.ctype(s.Tag, tagT), tag, f.arg(s.Tag, tagT))
	}
	br := &breakable{isSwitch: true}
	f.brk = append(f.brk, br)
	var def *ast.CaseClause
	first := true
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			def = cc
			continue
		}
		var conds []string
		for _, e := range cc.List {
			if tag == "" {
				conds = append(conds, f.cond(e))
			} else {
				conds = append(conds, f.compare(e, token.EQL, tag, f.arg(e, tagT), tagT))
			}
		}
		kw := "} else if"
		if first {
			kw = "if"
		}
		first = false
		f.line("%s (%s) {", kw, strings.Join(conds, " || "))
		f.clause(cc)
	}
	if def != nil {
		if first {
			f.line("{")
		} else {
			f.line("} else {")
		}
		f.clause(def)
		first = false
	}
	if !first {
		f.line("}")
	}
	f.brk = f.brk[:len(f.brk)-1]
	if br.label != "" {
		f.line("%s:;", br.label)
	}
	f.ind--
	f.line("}")
}

func (f *fn) clause(cc *ast.CaseClause) {
	f.ind++
	for _, s := range cc.Body {
		if b, ok := s.(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
			f.fail(b, "fallthrough")
		}
		f.stmt(s)
	}
	f.ind--
}

func (f *fn) branch(s *ast.BranchStmt) {
	if s.Label != nil {
		f.fail(s, "%s with a label", s.Tok)
	}
	switch s.Tok {
	case token.BREAK:
		if len(f.brk) == 0 {
			f.fail(s, "break outside a loop or switch")
		}
		b := f.brk[len(f.brk)-1]
		if b.isSwitch {
			if b.label == "" {
				f.labels++
				b.label = fmt.Sprintf("vp_sw%d_end", f.labels)
			}
			f.line("goto %s;", b.label)
			return
		}
		f.line("break;")
	case token.CONTINUE:
		f.line("continue;")
	default:
		f.fail(s, "%s", s.Tok)
	}
}
