// Package topology reads the CPU topology of a Linux machine from sysfs and
// procfs and derives worker placement and victim orders from it.
//
// # What is read
//
// Everything is read through an [fs.FS] rooted at a machine's "/", so that
// the same code reads the live host ([Host]) or a capture ([Read]: a
// directory, or a tarball such as hwloc's test captures, which
// the module's internal/capture reads into memory):
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
//     and L3 domains (a cache that only some of the CPUs it names report
//     is still assigned to all of them, as hwloc does for asymmetric
//     caches, provided the first of them reports it; a cache whose set is
//     empty, as ia64 reports its L3, holds the CPUs of the core, and one
//     whose set cannot be read is left out, as in hwloc);
//     for every *_list file above, its hexadecimal twin (core_cpus,
//     shared_cpu_map, cpumap...) is read too and, like hwloc, wins where a
//     capture's two disagree;
//   - sys/devices/system/node/nodeN/{cpumap|cpulist,distance,meminfo} for
//     NUMA nodes, their distance matrix and their memory size (MemTotal);
//     see "Memory-only NUMA nodes" below;
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
// # Conflicting reports
//
// Each CPU reports, for every level, the set of CPUs it shares that level
// with (package_cpus, die_cpus, cluster_cpus, core_cpus, a cache's
// shared_cpu_map). On a sane machine the CPUs of one set all report it;
// where they do not (a package mask naming CPUs of other packages, a
// cache mask disagreeing with its siblings'), domains are made as hwloc's
// Linux backend makes objects (look_sysfscpu in topology-linux.c), so that
// the result is the one hwloc shows:
//
//   - a domain is made by the CPU that comes first in the set it reports
//     (restricted to the online CPUs), and holds that set. A set whose
//     first CPU reports another set makes no domain;
//   - a CPU makes its package, die or cluster only if it also comes first in
//     its own core, cluster and die (sets of one CPU aside, for clusters and
//     dies);
//   - taking the CPUs in increasing order, and for each its core, package,
//     cluster, die, L2 and L3 in turn, a domain that overlaps one made
//     before it without either holding the other is dropped, as is one that
//     overlaps a domain of its own level.
//
// CPUs left outside every domain of a level stay outside it, as in hwloc:
// on hwloc's capture 40intel64-4n10c+pci-conflicts, where CPU 3 reports
// the package mask 0-3 and CPU 2 the L3 mask 0-3, the packages and L3s of
// those two CPUs are not made, and the machine shows 3 packages and 3 L3s
// of its 4 (taking each reported set as a domain would give 5 and 5). The
// exception is the core: a CPU in no core is a core of its own, as
// placement counts threads by core.
//
// physical_package_id, die_id, cluster_id, core_id and cache ids only name
// the domains: a domain takes the id its first CPU reports. Where the ids
// conflict with the masks (one package's CPUs reporting two ids, or two
// packages reporting the same id) the masks win, for packages and for the
// cores found through core_id within them. Only CPUs without a package
// mask are grouped by physical_package_id (and their cores by it, die_id
// and core_id), conflicts included.
//
// NUMA nodes follow hwloc's rules too: a node's CPUs are its cpumap (else
// its cpulist); a node whose CPUs overlap those of a lower-numbered node
// is ignored (String notes it); a node that cannot be read is ignored.
//
// # Memory-only NUMA nodes
//
// A NUMA node without an online CPU (an empty cpumap: CXL, HBM or
// persistent memory; or CPUs that are all offline) is part of the machine,
// as in hwloc: [Topology.MemoryNodes] lists it, the summary's numa count
// includes it (the one count of [Topology.Summary] that is not of parts
// holding a usable CPU, as hwloc counts them), its
// distances are read, [Topology.NodeMemory] gives its memory size where
// its meminfo does, and [Topology.String] shows it as a childless NUMANode
// line with that size and gives its row of the distance matrix. It is
// placed as hwloc places a CPU-less node without HMAT initiators: under
// the object holding the CPUs of the nodes strictly nearest to it by
// distance, else under the machine. It belongs to no domain, so placement
// and victim orders ignore it.
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
// # Where hwloc differs
//
// The reader builds what placement needs, so it departs from hwloc where
// hwloc's view would not change a worker's place: a machine whose files
// name no package has one package here (none in hwloc), and a CPU in no
// core is a core of its own (hwloc shows the bare thread). It does not
// read the cgroup's memory nodes (cpuset.mems: hwloc hides the nodes
// outside them, and shows a node whose CPUs the cpuset excludes as one
// without CPUs), HMAT initiators (which give hwloc the CPUs near a
// memory-only node, and hide nodes that are initiators only), or the
// NVIDIA driver's GPU memory nodes.
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
// distance; [Topology.VictimOrders] flattens it for every worker of a pool
// into the lists the scheduler steals by (or, under [VictimsRandom], one
// level of all the others).
package topology
