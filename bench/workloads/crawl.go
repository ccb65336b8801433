package workloads

// Crawl is a graph whose edges are found by visiting a node, as a crawler
// finds a page's links: node v's Deg out-neighbours come from a hash of v,
// after Work rounds of spin (the page's processing). From node 0 a search
// reaches nearly every node; the reached count is the check.
type Crawl struct {
	N, Deg, Work int
}

// NewCrawl is the crawl of n nodes with 4 links each and about half a
// microsecond of work per node.
func NewCrawl(n int) *Crawl { return &Crawl{N: n, Deg: 4, Work: 250} }

// Visit does v's work and appends its out-neighbours to dst.
func (c *Crawl) Visit(v int32, dst []int32) []int32 {
	h := spin(uint64(v)+1, c.Work)
	for i := range c.Deg {
		h = mix64(h + uint64(i))
		dst = append(dst, int32(h%uint64(c.N)))
	}
	return dst
}

// Seq is the sequential search from node 0 (a worklist and a visited
// slice); it returns how many nodes it reached.
func (c *Crawl) Seq() int {
	seen := make([]bool, c.N)
	seen[0] = true
	work := []int32{0}
	var buf []int32
	n := 0
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		n++
		buf = c.Visit(v, buf[:0])
		for _, w := range buf {
			if !seen[w] {
				seen[w] = true
				work = append(work, w)
			}
		}
	}
	return n
}

// Work1us is about a microsecond of serial arithmetic (spin): 600 rounds,
// 0.9-1.6 µs at the 2-core VM's two speeds.
func Work1us(seed uint64) uint64 { return spin(seed, 600) }
