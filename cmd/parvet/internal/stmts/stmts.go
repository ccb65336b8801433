// Package stmts holds what both analyzers ask of the syntax tree.
package stmts

import "go/ast"

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
