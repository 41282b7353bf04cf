package blocks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/elim"
	"github.com/pgibbs/pgibbs/factorgraph"
	"github.com/pgibbs/pgibbs/internal/ctxtest"
	"github.com/pgibbs/pgibbs/internal/densegen"
	"github.com/pgibbs/pgibbs/internal/meter"
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

// constructions are the configurations infer.Choose builds blocks of, as
// its candidates set them (MaxVars left at the default: the models here
// are small).
var constructions = []Config{{MaxWidth: 4}, {MaxWidth: 8}, {MaxWidth: 12}, {MaxWidth: 16, MaxTable: 1 << 18}, {Forests: true}}

// TestBuildWorkLinear: the work Build counts grows about as the number of
// factors, not faster, from K_{n,n} to K_{2n,2n}, from the complete graph
// on n variables to that on 2n (four times the factors each) and from n
// hubs to 2n (twice; blocks of at most 64 variables, as infer's candidates
// bound them on large models), at every width infer.Choose tries and for
// the forests: at most 1.5 times the factors' ratio, where the
// construction was quadratic in it before (a block of K_{w,n} checked
// every other variable by a fresh elimination). The fixed part of the
// min-fill checks' budget (mfBase) is set aside: it bounds their work by
// a constant on small models.
func TestBuildWorkLinear(t *testing.T) {
	defer func(b float64) { mfBase = b }(mfBase)
	mfBase = 0
	models := []struct {
		name       string
		small, big densegen.Pairs
		maxVars    int
	}{
		{"K_{n,n}", densegen.KBip(50), densegen.KBip(100), 0},
		{"complete", densegen.Complete(50), densegen.Complete(100), 0},
		{"hubs", densegen.Hubs(20, 400, 1), densegen.Hubs(40, 800, 1), 64},
	}
	for _, md := range models {
		gs, gb := dense(t, md.small), dense(t, md.big)
		ratio := float64(gb.NumFactors()) / float64(gs.NumFactors())
		for _, cfg := range constructions {
			cfg.MaxVars = md.maxVars
			_, ws, err := build(context.Background(), gs, cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, wb, err := build(context.Background(), gb, cfg)
			if err != nil {
				t.Fatal(err)
			}
			growth := float64(wb) / float64(ws)
			t.Logf("%s %+v: work %d → %d units (×%.2f) for ×%.2f factors", md.name, cfg, ws, wb, growth, ratio)
			if growth > 1.5*ratio {
				t.Errorf("%s %+v: work ×%.2f for ×%.2f factors: faster than linear", md.name, cfg, growth, ratio)
			}
		}
	}
}

// TestBuildCancel: a Build whose context is done stops with the context's
// error (errors.Is holds) before it finishes, at its first look, halfway,
// and at its last look, at every width and for the forests, on K_{n,n};
// and so do FrozenSite and CheckCover on a model with frozen links, and a
// build whose deadline has passed.
func TestBuildCancel(t *testing.T) {
	g := dense(t, densegen.KBip(200))
	for _, cfg := range constructions {
		count := ctxtest.NewLooks(-1)
		if _, err := Build(count, g, cfg); err != nil {
			t.Fatal(err)
		}
		total := count.N()
		if total < 2 {
			t.Errorf("%+v: the build looked at its context %d times: want several", cfg, total)
		}
		for _, after := range []int{0, total / 2, total - 1} {
			blocks, err := Build(ctxtest.NewLooks(after), g, cfg)
			if !errors.Is(err, context.Canceled) || blocks != nil {
				t.Errorf("%+v: done after %d of %d looks: %d blocks, error %v; want context.Canceled", cfg, after, total, len(blocks), err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if _, err := Build(ctx, g, Config{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past deadline: %v, want context.DeadlineExceeded", err)
	}
	// Frozen links: the searches of the test look at the context.
	hard := grid(t, 6, 6, 1, true)
	done := ctxtest.NewLooks(0)
	if fl, err := FrozenSite(done, hard); !errors.Is(err, context.Canceled) || fl != nil {
		t.Errorf("FrozenSite: %+v, %v; want context.Canceled", fl, err)
	}
	var single [][]int
	for i := range 36 {
		single = append(single, []int{i})
	}
	if err := CheckCover(done, hard, single); !errors.Is(err, context.Canceled) {
		t.Errorf("CheckCover: %v; want context.Canceled", err)
	}
}

// TestBuildCancelLatency: cancelled while it runs, a Build on K_{200,200}
// returns the context's error well within 2 s (the looks come about
// every millisecond of work).
func TestBuildCancelLatency(t *testing.T) {
	g := dense(t, densegen.KBip(200))
	for _, cfg := range []Config{{MaxWidth: 4}, {Forests: true}} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := Build(ctx, g, cfg)
			done <- err
		}()
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		cancel()
		err := <-done
		lat := time.Since(start)
		switch {
		case err == nil:
			t.Logf("%+v: built before the cancellation", cfg)
		case !errors.Is(err, context.Canceled):
			t.Errorf("%+v: %v; want context.Canceled", cfg, err)
		case lat > 2*time.Second:
			t.Errorf("%+v: returned %v after the cancellation", cfg, lat)
		default:
			t.Logf("%+v: returned %v after the cancellation: %v", cfg, lat, err)
		}
	}
}

// TestBuildBlocksFit: every block Build makes fits its bounds in the
// order it lists its variables (elim.Simulate on the block's interaction
// graph), on the dense models as on the grids, and every free variable is
// covered.
func TestBuildBlocksFit(t *testing.T) {
	for _, g := range []*factorgraph.Graph{dense(t, densegen.KBip(40)), dense(t, densegen.Complete(40)), dense(t, densegen.Hubs(10, 300, 2)), grid(t, 8, 7, 1, false)} {
		for _, cfg := range constructions[:4] {
			blocks, err := Build(context.Background(), g, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(g, blocks); err != nil {
				t.Errorf("%+v: %v", cfg, err)
			}
			full, _ := cfg.WithDefaults()
			ig, _ := newInteraction(g, meter.New(context.Background(), "test"))
			lim := elim.Stats{Width: full.MaxWidth, MaxTable: float64(full.MaxTable), Entries: TotalFactor * float64(full.MaxTable)}
			for b, blk := range blocks {
				local := map[int32]int32{}
				for l, v := range blk {
					local[int32(v)] = int32(l)
				}
				adj := make([][]int32, len(blk))
				size := make([]int32, len(blk))
				order := make([]int32, len(blk))
				for l, v := range blk {
					size[l], order[l] = int32(g.Domain(v).Size), int32(l)
					for _, u := range ig.nbr[v] {
						if lu, ok := local[u]; ok {
							adj[l] = append(adj[l], lu)
						}
					}
				}
				if st, ok := elim.Simulate(adj, size, order, lim); !ok || len(blk) > full.MaxVars {
					t.Errorf("%+v: block %d (%d variables) in its order: %+v, beyond %+v", cfg, b, len(blk), st, lim)
				}
			}
		}
	}
}
