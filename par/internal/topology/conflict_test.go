package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fourPackages builds a synthetic capture of 4 packages of 10 cores with
// two threads each (CPU c and c+40 are the threads of one core). Its
// physical_package_id values conflict with the masks: the second threads
// of package 0 say 7 where its first threads say 0, and packages 2 and 3
// both say 2. withPkgMasks and withCoreMasks choose whether
// package_cpus_list and core_cpus_list exist.
func fourPackages(withPkgMasks, withCoreMasks bool) map[string]string {
	const cpu = "sys/devices/system/cpu/"
	files := map[string]string{cpu + "online": "0-79\n", cpu + "present": "0-79\n"}
	for c := range 80 {
		core := c % 40
		pkg := core / 10
		id := pkg
		switch {
		case pkg == 0 && c >= 40:
			id = 7
		case pkg == 3:
			id = 2
		}
		top := fmt.Sprintf("%scpu%d/topology/", cpu, c)
		files[top+"physical_package_id"] = fmt.Sprintf("%d\n", id)
		files[top+"core_id"] = fmt.Sprintf("%d\n", core%10)
		files[top+"die_id"] = "0\n"
		if withPkgMasks {
			files[top+"package_cpus_list"] = fmt.Sprintf("%d-%d,%d-%d\n", pkg*10, pkg*10+9, 40+pkg*10, 40+pkg*10+9)
		}
		if withCoreMasks {
			files[top+"core_cpus_list"] = fmt.Sprintf("%d,%d\n", core, core+40)
		}
	}
	return files
}

// Packages are the CPUs whose package masks agree, as in hwloc's Linux
// backend; physical_package_id only names them, and a conflict in the ids
// splits or merges neither packages nor cores.
func TestConflictingPackageIDs(t *testing.T) {
	wantPkgs := []string{"0-9,40-49", "10-19,50-59", "20-29,60-69", "30-39,70-79"}
	var wantCores []string
	for c := range 40 {
		wantCores = append(wantCores, fmt.Sprintf("%d,%d", c, c+40))
	}
	slices.Sort(wantCores)
	for _, c := range []struct {
		name       string
		core, pkgs bool
	}{
		{"package and core masks", true, true},
		{"package masks, core_id only", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			top, err := Read(mapFS(fourPackages(c.pkgs, c.core)))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := top.Summary(), "packages=4 numa=1 l3=0 cores=40 threads=80"; got != want {
				t.Errorf("Summary() = %q, want %q\n%s", got, want, top)
			}
			if got := domainSets(top, LevelPackage); !slices.Equal(got, wantPkgs) {
				t.Errorf("packages %v, want %v", got, wantPkgs)
			}
			if got := domainSets(top, LevelCore); !slices.Equal(got, wantCores) {
				t.Errorf("cores %v, want %v", got, wantCores)
			}
			// The id of a package is that of its first CPU.
			var ids []int
			for _, d := range top.Domains(LevelPackage) {
				ids = append(ids, d.ID)
			}
			if !slices.Equal(ids, []int{0, 1, 2, 2}) {
				t.Errorf("package ids %v, want [0 1 2 2]", ids)
			}
			s := top.String()
			if n := strings.Count(s, "Package L#"); n != 4 {
				t.Errorf("String() shows %d packages, want 4:\n%s", n, s)
			}
			checkPlacement(t, top)
			p := top.Placement(4)
			pkgs := map[int]bool{}
			for _, c := range p {
				pkgs[c/10%4] = true
			}
			if len(pkgs) != 4 {
				t.Errorf("Placement(4) = %v does not take one core of each package", p)
			}
			checkVictims(t, top, top.Placement(top.Usable()))
		})
	}
	// Without masks, the ids are all there is: CPUs are grouped by
	// physical_package_id (and cores by it, die_id and core_id), conflicts
	// included.
	t.Run("ids only", func(t *testing.T) {
		top, err := Read(mapFS(fourPackages(false, false)))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"0-9", "10-19,50-59", "20-39,60-79", "40-49"}
		if got := domainSets(top, LevelPackage); !slices.Equal(got, want) {
			t.Errorf("packages %v, want %v", got, want)
		}
		if got, want := top.Summary(), "packages=4 numa=1 l3=0 cores=40 threads=80"; got != want {
			t.Errorf("Summary() = %q, want %q", got, want)
		}
		cores := domainSets(top, LevelCore)
		if !slices.Contains(cores, "0") || !slices.Contains(cores, "20,30,60,70") {
			t.Errorf("cores %v: want the id-keyed groups {0} and {20,30,60,70}", cores)
		}
		checkPlacement(t, top)
	})
}

// conflictingMasks builds a synthetic capture of the machine hwloc's test
// 40intel64-4n10c+pci-conflicts describes: 4 packages of 10 single-thread
// cores, CPU c in package and NUMA node c%4 (core ids 0-2, 8-9, 16-18,
// 24-25 within each package), one L3 per package. With conflicts, two
// masks disagree with the rest: CPU 3 reports the package mask 0-3 (its
// siblings, and its physical_package_id 3, say 3,7,...,39), and CPU 2
// reports the L3 mask 0-3. The *_list files keep the consistent sets, as
// in hwloc's capture; the masks win (see sysfs.go).
func conflictingMasks(conflicts bool) map[string]string {
	const cpu, node = "sys/devices/system/cpu/", "sys/devices/system/node/"
	coreIDs := []int{0, 1, 2, 8, 9, 16, 17, 18, 24, 25}
	mask := func(cpus ...int) string {
		var w [2]uint32
		for _, c := range cpus {
			w[c/32] |= 1 << (c % 32)
		}
		return fmt.Sprintf("%08x,%08x\n", w[1], w[0])
	}
	pkg := func(p int) []int {
		var s []int
		for c := p; c < 40; c += 4 {
			s = append(s, c)
		}
		return s
	}
	files := map[string]string{cpu + "online": "0-39\n", cpu + "present": "0-39\n"}
	for p := range 4 {
		files[fmt.Sprintf("%snode%d/cpumap", node, p)] = mask(pkg(p)...)
		d := []string{"20", "20", "20", "20"}
		d[p] = "10"
		files[fmt.Sprintf("%snode%d/distance", node, p)] = strings.Join(d, " ") + "\n"
	}
	for c := range 40 {
		p := c % 4
		top := fmt.Sprintf("%scpu%d/topology/", cpu, c)
		files[top+"physical_package_id"] = fmt.Sprintln(p)
		files[top+"core_id"] = fmt.Sprintln(coreIDs[c/4])
		files[top+"thread_siblings"] = mask(c)
		files[top+"core_siblings"] = mask(pkg(p)...)
		files[top+"core_siblings_list"] = FormatCPUList(pkg(p)) + "\n"
		for i, lvl := range []int{1, 2, 3} {
			idx := fmt.Sprintf("%scpu%d/cache/index%d/", cpu, c, i)
			files[idx+"level"] = fmt.Sprintln(lvl)
			files[idx+"type"] = "Unified\n"
			shared := []int{c}
			if lvl == 3 {
				shared = pkg(p)
			}
			files[idx+"shared_cpu_map"] = mask(shared...)
			files[idx+"shared_cpu_list"] = FormatCPUList(shared) + "\n"
		}
	}
	if conflicts {
		files[cpu+"cpu3/topology/core_siblings"] = mask(0, 1, 2, 3)
		files[cpu+"cpu2/cache/index2/shared_cpu_map"] = mask(0, 1, 2, 3)
	}
	return files
}

// Where the masks themselves conflict, hwloc's rules (see "Conflicting
// reports" in the package documentation) drop the conflicting package and
// L3: 3 packages and 3 L3s, as hwloc reports for the machine this capture
// copies, where taking every reported set as a domain gives 5 and 5.
func TestConflictingMasks(t *testing.T) {
	top, err := Read(mapFS(conflictingMasks(true)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := top.Summary(), "packages=3 numa=4 l3=3 cores=40 threads=40"; got != want {
		t.Errorf("Summary() = %q, want %q\n%s", got, want, top)
	}
	// CPU 3 comes first in no package mask but its own, which overlaps
	// packages 0-2: no package holds CPUs 3,7,...,39. CPU 2's L3 mask
	// starts at CPU 0: no L3 holds CPUs 2,6,...,38.
	pkgs := []string{"0,4,8,12,16,20,24,28,32,36", "1,5,9,13,17,21,25,29,33,37", "2,6,10,14,18,22,26,30,34,38"}
	if got := domainSets(top, LevelPackage); !slices.Equal(got, pkgs) {
		t.Errorf("packages %v, want %v", got, pkgs)
	}
	l3s := []string{pkgs[0], pkgs[1], "3,7,11,15,19,23,27,31,35,39"}
	if got := domainSets(top, LevelL3); !slices.Equal(got, l3s) {
		t.Errorf("L3s %v, want %v", got, l3s)
	}
	if got := len(top.Domains(LevelNUMA)); got != 4 {
		t.Errorf("%d NUMA nodes, want 4", got)
	}
	s := top.String()
	if n := strings.Count(s, "Package L#"); n != 3 {
		t.Errorf("String() shows %d packages, want 3:\n%s", n, s)
	}
	if !strings.Contains(s, "\n  NUMANode L#3 (P#3) + L3 L#2\n") {
		t.Errorf("String() does not show the last L3 with its node outside every package:\n%s", s)
	}
	checkDomains(t, top)
	// The CPUs outside every package still take their turn: four workers
	// go to the four NUMA nodes.
	checkPlacement(t, top)
	if got := distinctDomains(top, LevelNUMA, top.Placement(4)); got != 4 {
		t.Errorf("Placement(4) = %v spans %d NUMA nodes, want 4", top.Placement(4), got)
	}
	checkVictims(t, top, top.Placement(top.Usable()))
	if r := top.Relation(3, 7); r != "l3" {
		t.Errorf("Relation(3, 7) = %s, want l3", r)
	}
	if r := top.Relation(2, 6); r != "numa" {
		t.Errorf("Relation(2, 6) = %s, want numa", r)
	}

	// Control: the same machine without the two conflicting masks.
	top, err = Read(mapFS(conflictingMasks(false)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := top.Summary(), "packages=4 numa=4 l3=4 cores=40 threads=40"; got != want {
		t.Errorf("without conflicts: Summary() = %q, want %q", got, want)
	}
}
