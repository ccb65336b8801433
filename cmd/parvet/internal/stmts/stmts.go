// Package stmts holds what the analyzers ask of the syntax tree.
package stmts

import (
	"go/ast"
	"go/types"
)

// IsBuiltin reports whether fun names the builtin function name (len,
// append, ...), not a function of that name in scope.
func IsBuiltin(info *types.Info, fun ast.Expr, name string) bool {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == name
}

// List returns the statement list that n holds directly (a block, or the
// body of a switch case or select clause), and whether it holds one.
func List(n ast.Node) ([]ast.Stmt, bool) {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List, true
	case *ast.CaseClause:
		return n.Body, true
	case *ast.CommClause:
		return n.Body, true
	}
	return nil, false
}
