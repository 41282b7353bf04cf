package uai

import "fmt"

// Problem is a UAI inference problem as the competitions ship it: a model,
// its evidence and, when known, the exact marginals given the evidence.
type Problem struct {
	Model    *Model
	Evidence Evidence    // nil: no evidence
	Exact    [][]float64 // nil: not known
}

// ReadProblem reads a model file, an evidence file (empty path: none) and
// an exact-marginals file (empty path: none) and checks that they fit each
// other; every error names the file it is about.
func ReadProblem(model, evidence, marginals string) (*Problem, error) {
	return Options{}.ReadProblem(model, evidence, marginals)
}

// ReadProblem is the package's ReadProblem with the memory limit
// o.MaxBytes on reading the model, stopped by o.Context.
func (o Options) ReadProblem(model, evidence, marginals string) (*Problem, error) {
	m, err := o.ReadFile(model)
	if err != nil {
		return nil, err
	}
	p := &Problem{Model: m}
	if evidence != "" {
		if p.Evidence, err = ReadEvidenceFile(evidence); err != nil {
			return nil, err
		}
		if err := m.CheckEvidence(p.Evidence); err != nil {
			return nil, fmt.Errorf("%s: %w", evidence, err)
		}
	}
	if marginals != "" {
		if p.Exact, err = ReadMarginalsFile(marginals); err != nil {
			return nil, err
		}
		if err := m.CheckMarginals(p.Exact); err != nil {
			return nil, fmt.Errorf("%s: %w", marginals, err)
		}
	}
	return p, nil
}
