package infer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
)

// TestChooseRefusals: a pilot's refusal travels as an error (Pilot.Err)
// whose kind errors.Is tells — Choose's own (too slow for the budget, out
// of time) or the sampler's (a cluster move on an antiferromagnet) — and
// Refused is its message.
func TestChooseRefusals(t *testing.T) {
	check := func(label string, ch Choice) {
		t.Helper()
		for _, p := range ch.Pilots {
			if (p.Refused == "") != (p.Err() == nil) {
				t.Errorf("%s: %v refused %q with error %v", label, p.Spec, p.Refused, p.Err())
			}
		}
	}
	// A budget that leaves no time for any pilot: single sites and the
	// narrowest blocks too slow, wider blocks (and those bounded by tables
	// that allow theirs) not built, the first candidate by rule.
	g := isingTorus(t, 12, 0.9)
	ch, err := Choose(context.Background(), g, ChooseOptions{Budget: 1e3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	check("tiny budget", ch)
	if !strings.Contains(ch.Reason, "by rule") || ch.Spec != ch.Pilots[0].Spec {
		t.Errorf("tiny budget: chose %v: %s", ch.Spec, ch.Reason)
	}
	if p := ch.Pilots[0]; !errors.Is(p.Err(), ErrTooSlow) || !strings.HasPrefix(p.Refused, tooSlow) {
		t.Errorf("tiny budget: %v refused %q (%v), want ErrTooSlow", p.Spec, p.Refused, p.Err())
	}
	// Blocks bounded by tables alone, whose bound allows the too slow
	// width's largest table, are not built either.
	tables := 0
	for _, p := range ch.Pilots {
		if p.Spec.Name == "block" && p.Spec.Block.MaxWidth >= WideWidth {
			tables++
			if !errors.Is(p.Err(), errWider) || !strings.Contains(p.Refused, "its tables allow that width's largest") {
				t.Errorf("tiny budget: %v refused %q (%v), want errWider by its tables", p.Spec, p.Refused, p.Err())
			}
		}
	}
	if tables == 0 {
		t.Error("tiny budget: no candidate of blocks bounded by tables")
	}
	// Wolff too slow before it is built: its tuning would cost more sweeps
	// than its pilot may have.
	for _, p := range ch.Pilots {
		if p.Spec.Name == "wolff" && (!errors.Is(p.Err(), ErrTooSlow) || !strings.HasSuffix(p.Refused, "(before its tuning)") || p.NsPerSweep != wolffSweepCost(g) || !p.unbuilt) {
			t.Errorf("tiny budget: wolff refused %q (%v, %.3g ns a sweep, unbuilt %v), want ErrTooSlow before its tuning", p.Refused, p.Err(), p.NsPerSweep, p.unbuilt)
		}
	}
	// ... and so never chosen by rule, which takes only a candidate the
	// model was seen to accept: where every other candidate ran out of
	// time before it was built, Wolff (which the model may refuse: a
	// table that is not a Potts pair) was chosen, and the run ended with
	// the constructor's error (TestUAIBudget's grid under CI's load).
	var late Choice
	for _, name := range []string{"site", "sw", "wolff"} {
		p := Pilot{Spec: Spec{Name: name}}
		if name == "wolff" {
			p.unbuilt = true
			p.refuse(ErrTooSlow, "%s 1 s: too slow for a pilot (before its tuning)", tooSlow)
		} else {
			p.refuse(ErrBuildOutOfTime, "%s its construction did not finish within its share", overran)
		}
		late.Pilots = append(late.Pilots, p)
	}
	if ch, err := pick(late, 1e9); !errors.Is(err, ErrNoTime) {
		t.Errorf("wolff unbuilt, the rest out of time: chose %v (%s), %v; want ErrNoTime", ch.Spec, ch.Reason, err)
	}
	// A frustrated model: the cluster moves' constructors refuse it, in
	// their own words; nothing of Choose's own kinds.
	b := factorgraph.NewBuilder()
	b.AddVariables(3, factorgraph.Discrete(2))
	b.AddFactor(factorgraph.NewPotts(0, 1, -1))
	b.AddFactor(factorgraph.NewPotts(1, 2, -1))
	b.AddFactor(factorgraph.NewPotts(0, 2, -1))
	frustrated, _ := b.Build()
	if ch, err = Choose(context.Background(), frustrated, ChooseOptions{Budget: 1e8, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	check("antiferromagnet", ch)
	for _, p := range ch.Pilots {
		if p.Spec.Name != "sw" && p.Spec.Name != "wolff" {
			continue
		}
		if e := p.Err(); e == nil || errors.Is(e, ErrTooSlow) || errors.Is(e, ErrBuildOutOfTime) || errors.Is(e, ErrPilotOutOfTime) {
			t.Errorf("%v on an antiferromagnet: %v", p.Spec, e)
		}
	}
	// A deadline already past: no candidate can be built in its share;
	// the first whose construction fits the run is chosen by rule.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	ch, err = Choose(ctx, g, ChooseOptions{Budget: 1e8, Seed: 1})
	if err != nil || ch.Spec != ch.Pilots[0].Spec || !strings.Contains(ch.Reason, "by rule: the budget left no time to build") {
		t.Fatalf("a deadline past: %v (%s), %v; want %v by rule", ch.Spec, ch.Reason, err, ch.Pilots[0].Spec)
	}
	check("deadline past", ch)
	for _, p := range ch.Pilots {
		if !errors.Is(p.Err(), ErrBuildOutOfTime) && !errors.Is(p.Err(), errWider) {
			t.Errorf("a deadline past: %v refused %q (%v), want ErrBuildOutOfTime", p.Spec, p.Refused, p.Err())
		}
	}
}
