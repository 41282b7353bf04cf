//go:build !race

package samplers

// raceEnabled reports a build with the race detector, whose slowdown makes
// latencies meaningless.
const raceEnabled = false
