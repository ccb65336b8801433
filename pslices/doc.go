// Package pslices holds parallel versions of the functions of the standard
// library's slices package that have enough work to share: sorting,
// searching, comparing, minimum and maximum, and, beyond slices, prefix sums
// (Scan, ScanExclusive) and an order-keeping DeleteFunc built on them. Each
// function has the name, the signature and the result of its slices
// counterpart, with optional par options last, so that adopting it is
// changing an import:
//
//	slices.Sort(x)   →  pslices.Sort(x)
//	slices.IndexFunc(x, f)   →  pslices.IndexFunc(x, f)
//
// The work runs on a par pool: the default pool, or the one par.On names.
// Short slices (a few thousand elements) are handled on the calling
// goroutine, where waking the pool would cost more than it saves: by the
// slices function itself, or, for Sort and SortFunc, by pslices' own
// sequential sort.
//
// # Options
//
// Every function takes par options last and honours two of them: On(p)
// runs the call on pool p, and Deterministic makes Scan and ScanExclusive
// group their operations the same way at every parallelism, 1 included
// (without it they are reproducible on every pool of parallelism 2 or more,
// and run as the sequential loop at GOMAXPROCS 1). Every other result is
// reproducible without it: the ways the work is cut depend on the slice's
// length alone, not on the pool or the schedule, and the other functions
// accept Deterministic and ignore it. The loop options Grain, Track,
// Weighted and Blocking do not apply; passing one panics with a message
// naming the function.
//
// # Results
//
// Results equal the slices functions' results:
//
//   - Sort and SortFunc give a sorted permutation (unstable, in place, with
//     O(log n) extra memory); equal elements end up in an order that depends
//     on the input alone. SortStableFunc's output equals
//     slices.SortStableFunc's element for element; it uses a buffer of
//     len(x) elements.
//   - Index, IndexFunc, Contains and ContainsFunc find the first match (any
//     match, for Contains), Equal and EqualFunc any difference, IsSorted and
//     IsSortedFunc any element below its predecessor, with early exit: the
//     first elements are scanned on the calling goroutine, as a plain loop
//     would (an early hit never wakes the pool), and the rest in blocks that
//     the workers take in index order, so that all of them scan the front of
//     what is left; once a match at i is known, no block beyond i keeps
//     running.
//   - Max, Min, MaxFunc and MinFunc keep slices' rules for NaNs and ties (the
//     first extreme element).
//   - BinarySearch stays sequential: see its doc.
//
// The functions given to pslices (f, cmp, eq, op, del) are called from
// several goroutines at once, and, where slices stops at the first match or
// difference, possibly for elements beyond it: they must be safe for
// concurrent use and should have no side effects. They escape to the pool's
// workers, so a closure that captures variables is allocated by its caller
// once per call; nothing is allocated per element.
//
// # Panics
//
// A panic in a function given to pslices reaches the caller as a
// *par.PanicError holding the value and the stack where it happened, on the
// parallel path and on the sequential one alike; errors.Is and errors.As
// see through it. A sort that a panic interrupts leaves its slice a
// permutation of its input. A nil function panics at the call, naming it,
// as does Max or Min of an empty slice.
//
// # How it works
//
// The unstable sorts are a parallel quicksort: the two sides of each split
// are sorted in parallel (par.Join), the first splits (over 2^20 elements)
// are themselves parallel in-place partitions, and ranges of 8,192 elements
// or fewer are sorted on one worker by a sequential quicksort, whose
// partition takes no branch on the comparison for ordered types and moves
// each misplaced element once for SortFunc of large elements, with insertion
// sort for short ranges; slices of up to 16,384 elements (8,192 for
// SortFunc) are sorted by it on the caller. The stable sort is a parallel
// merge sort. The searches share one engine (find.go). Scan, ScanExclusive
// and DeleteFunc make one chained pass over blocks of about 32 KiB: workers
// take blocks in index order, do the part that needs nothing from earlier
// blocks (a block's sum; the calls of del), then take the carry of the block
// before, publish their own and finish the block while it is still in cache,
// so the slice is read from memory once.
package pslices
