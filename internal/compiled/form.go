package compiled

// Form is a model's compiled form, a Graph (factorgraph.Graph) or a Torus
// (lattice.Lattice), held where only this module can read it: a model
// embeds its Form under an unexported name, and the samplers find the
// Graph or the Torus with GraphOf and TorusOf when they are built. A Form
// has no exported field or method, so nothing of it is promoted into the
// model's API, and a program outside the module, which cannot import this
// package, cannot reach it.
//
// A model that wraps another and embeds a Form of its own, shallower than
// the wrapped model's, substitutes that form: the tests' broken variants
// of the compiled paths do so.
type Form struct {
	graph *Graph
	torus *Torus
}

// GraphForm returns the Form of a model compiled as g.
func GraphForm(g *Graph) Form { return Form{graph: g} }

// TorusForm returns the Form of a model compiled as t (nil: none).
func TorusForm(t *Torus) Form { return Form{torus: t} }

// compiledForm is what makes a model embedding a Form a former.
func (f Form) compiledForm() Form { return f }

// former is a model with a compiled form: one that embeds a Form.
type former interface{ compiledForm() Form }

// GraphOf returns the compiled graph of m, or nil if m has none.
func GraphOf(m any) *Graph {
	if f, ok := m.(former); ok {
		return f.compiledForm().graph
	}
	return nil
}

// TorusOf returns the compiled torus of m, or nil if m has none.
func TorusOf(m any) *Torus {
	if f, ok := m.(former); ok {
		return f.compiledForm().torus
	}
	return nil
}
