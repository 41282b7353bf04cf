package mh_test

import "testing"

// skipShort skips the long statistical tests in -short mode, which CI uses
// for its race-detector run (the race detector slows them tenfold; the
// concurrency they would exercise is covered by the short tests).
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("statistical test: skipped with -short")
	}
}
