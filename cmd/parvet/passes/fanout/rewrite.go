package fanout

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Rewriting: the suggested fix that turns a matched loop into a par verb.

func (ps *pass) rewrite(file *ast.File, fl *fanLoop, verb string) {
	info := ps.TypesInfo
	src, tf := ps.source(fl.loop.Pos())
	loop := fl.loop
	body := loopBody(loop)
	report := func(msg string) {
		ps.Report(analysis.Diagnostic{Pos: loop.Pos(), End: body.Lbrace, Category: "fanout", Message: msg})
	}
	if src == nil {
		report(fmt.Sprintf("fan-out loop: %s could replace the goroutines (source unavailable for a fix)", verb))
		return
	}

	// Blocking?
	ignore := map[types.Object]bool{}
	if fl.sem != nil {
		ignore[fl.sem] = true
	}
	blockWhy := ps.nodeBlocks(fl.lit.Body, ignore)
	// A recursive fan-out (the goroutines call the function that starts
	// them): the call blocks on its own level's Wait, which the rewrite
	// removes, so the function is judged by the rest of its body.
	self, selfDecl := ps.enclosingFunc(file, loop.Pos())
	recursive := self != nil && ps.calls(fl.lit.Body, self)
	if recursive {
		blockWhy = ps.blocksBesides(selfDecl.Body, self, []*ast.CallExpr{fl.wait}, ignore)
	}

	// A package that checks for leaked goroutines would report the pool's
	// workers, which a plain par.For starts and which outlive the call
	// (par.Blocking runs its bodies on goroutines of their own, and ends them).
	if blockWhy == "" {
		if lc := ps.leakChecker(); lc != "" {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the package checks for leaked goroutines with %s, which would report parloop's pool workers (they outlive the call); tell the checker to ignore them first", verb, lc))
			return
		}
	}

	// The count and the index.
	var n, idx, valueDef, rangeX string
	var valueVar, keyVar *types.Var
	taken := map[string]bool{}
	ast.Inspect(loop, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok {
			taken[id.Name] = true
		}
		return true
	})
	if fl.ctxVar != nil {
		taken[fl.ctxVar.Name()] = true
	}
	fresh := func() string {
		for _, c := range []string{"i", "idx", "j", "k", "n"} {
			if !taken[c] {
				return c
			}
		}
		for k := 0; ; k++ {
			c := "i" + strconv.Itoa(k)
			if !taken[c] {
				return c
			}
		}
	}
	switch l := loop.(type) {
	case *ast.RangeStmt:
		if l.Tok == token.ASSIGN {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the range statement assigns existing variables", verb))
			return
		}
		t := info.TypeOf(l.X)
		if t == nil {
			return
		}
		u := t.Underlying()
		if p, ok := u.(*types.Pointer); ok {
			u = p.Elem().Underlying()
		}
		if id, ok := l.Key.(*ast.Ident); ok && id.Name != "_" {
			keyVar, _ = info.Defs[id].(*types.Var)
			idx = id.Name
		}
		if id, ok := l.Value.(*ast.Ident); ok && id.Name != "_" {
			valueVar, _ = info.Defs[id].(*types.Var)
		}
		switch u := u.(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger == 0 {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: it ranges over a string", verb))
				return
			}
			n = ps.text(l.X)
			if !isIntType(t) {
				n = "int(" + n + ")"
				if keyVar != nil {
					report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the index is not an int", verb))
					return
				}
			}
		case *types.Slice, *types.Array:
			if !pure(info, l.X) {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the ranged expression has calls", verb))
				return
			}
			n = "len(" + ps.text(l.X) + ")"
		case *types.Map:
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: it ranges over a map (collect the keys into a slice first)", verb))
			return
		default:
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: it ranges over a %s", verb, kindName(u)))
			return
		}
		if idx == "" {
			idx = fresh()
		}
		rangeX = ps.text(l.X)
	case *ast.ForStmt:
		iv, count, why := ps.countingLoop(l)
		if why != "" {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: %s", verb, why))
			return
		}
		keyVar, idx, n = iv, iv.Name(), count
	}
	taken[idx] = true
	fold := ps.foldPlan(file, fl, blockWhy, taken) // nil: no merge under a mutex

	// Parameters of go func(...) {...}(args): a parameter passed the
	// variable of its own name needs nothing (the new body has that
	// variable); others become local variables, when the body uses them.
	defined := map[string]bool{idx: true}
	if valueVar != nil {
		defined[valueVar.Name()] = true
	}
	for _, s := range fl.loopKeep {
		for _, l := range s.(*ast.AssignStmt).Lhs {
			defined[l.(*ast.Ident).Name] = true
		}
	}
	var paramDefs []string
	var paramArgs []ast.Expr
	identityUsed := map[string]bool{}
	if fl.goCall != nil {
		params := paramVars(info, fl.lit)
		assigned := map[string]bool{}
		for k, p := range params {
			arg := fl.goCall.Args[k]
			var pv *types.Var
			if p != nil {
				pv, _ = info.Defs[p].(*types.Var)
			}
			if pv == nil || p.Name == "_" || !ps.mentions(fl.lit.Body, pv, nil) {
				if !pure(info, arg) {
					paramDefs = append(paramDefs, "_ = "+ps.text(arg))
					paramArgs = append(paramArgs, arg)
				}
				continue
			}
			if a, ok := ast.Unparen(arg).(*ast.Ident); ok && a.Name == p.Name && !ps.assignedIn(fl.lit.Body, pv) {
				identityUsed[p.Name] = true
				continue // go func(x T) {...}(x)
			}
			if defined[p.Name] || (fl.ctxVar != nil && p.Name == fl.ctxVar.Name()) {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine's parameter %s shadows a loop variable", verb, p.Name))
				return
			}
			for name := range assigned {
				if ps.mentionsName(arg, name) {
					report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine's arguments refer to its parameters' names", verb))
					return
				}
			}
			assigned[p.Name] = true
			paramDefs = append(paramDefs, p.Name+" := "+ps.text(arg))
			paramArgs = append(paramArgs, arg)
		}
	}

	// Which of the loop's variables the new body needs: those the goroutine
	// uses, directly or through its parameters, and those the needed
	// definitions use. Unneeded ones are not declared (they would be unused).
	needed := func(v *types.Var) bool {
		if v == nil {
			return false
		}
		if ps.mentions(fl.lit.Body, v, nil) || identityUsed[v.Name()] {
			return true
		}
		for _, a := range paramArgs {
			if ps.mentions(a, v, nil) {
				return true
			}
		}
		return false
	}
	keepNeeded := make([]bool, len(fl.loopKeep))
	for round := 0; round < len(fl.loopKeep)+1; round++ {
		for k, s := range fl.loopKeep {
			if keepNeeded[k] {
				continue
			}
			for _, l := range s.(*ast.AssignStmt).Lhs {
				v, _ := info.Defs[l.(*ast.Ident)].(*types.Var)
				if needed(v) {
					keepNeeded[k] = true
				}
				for k2, s2 := range fl.loopKeep {
					if keepNeeded[k2] && k2 > k && ps.mentions(s2.(*ast.AssignStmt), v, nil) {
						keepNeeded[k] = true
					}
				}
			}
		}
	}
	var keepText []string
	for k, s := range fl.loopKeep {
		as := s.(*ast.AssignStmt)
		ident := true
		for j, l := range as.Lhs {
			r, ok := as.Rhs[j].(*ast.Ident)
			if !ok || r.Name != l.(*ast.Ident).Name {
				ident = false
			}
		}
		if keepNeeded[k] && !ident {
			keepText = append(keepText, ps.text(s))
		}
	}
	if valueVar != nil {
		need := needed(valueVar)
		for k, s := range fl.loopKeep {
			if keepNeeded[k] && ps.mentions(s, valueVar, nil) {
				need = true
			}
		}
		if need {
			valueDef = valueVar.Name() + " := " + rangeX + "[" + idx + "]"
		}
	}

	// The body's own top-level declarations must not clash with the names
	// the new body declares ahead of them (they shared no scope before).
	for _, st := range fl.lit.Body.List {
		var names []*ast.Ident
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						names = append(names, id)
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok {
				for _, sp := range g.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						names = append(names, sp.Names...)
					case *ast.TypeSpec:
						names = append(names, sp.Name)
					}
				}
			}
		}
		for _, id := range names {
			clash := defined[id.Name]
			for _, pd := range paramDefs {
				if strings.HasPrefix(pd, id.Name+" := ") {
					clash = true
				}
			}
			if fl.ctxVar != nil && id.Name == fl.ctxVar.Name() {
				clash = true
			}
			if clash {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine declares %s again", verb, id.Name))
				return
			}
		}
	}

	// Context for errgroup bodies.
	var ctxArg, ctxParam string
	if fl.kind == "errgroup" {
		ctxParam = "_"
		ctxArg = "context.Background()"
		if fl.ctxVar != nil {
			ctxArg = ps.text(fl.parent)
			if ps.mentions(fl.lit.Body, fl.ctxVar, nil) {
				ctxParam = fl.ctxVar.Name()
			}
		}
	}

	// Names the new code needs.
	parName, parImport := ps.importName(file, parPath, "par", fl.wait.Pos())
	if parName == "" {
		report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the name par is taken", verb))
		return
	}
	ctxName, ctxImport := "", false
	if fl.kind == "errgroup" {
		ctxName, ctxImport = ps.importName(file, "context", "context", fl.wait.Pos())
		if ctxName == "" {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the name context is taken", verb))
			return
		}
		ctxArg = strings.Replace(ctxArg, "context.", ctxName+".", 1)
	}

	// Option for blocking bodies.
	opt := ""
	var blockingLimit string
	if blockWhy != "" {
		switch {
		case fl.limit != nil:
			// Evaluated once, as make or SetLimit evaluated it.
			blockingLimit = ps.text(fl.limit)
		case isPureCount(info, loop):
			// One goroutine per item, but at least 1: par.Blocking(0)
			// panics, and a loop over no items ran no goroutine (loki's
			// executor pipelines open zero inputs).
			blockingLimit = n
			if k, err := strconv.Atoi(n); err != nil || k < 1 {
				if fv := info.FileVersions[file]; fv != "" && version.Compare(fv, "go1.21") < 0 {
					report(fmt.Sprintf("fan-out loop whose body blocks (%s): use %s with %s.Blocking(max(1, %s)); no fix is offered: the file's Go version has no max", blockWhy, verb, parName, n))
					return
				}
				if obj := scopeLookup(ps.Pkg, fl.wait.Pos(), "max"); obj != types.Universe.Lookup("max") {
					report(fmt.Sprintf("fan-out loop whose body blocks (%s): use %s with %s.Blocking(max(1, %s)); no fix is offered: the name max is taken", blockWhy, verb, parName, n))
					return
				}
				blockingLimit = "max(1, " + n + ")"
			}
		default:
			report(fmt.Sprintf("fan-out loop whose body blocks (%s): use %s with %s.Blocking(k) rather than a plain %s; no fix is offered: the count has calls", blockWhy, verb, parName, verb))
			return
		}
		opt = ", " + parName + ".Blocking(" + blockingLimit + ")"
	}

	// The body's text, less the dropped statements.
	indent := indentOf(src, tf, fl.waitStmt.Pos())
	inner := indent + "\t"
	bodyDel, bodyIndent := fl.bodyDel, inner
	if fold != nil {
		bodyDel = append(slices.Clone(bodyDel), fold.drop...)
		bodyIndent += "\t" // inside Fold's loop over the piece
	}
	bs, be := tf.Offset(fl.lit.Body.Lbrace)+1, tf.Offset(fl.lit.Body.Rbrace)
	var drops []span
	for _, d := range bodyDel {
		p, e := lineSpan(src, tf, d.Pos(), d.End())
		drops = append(drops, span{tf.Offset(p), tf.Offset(e)})
	}
	sort.Slice(drops, func(a, b int) bool { return drops[a].s < drops[b].s })
	var bodyText bytes.Buffer
	cur := bs
	for _, d := range drops {
		if d.s < cur {
			continue
		}
		bodyText.Write(src[cur:d.s])
		cur = d.e
	}
	bodyText.Write(src[cur:be])
	oldInner := indentOf(src, tf, fl.lit.Pos()) + "\t"
	bodyStr := reindent(bodyText.String(), oldInner, bodyIndent, ps.rawStrings(fl.lit.Body, bs))

	// Comments in the loop body outside the goroutine's body come along.
	var comments []string
	for _, cg := range file.Comments {
		if cg.Pos() > body.Lbrace && cg.End() < body.Rbrace && !(cg.Pos() >= fl.lit.Body.Lbrace && cg.End() <= fl.lit.Body.Rbrace) {
			if p, _ := lineSpan(src, tf, cg.Pos(), cg.End()); p != cg.Pos() || indentOf(src, tf, cg.Pos()) == "" {
				comments = append(comments, strings.TrimSpace(ps.text(cg)))
			}
		}
	}

	var b strings.Builder
	if fold != nil {
		fold.open(&b, parName, n, idx, inner)
	} else if fl.kind == "errgroup" {
		results := "error"
		if res := fl.lit.Type.Results; res != nil && len(res.List) == 1 && len(res.List[0].Names) == 1 {
			// func() (err error): keep the named result.
			name := res.List[0].Names[0].Name
			if name == idx || name == ctxParam || defined[name] {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine's result %s shadows a loop variable", verb, name))
				return
			}
			results = ps.text(res)
		}
		fmt.Fprintf(&b, "%s.ForErr(%s, %s, func(%s %s.Context, %s int) %s {\n", parName, ctxArg, n, ctxParam, ctxName, idx, results)
	} else {
		fmt.Fprintf(&b, "%s.For(%s, func(%s int) {\n", parName, n, idx)
	}
	var prelude []string
	prelude = append(prelude, comments...)
	if valueDef != "" {
		prelude = append(prelude, valueDef)
	}
	prelude = append(prelude, keepText...)
	prelude = append(prelude, paramDefs...)
	for _, l := range prelude {
		b.WriteString(bodyIndent + l + "\n")
	}
	bodyStr = strings.TrimLeft(bodyStr, " \t")
	bodyStr = strings.TrimPrefix(bodyStr, "\n")
	bodyStr = strings.TrimRight(bodyStr, " \t")
	if bodyStr != "" && !strings.HasSuffix(bodyStr, "\n") {
		bodyStr += "\n"
	}
	if strings.TrimSpace(bodyStr) != "" && !strings.HasPrefix(bodyStr, bodyIndent) && !strings.HasPrefix(bodyStr, "\n") {
		bodyStr = bodyIndent + bodyStr
	}
	b.WriteString(bodyStr)
	if fold != nil {
		fold.close(&b, indent, inner)
	} else {
		b.WriteString(indent + "}" + opt + ")")
	}

	// Removing the loop must not leave a local variable unused (a limit,
	// a count passed to wg.Add).
	newText := b.String()
	deleted := []ast.Node{fl.groupDel, loop, fl.wait}
	if fold != nil && fold.muDecl != nil {
		deleted = append(deleted, fold.muDecl)
	}
	for _, s := range fl.extraDel {
		deleted = append(deleted, s)
	}
	if v := ps.leftUnused(file, deleted, newText); v != "" {
		report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the rewrite would leave %s unused", verb, v))
		return
	}

	// Edits.
	var edits []analysis.TextEdit
	del := func(n ast.Node) {
		p, e := lineSpan(src, tf, n.Pos(), n.End())
		edits = append(edits, analysis.TextEdit{Pos: p, End: e})
	}
	del(fl.groupDel)
	for _, s := range fl.extraDel {
		del(s)
	}
	del(loop)
	if fold != nil && fold.muDecl != nil {
		del(fold.muDecl)
	}
	edits = append(edits, analysis.TextEdit{Pos: fl.wait.Pos(), End: fl.wait.End(), NewText: []byte(b.String())})

	var removed []span
	for _, e := range edits {
		removed = append(removed, span{tf.Offset(e.Pos), tf.Offset(e.End)})
	}
	edits = append(edits, ps.importEdits(file, src, tf, added(parImport, ctxImport), removed)...)

	// Message.
	what := map[string]string{"WaitGroup": "a goroutine per item and a WaitGroup", "WaitGroup.Go": "wg.Go per item", "errgroup": "errgroup.Go per item"}[fl.kind]
	if fl.sem != nil {
		what += " limited by a semaphore channel"
	} else if fl.limit != nil {
		what += " with SetLimit"
	}
	var msg, title string
	call := verb + "(" + n + ", ...)"
	if fl.kind == "errgroup" {
		call = verb + "(ctx, " + n + ", ...)"
	}
	if fold != nil {
		msg = fmt.Sprintf("fan-out loop (%s) merges its results into %s under %s: rewrite it as %s.Fold(%s, ...), which gives each worker its own %s and merges them at the end, with no lock per item", what, fold.acc.Name(), fold.mu, parName, n, fold.what())
		title = "Rewrite with " + parName + ".Fold"
	} else if blockWhy != "" {
		msg = fmt.Sprintf("fan-out loop (%s) whose body blocks (%s): rewrite it as %s with %s.Blocking(%s), which runs blocking bodies on goroutines of their own, not a plain %s", what, blockWhy, call, parName, blockingLimit, verb)
		title = fmt.Sprintf("Rewrite with %s and %s.Blocking(%s)", verb, parName, blockingLimit)
	} else {
		msg = fmt.Sprintf("fan-out loop (%s) can be %s: the body does not block", what, call)
		if fl.limit != nil {
			msg += "; the goroutine limit is dropped, the pool bounds the parallelism"
		}
		title = "Rewrite with " + verb
	}
	switch {
	case recursive && blockWhy != "":
		msg = "recursive " + msg + fmt.Sprintf(" (%s calls itself in the goroutines, a WaitGroup per level, and blocks besides: each level's bodies keep goroutines of their own, as many as par.Blocking allows)", self.Name())
	case recursive:
		msg = "recursive " + msg + fmt.Sprintf(" (%s calls itself in the goroutines, a WaitGroup per level: nested %s calls share the pool's workers instead of a goroutine per node)", self.Name(), verb)
	}
	if fv := info.FileVersions[file]; fv != "" && version.Compare(fv, "go1.22") < 0 {
		for _, v := range []*types.Var{keyVar, valueVar} {
			if v != nil && ps.mentions(fl.lit, v, nil) {
				msg += fmt.Sprintf(" (below Go 1.22 the goroutines share the loop variable %s; the body's own copy fixes that)", v.Name())
				break
			}
		}
	}
	ps.Report(analysis.Diagnostic{
		Pos:            loop.Pos(),
		End:            body.Lbrace,
		Category:       "fanout",
		Message:        msg,
		SuggestedFixes: []analysis.SuggestedFix{{Message: title, TextEdits: edits}},
	})
}
