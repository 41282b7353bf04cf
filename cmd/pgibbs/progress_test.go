package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/cmd/pgibbs/internal/progress"
	"github.com/pgibbs/pgibbs/infer"
	"github.com/pgibbs/pgibbs/potts"
)

// syncBuffer is a bytes.Buffer safe for the watcher goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPottsProgress: a checkpointed run's chains feed the bar through
// their counters; the bar reaches the run's total and is erased at the
// end. The clock runs 10× fast so the one-second delay passes quickly.
func TestPottsProgress(t *testing.T) {
	var term syncBuffer
	start := time.Now()
	fast := func() time.Time { return start.Add(10 * time.Since(start)) }
	f := &runFlags{command: "potts", sampler: "pgibbs", iters: 2_000_000, chains: 2, seed: 1, bar: progress.NewTo(&term, true, fast)}
	g, err := potts.New(potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// Long enough for a few 250 ms ticks (Poisson-Gibbs: plain Gibbs on
	// this small model can finish before the first).
	opt, err := f.inferOptions(&infer.Spec{Name: f.sampler}, f.options())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.answer(context.Background(), g, opt); err != nil {
		t.Fatal(err)
	}
	out := term.String()
	if !strings.Contains(out, "\rpotts [") || !strings.Contains(out, "/4.0M") {
		t.Errorf("no bar for 2 chains × 2M updates: %q", out)
	}
	if !strings.HasSuffix(out, "\r") {
		t.Errorf("bar not erased at the end: %q", out)
	}
}
