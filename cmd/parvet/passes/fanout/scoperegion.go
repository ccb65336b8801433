package fanout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// What the region of a scope fan-out (scope.go) may hold: it becomes a
// function body, so it must not leave the function or declare what
// follows the Wait; the local functions it calls may spawn.

// regionLeaves says why the region cannot become a function body: it
// returns, defers, jumps out, or declares what follows the Wait uses.
func (ps *pass) regionLeaves(sf *scopeFan) string {
	why := ""
	var walk func(n ast.Node, loops int, labels map[string]bool)
	walk = func(n ast.Node, loops int, labels map[string]bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if why != "" || m == n {
				return why == ""
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				why = "the statements up to the Wait return"
			case *ast.DeferStmt:
				why = "the statements up to the Wait defer a call"
			case *ast.LabeledStmt:
				l := map[string]bool{m.Label.Name: true}
				for k := range labels {
					l[k] = true
				}
				walk(m.Stmt, loops, l)
				return false
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				walk(m, loops+1, labels)
				return false
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.GOTO:
					why = "the statements up to the Wait use goto"
				case m.Label != nil && !labels[m.Label.Name], m.Label == nil && m.Tok != token.FALLTHROUGH && loops == 0:
					why = "the statements up to the Wait break out of them"
				}
			}
			return why == ""
		})
	}
	for _, r := range sf.region {
		walk(&ast.BlockStmt{List: []ast.Stmt{r}}, 0, nil)
	}
	if why != "" {
		return why
	}
	region := sf.regionNode()
	for id, obj := range ps.TypesInfo.Defs {
		v, ok := obj.(*types.Var)
		if !ok || !within(region, id.Pos()) {
			continue
		}
		if ps.usedOutside(v, []ast.Node{region}) {
			return fmt.Sprintf("the statements up to the Wait declare %s, used after it", v.Name())
		}
	}
	return ""
}

// loopVars returns the variables a loop statement declares.
func loopVars(info *types.Info, l ast.Node) []*types.Var {
	var ids []ast.Expr
	switch l := l.(type) {
	case *ast.ForStmt:
		if as, ok := l.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			ids = as.Lhs
		}
	case *ast.RangeStmt:
		if l.Tok == token.DEFINE {
			ids = []ast.Expr{l.Key, l.Value}
		}
	}
	var out []*types.Var
	for _, e := range ids {
		if id, ok := e.(*ast.Ident); ok {
			if v, ok := info.Defs[id].(*types.Var); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// scopeHelpers returns the function literals of the region assigned to a
// variable that is only called, within the region (a walk function that
// its tasks call): they run while the scope does, on the body or a task,
// so they may spawn.
func (ps *pass) scopeHelpers(sf *scopeFan) map[*ast.FuncLit]bool {
	info := ps.TypesInfo
	region := sf.regionNode()
	lits := map[*types.Var]*ast.FuncLit{}
	lhs := map[*ast.Ident]bool{}
	called := map[*ast.Ident]bool{}
	for _, r := range sf.region {
		ast.Inspect(r, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) != 1 || len(n.Rhs) != 1 {
					return true
				}
				lit, ok := ast.Unparen(n.Rhs[0]).(*ast.FuncLit)
				id, ok2 := n.Lhs[0].(*ast.Ident)
				if v, ok3 := info.ObjectOf(id).(*types.Var); ok && ok2 && ok3 && lits[v] == nil {
					lits[v] = lit
					lhs[id] = true
				}
			case *ast.CallExpr:
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
					called[id] = true
				}
			}
			return true
		})
	}
	out := map[*ast.FuncLit]bool{}
	for v, lit := range lits {
		ok := true
		for id, obj := range info.Uses {
			if obj == v && (!within(region, id.Pos()) || !called[id] && !lhs[id]) {
				ok = false
			}
		}
		if ok {
			out[lit] = true
		}
	}
	return out
}
