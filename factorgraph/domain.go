package factorgraph

import (
	"fmt"
	"math"
	"slices"
)

// Domain is the set of values of one variable: the integers 0, …, Size−1
// when Size > 0 (a discrete variable), or the interval [Lo, Hi] when
// Size == 0 (a continuous variable).
type Domain struct {
	Size   int
	Lo, Hi float64
}

// Discrete returns the domain {0, …, size−1}. Build refuses a size below 1
// or above MaxDomain.
func Discrete(size int) Domain { return Domain{Size: size} }

// Interval returns the continuous domain [lo, hi].
func Interval(lo, hi float64) Domain { return Domain{Lo: lo, Hi: hi} }

// IsDiscrete reports whether d is a discrete domain.
func (d Domain) IsDiscrete() bool { return d.Size > 0 }

// Contains reports whether v is a value of d.
func (d Domain) Contains(v float64) bool {
	if d.Size > 0 {
		return v >= 0 && v < float64(d.Size) && v == math.Trunc(v)
	}
	return v >= d.Lo && v <= d.Hi
}

// validate reports why d is not a usable domain.
func (d Domain) validate() error {
	switch {
	case d.Size > MaxDomain:
		return fmt.Errorf("domain size %d > %d (MaxDomain: a sampler's update keeps several rows of D values)", d.Size, MaxDomain)
	case d.Size > 0:
		return nil
	case d.Size < 0:
		return fmt.Errorf("domain size %d < 1", d.Size)
	case d.Lo == 0 && d.Hi == 0:
		return fmt.Errorf("domain size 0 < 1 (or an empty interval [0, 0])")
	case math.IsNaN(d.Lo) || math.IsNaN(d.Hi) || math.IsInf(d.Lo, 0) || math.IsInf(d.Hi, 0):
		return fmt.Errorf("interval [%v, %v] is not finite", d.Lo, d.Hi)
	case d.Lo >= d.Hi:
		return fmt.Errorf("interval [%v, %v] is empty or reversed", d.Lo, d.Hi)
	case math.IsInf(d.Hi-d.Lo, 0):
		return fmt.Errorf("interval [%v, %v] is too wide: its width overflows", d.Lo, d.Hi)
	}
	return nil
}

func (d Domain) String() string {
	if d.Size > 0 {
		return fmt.Sprintf("{0..%d}", d.Size-1)
	}
	return fmt.Sprintf("[%g, %g]", d.Lo, d.Hi)
}

// domainList is the variables' domains as a graph keeps them: one Domain
// shared by every variable when they all have it (nothing a variable: the
// usual case of a discrete model), else a palette of the distinct ones and
// a 16-bit index a variable, else (more than 65536 distinct domains: a
// continuous model of many ranges) every Domain, 24 bytes a variable.
type domainList struct {
	n   int
	pal []Domain
	idx []uint16
	all []Domain
}

// newDomainList returns the list of ds.
func newDomainList(ds []Domain) domainList {
	l := domainList{n: len(ds)}
	if len(ds) == 0 {
		return l
	}
	l.pal = []Domain{ds[0]}
	at := map[Domain]uint16{ds[0]: 0}
	var idx []uint16
	prev := uint16(0)
	for i, d := range ds {
		if d != l.pal[prev] {
			k, ok := at[d]
			if !ok {
				if len(l.pal) > math.MaxUint16 {
					return domainList{n: len(ds), all: slices.Clone(ds)}
				}
				k = uint16(len(l.pal))
				at[d] = k
				l.pal = append(l.pal, d)
			}
			prev = k
			if idx == nil {
				idx = make([]uint16, len(ds)) // the first i are domain 0
			}
		}
		if idx != nil {
			idx[i] = prev
		}
	}
	l.idx = idx
	return l
}

// Len returns the number of variables.
func (l *domainList) Len() int { return l.n }

// At returns variable i's domain.
func (l *domainList) At(i int) Domain {
	switch {
	case l.idx != nil:
		return l.pal[l.idx[i]]
	case l.all != nil:
		return l.all[i]
	}
	if uint(i) >= uint(l.n) { // as indexing a slice of every domain would
		panic(fmt.Sprintf("factorgraph: variable %d out of range [0, %d)", i, l.n))
	}
	return l.pal[0]
}

// bytes returns the memory the list holds.
func (l *domainList) bytes() int { return bytesOf(l.pal) + bytesOf(l.idx) + bytesOf(l.all) }
