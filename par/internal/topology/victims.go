package topology

// VictimPolicy chooses the order in which an idle worker tries to steal.
type VictimPolicy int

const (
	VictimsNearest VictimPolicy = iota // nearest in the machine's topology first (VictimOrder), randomised within a level
	VictimsRandom                      // the other workers in a fresh random order
)

// VictimOrders computes, for each worker placed on cpus, the others in the
// order it steals from them, and the end offset of each distance level
// (within which the scheduler randomises the order each round): with
// VictimsNearest the levels of VictimOrder, with VictimsRandom one level.
func (t *Topology) VictimOrders(cpus []int, policy VictimPolicy) (victims [][]int32, levels [][]int) {
	n := len(cpus)
	victims = make([][]int32, n)
	levels = make([][]int, n)
	for i := 0; i < n; i++ {
		var order [][]int
		if policy == VictimsNearest {
			order = t.VictimOrder(cpus, i)
		} else {
			var all []int
			for j := 0; j < n; j++ {
				if j != i {
					all = append(all, j)
				}
			}
			order = [][]int{all}
		}
		for _, lvl := range order {
			for _, j := range lvl {
				victims[i] = append(victims[i], int32(j))
			}
			levels[i] = append(levels[i], len(victims[i]))
		}
	}
	return victims, levels
}
