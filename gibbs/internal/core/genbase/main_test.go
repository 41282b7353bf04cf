package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestUpToDate: every samplers' package holds the base.go genbase writes
// (run go generate in gibbs/internal/core after changing a method).
func TestUpToDate(t *testing.T) {
	for _, p := range packages {
		want, err := generate(p.name, p.methods)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", "..", p.name, "base.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("gibbs/%s/base.go is not what genbase writes: run go generate in gibbs/internal/core", p.name)
		}
	}
}
