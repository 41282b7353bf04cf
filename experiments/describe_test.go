package experiments

import (
	"strings"
	"testing"
)

// TestDescribe: every experiment Reproduce knows is described, in lines
// short enough for the command line's help, and nothing else is.
func TestDescribe(t *testing.T) {
	for _, name := range Figures() {
		d := Describe(name)
		if d == "" {
			t.Errorf("%s: no description", name)
		}
		for _, line := range strings.Split(d, "\n") {
			if n := len([]rune(line)); n > 105 {
				t.Errorf("%s: a line of %d characters: %q", name, n, line)
			}
		}
	}
	if len(descriptions) != len(Figures()) {
		t.Errorf("%d descriptions for %d experiments", len(descriptions), len(Figures()))
	}
	if Describe("fig9") != "" {
		t.Error("an unknown experiment is described")
	}
}
