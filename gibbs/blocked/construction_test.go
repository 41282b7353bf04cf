package blocked

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
	"github.com/pgibbs/pgibbs/internal/ctxtest"
	"github.com/pgibbs/pgibbs/internal/densegen"
)

// dense returns the generated model of p (random tables).
func dense(t testing.TB, p densegen.Pairs) *factorgraph.Graph {
	t.Helper()
	g, err := p.Tables(1)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// constructions are the configurations of infer.Choose's block candidates
// (MaxVars left at the default: the models here are small).
var constructions = []Config{{Config: blocks.Config{MaxWidth: 4}}, {Config: blocks.Config{MaxWidth: 8}}, {Config: blocks.Config{MaxWidth: 12}}, {Config: blocks.Config{MaxWidth: 16, MaxTable: 1 << 18}}, {Config: blocks.Config{Forests: true}}}

// touched returns the factor incidences of the blocks of s's variables,
// Σ_B Σ_{v∈B} |A[v]|: what compiling them reads.
func touched(g *factorgraph.Graph, s *Blocked) int {
	n := 0
	for _, b := range s.Blocks() {
		for _, v := range b.Vars {
			soft, hard := g.Degree(v)
			n += soft + hard
		}
	}
	return n
}

// TestNewWithTouchBound: the factor incidences the blocks of a Blocked
// sampler touch — what compiling them reads, and what an update of every
// block tabulates — stay within (2 + blocks.RecoverFactor) times the
// model's incidences Σ_i |A[i]| on K_{n,n} and K_{2n,2n}, at every width
// infer.Choose tries and for the forests: linear in the factors, where
// every block of width w touched the whole model and there were n/w of
// them.
func TestNewWithTouchBound(t *testing.T) {
	for _, g := range []*factorgraph.Graph{dense(t, densegen.KBip(50)), dense(t, densegen.KBip(100))} {
		incid := 0
		for _, v := range g.Free() {
			soft, hard := g.Degree(v)
			incid += soft + hard
		}
		for _, cfg := range constructions {
			s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), nil, nil, cfg)
			if err != nil {
				t.Fatal(err)
			}
			touch := touched(g, s)
			t.Logf("%d variables %+v: the blocks touch %d incidences, %.2f times the model's", len(g.Free()), cfg, touch, float64(touch)/float64(incid))
			if bound := (2 + blocks.RecoverFactor) * incid; touch > bound {
				t.Errorf("%d variables %+v: the blocks touch %d factor incidences, more than %d", len(g.Free()), cfg, touch, bound)
			}
		}
	}
}

// TestNewWithCancel: NewWith, New and NewIfSticky stop with the context's
// error (errors.Is holds) at the construction's first look, halfway and at
// its last, and a construction cancelled while it runs returns well within
// 2 s.
func TestNewWithCancel(t *testing.T) {
	g := dense(t, densegen.KBip(150))
	for _, cfg := range []Config{{Config: blocks.Config{MaxWidth: 4}}, {Config: blocks.Config{MaxWidth: 16, MaxTable: 1 << 18}}, {Config: blocks.Config{Forests: true}}} {
		count := ctxtest.NewLooks(-1)
		if _, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Context: count}, nil, cfg); err != nil {
			t.Fatal(err)
		}
		total := count.N()
		if total < 2 {
			t.Errorf("%+v: the construction looked at its context %d times, want several", cfg, total)
		}
		for _, after := range []int{0, total / 2, total - 1} {
			opt := &gibbs.Options{Context: ctxtest.NewLooks(after)}
			if s, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), opt, nil, cfg); !errors.Is(err, context.Canceled) || s != nil {
				t.Errorf("%+v: done after %d of %d looks: %v", cfg, after, total, err)
			}
		}
	}
	done := &gibbs.Options{Context: ctxtest.NewLooks(0)}
	if _, err := New(g, rand.New(rand.NewPCG(1, 1)), done); !errors.Is(err, context.Canceled) {
		t.Errorf("New: %v, want context.Canceled", err)
	}
	sticky := gibbstest.PottsChain(t, 10, 8, 0.2)
	if s, err := NewIfSticky(sticky, rand.New(rand.NewPCG(1, 1)), done); !errors.Is(err, context.Canceled) || s != nil {
		t.Errorf("NewIfSticky: %v, %v; want context.Canceled", s, err)
	}
	// Cancelled while it runs.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := NewWith(g, rand.New(rand.NewPCG(1, 1)), &gibbs.Options{Context: ctx}, nil, Config{Config: blocks.Config{MaxWidth: 4}})
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond)
	start := time.Now()
	cancel()
	err := <-errc
	lat := time.Since(start)
	switch {
	case err == nil:
		t.Logf("built before the cancellation")
	case !errors.Is(err, context.Canceled) || lat > 2*time.Second:
		t.Errorf("cancelled: %v after %v", err, lat)
	default:
		t.Logf("returned %v after the cancellation: %v", lat, err)
	}
}

// TestBuildCost: the estimate of a construction grows as the factors
// from K_{n,n} to K_{2n,2n} (it reads the degrees only), counts the three
// widths New may try when none is given, and is 0 for a model NewWith
// refuses at once.
func TestBuildCost(t *testing.T) {
	gs, gb := dense(t, densegen.KBip(50)), dense(t, densegen.KBip(100))
	for _, cfg := range constructions {
		cs, cb := BuildCost(gs, cfg), BuildCost(gb, cfg)
		t.Logf("%+v: %.3g ns → %.3g ns", cfg, cs, cb)
		if !(cs > 0) || cb < 2*cs || cb > 5*cs {
			t.Errorf("%+v: %.3g ns on K_{50,50}, %.3g on K_{100,100}: want about 4 times", cfg, cs, cb)
		}
	}
	auto, w4 := BuildCost(gb, Config{}), BuildCost(gb, Config{Config: blocks.Config{MaxWidth: 4}})
	if auto < 2.5*w4 {
		t.Errorf("width from the model: %.3g ns, width 4: %.3g; want the three widths counted", auto, w4)
	}
	if c := BuildCost(nil, Config{}); c != 0 {
		t.Errorf("nil model: %v", c)
	}
}
