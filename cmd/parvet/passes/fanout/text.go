package fanout

import (
	"go/ast"
	"go/token"
	"strings"
)

// Source text: spans, indentation and raw strings of the file being
// rewritten.

func (ps *pass) source(pos token.Pos) ([]byte, *token.File) {
	tf := ps.Fset.File(pos)
	if b, ok := ps.src[tf]; ok {
		return b, tf
	}
	b, err := ps.ReadFile(tf.Name())
	if err != nil || len(b) != tf.Size() {
		b = nil
	}
	ps.src[tf] = b
	return b, tf
}

func (ps *pass) text(n ast.Node) string {
	src, tf := ps.source(n.Pos())
	return string(src[tf.Offset(n.Pos()):tf.Offset(n.End())])
}

// lineSpan widens [pos, end) to whole lines when nothing else is on them
// (a trailing comment goes too).
func lineSpan(src []byte, tf *token.File, pos, end token.Pos) (token.Pos, token.Pos) {
	s, e := tf.Offset(pos), tf.Offset(end)
	ls := s
	for ls > 0 && (src[ls-1] == ' ' || src[ls-1] == '\t') {
		ls--
	}
	if ls > 0 && src[ls-1] != '\n' {
		return pos, end
	}
	le := e
	for le < len(src) && (src[le] == ' ' || src[le] == '\t') {
		le++
	}
	if le+1 < len(src) && src[le] == '/' && src[le+1] == '/' {
		for le < len(src) && src[le] != '\n' {
			le++
		}
	}
	if le < len(src) && src[le] == '\n' {
		return tf.Pos(ls), tf.Pos(le + 1)
	}
	if le == len(src) {
		return tf.Pos(ls), tf.Pos(le)
	}
	return pos, end
}

func indentOf(src []byte, tf *token.File, pos token.Pos) string {
	off := tf.Offset(pos)
	ls := off
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	i := ls
	for i < off && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i])
}

type span struct{ s, e int }

// mentionsWord reports whether name occurs in text as a whole word.
func mentionsWord(text, name string) bool {
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !isWord(text[j-1])) && (j+len(name) == len(text) || !isWord(text[j+len(name)])) {
			return true
		}
		i = j + 1
	}
}

// rawStrings returns the byte ranges (relative to base) of multi-line raw
// strings, whose lines must not be reindented.
func (ps *pass) rawStrings(n ast.Node, base int) []span {
	var out []span
	tf := ps.Fset.File(n.Pos())
	ast.Inspect(n, func(m ast.Node) bool {
		if bl, ok := m.(*ast.BasicLit); ok && bl.Kind == token.STRING && strings.HasPrefix(bl.Value, "`") && strings.Contains(bl.Value, "\n") {
			out = append(out, span{tf.Offset(bl.Pos()) - base, tf.Offset(bl.End()) - base})
		}
		return true
	})
	return out
}

// reindent replaces the prefix old by new at the start of each line of s,
// except for lines that begin inside a raw string. raw holds offsets into
// the original text; drops before them shift it, so lines are matched by
// content: a line inside a raw string is left alone when its start falls in
// one of the ranges of the original text.
func reindent(s, old, new string, raw []span) string {
	if len(raw) > 0 {
		// Keep it simple and safe: leave the text as it is; gofmt fixes
		// the indentation of code, and raw strings keep theirs.
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, old) {
			lines[i] = new + l[len(old):]
		}
	}
	return strings.Join(lines, "\n")
}

// before is the span of the file up to n: uses of a reused context before
// errgroup.WithContext assigns it are the parent's.
type span0 struct{ end token.Pos }

func (s span0) Pos() token.Pos { return token.NoPos + 1 }
func (s span0) End() token.Pos { return s.end }

func before(n ast.Node) ast.Node { return span0{n.Pos()} }

func within(n ast.Node, pos token.Pos) bool {
	return n != nil && n.Pos() <= pos && pos < n.End()
}
