package fanout

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The variables of a matched loop: counting loops, parameters, free
// variables and assignments.

func kindName(t types.Type) string {
	switch t.(type) {
	case *types.Chan:
		return "channel"
	case *types.Signature:
		return "function iterator"
	}
	return t.String()
}

func isIntType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Int || ok && b.Kind() == types.UntypedInt
}

func isPureCount(info *types.Info, loop ast.Stmt) bool {
	switch l := loop.(type) {
	case *ast.RangeStmt:
		return pure(info, l.X)
	case *ast.ForStmt:
		return true // countingLoop checked it
	}
	return false
}

// countingLoop recognises for i := 0; i < n; i++ with n pure and i not
// assigned in the body.
func (ps *pass) countingLoop(l *ast.ForStmt) (*types.Var, string, string) {
	info := ps.TypesInfo
	init, ok := l.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return nil, "", "the loop is not a counting loop from 0"
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return nil, "", "the loop is not a counting loop from 0"
	}
	iv, _ := info.Defs[id].(*types.Var)
	if lit, ok := init.Rhs[0].(*ast.BasicLit); !ok || lit.Value != "0" || iv == nil || !isIntType(iv.Type()) {
		return nil, "", "the loop is not a counting loop from 0 over ints"
	}
	post, ok := l.Post.(*ast.IncDecStmt)
	if !ok || post.Tok != token.INC || rootObj(info, post.X) != iv {
		return nil, "", "the loop does not count up by one"
	}
	cond, ok := l.Cond.(*ast.BinaryExpr)
	if !ok || cond.Op != token.LSS || rootObj(info, cond.X) != iv {
		return nil, "", "the loop's condition is not i < n"
	}
	if !pure(info, cond.Y) {
		return nil, "", "the loop's bound has calls"
	}
	if ps.assignedIn(l.Body, iv) {
		return nil, "", "the loop body assigns the index"
	}
	for _, m := range freeVars(info, cond.Y) {
		if ps.assignedIn(l.Body, m) {
			return nil, "", "the loop body changes the bound"
		}
	}
	return iv, ps.text(cond.Y), ""
}

// paramsOf returns the parameters and results of every function in file.
func (ps *pass) paramsOf(file *ast.File) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if ft, ok := n.(*ast.FuncType); ok {
			for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
				if fl == nil {
					continue
				}
				for _, f := range fl.List {
					for _, id := range f.Names {
						if v, ok := ps.TypesInfo.Defs[id].(*types.Var); ok {
							out[v] = true
						}
					}
				}
			}
		}
		return true
	})
	return out
}

func freeVars(info *types.Info, e ast.Node) []*types.Var {
	var out []*types.Var
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				out = append(out, v)
			}
		}
		return true
	})
	return out
}

func (ps *pass) assignedIn(n ast.Node, v *types.Var) bool {
	if v == nil {
		return false
	}
	found := false
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && ps.TypesInfo.Uses[id] == v
	}
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				if is(l) {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if is(m.X) {
				found = true
			}
		case *ast.UnaryExpr:
			if m.Op == token.AND && is(m.X) {
				found = true
			}
		case *ast.RangeStmt:
			if m.Tok == token.ASSIGN && (m.Key != nil && is(m.Key) || m.Value != nil && is(m.Value)) {
				found = true
			}
		}
		return !found
	})
	return found
}

func (ps *pass) mentionsName(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// leftUnused returns the name of a local variable that deleting the nodes
// in deleted, and writing newText in their place, would leave unused (a
// limit, a count passed to wg.Add), or "".
func (ps *pass) leftUnused(file *ast.File, deleted []ast.Node, newText string) string {
	params := ps.paramsOf(file)
	for _, dn := range deleted {
		for _, v := range freeVars(ps.TypesInfo, dn) {
			if v.Parent() == nil || v.Parent() == ps.Pkg.Scope() || params[v] || v.Name() == "_" {
				continue
			}
			inside := false
			for _, d := range deleted {
				if within(d, v.Pos()) {
					inside = true
				}
			}
			if inside || ps.usedOutside(v, deleted) || mentionsWord(newText, v.Name()) {
				continue
			}
			return v.Name()
		}
	}
	return ""
}
