package mh_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/pgibbs/pgibbs/mh"
	"github.com/pgibbs/pgibbs/mh/targets"
	"github.com/pgibbs/pgibbs/tgm"
)

func rng(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// marginals holds, for each coordinate, bins of a box-bounded posterior
// (unions of quadrature panels) and their exact probabilities.
type marginals struct {
	edges [][]float64 // per coordinate, increasing bin edges
	prob  [][]float64 // per coordinate, bin probabilities
	mean  []float64
}

// quadrature computes the marginal bin probabilities of a target with
// support inside the box [lo, hi] (one or two dimensions) by composite
// Gauss–Legendre quadrature (panels × nodes per coordinate), merging
// adjacent panels until each bin has mass at least minMass.
func quadrature(t mh.Target, lo, hi []float64, panels, nodes int, minMass float64) *marginals {
	d := t.Dim()
	xs := make([][]float64, d) // node positions
	ws := make([][]float64, d)
	for j := range d {
		h := (hi[j] - lo[j]) / float64(panels)
		x := make([]float64, nodes)
		w := make([]float64, nodes)
		for p := range panels {
			a := lo[j] + float64(p)*h
			quad.Legendre{}.FixedLocations(x, w, a, a+h)
			xs[j] = append(xs[j], x...)
			ws[j] = append(ws[j], w...)
		}
	}
	logDens := func(theta []float64) float64 {
		lp := t.LogPrior(theta)
		if math.IsInf(lp, -1) {
			return lp
		}
		for i := range t.N() {
			lp += t.LogLik(i, theta)
		}
		return lp
	}
	m := len(xs[0])
	var vals []float64
	theta := make([]float64, d)
	idx := make([]int, d)
	total := 1
	for range d {
		total *= m
	}
	vals = make([]float64, total)
	mx := math.Inf(-1)
	for k := range total {
		r := k
		for j := d - 1; j >= 0; j-- {
			idx[j] = r % m
			r /= m
			theta[j] = xs[j][idx[j]]
		}
		vals[k] = logDens(theta)
		mx = max(mx, vals[k])
	}
	panelMass := make([][]float64, d)
	mean := make([]float64, d)
	for j := range d {
		panelMass[j] = make([]float64, panels)
	}
	z := 0.0
	for k := range total {
		r := k
		w := 1.0
		for j := d - 1; j >= 0; j-- {
			idx[j] = r % m
			r /= m
			w *= ws[j][idx[j]]
		}
		v := w * math.Exp(vals[k]-mx)
		z += v
		for j := range d {
			panelMass[j][idx[j]/nodes] += v
			mean[j] += v * xs[j][idx[j]]
		}
	}
	out := &marginals{edges: make([][]float64, d), prob: make([][]float64, d), mean: mean}
	for j := range d {
		mean[j] /= z
		h := (hi[j] - lo[j]) / float64(panels)
		edges := []float64{lo[j]}
		var prob []float64
		acc := 0.0
		for p := range panels {
			acc += panelMass[j][p] / z
			if acc >= minMass {
				edges = append(edges, lo[j]+float64(p+1)*h)
				prob = append(prob, acc)
				acc = 0
			}
		}
		if acc > 0 { // merge the remainder into the last bin
			prob[len(prob)-1] += acc
			edges[len(edges)-1] = hi[j]
		}
		out.edges[j], out.prob[j] = edges, prob
	}
	return out
}

// maxZ runs s for burn+n steps and returns the largest |z| over all bins
// of all coordinates, z = (p̂ − p)/se with se from 50 batch means, so that
// autocorrelation is accounted for.
func (q *marginals) maxZ(t *testing.T, s mh.Sampler, burn, n int) float64 {
	t.Helper()
	for range burn {
		s.Step()
	}
	const batches = 50
	per := n / batches
	d := len(q.edges)
	counts := make([][][]int, d) // [coord][batch][bin]
	for j := range d {
		counts[j] = make([][]int, batches)
		for b := range batches {
			counts[j][b] = make([]int, len(q.prob[j]))
		}
	}
	for b := range batches {
		for range per {
			s.Step()
			x := s.State()
			for j := range d {
				e := q.edges[j]
				k := sort.SearchFloat64s(e[1:len(e)-1], x[j])
				if k < len(e)-2 && x[j] == e[k+1] {
					k++
				}
				counts[j][b][k]++
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("sampler error: %v", err)
	}
	worst := 0.0
	for j := range d {
		for k, p := range q.prob[j] {
			sum, sum2 := 0.0, 0.0
			for b := range batches {
				f := float64(counts[j][b][k]) / float64(per)
				sum += f
				sum2 += f * f
			}
			mean := sum / batches
			v := (sum2/batches - mean*mean) * batches / (batches - 1)
			se := math.Sqrt(v / batches)
			z := math.Abs(mean-p) / max(se, 1e-4)
			worst = max(worst, z)
		}
	}
	return worst
}

// rlr1 is a one-dimensional robust regression on a box, with its mode.
func rlr1(t testing.TB) (*targets.RobustLinear, []float64) {
	m, err := targets.GenerateRobustLinear(20, 1, 4, rng(11, 12))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetBox([]float64{-1}, []float64{3}); err != nil {
		t.Fatal(err)
	}
	mode := make([]float64, 1)
	if err := m.Mode(mode); err != nil {
		t.Fatal(err)
	}
	return m, mode
}

// rlr2 is a two-dimensional robust regression on a box, with its mode.
func rlr2(t testing.TB) (*targets.RobustLinear, []float64) {
	m, err := targets.GenerateRobustLinear(20, 2, 4, rng(13, 14))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetBox([]float64{-1, -1}, []float64{3, 3}); err != nil {
		t.Fatal(err)
	}
	mode := make([]float64, 2)
	if err := m.Mode(mode); err != nil {
		t.Fatal(err)
	}
	return m, mode
}

// tgm2 is a small truncated Gaussian mixture (N = 50, β = 0.2, flat prior
// on [−3, 3]²) whose posterior is bimodal in x2.
func tgm2(t testing.TB) tgm.Target {
	cfg := tgm.MHConfig()
	cfg.N, cfg.Beta = 50, 0.2
	m, err := tgm.Generate(cfg, rng(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	return m.Target()
}
