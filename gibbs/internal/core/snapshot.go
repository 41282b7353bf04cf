package core

import (
	"encoding/json"
	"fmt"

	"github.com/pgibbs/pgibbs/chain"
	"github.com/pgibbs/pgibbs/factorgraph"
	gibbs "github.com/pgibbs/pgibbs/gibbs"
)

const SnapshotVersion = 1

// ChainState is the state every sampler shares.
type ChainState struct {
	chain.SnapshotHeader
	X     []float64   `json:"x"`
	Stats gibbs.Stats `json:"stats"`
	Eps   *float64    `json:"eps,omitempty"` // the cached global estimate of the MIN samplers
	// Ahead are the random scan's variables drawn ahead (Core.Prefetch):
	// the next two steps', or none.
	Ahead []int `json:"ahead,omitempty"`
	// Scan is a systematic scan's position, the place in the free
	// variables of the next step's (absent: a random scan).
	Scan *int `json:"scan,omitempty"`
}

// Header is the snapshot header of a sampler of the given kind.
func Header(kind string) chain.SnapshotHeader {
	return chain.SnapshotHeader{Version: SnapshotVersion, Kind: kind}
}

func (c *Core) SnapshotState(kind string, eps *float64) ([]byte, error) {
	if c.Failure != nil {
		return nil, fmt.Errorf("gibbs: snapshot of a chain that stopped on an error: %w", c.Failure)
	}
	return json.Marshal(ChainState{SnapshotHeader: Header(kind), X: c.X, Stats: c.Stat, Eps: eps, Ahead: c.pendingAhead(), Scan: c.scanState()})
}

func (c *Core) RestoreState(kind string, data []byte) (*ChainState, error) {
	c.CondAt = -1 // no update of the restored chain has drawn yet
	var st ChainState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	if err := st.Check("gibbs", kind, SnapshotVersion); err != nil {
		return nil, err
	}
	if err := CheckSnapshotState(c.M, st.X); err != nil {
		return nil, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	if err := c.restoreScan(st.Scan); err != nil {
		return nil, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	if err := c.restoreAhead(st.Ahead); err != nil {
		return nil, fmt.Errorf("gibbs: restore %s: %w", kind, err)
	}
	copy(c.X, st.X)
	c.x8ok = false // the steps' byte copy is made afresh (scanBytes)
	c.Resume(st.Stats)
	return &st, nil
}

// CheckSnapshotState reports whether x, a restored state, fits m: one value
// per variable, each inside its domain, evidence at its observed value.
func CheckSnapshotState(m factorgraph.Model, x []float64) error {
	if n := m.NumVars(); len(x) != n {
		return fmt.Errorf("snapshot has %d variables, the model %d", len(x), n)
	}
	for i, v := range x {
		if ov, ok := m.Observed(i); ok && v != ov {
			return fmt.Errorf("variable %d is %v, evidence says %v", i, v, ov)
		}
		if d := m.Domain(i); !d.Contains(v) {
			return fmt.Errorf("value %v of variable %d outside its domain %v", v, i, d)
		}
	}
	return nil
}
