//go:build !race

package gibbs

// raceEnabled reports a build with the race detector, whose slowdown makes
// latencies meaningless.
const raceEnabled = false
