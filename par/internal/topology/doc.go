// Package topology reads the CPU topology of a Linux machine from sysfs and
// procfs and derives worker placement and victim orders from it.
//
// # What is read
//
// Everything is read through an [fs.FS] rooted at a machine's "/", so that
// the same code reads the live host ([Host]) or a capture ([Read]: a
// directory, or a tarball such as hwloc's test captures, which
// [github.com/parloop/parloop/par/capture.Open] reads into memory):
//
//   - sys/devices/system/cpu/online (else the cpuN directories and their
//     cpuN/online flags, else /proc/cpuinfo) for the online CPUs, and
//     sys/devices/system/cpu/present for the offline ones;
//   - cpuN/topology: core_cpus_list (else thread_siblings_list on older
//     kernels, else core_id within the package and die: core_id is unique
//     only within a die; siblings with another core_id, as old kernels
//     report for AMD compute units, are cores of their own, as in hwloc),
//     cluster_cpus_list where cluster_id is not -1, die_cpus_list where
//     die_id is not -1, package_cpus_list (else core_siblings_list, else
//     physical_package_id);
//   - cpuN/cache/index*/{level,type,shared_cpu_list|shared_cpu_map} for the L2
//     and L3 domains (a cache reported by only some of the CPUs it names is
//     still assigned to all of them, as hwloc does for asymmetric caches);
//     for every *_list file above, its hexadecimal twin (core_cpus,
//     shared_cpu_map, cpumap...) is read too and, like hwloc, wins where a
//     capture's two disagree;
//   - sys/devices/system/node/nodeN/{cpulist|cpumap,distance} for NUMA nodes
//     and their distance matrix (a node whose cpulist or cpumap is an empty
//     set is a memory-only node, see below);
//   - hybrid core kinds from sys/devices/cpu_core/cpus and
//     sys/devices/cpu_atom/cpus, else cpuN/cpu_capacity, else
//     cpuN/cpufreq/base_frequency (the order hwloc uses);
//   - the affinity mask from proc/self/status (Cpus_allowed_list) or, for
//     the live host, sched_getaffinity;
//   - the cgroup (v2 or v1) cpuset and CPU quota (cpu.max, or
//     cpu.cfs_quota_us and cpu.cfs_period_us), found through
//     proc/self/mountinfo or proc/mounts and proc/self/cgroup or
//     proc/self/cpuset, and walking up the cgroup tree.
//
// # Packages
//
// As in hwloc's Linux backend (look_sysfscpu in topology-linux.c), a
// package is a set of CPUs whose package masks (package_cpus, else
// core_siblings) agree; physical_package_id only names it. Where the ids
// conflict with the masks (one package's CPUs reporting two ids, or two
// packages reporting the same id), the masks win: the packages, and the
// cores found through core_id within them, follow the masks, and a package
// takes the id of its first CPU. Only CPUs without a package mask are
// grouped by physical_package_id (and their cores by it, die_id and
// core_id), conflicts included.
//
// # Memory-only NUMA nodes
//
// A NUMA node without CPUs (CXL, HBM or persistent memory) is part of the
// machine, as in hwloc: [Topology.MemoryNodes] lists it, the summary's numa
// count includes it (the one count of [Topology.Summary] that is not of
// parts holding a usable CPU: it counts every NUMA node hwloc shows), its
// distances are read, and [Topology.String] shows it as a childless
// NUMANode line. It is placed as hwloc places a CPU-less node without HMAT
// initiators: under the object holding the CPUs of the nodes strictly
// nearest to it by distance, else under the machine. It belongs to no
// domain, so placement and victim orders ignore it.
//
// # Fallbacks
//
// Like hwloc, a missing or malformed file never stops the reading: each
// piece of information falls back to the next source listed above and, at
// the end, to the least structure (a CPU that is its own core, one package,
// one NUMA node holding every CPU, no cache domain). CPUs with no known NUMA
// node where other CPUs have one stay outside every node, as in hwloc. A
// tree without sysfs, and any system other than Linux, gives a [Flat]
// topology. No input makes the reader panic; ids of [MaxCPUs] or more are
// rejected.
//
// # Usable CPUs
//
// A CPU is usable when it is online, in the affinity mask and in the cgroup
// cpuset. A CPU quota does not choose CPUs: it caps [Topology.Usable], the
// number of workers a pool should run, at ceil(quota/period). Where the
// restrictions leave no CPU (an inconsistent capture), they are ignored.
//
// # Placement and victims
//
// [Topology.Placement] spreads workers: one hardware thread per core first,
// taking turns across packages, dies, NUMA nodes, L3 domains, clusters and
// L2 domains (in proportion to their usable CPUs), then the SMT siblings,
// with efficiency cores last. [Topology.VictimOrder] groups a worker's
// possible victims by the smallest domain they share with it (SMT sibling,
// cluster or L2, L3, NUMA node, die, package), then the other NUMA nodes by
// distance.
package topology
