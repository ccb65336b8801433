package workloads

// Joiner runs f and g, possibly in parallel, and returns when both have
// returned. Every fork-join peer is a Joiner; the recursive workloads are
// written once against it.
type Joiner func(f, g func())

// SeqJoin runs f then g: the recursion through a func value, with no
// parallelism.
func SeqJoin(f, g func()) { f(); g() }

// Sizes of the recursive workloads.
const (
	FibEvery     = 30 // fib(30) forking at every call
	FibCutN      = 35 // fib(35) forking only above FibCutCutoff
	FibCutCutoff = 15 // fib(35): calls with n <= 15 run serially
)

// FibSeq is the plain recursion.
func FibSeq(n int) int {
	if n < 2 {
		return n
	}
	return FibSeq(n-1) + FibSeq(n-2)
}

// FibJoin forks both calls of every n > cutoff through join and runs smaller
// ones serially. cutoff 1 forks at every call that recurses.
func FibJoin(n, cutoff int, join Joiner) int {
	if n <= cutoff || n < 2 {
		return FibSeq(n)
	}
	var r [2]int
	join(func() { r[0] = FibJoin(n-1, cutoff, join) }, func() { r[1] = FibJoin(n-2, cutoff, join) })
	return r[0] + r[1]
}

// FibForks is the number of forks FibJoin(n, cutoff, ·) makes.
func FibForks(n, cutoff int) int {
	if n <= cutoff || n < 2 {
		return 0
	}
	return 1 + FibForks(n-1, cutoff) + FibForks(n-2, cutoff)
}

// FibValue is fib(n) computed iteratively, for verification.
func FibValue(n int) int {
	a, b := 0, 1
	for range n {
		a, b = b, a+b
	}
	return a
}
