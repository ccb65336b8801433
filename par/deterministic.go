package par

// Deterministic reduction.
//
// The input is cut into blocks whose size depends only on its length; each
// block is folded by the leaf (Reduce: left to right from its first
// element), in parallel; then
// the block results are combined pairwise along a fixed balanced tree. No
// step depends on timing or on the number of workers, so floating-point
// sums are bitwise reproducible. It costs one slice of block results.

const (
	detMinBlock  = 1024 // elements per block at least
	detMaxBlocks = 4096 // blocks at most
)

func reduceDeterministic[T any](n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts []Option) T {
	block := max(detMinBlock, (n+detMaxBlocks-1)/detMaxBlocks)
	nb := (n + block - 1) / block
	parts := make([]T, nb)
	ForRange(nb, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			parts[b] = leaf(b*block, min((b+1)*block, n))
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
