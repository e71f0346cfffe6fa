package devgen

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// Calls of the package's own functions: a method may call a package-level
// function of its package (share(r, d), say) when that function is in the
// subset itself. It becomes a device function of its own, translated once
// per program with the rules of a method without State: it sees only its
// parameters, locals and constants (a function has no receiver, and
// package-level variables are rejected), so it is pure, and it may call
// other such functions. Since no expression of the subset has a side
// effect (assignments, ++ and Step.Add are statements), C's unspecified
// order of evaluating arguments gives what Go's left-to-right order
// gives. Rejected, with the position of the construct: generic and
// variadic functions, functions of other packages (but math's and
// math/bits' exact ones), recursion, no result or several, named
// results, a parameter or result outside the subset, a body that does
// not return on every path, and a function without a body.

// devFunc is a package-level function translated to a device function.
type devFunc struct {
	obj  *types.Func
	name string // the C function
	src  string // its definition
	done bool   // translated (false while its body is: a call then is recursion)
}

// callFunc translates a call of the package-level function obj.
func (f *fn) callFunc(e *ast.CallExpr, obj *types.Func) string {
	sig := obj.Type().(*types.Signature)
	switch {
	case obj.Pkg() != f.g.pkg.Types:
		f.fail(e, "call of %s.%s (only functions of the program's own package, and math's and math/bits' exact ones)", obj.Pkg().Path(), obj.Name())
	case sig.TypeParams().Len() > 0:
		f.fail(e, "call of generic function %s (device functions are translated from non-generic ones)", obj.Name())
	case sig.Variadic():
		f.fail(e, "call of variadic function %s", obj.Name())
	case len(e.Args) != sig.Params().Len():
		f.fail(e, "call of %s with a multi-valued argument", obj.Name())
	}
	df := f.g.deviceFunc(e, obj)
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = f.arg(a, sig.Params().At(i).Type())
	}
	return df.name + "(" + strings.Join(args, ", ") + ")"
}

// funcDecl is the declaration of package-level function obj, nil when
// the package's Go files have none.
func (pkg *Package) funcDecl(obj *types.Func) *ast.FuncDecl {
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && pkg.Info.Defs[fd.Name] == obj {
				return fd
			}
		}
	}
	return nil
}

// deviceFunc translates obj (once) and returns its device function; call
// is where it is called from.
func (g *gen) deviceFunc(call ast.Node, obj *types.Func) *devFunc {
	if df := g.funcFor[obj]; df != nil {
		if !df.done {
			g.failAt(call, "recursive call of %s (device functions do not recurse)", obj.Name())
		}
		return df
	}
	fd := g.pkg.funcDecl(obj)
	if fd == nil {
		g.failAt(call, "call of %s, whose declaration is not in the package's Go files", obj.Name())
	}
	if fd.Body == nil {
		g.failAt(fd, "function %s has no body (assembly is not translated)", obj.Name())
	}
	sig := obj.Type().(*types.Signature)
	if sig.Results().Len() != 1 {
		g.failAt(fd, "function %s returns %d results (a function device code calls returns one)", obj.Name(), sig.Results().Len())
	}
	if sig.Results().At(0).Name() != "" {
		g.failAt(fd.Type.Results, "function %s has a named result (return the value instead)", obj.Name())
	}
	name := "vp_fn_" + obj.Name()
	if !asciiIdent(obj.Name()) {
		name = fmt.Sprintf("vp_fn_%d", len(g.funcFor)+1)
	}
	df := &devFunc{obj: obj, name: name}
	g.funcFor[obj] = df
	f := &fn{g: g, method: obj.Name(), names: map[types.Object]string{}, used: map[string]bool{}, vertex: map[types.Object]bool{}}
	params := f.params(fd)
	var nodes []ast.Node // each parameter's type expression
	for _, fl := range fd.Type.Params.List {
		nodes = append(nodes, fl.Type)
		for i := 1; i < len(fl.Names); i++ {
			nodes = append(nodes, fl.Type)
		}
	}
	cparams := make([]string, len(params))
	for i, o := range params {
		ct := f.ctype(nodes[i], sig.Params().At(i).Type())
		nm := ""
		if o != nil {
			nm = f.name(o)
		} else {
			nm = f.fresh(fmt.Sprintf("vp_arg%d", i))
		}
		cparams[i] = ct + " " + nm
	}
	f.result = sig.Results().At(0).Type()
	res := f.ctype(fd.Type.Results.List[0].Type, f.result)
	f.ind = 1
	f.block(fd.Body.List)
	if !terminates(fd.Body.List) {
		panic(&Error{Pos: g.pkg.Fset.Position(fd.Body.Rbrace), Method: obj.Name(), Msg: "the body must end in a return on every path (no panics)"})
	}
	df.src = fmt.Sprintf("__device__ __forceinline__ %s %s(%s) {\n%s}\n", res, name, strings.Join(cparams, ", "), f.b.String())
	df.done = true
	g.funcs = append(g.funcs, df)
	return df
}

// funcDecls defines the translated functions, callees first.
func (g *gen) funcDecls() string {
	var b strings.Builder
	for _, df := range g.funcs {
		b.WriteString(df.src)
	}
	return b.String()
}
