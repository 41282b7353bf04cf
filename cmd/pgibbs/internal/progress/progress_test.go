package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestProgressDraws(t *testing.T) {
	var term bytes.Buffer // a fake terminal
	clk := &fakeClock{t: time.Unix(1000, 0)}
	p := NewTo(&term, true, clk.now)
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
	for name, p := range map[string]*Bar{
		"not a terminal": New(&buf, false),
		"quiet":          New(os.Stderr, true),
		"disabled":       NewTo(&buf, false, clk.now),
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
	p := NewTo(&term, true, clk.now)
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
