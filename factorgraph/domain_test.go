package factorgraph

import "testing"

// TestDomainList: a graph's domains read back as given whether all
// variables share one (no memory a variable), a few differ (a palette and
// a 16-bit index a variable) or more than 65536 do (every domain kept).
func TestDomainList(t *testing.T) {
	one := make([]Domain, 1000)
	for i := range one {
		one[i] = Discrete(4)
	}
	few := make([]Domain, 1000)
	for i := range few {
		few[i] = Discrete(2 + i%3)
		if i%7 == 0 {
			few[i] = Interval(-1, float64(i%5))
		}
	}
	few[0] = Discrete(9) // the first one differs from the rest
	many := make([]Domain, 70000)
	for i := range many {
		many[i] = Interval(0, float64(i+1))
	}
	for _, c := range []struct {
		name  string
		ds    []Domain
		bytes int
	}{
		{"one", one, 24},
		{"few", few, 2 * len(few)},
		{"many", many, 24 * len(many)},
	} {
		l := newDomainList(c.ds)
		if l.Len() != len(c.ds) {
			t.Fatalf("%s: Len %d, want %d", c.name, l.Len(), len(c.ds))
		}
		for i, d := range c.ds {
			if got := l.At(i); got != d {
				t.Fatalf("%s: variable %d: %v, want %v", c.name, i, got, d)
			}
		}
		if b := l.bytes(); b < c.bytes || float64(b) > 1.01*float64(c.bytes)+512 {
			t.Errorf("%s: %d bytes, want about %d", c.name, b, c.bytes)
		}
	}
}
