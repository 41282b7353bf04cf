package core

//go:generate go run ./genbase

// Base holds the Core of a sampler of the family where no program outside
// the module can reach it: its one field is unexported and it has no
// exported method, so embedding it promotes nothing into a sampler's API.
// Each samplers' package embeds a Base, under the unexported alias sealed,
// in its own base type, which genbase writes (base.go in the package): the
// methods of the family's contract, forwarded to the Core, declared in the
// package so that go doc lists them on every sampler. The package reads
// its Core through In; package core finds the Core of any sampler of the
// family through Of (a Chromatic's workers).
//
// The Core is held by value: a sampler's fields are one offset away as
// they were when Core itself was embedded, and In inlines to an address.
type Base struct{ c Core }

// Hold returns the Base of a sampler whose state is c.
func Hold(c Core) Base { return Base{c: c} }

// In returns the Core b holds.
func In(b *Base) *Core { return &b.c }

// heldCore is the unexported method that makes a sampler embedding a Base
// a holder.
func (b *Base) heldCore() *Core { return &b.c }

// holder is a sampler of the family: one that embeds a Base.
type holder interface{ heldCore() *Core }

// Of returns the Core of s if s is a sampler of the family, or nil (a
// user's sampler, a wrapper).
func Of(s any) *Core {
	if h, ok := s.(holder); ok {
		return h.heldCore()
	}
	return nil
}
