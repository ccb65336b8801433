package fanout

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Imports: the names under which a fix refers to par and context, and the
// edits that add or drop imports.

// importName returns the name under which file can refer to path at pos,
// and whether an import must be added; "" when the name is taken.
func (ps *pass) importName(file *ast.File, path, name string, pos token.Pos) (string, bool) {
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != path {
			continue
		}
		if imp.Name != nil {
			if imp.Name.Name == "_" || imp.Name.Name == "." {
				continue
			}
			name = imp.Name.Name
		}
		if obj := lookup(ps.Pkg, file, name, pos); obj != nil {
			if pn, ok := obj.(*types.PkgName); ok && pn.Imported().Path() == path {
				return name, false
			}
			return "", false
		}
		return name, false
	}
	if obj := lookup(ps.Pkg, file, name, pos); obj != nil {
		return "", false
	}
	return name, true
}

// isStd reports whether a quoted import path is a standard package's.
func isStd(quoted string) bool {
	p, _ := strconv.Unquote(quoted)
	return !strings.Contains(strings.Split(p, "/")[0], ".")
}

func lookup(pkg *types.Package, file *ast.File, name string, pos token.Pos) types.Object {
	scope := pkg.Scope().Innermost(pos)
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent(name, pos)
	return obj
}

// importEdits adds the paths in add and removes the imports of sync and
// errgroup when no use of them remains outside removed.
func (ps *pass) importEdits(file *ast.File, src []byte, tf *token.File, add []string, removed []span) []analysis.TextEdit {
	var edits []analysis.TextEdit
	drop := map[*ast.ImportSpec]bool{}
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != "sync" && p != errgroupPath {
			continue
		}
		if imp.Name != nil && (imp.Name.Name == "_" || imp.Name.Name == ".") {
			continue
		}
		used := false
		for id, obj := range ps.TypesInfo.Uses {
			pn, ok := obj.(*types.PkgName)
			if !ok || pn.Imported().Path() != p || ps.Fset.File(id.Pos()) != tf {
				continue
			}
			off := tf.Offset(id.Pos())
			in := false
			for _, r := range removed {
				if r.s <= off && off < r.e {
					in = true
				}
			}
			if !in {
				used = true
			}
		}
		if !used {
			drop[imp] = true
		}
	}
	var quoted []string
	for _, a := range add {
		quoted = append(quoted, strconv.Quote(a))
	}
	added := len(quoted) == 0
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		if !g.Lparen.IsValid() {
			spec := g.Specs[0].(*ast.ImportSpec)
			switch {
			case drop[spec] && !added:
				if len(quoted) == 1 {
					edits = append(edits, analysis.TextEdit{Pos: spec.Pos(), End: spec.End(), NewText: []byte(quoted[0])})
				} else {
					edits = append(edits, analysis.TextEdit{Pos: g.Pos(), End: g.End(), NewText: []byte("import (\n\t" + strings.Join(quoted, "\n\t") + "\n)")})
				}
				added = true
			case drop[spec]:
				p, e := lineSpan(src, tf, g.Pos(), g.End())
				edits = append(edits, analysis.TextEdit{Pos: p, End: e})
			case !added:
				edits = append(edits, analysis.TextEdit{Pos: g.End(), End: g.End(), NewText: []byte("\nimport " + strings.Join(quoted, "\nimport "))})
				added = true
			}
			continue
		}
		var keep *ast.ImportSpec
		for _, s := range g.Specs {
			if !drop[s.(*ast.ImportSpec)] && keep == nil {
				keep = s.(*ast.ImportSpec)
			}
		}
		first := true
		for _, s := range g.Specs {
			spec := s.(*ast.ImportSpec)
			if !drop[spec] {
				continue
			}
			if !added && keep == nil && first {
				edits = append(edits, analysis.TextEdit{Pos: spec.Pos(), End: spec.End(), NewText: []byte(strings.Join(quoted, "\n\t"))})
				added = true
				first = false
				continue
			}
			p, e := lineSpan(src, tf, spec.Pos(), spec.End())
			edits = append(edits, analysis.TextEdit{Pos: p, End: e})
		}
		if !added && keep != nil {
			// Standard packages join the last standard import; others go
			// after the last import, in a group of their own when that one
			// is standard.
			var lastStd, last *ast.ImportSpec
			for _, s := range g.Specs {
				spec := s.(*ast.ImportSpec)
				if drop[spec] {
					continue
				}
				last = spec
				if isStd(spec.Path.Value) {
					lastStd = spec
				}
			}
			var stdText, otherText string
			for _, q := range quoted {
				if isStd(q) && lastStd != nil {
					stdText += "\n\t" + q
				} else if isStd(last.Path.Value) {
					otherText += "\n\n\t" + q
				} else {
					otherText += "\n\t" + q
				}
			}
			if lastStd == last {
				edits = append(edits, analysis.TextEdit{Pos: last.End(), End: last.End(), NewText: []byte(stdText + otherText)})
			} else {
				if stdText != "" {
					edits = append(edits, analysis.TextEdit{Pos: lastStd.End(), End: lastStd.End(), NewText: []byte(stdText)})
				}
				if otherText != "" {
					edits = append(edits, analysis.TextEdit{Pos: last.End(), End: last.End(), NewText: []byte(otherText)})
				}
			}
			added = true
		}
	}
	if !added {
		edits = append(edits, analysis.TextEdit{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport (\n\t" + strings.Join(quoted, "\n\t") + "\n)")})
	}
	return edits
}

// scopeLookup resolves name at pos, as the code there would.
func scopeLookup(pkg *types.Package, pos token.Pos, name string) types.Object {
	sc := pkg.Scope().Innermost(pos)
	if sc == nil {
		return types.Universe.Lookup(name)
	}
	_, obj := sc.LookupParent(name, pos)
	return obj
}

// added returns the imports a fix adds: par, context, as needed.
func added(par, ctx bool) []string {
	var add []string
	if par {
		add = append(add, parPath)
	}
	if ctx {
		add = append(add, "context")
	}
	return add
}
