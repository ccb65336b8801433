package par

// Deterministic reduction: the input is cut into blocks whose size depends
// only on its length, each folded by the leaf in parallel, and the block
// results are combined pairwise along a fixed balanced tree. No step
// depends on timing or the number of workers, so floating-point sums are
// bitwise reproducible, for one slice of block results.

const (
	detMinBlock  = 1024 // elements per block at least
	detMaxBlocks = 4096 // blocks at most
)

func reduceDeterministic[T any](sp *spec, n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T) T {
	block := max(detMinBlock, (n-1)/detMaxBlocks+1) // rounds up, safe near math.MaxInt
	nb := (n-1)/block + 1
	parts := make([]T, nb)
	blocks := spec{verb: sp.verb, pool: sp.pool, grain: (sp.grain + block - 1) / block} // Grain, in blocks
	run(&blocks, &job[none]{rng: func(lo, hi int) {
		for b := lo; b < hi; b++ {
			start, end := b*block, n
			if block < n-start {
				end = start + block
			}
			parts[b] = leaf(start, end)
			if sp.progress != nil {
				sp.progress.Add(int64(end - start))
			}
		}
	}}, nb)
	out, pe := catchCombine(func(T, T) T { return combine(identity, combineTree(parts, combine)) }, identity, identity)
	if pe != nil {
		panic(pe)
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
