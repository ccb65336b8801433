package parrace

import (
	"go/ast"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/parloop/parloop/cmd/parvet/internal/verbs"
)

// Wrappers: how a call runs its function arguments (par verbs, goroutine
// groups, and the package's own functions that run a parameter concurrently,
// exported as facts), and the check of one such call.

// specOf returns how call runs its function arguments, or nil.
func (c *checker) specOf(call *ast.CallExpr) *spec {
	fn, _ := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if v := verbs.Lookup(fn); v != nil {
		d := verbs.Display(fn)
		noun := " body"
		if v.Pkg == verbs.Iter {
			noun = " function" // a stage's or terminal's function
		}
		return &spec{args: v.Args, name: d, body: d + noun, via: d}
	}
	f := c.local[fn]
	if f == nil {
		var imp RunsConcurrently
		if fn.Pkg() != c.pass.Pkg && c.pass.ImportObjectFact(fn, &imp) {
			f = &imp
		}
	}
	if f == nil {
		return nil
	}
	name := fn.Name()
	if fn.Pkg() != c.pass.Pkg {
		name = verbs.Display(fn)
	}
	name += " (which runs it concurrently via " + f.Via + ")"
	return &spec{args: f.Args, name: name, body: "body passed to " + name, via: f.Via}
}

// findWrappers computes, to a fixed point, the package's functions that run
// a parameter concurrently, and exports them as facts.
func (c *checker) findWrappers(ins *inspector.Inspector) {
	var decls []*ast.FuncDecl
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil)}, func(n ast.Node) {
		if d := n.(*ast.FuncDecl); d.Body != nil {
			decls = append(decls, d)
		}
	})
	info := c.pass.TypesInfo
	for round := 0; round < 8; round++ {
		changed := false
		for _, d := range decls {
			fn, _ := info.Defs[d.Name].(*types.Func)
			if fn == nil || c.local[fn] != nil {
				continue
			}
			params := map[*types.Var]int{}
			k := 0
			for _, fld := range d.Type.Params.List {
				names := fld.Names
				if len(names) == 0 {
					k++
					continue
				}
				for _, id := range names {
					if v, ok := info.Defs[id].(*types.Var); ok {
						if _, isFunc := v.Type().Underlying().(*types.Signature); isFunc {
							params[v] = k
						} else if s, ok := v.Type().Underlying().(*types.Slice); ok {
							if _, ok := s.Elem().Underlying().(*types.Signature); ok {
								params[v] = k
							}
						}
					}
					k++
				}
			}
			if len(params) == 0 {
				continue
			}
			if sig := fn.Type().(*types.Signature); sig.Variadic() {
				delete(params, sig.Params().At(sig.Params().Len()-1))
			}
			var fact RunsConcurrently
			seen := map[int]bool{}
			ast.Inspect(d.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sp := c.specOf(call)
				if sp == nil {
					return true
				}
				for _, fa := range sp.args {
					if fa.Arg >= len(call.Args) {
						continue
					}
					a := ast.Unparen(call.Args[fa.Arg])
					if id, ok := a.(*ast.Ident); ok {
						if v, ok := info.Uses[id].(*types.Var); ok {
							if k, ok := params[v]; ok && !seen[k] {
								seen[k] = true
								nfa := fa
								nfa.Arg = k
								fact.Args = append(fact.Args, nfa)
								fact.Via = sp.via
							}
						}
						continue
					}
					lit, ok := a.(*ast.FuncLit)
					if !ok || fa.Kind != verbs.Loop || fa.Elems {
						continue
					}
					idx := indexVars(info, lit, fa)
					ast.Inspect(lit.Body, func(m ast.Node) bool {
						inner, ok := m.(*ast.CallExpr)
						if !ok {
							return true
						}
						id, ok := ast.Unparen(inner.Fun).(*ast.Ident)
						if !ok {
							return true
						}
						v, ok := info.Uses[id].(*types.Var)
						if !ok {
							return true
						}
						k, ok := params[v]
						if !ok || seen[k] {
							return true
						}
						if _, isFunc := v.Type().Underlying().(*types.Signature); !isFunc {
							return true
						}
						seen[k] = true
						nfa := verbs.FuncArg{Arg: k, Kind: verbs.Loop}
						for _, want := range idx {
							for j, arg := range inner.Args {
								if aid, ok := ast.Unparen(arg).(*ast.Ident); ok && info.Uses[aid] == want {
									nfa.Index = append(nfa.Index, j)
								}
							}
						}
						if fa.Range && len(nfa.Index) != 2 {
							nfa.Index = nil
						}
						nfa.Range = fa.Range && len(nfa.Index) == 2
						fact.Args = append(fact.Args, nfa)
						fact.Via = sp.via
						return true
					})
				}
				return true
			})
			if len(fact.Args) > 0 {
				sort.Slice(fact.Args, func(i, j int) bool { return fact.Args[i].Arg < fact.Args[j].Arg })
				f := fact
				c.local[fn] = &f
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for fn, f := range c.local {
		c.pass.ExportObjectFact(fn, f)
	}
}

// indexVars returns the index parameters of lit as fa describes them.
func indexVars(info *types.Info, lit *ast.FuncLit, fa verbs.FuncArg) []*types.Var {
	var params []*types.Var
	for _, fld := range lit.Type.Params.List {
		if len(fld.Names) == 0 {
			params = append(params, nil)
		}
		for _, id := range fld.Names {
			v, _ := info.Defs[id].(*types.Var)
			params = append(params, v)
		}
	}
	var out []*types.Var
	for _, i := range fa.Index {
		if i < len(params) && params[i] != nil {
			out = append(out, params[i])
		}
	}
	return out
}

// funcLitOf resolves a function argument to its literal.
func (c *checker) funcLitOf(e ast.Expr) *ast.FuncLit {
	switch e := ast.Unparen(e).(type) {
	case *ast.FuncLit:
		return e
	case *ast.Ident:
		if v, ok := c.pass.TypesInfo.Uses[e].(*types.Var); ok {
			return c.funcVar[v]
		}
	}
	return nil
}

func (c *checker) checkCall(call *ast.CallExpr, sp *spec) {
	var once []*ast.FuncLit
	onceOpaque := false
	for _, fa := range sp.args {
		if fa.Arg >= len(call.Args) {
			continue
		}
		arg := call.Args[fa.Arg]
		if fa.Elems {
			cl, ok := ast.Unparen(arg).(*ast.CompositeLit)
			if !ok {
				onceOpaque = true
				continue
			}
			for _, el := range cl.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				if lit := c.funcLitOf(el); lit != nil {
					once = append(once, lit)
				} else {
					onceOpaque = true
				}
			}
			continue
		}
		lit := c.funcLitOf(arg)
		if lit == nil {
			if fa.Kind == verbs.Once {
				onceOpaque = true
			}
			continue
		}
		if fa.Kind == verbs.Once {
			once = append(once, lit)
			continue
		}
		c.handled[lit] = true
		b := c.newBody(lit, lit, sp.body, sp.via)
		for _, v := range indexVars(c.pass.TypesInfo, lit, fa) {
			b.dep[v] = true
			b.inputs[v] = true
			b.index = append(b.index, v.Name())
		}
		b.rangeBody = fa.Range
		c.checks = append(c.checks, func() { b.checkLoop() })
	}
	_ = onceOpaque // opaque siblings cannot be inspected; only literal pairs are checked
	if len(once) > 1 {
		for _, lit := range once {
			c.handled[lit] = true
		}
		for i, lit := range once {
			var others []*ast.FuncLit
			for j, o := range once {
				if j != i {
					others = append(others, o)
				}
			}
			b := c.newBody(lit, lit, "function passed to "+sp.name, sp.via)
			b.siblings = others
			c.checks = append(c.checks, func() { b.checkLoop() })
		}
	}
}
