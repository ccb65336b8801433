package capture_test

import (
	"fmt"
	"log"

	"github.com/parloop/parloop/internal/capture"
	"github.com/parloop/parloop/internal/sim"
	_ "github.com/parloop/parloop/par" // fills in sim
)

// Read one of hwloc's captures, a 64-thread AMD machine with 4 packages,
// and describe it.
func Example() {
	fsys, err := capture.Open("../../par/internal/topology/testdata/64amd64-4s2n4ca2co.tar.gz")
	if err != nil {
		log.Fatal(err)
	}
	m, err := sim.ReadMachine(fsys)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Summary())
	fmt.Println(m.CPUs(), "CPUs")
	// Output:
	// packages=4 numa=8 l3=8 cores=64 threads=64
	// 64 CPUs
}
