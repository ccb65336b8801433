// Command topology prints a machine's CPU topology, like a small lstopo,
// and the placement of a pool's workers on it.
//
// With no flag it reads the machine it runs on. With -root PATH it reads a
// captured tree instead of "/" (the module's internal capture and sim
// packages: the captured-machine simulation is not part of par's API):
// PATH is a directory holding the machine's "sys" and "proc", or a tar
// archive of them (.tar.bz2, .tar.gz or .tar, as in hwloc's test suite; a
// few of hwloc's captures are in par/internal/topology/testdata). The
// affinity mask and cgroup limits then come from the capture where it has
// them, and the pool is simulated: it takes the capture's CPU ids and pins
// nothing. From the repository's root:
//
//	go run ./examples/topology
//	go run ./examples/topology -root par/internal/topology/testdata/64amd64-4s2n4ca2co.tar.gz
//
// The output ends with one line, exactly
//
//	packages=N numa=N l3=N cores=N threads=N
//
// counting the parts of the machine that hold a usable CPU (online, in the
// affinity mask and in the cgroup cpuset), and in numa also the NUMA nodes
// without CPUs (memory-only tiers), as hwloc does. Scripts and tests read
// that line.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/parloop/parloop/internal/capture"
	"github.com/parloop/parloop/internal/sim"
	"github.com/parloop/parloop/par"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command, with its arguments and outputs as parameters so that
// tests can call it. It returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("topology", flag.ContinueOnError)
	fl.SetOutput(stderr)
	root := fl.String("root", "", "read the captured tree at `PATH` (a directory or a .tar.bz2, .tar.gz or .tar) instead of /")
	workers := fl.Int("workers", 0, "show the placement of a pool of `N` workers (default: GOMAXPROCS on this machine, all usable CPUs of a capture)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "topology: unexpected arguments %q\n", fl.Args())
		return 2
	}

	var m sim.Machine = par.HostMachine()
	if *root != "" {
		fsys, err := capture.Open(*root)
		if err == nil {
			m, err = sim.ReadMachine(fsys)
		}
		if err != nil {
			fmt.Fprintf(stderr, "topology: %v\n", err)
			return 1
		}
	}
	fmt.Fprint(stdout, m)

	n := *workers
	if n <= 0 {
		n = par.Default().Workers()
		if *root != "" { // a capture's machine is not this one: show a pool as large as it
			n = m.CPUs()
		}
	}
	fmt.Fprint(stdout, sim.Placement(m, n))

	fmt.Fprintln(stdout, m.Summary())
	return 0
}
