//go:build race

package pslices_test

const raceEnabled = true
