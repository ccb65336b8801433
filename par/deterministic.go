package par

// Deterministic reduction.
//
// The input is cut into blocks whose size depends only on len(in); each
// block is folded left to right from its first element, in parallel; then
// the block results are combined pairwise along a fixed balanced tree. No
// step depends on timing or on the number of workers, so floating-point
// sums are bitwise reproducible. It costs one slice of block results.

const (
	detMinBlock  = 1024 // elements per block at least
	detMaxBlocks = 4096 // blocks at most
)

func reduceDeterministic[T any](in []T, identity T, combine func(a, b T) T, opts []Option) T {
	n := len(in)
	block := max(detMinBlock, (n+detMaxBlocks-1)/detMaxBlocks)
	nb := (n + block - 1) / block
	parts := make([]T, nb)
	ForRange(nb, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			start, end := b*block, min((b+1)*block, n)
			acc := in[start]
			for _, x := range in[start+1 : end] {
				acc = combine(acc, x)
			}
			parts[b] = acc
		}
	}, opts...)
	var out T
	if pe := catch(func() { out = combine(identity, combineTree(parts, combine)) }); pe != nil {
		panic(pe) // a panicking combine reaches the caller as a *PanicError, as in every verb
	}
	return out
}

// combineTree combines parts (non-empty) pairwise along the balanced tree
// that splits at len/2, keeping index order.
func combineTree[T any](parts []T, combine func(a, b T) T) T {
	if len(parts) == 1 {
		return parts[0]
	}
	mid := len(parts) / 2
	return combine(combineTree(parts[:mid], combine), combineTree(parts[mid:], combine))
}
