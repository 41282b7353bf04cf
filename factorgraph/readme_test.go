package factorgraph_test

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeQuickStart: the README's quick start is Example_quickStart as a
// program (same imports, the example's body up to its Output comment as
// main's body), so the example's checked output vouches for the README.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("no README:", err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	between := func(s, from, to string) string {
		t.Helper()
		_, after, ok := strings.Cut(s, from)
		if !ok {
			t.Fatalf("no %q", from)
		}
		in, _, ok := strings.Cut(after, to)
		if !ok {
			t.Fatalf("no %q after %q", to, from)
		}
		return in
	}
	block := between(string(readme), "## Quick start\n\n```go\n", "```\n")
	imports := between(string(example), "import (\n", ")\n")
	body := between(string(example), "func Example_quickStart() {\n", "\t// Output:\n")
	want := "package main\n\nimport (\n" + imports + ")\n\nfunc main() {\n" + body + "}\n"
	if block != want {
		t.Errorf("README quick start:\n%s\nwant Example_quickStart as a program:\n%s", block, want)
	}
}
