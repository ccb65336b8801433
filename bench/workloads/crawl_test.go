package workloads

import "testing"

// Catches: a crawl that reaches few nodes (nothing to parallelise) or whose
// neighbours change between visits (a search could not be checked).
func TestCrawl(t *testing.T) {
	c := NewCrawl(20_000)
	if n := c.Seq(); n < c.N*9/10 {
		t.Errorf("the crawl reached %d of %d nodes, want nearly all", n, c.N)
	}
	a, b := c.Visit(7, nil), c.Visit(7, nil)
	if len(a) != c.Deg || a[0] != b[0] || a[c.Deg-1] != b[c.Deg-1] {
		t.Errorf("Visit(7) gave %v, then %v", a, b)
	}
}
