package chain

import (
	"encoding/json"
	"fmt"
)

// observerVersion is the version of the observers' snapshots.
const observerVersion = 1

var (
	_ Snapshotter = (*Marginals)(nil)
	_ Snapshotter = (*Means)(nil)
	_ Snapshotter = (*Histograms)(nil)
	_ Snapshotter = (*Joint2D)(nil)
	_ Snapshotter = (*Trace)(nil)
	_ Snapshotter = (*CSV)(nil)
)

// SnapshotHeader opens the snapshot of a sampler: the version of its format
// and the kind of sampler that wrote it. The samplers' states embed it, so
// that their JSON starts with "version" and "kind".
type SnapshotHeader struct {
	Version int    `json:"version"`
	Kind    string `json:"kind"`
}

// Check returns an error, in the words of package pkg, unless the header
// is of format version and of a sampler of the given kind.
func (h SnapshotHeader) Check(pkg, kind string, version int) error {
	switch {
	case h.Version != version:
		return fmt.Errorf("%s: restore %s: snapshot version %d, this build reads %d", pkg, kind, h.Version, version)
	case h.Kind != kind:
		return fmt.Errorf("%s: restore %s from a snapshot of %s", pkg, kind, h.Kind)
	}
	return nil
}

// observerState wraps an observer's state with a version and kind.
type observerState[T any] struct {
	Version int    `json:"version"`
	Kind    string `json:"kind"`
	State   T      `json:"state"`
}

func snapshotObserver[T any](kind string, st T) ([]byte, error) {
	return json.Marshal(observerState[T]{Version: observerVersion, Kind: kind, State: st})
}

func restoreObserver[T any](kind string, data []byte) (T, error) {
	var w observerState[T]
	if err := json.Unmarshal(data, &w); err != nil {
		return w.State, fmt.Errorf("chain: restore %s: %w", kind, err)
	}
	if w.Version != observerVersion || w.Kind != kind {
		return w.State, fmt.Errorf("chain: restore %s from a snapshot of %q version %d", kind, w.Kind, w.Version)
	}
	return w.State, nil
}

type marginalsState struct {
	Counts [][]float64 `json:"counts"`
	Cur    []int       `json:"cur"`
	Last   []int64     `json:"last"`
	N      int64       `json:"n"`
	// Rao–Blackwellised marginals only.
	Cond   [][]float64 `json:"cond,omitempty"`
	IsCond []bool      `json:"is_cond,omitempty"`
	// The batch record (TrackBatches), if any: so that a resumed run's
	// batch means are the uninterrupted run's.
	Batches *batchState `json:"batches,omitempty"`
}

// batchState is a batch record's snapshot.
type batchState struct {
	Every int64       `json:"every"`
	At    []int64     `json:"at"`
	Cum   [][]float64 `json:"cum"`
}

// Snapshot implements Snapshotter. The state is written as one array per
// field, a coordinate an entry (an uncounted one holds value −1 since
// state 0, and no conditional): the format the marginals had before their
// blocks were laid out together.
func (mg *Marginals) Snapshot() ([]byte, error) {
	nv, rb := mg.nvars, mg.src != nil
	st := marginalsState{Counts: make([][]float64, nv), Cur: make([]int, nv), Last: make([]int64, nv), N: mg.n}
	if r := mg.batch; r != nil {
		st.Batches = &batchState{Every: r.every, At: r.at, Cum: r.cum}
	}
	size := 0
	for j := range nv {
		if _, d := mg.at(j); rb {
			size += 2 * d
		} else {
			size += d
		}
	}
	flat := make([]float64, size) // the counts' and conditionals' arrays
	take := func(src []float64) []float64 {
		out := flat[:len(src):len(src)]
		flat = flat[len(src):]
		copy(out, src)
		return out
	}
	if rb {
		st.Cond, st.IsCond = make([][]float64, nv), make([]bool, nv)
	}
	for j := range nv {
		b, d := mg.at(j)
		if b == nil {
			st.Counts[j], st.Cur[j] = take(nil), -1
			continue
		}
		st.Counts[j] = take(b[mgHeader : mgHeader+d])
		st.Cur[j], st.Last[j] = int(mgInt(b[mgCur])), mgInt(b[mgLast])
		if rb {
			f := mgInt(b[mgFlags])
			st.IsCond[j] = f&mgIsCond != 0
			if f&mgHasCond != 0 { // nil (null) until a conditional is stored
				st.Cond[j] = take(b[mgHeader+d : mgHeader+2*d])
			}
		}
	}
	return snapshotObserver("marginals", st)
}

// Restore implements Snapshotter.
func (mg *Marginals) Restore(data []byte) error {
	st, err := restoreObserver[marginalsState]("marginals", data)
	if err != nil {
		return err
	}
	sizes := mg.sizes()
	if len(st.Counts) != len(sizes) || len(st.Cur) != len(sizes) || len(st.Last) != len(sizes) {
		return fmt.Errorf("chain: restore marginals: snapshot of %d coordinates, observer of %d", len(st.Counts), len(sizes))
	}
	for j, d := range sizes {
		if len(st.Counts[j]) != d {
			return fmt.Errorf("chain: restore marginals: coordinate %d has %d values, snapshot %d", j, d, len(st.Counts[j]))
		}
		if c := st.Cur[j]; d > 0 && st.N > 0 && (c < 0 || c >= d) {
			return fmt.Errorf("chain: restore marginals: coordinate %d holds value %d of %d", j, c, d)
		}
	}
	if err := mg.checkCond(st, sizes); err != nil {
		return err
	}
	rb := mg.src != nil
	for j, d := range sizes {
		// What the marginals never hold, and their blocks have no room for.
		if d == 0 && (st.Cur[j] != -1 || st.Last[j] != 0 || rb && (st.IsCond[j] || st.Cond[j] != nil)) {
			return fmt.Errorf("chain: restore marginals: coordinate %d is not counted, its snapshot holds a value", j)
		}
		if rb && st.Cond[j] != nil && len(st.Cond[j]) != d {
			return fmt.Errorf("chain: restore marginals: coordinate %d has %d values, its conditional %d", j, d, len(st.Cond[j]))
		}
	}
	for j, d := range sizes {
		b, _ := mg.at(j)
		if b == nil {
			continue
		}
		b[mgLast], b[mgCur] = mgWord(st.Last[j]), mgWord(int64(st.Cur[j]))
		copy(b[mgHeader:mgHeader+d], st.Counts[j])
		f := int64(d) << mgSizeShift
		if rb {
			if st.IsCond[j] {
				f |= mgIsCond
			}
			if st.Cond[j] != nil {
				f |= mgHasCond
				copy(b[mgHeader+d:mgHeader+2*d], st.Cond[j])
			}
		}
		b[mgFlags] = mgWord(f)
	}
	mg.n = st.N
	mg.restoreBatches(st.Batches)
	return nil
}

// restoreBatches restores mg's batch record from a snapshot's (nil: none
// was kept), or starts it afresh at the restored state where the
// snapshot's does not fit the coordinates tracked.
func (mg *Marginals) restoreBatches(st *batchState) {
	r := mg.batch
	if r == nil {
		return
	}
	width := 0
	for _, j := range r.coords {
		_, d := mg.at(j)
		width += d
	}
	ok := st != nil && st.Every > 0 && len(st.At) > 0 && len(st.At) == len(st.Cum) && len(st.At) <= maxBatches+1 && st.At[len(st.At)-1] <= mg.n
	for k := 0; ok && k < len(st.Cum); k++ {
		ok = len(st.Cum[k]) == width && (k == 0 || st.At[k] == st.At[k-1]+st.Every)
	}
	if !ok {
		mg.anchorBatches()
		return
	}
	r.every, r.at, r.cum = st.Every, st.At, st.Cum
	mg.nextBatch = r.at[len(r.at)-1] + r.every
}

// checkCond checks the conditionals of a snapshot of Rao–Blackwellised
// marginals of coordinates of sizes values, refusing a snapshot of the
// other estimator.
func (mg *Marginals) checkCond(st marginalsState, sizes []int) error {
	if (mg.src != nil) != (st.IsCond != nil) {
		kinds := map[bool]string{false: "visit-count", true: "Rao–Blackwellised"}
		return fmt.Errorf("chain: restore marginals: a snapshot of %s marginals into %s ones", kinds[st.IsCond != nil], kinds[mg.src != nil])
	}
	if mg.src == nil {
		return nil
	}
	if len(st.IsCond) != len(sizes) || len(st.Cond) != len(sizes) {
		return fmt.Errorf("chain: restore marginals: conditionals of %d coordinates, observer of %d", len(st.Cond), len(sizes))
	}
	for j, p := range st.Cond {
		if st.IsCond[j] && len(p) != sizes[j] {
			return fmt.Errorf("chain: restore marginals: coordinate %d has %d values, its conditional %d", j, sizes[j], len(p))
		}
		for v, q := range p {
			if !(q >= 0 && q <= 1) {
				return fmt.Errorf("chain: restore marginals: coordinate %d: conditional probability %v of value %d", j, q, v)
			}
		}
	}
	return nil
}

type meansState struct {
	Sum []float64 `json:"sum"`
	N   int64     `json:"n"`
}

// Snapshot implements Snapshotter.
func (m *Means) Snapshot() ([]byte, error) { return snapshotObserver("means", meansState{m.sum, m.n}) }

// Restore implements Snapshotter.
func (m *Means) Restore(data []byte) error {
	st, err := restoreObserver[meansState]("means", data)
	if err != nil {
		return err
	}
	if len(st.Sum) != len(m.sum) {
		return fmt.Errorf("chain: restore means: snapshot of %d coordinates, observer of %d", len(st.Sum), len(m.sum))
	}
	m.sum, m.n = st.Sum, st.N
	return nil
}

type histogramsState struct {
	Bins   int         `json:"bins"`
	Counts [][]float64 `json:"counts"`
	Sum    []float64   `json:"sum"`
	Cur    []float64   `json:"cur"`
	Last   []int64     `json:"last"`
	N      int64       `json:"n"`
}

// Snapshot implements Snapshotter.
func (h *Histograms) Snapshot() ([]byte, error) {
	return snapshotObserver("histograms", histogramsState{h.bins, h.counts, h.sum, h.cur, h.last, h.n})
}

// Restore implements Snapshotter.
func (h *Histograms) Restore(data []byte) error {
	st, err := restoreObserver[histogramsState]("histograms", data)
	if err != nil {
		return err
	}
	if st.Bins != h.bins || len(st.Counts) != len(h.counts) || len(st.Sum) != len(h.sum) || len(st.Cur) != len(h.cur) || len(st.Last) != len(h.last) {
		return fmt.Errorf("chain: restore histograms: snapshot shape differs from the observer's")
	}
	for j := range st.Counts {
		if len(st.Counts[j]) != len(h.counts[j]) {
			return fmt.Errorf("chain: restore histograms: coordinate %d has %d bins, snapshot %d", j, len(h.counts[j]), len(st.Counts[j]))
		}
	}
	h.counts, h.sum, h.cur, h.last, h.n = st.Counts, st.Sum, st.Cur, st.Last, st.N
	return nil
}

type joint2DState struct {
	NX, NY                   int
	Counts                   []float64
	N                        int64
	SumA, SumB, SumAA, SumBB float64
}

// Snapshot implements Snapshotter.
func (j *Joint2D) Snapshot() ([]byte, error) {
	return snapshotObserver("joint2d", joint2DState{j.nx, j.ny, j.counts, j.n, j.sumA, j.sumB, j.sumAA, j.sumBB})
}

// Restore implements Snapshotter.
func (j *Joint2D) Restore(data []byte) error {
	st, err := restoreObserver[joint2DState]("joint2d", data)
	if err != nil {
		return err
	}
	if st.NX != j.nx || st.NY != j.ny || len(st.Counts) != len(j.counts) {
		return fmt.Errorf("chain: restore joint histogram: snapshot shape differs from the observer's")
	}
	j.counts, j.n, j.sumA, j.sumB, j.sumAA, j.sumBB = st.Counts, st.N, st.SumA, st.SumB, st.SumAA, st.SumBB
	return nil
}

type traceState struct {
	Vars  []int       `json:"vars"`
	Every int64       `json:"every"`
	Max   int         `json:"max"`
	Draws [][]float64 `json:"draws"`
	Last  int64       `json:"last"`
	Next  int64       `json:"next"`
	// Sweeps marks a sweep trace (its clock counts coordinate updates).
	Sweeps bool `json:"sweeps,omitempty"`
}

// Snapshot implements Snapshotter.
func (t *Trace) Snapshot() ([]byte, error) {
	return snapshotObserver("trace", traceState{t.vars, t.every, t.max, t.draws, t.last, t.next, t.clock != nil})
}

// clockName names a trace's clock.
func clockName(sweeps bool) string {
	if sweeps {
		return "sweeps"
	}
	return "steps"
}

// Restore implements Snapshotter.
func (t *Trace) Restore(data []byte) error {
	st, err := restoreObserver[traceState]("trace", data)
	if err != nil {
		return err
	}
	if len(st.Vars) != len(t.vars) || st.Max != t.max || len(st.Draws) != len(t.draws) || st.Every < 1 {
		return fmt.Errorf("chain: restore trace: snapshot shape differs from the observer's")
	}
	if st.Sweeps != (t.clock != nil) {
		return fmt.Errorf("chain: restore trace: a trace by %s from a snapshot of one by %s", clockName(t.clock != nil), clockName(st.Sweeps))
	}
	for k := range st.Vars {
		if st.Vars[k] != t.vars[k] {
			return fmt.Errorf("chain: restore trace: snapshot traces other coordinates")
		}
	}
	t.every, t.draws, t.last, t.next = st.Every, st.Draws, st.Last, st.Next
	return nil
}
