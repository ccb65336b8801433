// Command utswalk walks the unbalanced tree of BenchmarkUTS once with one
// peer, for instruction counts under callgrind:
//
//	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=2 valgrind --tool=callgrind ./utswalk -peer par.For
//
// (callgrind's signal handling does not survive Go's asynchronous
// preemption, hence asyncpreemptoff). -peer none builds the tree and walks
// nothing: the startup cost to subtract.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/parloop/parloop/bench/peers"
	"github.com/parloop/parloop/bench/workloads"
)

func main() {
	peer := flag.String("peer", "seq", "walk to run (a name from peers.UTSWalks, or none)")
	seed := flag.Uint64("seed", workloads.UTSSeed, "tree seed")
	alloc := flag.Bool("alloc", false, "allocate a node struct per node")
	rounds := flag.Int("n", 1, "walks")
	flag.Parse()
	t := workloads.NewUTS(workloads.UTSRootKids, *seed, workloads.UTSWork, *alloc)
	if *peer == "none" {
		return
	}
	for _, w := range peers.UTSWalks() {
		if w.Name == *peer {
			var c workloads.UTSCount
			for range *rounds {
				c = w.Count(t)
			}
			fmt.Println(c.N, c.Sum)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "utswalk: no peer", *peer)
	os.Exit(2)
}
