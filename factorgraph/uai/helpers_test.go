package uai_test

import (
	"fmt"
	"slices"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// equalModels reports the first difference between a and b.
func equalModels(a, b *uai.Model) error {
	switch {
	case a.Type != b.Type:
		return fmt.Errorf("type %q != %q", a.Type, b.Type)
	case !slices.Equal(a.Cards, b.Cards):
		return fmt.Errorf("cards %v != %v", a.Cards, b.Cards)
	case len(a.Scopes) != len(b.Scopes) || len(a.Tables) != len(b.Tables):
		return fmt.Errorf("%d/%d factors != %d/%d", len(a.Scopes), len(a.Tables), len(b.Scopes), len(b.Tables))
	}
	for f := range a.Scopes {
		if !slices.Equal(a.Scopes[f], b.Scopes[f]) {
			return fmt.Errorf("factor %d: scope %v != %v", f, a.Scopes[f], b.Scopes[f])
		}
		if !slices.Equal(a.Tables[f], b.Tables[f]) {
			return fmt.Errorf("factor %d: table %v != %v", f, a.Tables[f], b.Tables[f])
		}
	}
	return nil
}
