package gibbstest

import (
	"testing"
)

// SkipShort skips the long statistical tests in -short mode, which CI uses
// for its race-detector run (the race detector slows them tenfold; the
// concurrency they would exercise is covered by the short tests).
func SkipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("statistical test: skipped with -short")
	}
}
