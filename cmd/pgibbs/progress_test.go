package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/models/potts"
)

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestProgressDraws(t *testing.T) {
	var term bytes.Buffer // a fake terminal
	clk := &fakeClock{t: time.Unix(1000, 0)}
	p := newProgressTo(&term, true, clk.now)
	p.Start("fig1a", 1000)
	clk.advance(500 * time.Millisecond)
	p.Add(100)
	if term.Len() != 0 {
		t.Fatalf("drew before a second: %q", term.String())
	}
	clk.advance(700 * time.Millisecond) // 1.2 s
	p.Add(200)
	line := term.String()
	for _, want := range []string{"\rfig1a [", "30%", "300/1.0k", "250/s", "ETA 3s"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "\n") {
		t.Errorf("line %q has a newline", line)
	}
	clk.advance(100 * time.Millisecond) // 0.1 s after the last draw: no redraw
	p.Add(100)
	if term.String() != line {
		t.Errorf("redrew within the interval: %q", term.String())
	}
	clk.advance(200 * time.Millisecond)
	p.Add(600)
	second := strings.TrimPrefix(term.String(), line)
	if !strings.HasPrefix(second, "\rfig1a [========================] 100%") || strings.Contains(second, "ETA") {
		t.Errorf("finished line %q", second)
	}
	term.Reset()
	p.Done()
	if s := term.String(); !strings.HasPrefix(s, "\r ") || !strings.HasSuffix(s, "\r") || strings.TrimSpace(s) != "" {
		t.Errorf("Done wrote %q, want the line blanked", s)
	}
	term.Reset()
	p.Done() // nothing left to clear
	if term.Len() != 0 {
		t.Errorf("second Done wrote %q", term.String())
	}
	// A new phase restarts the one-second delay.
	p.Start("fig1b", 0)
	p.Add(5)
	clk.advance(2 * time.Second)
	p.Add(5)
	if s := term.String(); !strings.Contains(s, "fig1b  10  5/s") {
		t.Errorf("phase of unknown size: %q", s)
	}
}

func TestProgressSilent(t *testing.T) {
	var buf bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	for name, p := range map[string]*progress{
		"not a terminal": newProgress(&buf, false),
		"quiet":          newProgress(os.Stderr, true),
		"disabled":       newProgressTo(&buf, false, clk.now),
		"nil":            nil,
	} {
		p.Start("x", 10)
		clk.advance(5 * time.Second)
		p.Add(3)
		p.Set(4)
		p.Done()
		if buf.Len() != 0 {
			t.Errorf("%s: wrote %q", name, buf.String())
		}
	}
	if isTerminal(&buf) {
		t.Error("a buffer is a terminal")
	}
}

// TestProgressConcurrent: Adds from many goroutines all count.
func TestProgressConcurrent(t *testing.T) {
	var term bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := newProgressTo(&term, true, clk.now)
	p.Start("chains", 8*1000)
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c%2 == 0 {
				for range 1000 {
					p.Add(1)
				}
				return
			}
			for range 100 {
				p.Add(10)
			}
		}()
	}
	wg.Wait()
	if p.done != 8000 {
		t.Errorf("done %d, want 8000", p.done)
	}
}

func TestSIAndETA(t *testing.T) {
	for v, want := range map[float64]string{5: "5", 1500: "1.5k", 25000: "25k", 2.5e6: "2.5M", 3e9: "3.0G"} {
		if got := si(v); got != want {
			t.Errorf("si(%v) = %q, want %q", v, got, want)
		}
	}
	for s, want := range map[float64]string{42: "42s", 185: "3m05s", 7800: "2h10m"} {
		if got := eta(s); got != want {
			t.Errorf("eta(%v) = %q, want %q", s, got, want)
		}
	}
}

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
	f := &runFlags{command: "potts", sampler: "gibbs", iters: 2_000_000, chains: 2, seed: 1, bar: newProgressTo(&term, true, fast)}
	g, err := potts.New(potts.Params{Width: 4, States: 3, Beta: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// Long enough for a few 250 ms ticks.
	run := &gibbsRun{f: f, model: g}
	if _, err := f.execute(context.Background(), run.job()); err != nil {
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
