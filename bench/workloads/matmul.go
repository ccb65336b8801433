package workloads

import (
	"math/rand/v2"
	"sync"
)

// Size of the nested workload.
const MatN = 512

// MatMul is C = A x B for n x n matrices, parallel over rows and within each
// row over cells. B is stored transposed so that every cell is the dot product
// of two contiguous rows. Every cell is summed in the same order by every
// peer, so results compare exactly.
type MatMul struct {
	N        int
	A, BT, C []float64

	refOnce sync.Once
	ref     []float64
}

// NewMatMul fills A and B with values in [-1, 1) from a fixed seed.
func NewMatMul(n int) *MatMul {
	r := rand.New(rand.NewPCG(5, 5))
	m := &MatMul{N: n, A: make([]float64, n*n), BT: make([]float64, n*n), C: make([]float64, n*n)}
	for i := range m.A {
		m.A[i] = 2*r.Float64() - 1
		m.BT[i] = 2*r.Float64() - 1
	}
	return m
}

// Cell computes C[i][j].
func (m *MatMul) Cell(i, j int) {
	n := m.N
	m.C[i*n+j] = dot(m.A[i*n:(i+1)*n], m.BT[j*n:(j+1)*n])
}

// Cells computes C[i][lo:hi].
func (m *MatMul) Cells(i, lo, hi int) {
	n := m.N
	a := m.A[i*n : (i+1)*n]
	for j := lo; j < hi; j++ {
		m.C[i*n+j] = dot(a, m.BT[j*n:(j+1)*n])
	}
}

// Plain computes every cell serially.
func (m *MatMul) Plain() {
	for i := 0; i < m.N; i++ {
		m.Cells(i, 0, m.N)
	}
}

// Reset clears C.
func (m *MatMul) Reset() { clear(m.C) }

// Verify compares C with a serial reference computed once.
func (m *MatMul) Verify() error {
	m.refOnce.Do(func() {
		r := &MatMul{N: m.N, A: m.A, BT: m.BT, C: make([]float64, len(m.C))}
		r.Plain()
		m.ref = r.C
	})
	for i, v := range m.C {
		if v != m.ref[i] {
			return mismatch("matmul", i, v, m.ref[i])
		}
	}
	return nil
}

// dot uses four accumulators so that the loop is bound by throughput rather
// than by the latency of one chain of additions.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
