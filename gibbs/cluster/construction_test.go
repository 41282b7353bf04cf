package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
	"github.com/pgibbs/pgibbs/internal/ctxtest"
	"github.com/pgibbs/pgibbs/internal/densegen"
)

// densePotts returns the complete graph on n binary variables with
// ferromagnetic Potts pairs of weight w and random fields.
func densePotts(t testing.TB, n int, w float64) *factorgraph.Graph {
	t.Helper()
	g, err := densegen.Complete(n).Potts(w, 1)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestClusterCancel: both constructors refuse a done context with its
// error (errors.Is holds); Wolff's tuning stops with it at its first look
// and halfway; and tuning cancelled while it runs returns well within 2 s.
func TestClusterCancel(t *testing.T) {
	g := densePotts(t, 300, 0.01)
	for name, mk := range clusterBoth(g, rand.New(rand.NewPCG(1, 2)), &gibbs.Options{Context: ctxtest.NewLooks(0)}) {
		if _, err := mk(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a done context: %v", name, err)
		}
	}
	count := ctxtest.NewLooks(-1)
	w, err := NewWolff(g, rand.New(rand.NewPCG(1, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.TuneClusters(count, 50); err != nil {
		t.Fatal(err)
	}
	total := count.N()
	if total < 2 {
		t.Errorf("tuning looked at its context %d times, want several", total)
	}
	for _, after := range []int{0, total / 2} {
		w, _ := NewWolff(g, rand.New(rand.NewPCG(1, 2)), nil)
		if _, err := w.TuneClusters(ctxtest.NewLooks(after), 50); !errors.Is(err, context.Canceled) {
			t.Errorf("tuning done after %d of %d looks: %v, want context.Canceled", after, total, err)
		}
	}
	w, _ = NewWolff(g, rand.New(rand.NewPCG(1, 2)), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := w.TuneClusters(ctx, 1e5)
		done <- err
	}()
	time.Sleep(5 * time.Millisecond)
	start := time.Now()
	cancel()
	err = <-done
	if lat := time.Since(start); !errors.Is(err, context.Canceled) || lat > 2*time.Second {
		t.Errorf("tuning cancelled: %v after %v", err, lat)
	} else {
		t.Logf("tuning returned %v after the cancellation: %v", lat, err)
	}
}

// BenchmarkNew times the construction of the cluster samplers on dense
// ferromagnetic Potts models (Wolff's with a tuning of 5 sweeps, as
// infer.Choose's candidate).
func BenchmarkNew(b *testing.B) {
	for _, md := range []struct {
		name  string
		pairs densegen.Pairs
	}{
		{"kbip250", densegen.KBip(250)},
		{"dense448", densegen.Complete(448)},
		{"hubs2", densegen.Hubs(200, 10000, 1)},
	} {
		g, err := md.pairs.Potts(0.002, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"sw", "wolff"} {
			b.Run(fmt.Sprintf("model=%s/sampler=%s", md.name, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r := rand.New(rand.NewPCG(1, 2))
					if name == "sw" {
						if _, err := NewSwendsenWang(g, r, nil); err != nil {
							b.Fatal(err)
						}
						continue
					}
					w, err := NewWolff(g, r, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := w.TuneClusters(context.Background(), 5); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
