package core

import (
	"context"
	"fmt"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/factorgraph"
)

// CheckSiteMoves refuses, for a sampler called name that updates one
// variable at a time, a model with a hard factor that fixes one of its
// variables given the others (blocks.FrozenSite): the chain would be
// reducible. The test's searches look at ctx: once it is done, CheckSiteMoves
// returns its error, wrapped (errors.Is sees context.Canceled or
// context.DeadlineExceeded).
func CheckSiteMoves(ctx context.Context, name string, m factorgraph.Model) error {
	fl, err := blocks.FrozenSite(ctx, m)
	if err != nil {
		return fmt.Errorf("gibbs: %s: %w", name, err)
	}
	if fl == nil {
		return nil
	}
	return &frozenError{fmt.Sprintf("gibbs: %s: single-site updates never change variable %d: hard %s fixes it given the factor's other variables, yet it takes more than one value in states of positive probability, so the chain would stay in the value it starts in; update the factor's %s together with blocked Gibbs (blocked.New, -sampler block) or the registry's auto",
		name, fl.Var, fl.Factor, blocks.VarList(fl.Scope))}
}

// frozenError is CheckSiteMoves's refusal: errors.Is finds
// blocks.ErrFrozen in it.
type frozenError struct{ msg string }

func (e *frozenError) Error() string { return e.msg }
func (e *frozenError) Unwrap() error { return blocks.ErrFrozen }
