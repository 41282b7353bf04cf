package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The checkpoint file: one header line
//
//	pgibbs-checkpoint <version> sha256:<hex>
//
// giving the format version and the SHA-256 of the rest of the file, then
// the JSON payload, a Checkpoint. Files are written atomically (a temporary
// file in the same directory, synced, then renamed).
const (
	checkpointMagic = "pgibbs-checkpoint"
	// CheckpointVersion is the version of the checkpoint format this
	// package writes and reads.
	CheckpointVersion = 2
)

// Checkpoint is the content of a checkpoint file.
type Checkpoint struct {
	// Meta is the Runner's Meta: the caller's description of the run.
	Meta json.RawMessage `json:"meta,omitempty"`
	// Inputs are the run's input files as it found them (Runner.Inputs):
	// Restore refuses to resume when one has changed.
	Inputs []File `json:"inputs,omitempty"`
	// Chains holds each chain's state.
	Chains []ChainState `json:"chains"`
	// Written is the time of writing (RFC 3339, UTC).
	Written string `json:"written"`
}

// ChainState is one chain's part of a checkpoint.
type ChainState struct {
	// Steps is the number of steps the chain had done.
	Steps int64 `json:"steps"`
	// Sources are the states of the chain's random sources
	// (rand.PCG.MarshalBinary), in the chain's order.
	Sources [][]byte `json:"sources"`
	// Kernel and Observers are the snapshots of the kernel and observers.
	Kernel    json.RawMessage   `json:"kernel"`
	Observers []json.RawMessage `json:"observers,omitempty"`
}

// Save returns the state of the chain for a checkpoint. The kernel and
// every observer must implement Snapshotter.
func (c *Chain) Save() (ChainState, error) {
	st := ChainState{Steps: c.Done()}
	for k, src := range c.Sources {
		b, err := src.MarshalBinary()
		if err != nil {
			return st, fmt.Errorf("random source %d: %w", k, err)
		}
		st.Sources = append(st.Sources, b)
	}
	sn, ok := c.Kernel.(Snapshotter)
	if !ok {
		return st, fmt.Errorf("sampler %T cannot be checkpointed", c.Kernel)
	}
	var err error
	if st.Kernel, err = sn.Snapshot(); err != nil {
		return st, err
	}
	for _, o := range c.Observers {
		so, ok := o.(Snapshotter)
		if !ok {
			return st, fmt.Errorf("observer %T cannot be checkpointed", o)
		}
		b, err := so.Snapshot()
		if err != nil {
			return st, err
		}
		st.Observers = append(st.Observers, b)
	}
	return st, nil
}

// Load sets the chain from a saved state: the chain must have been built as
// the one saved (same kernel kind, model, sources and observers).
func (c *Chain) Load(st ChainState) error {
	switch {
	case st.Steps < 0:
		return fmt.Errorf("the checkpoint's chain has done %d steps", st.Steps)
	case len(st.Sources) != len(c.Sources):
		return fmt.Errorf("the checkpoint has %d random sources, the chain %d", len(st.Sources), len(c.Sources))
	case len(st.Observers) != len(c.Observers):
		return fmt.Errorf("the checkpoint has %d observers, the chain %d", len(st.Observers), len(c.Observers))
	}
	sn, ok := c.Kernel.(Snapshotter)
	if !ok {
		return fmt.Errorf("sampler %T cannot be restored", c.Kernel)
	}
	if err := sn.Restore(st.Kernel); err != nil {
		return err
	}
	for k, src := range c.Sources {
		if err := src.UnmarshalBinary(st.Sources[k]); err != nil {
			return fmt.Errorf("random source %d: %w", k, err)
		}
	}
	for k, o := range c.Observers {
		so, ok := o.(Snapshotter)
		if !ok {
			return fmt.Errorf("observer %T cannot be restored", o)
		}
		if err := so.Restore(st.Observers[k]); err != nil {
			return err
		}
	}
	c.steps.Store(st.Steps)
	return nil
}

// Restore sets the chains from the checkpoint, which must hold as many,
// after checking that the run's input files have not changed.
func (ck *Checkpoint) Restore(chains []*Chain) error {
	if err := VerifyFiles(ck.Inputs); err != nil {
		return err
	}
	if len(ck.Chains) != len(chains) {
		return fmt.Errorf("the checkpoint holds %d chains, the run %d", len(ck.Chains), len(chains))
	}
	for k, c := range chains {
		if err := c.Load(ck.Chains[k]); err != nil {
			return fmt.Errorf("chain %d: %w", k, err)
		}
	}
	return nil
}

// save writes a checkpoint of the chains to r.Checkpoint.
func (r *Runner) save(chains []*Chain) error {
	ck := &Checkpoint{Inputs: r.inputs}
	if r.Meta != nil {
		meta, err := json.Marshal(r.Meta)
		if err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		ck.Meta = meta
	}
	for k, c := range chains {
		st, err := c.Save()
		if err != nil {
			return fmt.Errorf("checkpoint of chain %d: %w", k, err)
		}
		ck.Chains = append(ck.Chains, st)
	}
	return WriteCheckpoint(r.Checkpoint, ck)
}

// WriteCheckpoint writes ck to path atomically.
func WriteCheckpoint(path string, ck *Checkpoint) error {
	ck.Written = time.Now().UTC().Format(time.RFC3339)
	payload, err := json.Marshal(ck)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	sum := sha256.Sum256(payload)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s %d sha256:%s\n", checkpointMagic, CheckpointVersion, hex.EncodeToString(sum[:]))
	buf.Write(payload)
	buf.WriteByte('\n')
	return writeAtomic(path, buf.Bytes())
}

// writeAtomic writes data to path through a synced temporary file in the
// same directory and a rename.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	// Temporary files of earlier writes killed before their rename
	// (SIGKILL, a power cut) are this function's own: remove them.
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape(filepath.Base(path))+".tmp*"))
	for _, f := range stale {
		os.Remove(f)
	}
	return nil
}

// globEscape escapes the metacharacters of filepath.Match in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ReadCheckpoint reads and verifies a checkpoint file: a file that is not a
// checkpoint, is of another format version or fails its checksum is refused
// with a message saying which.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	header, payload, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, fmt.Errorf("%s: not a pgibbs checkpoint (no header line)", path)
	}
	fields := strings.Fields(string(header))
	if len(fields) != 3 || fields[0] != checkpointMagic || !strings.HasPrefix(fields[2], "sha256:") {
		return nil, fmt.Errorf("%s: not a pgibbs checkpoint (header %.60q)", path, header)
	}
	if v, err := strconv.Atoi(fields[1]); err != nil || v != CheckpointVersion {
		return nil, fmt.Errorf("%s: checkpoint format version %s; this build reads version %d", path, fields[1], CheckpointVersion)
	}
	payload = bytes.TrimSuffix(payload, []byte("\n"))
	sum := sha256.Sum256(payload)
	if hex.EncodeToString(sum[:]) != strings.TrimPrefix(fields[2], "sha256:") {
		return nil, fmt.Errorf("%s: checkpoint is corrupt: its checksum does not match its contents", path)
	}
	var ck Checkpoint
	if err := json.Unmarshal(payload, &ck); err != nil {
		return nil, fmt.Errorf("%s: checkpoint is corrupt: %v", path, err)
	}
	return &ck, nil
}
