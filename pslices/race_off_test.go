//go:build !race

package pslices_test

const raceEnabled = false
