package chain_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgibbs/pgibbs/chain"
)

// FuzzReadCheckpoint: any bytes as a checkpoint file are read without a
// panic, and a checkpoint that reads is restored into chains without one:
// a wrong one is an error.
func FuzzReadCheckpoint(f *testing.F) {
	dir := f.TempDir()
	ck := filepath.Join(dir, "seed.ckpt")
	chains, _, _ := build(&testing.T{}, dir, 2, false)
	if err := (&chain.Runner{Steps: 300, Checkpoint: ck, Meta: map[string]int{"a": 1}}).Run(context.Background(), chains); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(ck)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("pgibbs-checkpoint 2 sha256:00\n{}"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "x.ckpt")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		read, err := chain.ReadCheckpoint(p)
		if err != nil {
			return
		}
		again, _, _ := build(t, t.TempDir(), 2, false)
		_ = read.Restore(again) // an error or a restored run; never a panic
	})
}

// FuzzRestoreCheckpoint: a payload with a valid header and checksum (a
// hand-edited checkpoint) restores without a panic: what does not fit the
// chains is an error.
func FuzzRestoreCheckpoint(f *testing.F) {
	dir := f.TempDir()
	ck := filepath.Join(dir, "seed.ckpt")
	chains, _, _ := build(&testing.T{}, dir, 2, false)
	if err := (&chain.Runner{Steps: 300, Checkpoint: ck}).Run(context.Background(), chains); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(ck)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.SplitN(good, []byte("\n"), 2)[1])
	f.Fuzz(func(t *testing.T, payload []byte) {
		payload = bytes.TrimSuffix(payload, []byte("\n"))
		sum := sha256.Sum256(payload)
		data := append([]byte("pgibbs-checkpoint 2 sha256:"+hex.EncodeToString(sum[:])+"\n"), payload...)
		p := filepath.Join(t.TempDir(), "x.ckpt")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		read, err := chain.ReadCheckpoint(p)
		if err != nil {
			return
		}
		again, _, _ := build(t, t.TempDir(), 2, false)
		if read.Restore(again) == nil {
			// A restored run must run.
			_ = (&chain.Runner{Steps: 400}).Run(context.Background(), again)
		}
	})
}
