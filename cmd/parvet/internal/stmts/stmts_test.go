package stmts

import (
	"go/ast"
	"go/parser"
	"testing"
)

func TestList(t *testing.T) {
	e, err := parser.ParseExpr(`func() { a(); switch { case true: b(); c() }; select { default: d() } }`)
	if err != nil {
		t.Fatal(err)
	}
	var lens []int
	ast.Inspect(e, func(n ast.Node) bool {
		if l, ok := List(n); ok {
			lens = append(lens, len(l))
		}
		return true
	})
	// The body (a(), switch, select), the switch's block, its case (b(), c()),
	// the select's block, its clause (d()).
	want := []int{3, 1, 2, 1, 1}
	if len(lens) != len(want) {
		t.Fatalf("lists %v, want lengths %v", lens, want)
	}
	for i := range want {
		if lens[i] != want[i] {
			t.Fatalf("lists %v, want lengths %v", lens, want)
		}
	}
	if _, ok := List(&ast.Ident{Name: "x"}); ok {
		t.Error("an identifier holds a statement list")
	}
}
