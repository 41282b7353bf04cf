package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
)

// TestJudgedInfinite: a verdict whose R̂ is infinite (a quantity constant
// in each chain at different values) is written as null, not refused by
// encoding/json (which ended `pgibbs uai -json` with "unsupported value:
// +Inf" on short runs).
func TestJudgedInfinite(t *testing.T) {
	c := judged(chain.Verdict{RHatMax: math.Inf(1), BulkESSMin: math.NaN(), TailESSMin: 3, Reason: "x0 (stuck)"}, chain.Criteria{}, 2, "")
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"rhat_max":null`) || !strings.Contains(s, `"ess_bulk_min":null`) || !strings.Contains(s, `"ess_tail_min":3`) {
		t.Errorf("%s", s)
	}
}
