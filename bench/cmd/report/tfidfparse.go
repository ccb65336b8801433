package main

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Reading examples/tfidf's output back: the runs kept in raw/tfidf.txt,
// each run's table and its builds' times by round.

// tfidfRun is one run of the example, as kept in raw/tfidf.txt.
type tfidfRun struct {
	corpus string // the tfidfCorpus's name
	head   string // the report's line about the run
	output string
	table  tfidfTable
	wall   roundTimes // every build's wall time, by round
	cpu    roundTimes // and its CPU time
}

// ok reports whether the run ended well and its table parsed.
func (r tfidfRun) ok() bool { return r.table.ok && strings.Contains(r.head, " | ok | ") }

// roundTimes are the example's times per round (-runs): ms[r][i] is
// round r's build with strategy names[i], in milliseconds.
type roundTimes struct {
	names []string
	ms    [][]float64
}

// of returns every round's time of strategy name (nil if it has none).
func (t roundTimes) of(name string) []float64 {
	i := slices.Index(t.names, name)
	if i < 0 {
		return nil
	}
	var out []float64
	for _, r := range t.ms {
		out = append(out, r[i])
	}
	return out
}

// tfidfTable is the table of -strategy all: the header line and the lines
// after it, one strategy each, the speedup of each, every cell by column,
// and the worker count the line before the header gives.
type tfidfTable struct {
	text       string // header and rows, verbatim
	strategies []string
	speedup    map[string]float64
	cells      map[string]map[string]string // cells[column, lowercased][strategy]
	workers    int                          // 0: not said
	ok         bool
}

// value reads strategy's cell in column as a number ("1.04", "95.6%" as
// 0.956); NaN if it has none.
func (t tfidfTable) value(column, strategy string) float64 {
	c := strings.TrimSpace(t.cells[column][strategy])
	scale := 1.0
	if v, ok := strings.CutSuffix(c, "%"); ok {
		c, scale = v, 0.01
	}
	v, err := strconv.ParseFloat(c, 64)
	if err != nil {
		return math.NaN()
	}
	return v * scale
}

// parseTFIDFRaw splits raw/tfidf.txt into runs; unavailable is the reason
// the example was not run, if it was not.
func parseTFIDFRaw(s string) (runs []tfidfRun, unavailable string) {
	var cur *tfidfRun
	corpus := "src"
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.output = body.String()
			cur.table = parseTFIDFTable(cur.output)
			cur.wall = parseTFIDFRounds(cur.output, "wall")
			cur.cpu = parseTFIDFRounds(cur.output, "CPU")
			runs = append(runs, *cur)
		}
		cur = nil
		body.Reset()
	}
	if rest, ok := strings.CutPrefix(s, tfidfMark+": not available at this commit: "); ok {
		return nil, strings.TrimSpace(rest)
	}
	for _, l := range strings.SplitAfter(s, "\n") {
		if rest, ok := strings.CutPrefix(l, tfidfMark+" run "); ok {
			flush()
			cur = &tfidfRun{corpus: corpus, head: strings.TrimSpace(rest)}
			continue
		}
		if rest, ok := strings.CutPrefix(l, tfidfMark+" corpus "); ok {
			flush()
			corpus, _, _ = strings.Cut(rest, ":")
			continue
		}
		if strings.HasPrefix(l, tfidfMark) {
			continue
		}
		if cur != nil {
			body.WriteString(l)
		}
	}
	flush()
	return runs, ""
}

// parseTFIDFRounds reads the block of -runs times that follows the line
// "build <what> times per round": a header "round <names...>", then a line
// per round, its number and a time (ms) per name.
func parseTFIDFRounds(out, what string) roundTimes {
	var t roundTimes
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "build "+what+" times per round") || i+1 >= len(lines) {
			continue
		}
		head := strings.Fields(lines[i+1])
		if len(head) < 2 || head[0] != "round" {
			return t
		}
		t.names = head[1:]
	rows:
		for k, r := range lines[i+2:] {
			f := strings.Fields(r)
			if len(f) != len(head) || f[0] != strconv.Itoa(k+1) {
				break // the line after the block, whatever its words
			}
			row := make([]float64, 0, len(t.names))
			for _, x := range f[1:] {
				v, err := strconv.ParseFloat(x, 64)
				if err != nil {
					break rows
				}
				row = append(row, v)
			}
			t.ms = append(t.ms, row)
		}
		return t
	}
	return t
}

// parseTFIDFTable finds the table in one run's output: the first line with
// a column whose header contains "speedup", then every following line with
// as many columns, the first column being the strategy. Anything it cannot
// read leaves ok false, and the output is shown verbatim instead.
func parseTFIDFTable(out string) tfidfTable {
	t := tfidfTable{speedup: map[string]float64{}, cells: map[string]map[string]string{}}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if m := workersLine.FindStringSubmatch(l); m != nil {
			t.workers, _ = strconv.Atoi(m[1])
		}
		head := strings.Fields(l)
		col := -1
		for j, h := range head {
			if strings.Contains(strings.ToLower(h), "speedup") {
				col = j
				break
			}
		}
		if col < 1 {
			continue
		}
		text := []string{l}
		for _, r := range lines[i+1:] {
			f := strings.Fields(r)
			if len(f) != len(head) {
				break
			}
			v := parseSpeedup(f[col])
			if math.IsNaN(v) { // a sentence after the table that happens to have as many words
				break
			}
			text = append(text, r)
			t.strategies = append(t.strategies, f[0])
			t.speedup[f[0]] = v
			for j, h := range head {
				h = strings.ToLower(h)
				if t.cells[h] == nil {
					t.cells[h] = map[string]string{}
				}
				t.cells[h][f[0]] = f[j]
			}
		}
		t.text = strings.Join(text, "\n") + "\n"
		t.ok = len(t.strategies) > 0
		return t
	}
	return t
}

// workersLine is the line before the example's table: "2 workers (GOMAXPROCS=2)".
var workersLine = regexp.MustCompile(`^(\d+) workers? \(GOMAXPROCS=\d+\)`)

// parseSpeedup reads "1.85x", "1.85×" or "1.85"; NaN otherwise.
func parseSpeedup(s string) float64 {
	s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "x"), "×")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}
