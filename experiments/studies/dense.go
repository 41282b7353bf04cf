package studies

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pgibbs/pgibbs/experiments/harness"
	"github.com/pgibbs/pgibbs/factorgraph/uai"
	"github.com/pgibbs/pgibbs/infer"
	"github.com/pgibbs/pgibbs/internal/densegen"
)

// DenseSettings configure DenseRBM: restricted Boltzmann machines of
// weak couplings (the shape of a UAI 2014 instance, K₂₅₀,₂₅₀ of pair
// tables, that loopy BP answers at 99.7), answered by the default.
type DenseSettings struct {
	// N is the units of each side, SdB the spread of the fields
	// (densegen.RBM); Models the couplings' spread and the seed of each
	// model.
	N      int
	SdB    float64
	Models []DenseModel
	// RefSeconds is the time of each of the reference's two chains of
	// plain Gibbs (Rao–Blackwellised, run on two cores): its marginals,
	// written as the models' .MAR files, are what the default is scored
	// against.
	RefSeconds float64
	// UAI is the task's settings (Seconds, Seed); Dir and Models are set
	// by DenseRBM.
	UAI UAISettings
}

// DenseModel is one model of DenseRBM: the spread of its couplings and
// its seed.
type DenseModel struct {
	SdW  float64
	Seed uint64
}

// Name returns the model's file name without .uai: rbm_w<SdW>_s<Seed>.
func (m DenseModel) Name() string { return fmt.Sprintf("rbm_w%g_s%d", m.SdW, m.Seed) }

// Dense returns DenseRBM's settings: K₂₅₀,₂₅₀, fields 0.5, three models
// of couplings 0.05 and one of 0.15, a reference of 2 × 120 s, 20 s a
// model (quick: 20-s references and 4 s a model).
func Dense(quick bool) DenseSettings {
	s := DenseSettings{N: 250, SdB: 0.5, Models: []DenseModel{{0.05, 1}, {0.05, 2}, {0.05, 3}, {0.15, 1}}, RefSeconds: 120,
		UAI: UAISettings{Seconds: 20, Seed: 1}}
	if quick {
		s.RefSeconds, s.UAI.Seconds = 20, 4
	}
	return s
}

// DenseRBM draws the models of s into dir (DenseModel.Name), writes each
// one's reference marginals beside it (.uai.MAR: two chains of plain
// Gibbs, s.RefSeconds each), and scores the default on them as
// UAIScores does.
func DenseRBM(ctx context.Context, s DenseSettings, dir string, cfg harness.Config) (*UAIResult, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	site := infer.Spec{Name: "site"}
	var names []string
	for _, dm := range s.Models {
		name := dm.Name()
		path := filepath.Join(dir, name+".uai")
		m := densegen.RBM(s.N, dm.SdW, s.SdB, dm.Seed)
		if err := m.WriteFile(path); err != nil {
			return nil, err
		}
		g, err := m.Graph(nil)
		if err != nil {
			return nil, err
		}
		ref, err := infer.Marginals(ctx, g, infer.Options{Time: time.Duration(s.RefSeconds * float64(time.Second)), Chains: 2,
			Seed: 1000 + dm.Seed, Run: &infer.Run{Spec: &site}})
		if err != nil {
			return nil, fmt.Errorf("experiments: %s: the reference: %w", name, err)
		}
		if err := uai.WriteMarginalsFile(path+".MAR", ref.Marginals); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	u := s.UAI
	u.Dir, u.Models = dir, names
	return UAIScores(ctx, u, cfg)
}
