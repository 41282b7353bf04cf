package sysmem

import "testing"

func TestParse(t *testing.T) {
	for s, want := range map[string]float64{"123": 123, "500K": 500 << 10, "16m": 16 << 20, "8GB": 8 << 30, " 1T ": 1 << 40, "1.5G": 1.5 * (1 << 30)} {
		if got, err := Parse(s); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "G", "-1G", "0", "NaN", "Inf", "8X"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q): no error", s)
		}
	}
}
