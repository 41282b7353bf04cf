//go:build race

package mh_test

// raceEnabled is true when the race detector, which slows the samplers
// several times, is on.
const raceEnabled = true
