package infer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
)

// TestPickResolved: the pilots' ranking counts only what they resolved
// (ESS ≥ ResolvedESS); when none did, the narrowest blocks are chosen by
// rule, saying so, or where hard factors freeze single sites the blocks
// that hold the most together among those the run affords minRuleSweeps
// of.
func TestPickResolved(t *testing.T) {
	width := func(w, table int) Spec {
		return Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: w, MaxTable: table}}}
	}
	site, w4, w8, wide := Spec{Name: "site"}, width(4, 0), width(8, 0), width(WideWidth, WideTable)
	held := map[string]float64{"block width 4": 0.2, "block width 8": 0.3, wide.String(): 0.6} // share of the variables in a block
	slow := func(s Spec, ns float64) Pilot {
		p := Pilot{Spec: s, NsPerSweep: ns, held: held[s.String()]}
		p.refuse(ErrTooSlow, "too slow")
		return p
	}
	ran := func(s Spec, ess, perSecond, ns float64) Pilot {
		return Pilot{Spec: s, ESS: ess, ESSPerSecond: perSecond, NsPerSweep: ns, held: held[s.String()]}
	}
	frozen := Pilot{Spec: site}
	frozen.fail(fmt.Errorf("gibbs: Auto: %w", blocks.ErrFrozen), "frozen")
	const runNs = 1e10 // 10 s of the cost model: minRuleSweeps of 2·10⁷ ns
	for _, c := range []struct {
		name   string
		pilots []Pilot
		want   Spec
		rule   bool
	}{
		{"resolved: most ESS a second", []Pilot{ran(site, 80, 900, 1e4), ran(w4, 120, 500, 1e5), slow(wide, 1e7)}, site, false},
		{"an unresolved pilot is not ranked", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 60, 500, 1e5)}, w4, false},
		{"none resolved: the narrowest blocks", []Pilot{ran(site, 10, 900, 1e4), ran(w8, 12, 500, 1e5), ran(w4, 5, 100, 1e5), slow(wide, 1.5e7)}, w4, true},
		{"frozen sites, resolved: most ESS a second", []Pilot{frozen, ran(w4, 120, 500, 1e5), ran(w8, 60, 100, 1e6), slow(wide, 1.5e7)}, w4, false},
		{"frozen sites, none resolved: the blocks holding the most", []Pilot{frozen, ran(w4, 12, 500, 1e5), ran(w8, 6, 100, 1e6), slow(wide, 1.5e7)}, wide, true},
		{"frozen sites, none resolved: the largest affordable", []Pilot{frozen, ran(w4, 12, 500, 1e5), ran(w8, 6, 100, 1e6), slow(wide, 3e7)}, w8, true},
		{"none resolved, no blocks: the most ESS a second", []Pilot{ran(site, 10, 900, 1e4)}, site, false},
	} {
		ch, err := pickScored(Choice{Pilots: c.pilots}, runNs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ch.Spec != c.want || strings.Contains(ch.Reason, "by rule") != c.rule {
			t.Errorf("%s: chose %s (%s), want %s, by rule %v", c.name, ch.Spec, ch.Reason, c.want, c.rule)
		}
	}
	// No pilot ran: the first the budget alone kept from running, by rule.
	if ch, err := pickScored(Choice{Pilots: []Pilot{slow(wide, 1e12)}}, runNs); err != nil || ch.Spec != wide {
		t.Errorf("no pilot ran: %v, %v; want %s by rule", ch.Spec, err, wide)
	}
}
