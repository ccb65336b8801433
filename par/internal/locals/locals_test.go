package locals

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// The concurrent test runs goroutines of its own: none may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// counting returns an init that counts its calls.
func counting(made *int) func() int {
	return func() int { *made++; return 0 }
}

func sum(a, b int) int { return a + b }

// A cell is made by init when its index first asks for it, once: the same
// index gets the same cell back, and other indices cells of their own.
func TestOneCellPerIndexMadeLazily(t *testing.T) {
	made := 0
	tab := New(3, counting(&made))
	if made != 0 {
		t.Fatalf("New made %d accumulators; want none before a piece asks", made)
	}
	seen := map[*Cell[int]]int{}
	for round := range 3 {
		for _, i := range []int{0, 1, 2, Caller} {
			c := tab.Cell(i)
			c.Acc++
			c.Release()
			if round == 0 {
				if _, dup := seen[c]; dup {
					t.Fatalf("index %d got the cell of index %d", i, seen[c])
				}
				seen[c] = i
			} else if j, ok := seen[c]; !ok || j != i {
				t.Fatalf("round %d: index %d got another cell than before", round, i)
			}
		}
	}
	if made != 4 {
		t.Errorf("made %d accumulators for 3 workers and the caller; want 4", made)
	}
	for c, i := range seen {
		if c.Acc != 3 {
			t.Errorf("index %d's cell holds %d after 3 pieces; want 3", i, c.Acc)
		}
	}
	if got := tab.Merge(sum); got != 12 {
		t.Errorf("Merge = %d; want 12", got)
	}
}

// A piece that finds its index's cell busy (a nested call ran it on the
// same goroutine) gets a spare, and Merge counts the spare.
func TestBusyCellYieldsSpare(t *testing.T) {
	for _, i := range []int{0, Caller, 7} { // a worker, the caller, a worker beyond the table
		made := 0
		tab := New(2, counting(&made))
		outer := tab.Cell(i)
		outer.Acc += 1
		inner := tab.Cell(i)
		if inner == outer {
			t.Fatalf("index %d: a piece got the cell an unfinished piece holds", i)
		}
		inner.Acc += 10
		inner2 := tab.Cell(i)
		if inner2 == outer || inner2 == inner {
			t.Fatalf("index %d: a third nested piece shares a busy cell", i)
		}
		inner2.Acc += 100
		inner2.Release()
		inner.Release()
		outer.Release()
		if made != 3 {
			t.Errorf("index %d: made %d accumulators; want 3 (one and two spares)", i, made)
		}
		if again := tab.Cell(i); again != outer {
			t.Errorf("index %d: once free, the index's own cell was not handed back", i)
		} else {
			again.Release()
		}
		if got := tab.Merge(sum); got != 111 {
			t.Errorf("index %d: Merge = %d; want 111 (the spares included)", i, got)
		}
	}
}

// Workers with ids at or past the table's size (started after it was made)
// get cells of their own, one per id, which Merge includes.
func TestBeyondIndicesGetOwnCells(t *testing.T) {
	made := 0
	tab := New(2, counting(&made))
	cells := map[int]*Cell[int]{}
	for _, i := range []int{0, 1, Caller, 2, 3, 100} {
		c := tab.Cell(i)
		c.Acc = i + 1000
		c.Release()
		for j, d := range cells {
			if d == c {
				t.Fatalf("index %d got the cell of index %d", i, j)
			}
		}
		cells[i] = c
	}
	for _, i := range []int{2, 3, 100} {
		c := tab.Cell(i)
		if c != cells[i] {
			t.Errorf("index %d beyond the table got a new cell the second time", i)
		}
		c.Release()
	}
	if made != 6 {
		t.Errorf("made %d accumulators for 6 indices; want 6", made)
	}
	want := 0
	for i := range cells {
		want += i + 1000
	}
	if got := tab.Merge(sum); got != want {
		t.Errorf("Merge = %d; want %d", got, want)
	}
}

// With no cell made, Merge returns a fresh init() and calls merge never.
func TestMergeOfNothingIsInit(t *testing.T) {
	made := 0
	tab := New(4, func() int { made++; return 42 })
	got := tab.Merge(func(a, b int) int { t.Error("merge called with no cells"); return a + b })
	if got != 42 || made != 1 {
		t.Errorf("Merge of no cells = %d with %d init calls; want 42 and 1", got, made)
	}
}

// Merge folds every cell exactly once, whatever kind (worker, caller,
// beyond, spare), so a commutative merge's result does not depend on the
// order it visits them.
func TestMergeVisitsEveryCellOnce(t *testing.T) {
	tab := New(3, func() []int { return nil })
	var want []int
	put := func(c *Cell[[]int], v int) {
		c.Acc = append(c.Acc, v)
		want = append(want, v)
	}
	for _, i := range []int{2, Caller, 0, 5} {
		c := tab.Cell(i)
		put(c, 10+i)
		s := tab.Cell(i) // busy: a spare
		put(s, 20+i)
		s.Release()
		c.Release()
	}
	got := tab.Merge(func(a, b []int) []int { return append(a, b...) })
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Merge gathered %v; want each cell's once: %v", got, want)
	}
	n := 0
	total := New(3, func() int { return 0 })
	for _, i := range []int{1, 0, Caller, 9, 2} {
		c := total.Cell(i)
		c.Acc += i + 2
		n += i + 2
		c.Release()
	}
	if got := total.Merge(sum); got != n {
		t.Errorf("Merge(sum) = %d; want %d", got, n)
	}
	if got := total.Merge(func(a, b int) int { return b + a }); got != n {
		t.Errorf("Merge(sum, operands swapped) = %d; want %d", got, n)
	}
}

// Goroutines each using their own index (some beyond the table, one the
// caller) fold concurrently, nesting pieces now and then; the race detector
// checks that cells are written by their goroutine only, and Merge after
// they finish sees every addition.
func TestConcurrentIndices(t *testing.T) {
	const workers, beyond, pieces = 6, 2, 2000
	var made atomic.Int32
	tab := New(workers, func() int { made.Add(1); return 0 })
	var wg sync.WaitGroup
	var spares atomic.Int32
	indices := []int{Caller}
	for i := range workers + beyond {
		indices = append(indices, i)
	}
	for _, i := range indices {
		wg.Go(func() {
			for p := range pieces {
				c := tab.Cell(i)
				c.Acc++
				if p%97 == 0 { // a nested call runs another piece on this goroutine
					s := tab.Cell(i)
					if s == c {
						t.Errorf("index %d: a nested piece shares its outer piece's cell", i)
					}
					spares.Add(1)
					s.Acc++
					s.Release()
				}
				c.Release()
			}
		})
	}
	wg.Wait()
	want := len(indices) * (pieces + (pieces+96)/97)
	if got := tab.Merge(sum); got != want {
		t.Errorf("Merge = %d; want %d", got, want)
	}
	if m := int(made.Load()); m != len(indices)+int(spares.Load()) {
		t.Errorf("made %d accumulators; want one per index (%d) and one per nested piece (%d)", m, len(indices), spares.Load())
	}
}
