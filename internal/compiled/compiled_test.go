package compiled

import "testing"

// TestColPick checks the split threshold: the own entry exactly when
// lo < Thr·2³² + the low word, including at the tie of the high halves.
func TestColPick(t *testing.T) {
	c := Col{Thr: 7, Alias: 3, Ref: [2]int32{10, 30}}
	thrLo := []uint32{0, 0, 5}
	const hi = 2
	full := uint64(7)<<32 | 5
	for _, tt := range []struct {
		lo   uint64
		want int
	}{
		{0, hi},
		{7<<32 - 1, hi},
		{full - 1, hi}, // tie of the high halves, below the low word
		{full, 3},      // tie, at the threshold: the alias
		{full + 1, 3},
		{8 << 32, 3},
		{^uint64(0), 3},
	} {
		j, ref := c.Pick(hi, tt.lo, thrLo)
		if j != tt.want {
			t.Errorf("lo = %#x: entry %d, want %d", tt.lo, j, tt.want)
		}
		if wantRef := map[int]int32{hi: 10, 3: 30}[tt.want]; ref != wantRef {
			t.Errorf("lo = %#x: reference %d, want %d", tt.lo, ref, wantRef)
		}
	}
}

// TestTabBase checks a table's entry index with the updated variable at 0.
func TestTabBase(t *testing.T) {
	// A 2×3×2 table over variables 4, 1, 0 (strides 6, 2, 1).
	tab := Tabs{Off: []int{0, 3}, Vars: []int32{4, 1, 0}, Pot: []int32{0}, Pots: []Pot{{Strides: []int32{6, 2, 1}}}}
	x := []float64{1, 2, 0, 0, 1}
	if b := tab.Base(0, x, 0, 0); b != 6+4+1 {
		t.Errorf("Base with no variable at 0 = %d, want 11", b)
	}
	if b := tab.Base(0, x, 2, x[1]); b != 6+1 {
		t.Errorf("Base with variable 1 at 0 = %d, want 7", b)
	}
}

func TestPottsRef(t *testing.T) {
	for _, tt := range []struct {
		op   Op
		want int32
	}{
		{Op{Kind: Potts, Ref: 5}, 5},
		{Op{Kind: Potts, Ref: 5, Neg: true}, ^5},
		{Op{Kind: Table, Ref: 5}, NotPotts},
		{Op{Kind: Generic, Ref: 0}, NotPotts},
	} {
		if got := PottsRef(&tt.op); got != tt.want {
			t.Errorf("PottsRef(%+v) = %d, want %d", tt.op, got, tt.want)
		}
	}
}
