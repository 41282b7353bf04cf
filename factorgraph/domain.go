package factorgraph

import (
	"fmt"
	"math"
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
