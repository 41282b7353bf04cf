// Package progress draws the one-line progress bar of pgibbs's long runs on a
// terminal (never when the output is redirected or -quiet is set).
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar is a one-line progress bar for long runs: work done out of a
// total, the rate and the time left, redrawn in place with '\r' at most
// every redraw interval. It draws only on a terminal, never with -quiet,
// and only once a phase has lasted a second, so short runs and redirected
// output stay clean. It is safe for concurrent use: chains running in
// parallel may all call Add.
//
// Use it from a loop (Start, then Add after each chunk of work or Set with
// the total so far, then Done); pgibbs's control.watch polls the chains' counters.
type Bar struct {
	mu      sync.Mutex
	w       io.Writer
	enabled bool
	now     func() time.Time

	label       string
	total, done int64
	start       time.Time // start of the phase
	last        time.Time // last redraw
	width       int       // length of the line on screen (0: nothing drawn)
}

const (
	delay    = time.Second            // a phase shows after this long
	Interval = 250 * time.Millisecond // at most four redraws a second (the redraw tick of a watcher)
	barWidth = 24
)

// New returns a bar writing to w, enabled when w is a terminal and
// quiet is false.
func New(w io.Writer, quiet bool) *Bar {
	return NewTo(w, !quiet && isTerminal(w), time.Now)
}

// NewTo returns a bar writing to w if enabled, reading the clock
// from now (tests use a fake terminal and clock).
func NewTo(w io.Writer, enabled bool, now func() time.Time) *Bar {
	return &Bar{w: w, enabled: enabled, now: now}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Start begins a phase of total units of work (total ≤ 0: unknown), ending
// the previous one.
func (p *Bar) Start(label string, total int64) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.label, p.total, p.done = label, total, 0
	p.start = p.now()
	p.last = time.Time{}
}

// Add records n more units done and redraws the line if it is due.
func (p *Bar) Add(n int64) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(p.done + n)
}

// Set records that done units are done in all and redraws the line if it
// is due.
func (p *Bar) Set(done int64) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.update(done)
}

// update sets the work done and redraws if due; p.mu is held.
func (p *Bar) update(done int64) {
	p.done = done
	t := p.now()
	if t.Sub(p.start) < delay || t.Sub(p.last) < Interval {
		return
	}
	p.last = t
	p.draw(t)
}

// Done erases the line (the phase's results are printed next).
func (p *Bar) Done() {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// clear erases the drawn line.
func (p *Bar) clear() {
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

// draw writes the line: label [=====>    ]  45%  1.2M/2.6M  120k/s  ETA 12s.
func (p *Bar) draw(t time.Time) {
	el := t.Sub(p.start).Seconds()
	rate := float64(p.done) / el
	var b strings.Builder
	b.WriteString(p.label)
	if p.total > 0 {
		f := min(max(float64(p.done)/float64(p.total), 0), 1)
		full := int(f * barWidth)
		bar := strings.Repeat("=", full)
		if full < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-full-1)
		}
		fmt.Fprintf(&b, " [%s] %3.0f%%  %s/%s", bar, 100*f, si(float64(p.done)), si(float64(p.total)))
	} else {
		fmt.Fprintf(&b, "  %s", si(float64(p.done)))
	}
	fmt.Fprintf(&b, "  %s/s", si(rate))
	if p.total > 0 && rate > 0 && p.done < p.total {
		fmt.Fprintf(&b, "  ETA %s", eta(float64(p.total-p.done)/rate))
	}
	line := b.String()
	n := len([]rune(line))
	pad := ""
	if n < p.width {
		pad = strings.Repeat(" ", p.width-n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.width = max(n, p.width)
}

// si formats v with a k, M or G suffix.
func si(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.1fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// eta formats a number of seconds as 42s, 3m05s or 2h10m.
func eta(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// Enabled reports whether the bar draws at all (a terminal, not quiet).
func (p *Bar) Enabled() bool { return p.enabled }

// Watch draws the progress of a run labelled label of total steps (0:
// unknown) every Interval, done reporting the steps so far, until the
// returned stop is called; nothing if the bar is disabled.
func (p *Bar) Watch(label string, total int64, done func() int64) (stop func()) {
	if p == nil || !p.Enabled() {
		return func() {}
	}
	p.Start(label, total)
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(Interval)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				p.Set(done())
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
		p.Done()
	}
}
