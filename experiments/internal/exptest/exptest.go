// Package exptest holds what the tests of the experiments' packages
// share: a Progress that checks the progress contract, and a check of the
// files an experiment writes.
package exptest

import (
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Progress is a harness.Progress that counts: the units every Start
// announced and those Add added, so that a test can check the contract
// (every unit announced is added, no more).
type Progress struct {
	mu     sync.Mutex
	total  int64
	phases []string
	done   atomic.Int64
}

// Start records the phase and adds total to the units announced.
func (p *Progress) Start(label string, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total += total
	p.phases = append(p.phases, label)
}

// Add adds n to the units done; it panics on a negative n.
func (p *Progress) Add(n int64) {
	if n < 0 {
		panic("negative progress")
	}
	p.done.Add(n)
}

// Total returns the units announced by every Start so far.
func (p *Progress) Total() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// Added returns the units added so far.
func (p *Progress) Added() int64 { return p.done.Load() }

// Phases returns the labels of the phases started, in order.
func (p *Progress) Phases() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.phases...)
}

// CheckFile checks that a CSV has a header and rows, a PNG decodes and is
// small, an SVG is one.
func CheckFile(t *testing.T, p string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	switch filepath.Ext(p) {
	case ".csv":
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Errorf("%s: %d records, %v", p, len(recs), err)
		}
	case ".png":
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if st, _ := f.Stat(); st.Size() > 200<<10 {
			t.Errorf("%s: %d bytes", p, st.Size())
		}
	case ".svg":
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), "<svg") {
			t.Errorf("%s is not an SVG", p)
		}
	default:
		t.Errorf("unexpected file %s", p)
	}
}
