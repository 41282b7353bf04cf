package chain

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
)

// Streams returns k independent random number generators derived from seed,
// stream c drawing from Source(seed, c).
func Streams(seed uint64, k int) []*rand.Rand {
	out := make([]*rand.Rand, k)
	for c := range out {
		out[c] = rand.New(Source(seed, c))
	}
	return out
}

// Source returns the PCG source of stream c for seed: its two seed words
// are SplitMix64 hashes of (seed, c), so that stream c depends only on seed
// and c — chain c of a run draws the same numbers whether the run's other
// chains run beside it, on another machine, or not at all. Each source is
// alone on a cache line, so that parallel workers drawing from neighbouring
// streams do not invalidate each other's line at every draw.
func Source(seed uint64, c int) *rand.PCG {
	s := seed ^ (uint64(c)+1)*0x9e3779b97f4a7c15
	p := new(paddedPCG)
	p.Seed(splitmix(&s), splitmix(&s))
	return &p.PCG
}

// paddedPCG fills the allocator's 64-byte size class, whose objects are
// 64-byte aligned.
type paddedPCG struct {
	rand.PCG
	_ [64 - 16]byte
}

func splitmix(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// StateHash returns the SHA-256 (hex) of the states one after the other, as
// little-endian float64 bits: two runs ended in the same states if and only
// if (but for collisions) their hashes agree.
func StateHash(states ...[]float64) string {
	h := sha256.New()
	var b [8]byte
	for _, x := range states {
		for _, v := range x {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// States returns the chains' current states (views), for StateHash.
func States(chains []*Chain) [][]float64 {
	out := make([][]float64, len(chains))
	for k, c := range chains {
		out[k] = c.Kernel.State()
	}
	return out
}
