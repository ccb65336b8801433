package workloads

import (
	"fmt"
	"math/rand/v2"
)

// Size of the quicksort workload.
const (
	QsortN    = 5_000_000
	QsortLeaf = 32 // below this, insertion sort; at or above it every partition forks
)

// QsortInput returns n random ints from a fixed seed.
func QsortInput(n int) []int {
	r := rand.New(rand.NewPCG(7, 7))
	a := make([]int, n)
	for i := range a {
		a[i] = int(r.Int64())
	}
	return a
}

// QsortSeq sorts a serially.
func QsortSeq(a []int) {
	for len(a) > QsortLeaf {
		p := partition(a)
		QsortSeq(a[:p])
		a = a[p:]
	}
	insertion(a)
}

// QsortJoin sorts a, forking the two halves of every partition longer than
// cutoff through join. cutoff QsortLeaf forks at each partition.
func QsortJoin(a []int, cutoff int, join Joiner) {
	if len(a) <= QsortLeaf {
		insertion(a)
		return
	}
	if len(a) <= cutoff {
		QsortSeq(a)
		return
	}
	p := partition(a)
	lo, hi := a[:p], a[p:]
	join(func() { QsortJoin(lo, cutoff, join) }, func() { QsortJoin(hi, cutoff, join) })
}

// QsortPartition partitions a (len(a) > QsortLeaf) as the sorts above do
// and returns the split point p, 0 < p < len(a), with every a[:p] <= every
// a[p:]. For callers that fork without a Joiner.
func QsortPartition(a []int) int { return partition(a) }

// QsortLeafSort sorts a slice of at most QsortLeaf elements.
func QsortLeafSort(a []int) { insertion(a) }

// partition is Hoare's scheme around a median of three; it returns p with
// 0 < p < len(a), every a[:p] <= every a[p:].
func partition(a []int) int {
	m := len(a) / 2
	l := len(a) - 1
	if a[m] < a[0] {
		a[m], a[0] = a[0], a[m]
	}
	if a[l] < a[0] {
		a[l], a[0] = a[0], a[l]
	}
	if a[l] < a[m] {
		a[l], a[m] = a[m], a[l]
	}
	pivot := a[m]
	i, j := -1, len(a)
	for {
		for i++; a[i] < pivot; i++ {
		}
		for j--; a[j] > pivot; j-- {
		}
		if i >= j {
			return j + 1
		}
		a[i], a[j] = a[j], a[i]
	}
}

func insertion(a []int) {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i - 1
		for ; j >= 0 && a[j] > v; j-- {
			a[j+1] = a[j]
		}
		a[j+1] = v
	}
}

// Checksum is an order-independent digest of a multiset of ints.
type Checksum struct{ Sum, Xor, SumSq uint64 }

// ChecksumOf digests a.
func ChecksumOf(a []int) Checksum {
	var c Checksum
	for _, v := range a {
		u := uint64(v)
		c.Sum += u
		c.Xor ^= u * 0x9e3779b97f4a7c15
		c.SumSq += u * u
	}
	return c
}

// VerifySorted checks that a is sorted and holds the same multiset as want.
func VerifySorted(a []int, want Checksum) error {
	for i := 1; i < len(a); i++ {
		if a[i-1] > a[i] {
			return fmt.Errorf("quicksort: not sorted at %d: %d > %d", i, a[i-1], a[i])
		}
	}
	if got := ChecksumOf(a); got != want {
		return fmt.Errorf("quicksort: elements changed: checksum %v, want %v", got, want)
	}
	return nil
}
