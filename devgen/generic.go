package devgen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// Generic programs: -type names instantiations, T[float32] (type
// arguments are types of the package's scope: predeclared ones or the
// package's own). devgen translates each from a monomorphized copy of
// T — its declaration and methods with the type parameters replaced by
// the arguments, added to the files that declare them and type-checked
// with the package — so every constant, conversion and layout is the
// instantiation's, and errors point at the generic source. The generated
// file gives T one Device method, on T[_], that picks the instantiation's
// code by a type switch; an instantiation devgen did not translate gets
// device code that does not compile (#error, naming the ones it did), so
// a device run of it fails with that error.

// instance is an instantiation named in -type.
type instance struct {
	base *types.TypeName // the generic type
	typ  *types.Named    // the instantiation, in the package as loaded
	args []ast.Expr      // the type arguments, as written
	name string          // "T[args]", as types print it
	mono string          // the monomorphized copy's name
}

// SplitTypes splits a -type list at the commas outside brackets:
// "A,P[int32,float32]" is A and P[int32,float32].
func SplitTypes(list string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range list {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

// parseInstance resolves spec ("T[A, B]") in pkg.
func parseInstance(pkg *Package, spec string) (*instance, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("devgen: %s: -type %s: %s", pkg.Dir, spec, fmt.Sprintf(format, args...))
	}
	x, err := parser.ParseExpr(spec)
	if err != nil {
		return nil, bad("not a type name or instantiation: %v", err)
	}
	var baseID ast.Expr
	var args []ast.Expr
	switch x := x.(type) {
	case *ast.IndexExpr:
		baseID, args = x.X, []ast.Expr{x.Index}
	case *ast.IndexListExpr:
		baseID, args = x.X, x.Indices
	default:
		return nil, bad("not an instantiation T[args]")
	}
	id, ok := baseID.(*ast.Ident)
	if !ok {
		return nil, bad("%s is not a type of the package", types.ExprString(baseID))
	}
	tn, ok := pkg.Types.Scope().Lookup(id.Name).(*types.TypeName)
	if !ok {
		return nil, bad("%s is not a type of package %s", id.Name, pkg.Types.Name())
	}
	if n, ok := tn.Type().(*types.Named); !ok || n.TypeParams().Len() == 0 {
		return nil, bad("%s is not generic (name it without type arguments)", id.Name)
	}
	tv, err := types.Eval(pkg.Fset, pkg.Types, token.NoPos, spec)
	if te, ok := err.(types.Error); ok {
		return nil, bad("%s", te.Msg)
	} else if err != nil {
		return nil, bad("%v", err)
	}
	n, ok := tv.Type.(*types.Named)
	if !tv.IsType() || !ok || n.Origin().Obj() != tn {
		return nil, bad("not an instantiation of %s", id.Name)
	}
	return &instance{base: tn, typ: n, args: args, name: types.TypeString(n, func(p *types.Package) string {
		if p == pkg.Types {
			return ""
		}
		return p.Name()
	})}, nil
}

// monomorphize returns pkg type-checked again with a copy of each
// instance's generic type and methods, its parameters replaced by the
// arguments, named inst.mono.
func monomorphize(pkg *Package, insts []*instance) (*Package, error) {
	if pkg.imp == nil {
		return nil, fmt.Errorf("devgen: %s: no importer to type-check instantiations with", pkg.Dir)
	}
	extra := map[*ast.File][]ast.Decl{}
	taken := map[string]bool{}
	for k, in := range insts {
		in.mono = fmt.Sprintf("vp_mono%d_%s", k+1, in.base.Name())
		for pkg.Types.Scope().Lookup(in.mono) != nil || taken[in.mono] {
			in.mono += "_"
		}
		taken[in.mono] = true
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				if c := monoDecl(pkg, in, d); c != nil {
					extra[f] = append(extra[f], c)
				}
			}
		}
	}
	files := make([]*ast.File, len(pkg.Files))
	for i, f := range pkg.Files {
		files[i] = f
		if len(extra[f]) > 0 {
			cf := *f
			cf.Decls = append(slices.Clone(f.Decls), extra[f]...)
			files[i] = &cf
		}
	}
	tp, info, err := Check(pkg.Fset, pkg.Types.Path(), files, pkg.imp)
	if err != nil {
		return nil, fmt.Errorf("devgen: type-checking the instantiations: %w", err)
	}
	return &Package{Dir: pkg.Dir, Fset: pkg.Fset, Files: files, Types: tp, Info: info, imp: pkg.imp}, nil
}

// monoDecl is d's copy for in: the generic type's declaration or one of
// its methods with the type parameters replaced; nil for other decls.
func monoDecl(pkg *Package, in *instance, d ast.Decl) ast.Decl {
	c := &cloner{info: pkg.Info, subst: map[types.Object]ast.Expr{}}
	bind := func(names []*ast.Ident) {
		for i, n := range names {
			if o := pkg.Info.Defs[n]; o != nil && i < len(in.args) {
				c.subst[o] = in.args[i]
			}
		}
	}
	switch d := d.(type) {
	case *ast.GenDecl:
		if d.Tok != token.TYPE {
			return nil
		}
		for _, sp := range d.Specs {
			ts := sp.(*ast.TypeSpec)
			if pkg.Info.Defs[ts.Name] != in.base {
				continue
			}
			var names []*ast.Ident
			for _, f := range ts.TypeParams.List {
				names = append(names, f.Names...)
			}
			bind(names)
			return &ast.GenDecl{TokPos: d.TokPos, Tok: token.TYPE, Specs: []ast.Spec{&ast.TypeSpec{
				Doc: ts.Doc, Name: &ast.Ident{NamePos: ts.Name.Pos(), Name: in.mono}, Type: c.expr(ts.Type)}}}
		}
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) != 1 {
			return nil
		}
		r := d.Recv.List[0]
		rt := r.Type
		star := false
		if s, ok := rt.(*ast.StarExpr); ok {
			rt, star = s.X, true
		}
		var base ast.Expr
		var params []ast.Expr
		switch x := unparen(rt).(type) {
		case *ast.IndexExpr:
			base, params = x.X, []ast.Expr{x.Index}
		case *ast.IndexListExpr:
			base, params = x.X, x.Indices
		default:
			return nil
		}
		if id, ok := base.(*ast.Ident); !ok || pkg.Info.Uses[id] != in.base {
			return nil
		}
		var names []*ast.Ident
		for _, p := range params {
			if id, ok := p.(*ast.Ident); ok {
				names = append(names, id)
			}
		}
		bind(names)
		var recvT ast.Expr = &ast.Ident{NamePos: rt.Pos(), Name: in.mono}
		if star {
			recvT = &ast.StarExpr{Star: r.Type.Pos(), X: recvT}
		}
		fd := c.clone(reflect.ValueOf(d)).Interface().(*ast.FuncDecl)
		fd.Recv = &ast.FieldList{Opening: d.Recv.Opening, Closing: d.Recv.Closing,
			List: []*ast.Field{{Names: c.idents(r.Names), Type: recvT}}}
		return fd
	}
	return nil
}

// cloner deep-copies syntax, replacing the identifiers that denote the
// objects of subst (type parameters) by copies of their expressions.
type cloner struct {
	info  *types.Info
	subst map[types.Object]ast.Expr
}

var (
	exprType    = reflect.TypeFor[ast.Expr]()
	objectType  = reflect.TypeFor[*ast.Object]()
	scopeType   = reflect.TypeFor[*ast.Scope]()
	commentType = reflect.TypeFor[*ast.CommentGroup]()
)

func (c *cloner) expr(e ast.Expr) ast.Expr {
	v := reflect.New(exprType).Elem()
	v.Set(reflect.ValueOf(e))
	return c.clone(v).Interface().(ast.Expr)
}

func (c *cloner) idents(ids []*ast.Ident) []*ast.Ident {
	if ids == nil {
		return nil
	}
	return c.clone(reflect.ValueOf(ids)).Interface().([]*ast.Ident)
}

func (c *cloner) clone(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.New(v.Type()).Elem()
		if id, ok := v.Interface().(*ast.Ident); ok && v.Type() == exprType {
			if e, ok := c.subst[c.info.Uses[id]]; ok {
				// A fresh copy per use (the type checker records each node
				// once), without the substitution: arguments name no
				// parameters.
				out.Set(reflect.ValueOf((&cloner{info: c.info}).expr(e)))
				return out
			}
		}
		out.Set(c.clone(v.Elem()))
		return out
	case reflect.Pointer:
		if v.IsNil() || v.Type() == objectType || v.Type() == scopeType {
			return reflect.Zero(v.Type())
		}
		if v.Type() == commentType {
			return v // (shared: read only)
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(c.clone(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.NumField(); i++ {
			if out.Field(i).CanSet() {
				out.Field(i).Set(c.clone(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(c.clone(v.Index(i)))
		}
		return out
	}
	return v
}

// goIdent turns a type's printed name into an identifier's tail:
// "float32" → "Float32", "Pair[int32, uint64]" → "PairInt32Uint64".
func goIdent(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
