package experiments_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/pgibbs/pgibbs/experiments"
	"github.com/pgibbs/pgibbs/experiments/harness"
)

// Reproduce reruns Fig. 1a of the Poisson-Gibbs paper with quick settings,
// as `pgibbs reproduce fig1a -quick -out results` does.
func ExampleReproduce() {
	if err := os.MkdirAll("results", 0o755); err != nil {
		log.Fatal(err)
	}
	paths, err := experiments.Reproduce(context.Background(), "fig1a", true, "results", harness.Config{Seed: 1}, os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(paths), "files written") // results/fig1-potts-summary.csv, results/fig1a.csv, .png, .svg
}
