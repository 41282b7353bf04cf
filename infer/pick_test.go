package infer

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/gibbs/blocked"
	"github.com/pgibbs/pgibbs/glass"
)

// TestPickResolved: the pilots' ranking counts only what they resolved
// (ESS ≥ ResolvedESS); when none did, the narrowest blocks are chosen by
// rule, saying so, or where hard factors freeze single sites, of the
// blocks the run affords minRuleSweeps of, the cheapest of those leaving
// out at most leftOutSlack more of the variables than the fewest.
func TestPickResolved(t *testing.T) {
	width := func(w, table int) Spec {
		return Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{MaxWidth: w, MaxTable: table}}}
	}
	site, w4, w8, wide := Spec{Name: "site"}, width(4, 0), width(8, 0), width(WideWidth, WideTable)
	w12 := width(12, 0)
	held := map[string]float64{"block width 4": 0.1, "block width 8": 0.3, wide.String(): 0.6, "block width 12": 0.55} // share of the variables in a block
	slow := func(s Spec, ns float64) Pilot {
		p := Pilot{Spec: s, NsPerSweep: ns, held: held[s.String()]}
		p.refuse(ErrTooSlow, "too slow")
		return p
	}
	ran := func(s Spec, ess, perSecond, ns float64) Pilot {
		return Pilot{Spec: s, ESS: ess, ESSPerSecond: perSecond, NsPerSweep: ns, held: held[s.String()]}
	}
	outOfTime := func(s Spec) Pilot {
		p := Pilot{Spec: s}
		p.refuse(ErrBuildOutOfTime, "out of time")
		return p
	}
	buildTakes := func(s Spec, ns float64) Pilot { // refused before it was built: its estimate
		p := outOfTime(s)
		p.build, p.estimated = ns, true
		return p
	}
	frozen := Pilot{Spec: site}
	frozen.fail(fmt.Errorf("gibbs: Auto: %w", blocks.ErrFrozen), "frozen")
	const runNs = 1e10 // 10 s of the cost model: minRuleSweeps of 2·10⁷ ns
	xch := Spec{Name: "exchange", Houdayer: true}
	for _, c := range []struct {
		name       string
		pilots     []Pilot
		want       Spec
		rule       bool
		frustrated bool
	}{
		{"resolved: most ESS a second", []Pilot{ran(site, 80, 900, 1e4), ran(w4, 120, 500, 1e5), slow(wide, 1e7)}, site, false, false},
		{"an unresolved pilot is not ranked", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 60, 500, 1e5)}, w4, false, false},
		{"none resolved: the narrowest blocks", []Pilot{ran(site, 10, 900, 1e4), ran(w8, 12, 500, 1e5), ran(w4, 5, 100, 1e5), slow(wide, 1.5e7)}, w4, true, false},
		{"frozen sites, resolved: most ESS a second", []Pilot{frozen, ran(w4, 120, 500, 1e5), ran(w8, 60, 100, 1e6), slow(wide, 1.5e7)}, w4, false, false},
		{"frozen sites, none resolved: the blocks holding the most", []Pilot{frozen, ran(w4, 12, 500, 1e5), ran(w8, 6, 100, 1e6), slow(wide, 1.5e7)}, wide, true, false},
		{"frozen sites, none resolved: the largest affordable", []Pilot{frozen, ran(w4, 12, 500, 1e5), ran(w8, 6, 100, 1e6), slow(wide, 3e7)}, w8, true, false},
		{"frozen sites, none resolved: the cheapest leaving out nearly the fewest", []Pilot{frozen, ran(w4, 12, 500, 1e5), ran(w8, 6, 100, 1e6), slow(w12, 4e6), slow(wide, 1.5e7)}, w12, true, false},
		{"none resolved, no blocks: the most ESS a second", []Pilot{ran(site, 10, 900, 1e4)}, site, false, false},
		{"frustrated, none resolved: exchange", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), ran(xch, 8, 50, 1e6)}, xch, true, true},
		{"frustrated, none resolved, exchange unaffordable: blocks", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), ran(xch, 8, 50, 2e8)}, w4, true, true},
		{"frustrated, none resolved, exchange affordable for fewer than minRuleSweeps: exchange", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), ran(xch, 8, 50, 3e7)}, xch, true, true},
		{"unfrustrated, none resolved: blocks, not exchange", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), ran(xch, 8, 50, 1e6)}, w4, true, false},
		{"frustrated, resolved: ranked", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 60, 100, 1e5), ran(xch, 80, 500, 1e6)}, xch, false, true},
		{"frustrated, none resolved, exchange out of pilot time: exchange", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), outOfTime(xch)}, xch, true, true},
		{"frustrated, none resolved, exchange's construction fits the run: exchange", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), buildTakes(xch, 5e9)}, xch, true, true},
		{"frustrated, none resolved, exchange's construction beyond buildShare of the run: blocks", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), buildTakes(xch, 9e9)}, w4, true, true},
		{"frustrated, none resolved, exchange too slow for a pilot: exchange", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), slow(xch, 3e6)}, xch, true, true},
		{"frustrated, none resolved, exchange unaffordable for the run: blocks", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 5, 100, 1e5), slow(xch, 2e8)}, w4, true, true},
		{"frustrated, resolved: exchange handicapped", []Pilot{ran(site, 10, 900, 1e4), ran(w4, 104, 2930, 1e5), ran(xch, 156, 3020, 1e6)}, w4, false, true},
	} {
		ch, err := pickScored(Choice{Pilots: c.pilots, frustrated: c.frustrated}, runNs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ch.Spec != c.want || strings.Contains(ch.Reason, "by rule") != c.rule {
			t.Errorf("%s: chose %s (%s), want %s, by rule %v", c.name, ch.Spec, ch.Reason, c.want, c.rule)
		}
	}
	// No pilot ran: the first the budget alone kept from running, by rule;
	// where sites are frozen, the rule for them over the blocks built
	// (spanning forests, first, hold nothing together).
	if ch, err := pickScored(Choice{Pilots: []Pilot{slow(wide, 1e12)}}, runNs); err != nil || ch.Spec != wide {
		t.Errorf("no pilot ran: %v, %v; want %s by rule", ch.Spec, err, wide)
	}
	forests := Spec{Name: "block", Block: blocked.Config{Config: blocks.Config{Forests: true}}}
	noneRan := []Pilot{frozen, slow(forests, 1e6), slow(w12, 1e12), slow(w8, 1e6), slow(w4, 1e5)}
	if ch, err := pickScored(Choice{Pilots: noneRan}, runNs); err != nil || ch.Spec != w8 || !strings.Contains(ch.Reason, "freeze single-site updates") {
		t.Errorf("no pilot ran, frozen sites: %v (%s), %v; want %s by the rule for frozen sites", ch.Spec, ch.Reason, err, w8)
	}
	if ch, err := pickScored(Choice{Pilots: noneRan[1:]}, runNs); err != nil || ch.Spec != forests {
		t.Errorf("no pilot ran, sites not frozen: %v (%s), %v; want the first built, %s", ch.Spec, ch.Reason, err, forests)
	}
	// Nothing built: the first whose estimated construction fits three quarters of
	// the run, by rule; none such, ErrNoTime.
	estimated := func(s Spec, ns float64) Pilot {
		p := outOfTime(s)
		p.build, p.estimated = ns, true
		return p
	}
	if ch, err := pickScored(Choice{Pilots: []Pilot{estimated(w4, 8e9), outOfTime(w8), estimated(site, 1e8)}}, runNs); err != nil || ch.Spec != site || !strings.Contains(ch.Reason, "by rule: the budget left no time to build") {
		t.Errorf("nothing built, single sites cheap: %v (%s), %v; want %s by rule", ch.Spec, ch.Reason, err, site)
	}
	if _, err := pickScored(Choice{Pilots: []Pilot{estimated(w4, 8e9), outOfTime(site)}}, runNs); !errors.Is(err, ErrNoTime) {
		t.Errorf("nothing built, no construction known to fit: %v, want ErrNoTime", err)
	}
	if ch, err := pickScored(Choice{Pilots: []Pilot{frozen, estimated(w4, 7e9)}}, runNs); err != nil || ch.Spec != w4 {
		t.Errorf("nothing built, a construction of 0.7 of the run: %v (%s), %v; want %s by rule", ch.Spec, ch.Reason, err, w4)
	}
	// Built but too slow for the run (fewer than minRuleSweeps), where a
	// cheaper candidate before it was refused only by its share of the
	// pilots' time and fits the run: that one (linkage_26 at 2 s); one the
	// run affords stands.
	if ch, err := pickScored(Choice{Pilots: []Pilot{frozen, estimated(w4, 2e9), slow(wide, 1e9)}}, runNs); err != nil || ch.Spec != w4 || !strings.Contains(ch.Reason, "fits the run") {
		t.Errorf("built too slow for the run, a cheaper construction fits: %v (%s), %v; want %s by rule", ch.Spec, ch.Reason, err, w4)
	}
	whole := slow(wide, 1e9)
	whole.held = 0.96
	if ch, err := pickScored(Choice{Pilots: []Pilot{frozen, estimated(w4, 2e9), whole}}, runNs); err != nil || ch.Spec != wide {
		t.Errorf("built too slow for the run, but holding nearly all variables a block: %v (%s), %v; want %s by rule", ch.Spec, ch.Reason, err, wide)
	}
	if ch, err := pickScored(Choice{Pilots: []Pilot{estimated(w4, 2e9), slow(wide, 1e7)}}, runNs); err != nil || ch.Spec != wide {
		t.Errorf("built, affordable: %v (%s), %v; want %s by rule", ch.Spec, ch.Reason, err, wide)
	}
	if ch, err := pickScored(Choice{Pilots: []Pilot{estimated(w4, 8e9), slow(wide, 1e9)}}, runNs); err != nil || ch.Spec != wide {
		t.Errorf("built too slow, nothing else fits: %v (%s), %v; want %s by rule", ch.Spec, ch.Reason, err, wide)
	}
	// A construction cut by its share of the pilots' time, small beside
	// the run: the run may afford it (by rule); a share as large as a
	// quarter of the run says it may not.
	cut := func(s Spec, share float64) Pilot {
		p := outOfTime(s)
		p.build = share
		return p
	}
	if ch, err := pickScored(Choice{Pilots: []Pilot{estimated(w4, 8e9), cut(w8, 4e8), cut(w12, 4e8)}}, runNs); err != nil || ch.Spec != w8 || !strings.Contains(ch.Reason, "may fit the run") {
		t.Errorf("nothing built, constructions cut at 0.4 s of a 10-s run: %v (%s), %v; want %s by rule", ch.Spec, ch.Reason, err, w8)
	}
	if _, err := pickScored(Choice{Pilots: []Pilot{estimated(w4, 8e9), cut(w8, 3e9)}}, runNs); !errors.Is(err, ErrNoTime) {
		t.Errorf("nothing built, a construction cut at 3 s of a 10-s run: %v, want ErrNoTime", err)
	}
}

// TestFrustrated: a cycle with an odd number of antiferromagnetic pairs is
// frustrated, an even number (gauge-equivalent to a ferromagnet) is not,
// and a 2-D ±J glass is.
func TestFrustrated(t *testing.T) {
	cycle := func(signs ...float64) *factorgraph.Graph {
		b := factorgraph.NewBuilder()
		b.AddVariables(len(signs), factorgraph.Discrete(2))
		for k, w := range signs {
			b.AddFactor(factorgraph.NewPotts(k, (k+1)%len(signs), w))
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	gl, err := glass.New(glass.Spec{L: 4, Beta: 1, FieldSD: 0.1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *factorgraph.Graph
		want bool
	}{
		{"ferromagnetic square", cycle(1, 1, 1, 1), false},
		{"two antiferromagnetic pairs", cycle(1, -2, 1, -0.5), false},
		{"one antiferromagnetic pair", cycle(1, 1, -1, 1), true},
		{"antiferromagnetic triangle", cycle(-1, -1, -1), true},
		{"±J glass", gl, true},
	} {
		if got := Frustrated(c.g); got != c.want {
			t.Errorf("%s: frustrated %v, want %v", c.name, got, c.want)
		}
	}
}
