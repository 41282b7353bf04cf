package site_test

import (
	"testing"

	"github.com/pgibbs/pgibbs/gibbs/internal/gibbstest"
)

func TestMain(m *testing.M) { gibbstest.MainSizeRule(m) }
