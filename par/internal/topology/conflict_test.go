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
	// included, as before.
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
