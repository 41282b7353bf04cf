package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgibbs/pgibbs/factorgraph/uai"
)

// shuffledTorusUAI writes the l×l Ising torus (W = 0.4 on each pair) with
// its sites numbered at random as a UAI model, a field on variable 5
// favouring 0, and evidence x_7 = 1.
func shuffledTorusUAI(t *testing.T, dir string, l int) (model, evid string) {
	t.Helper()
	n := l * l
	perm := rand.New(rand.NewPCG(6, 6)).Perm(n)
	model, evid = filepath.Join(dir, "torus.uai"), filepath.Join(dir, "torus.uai.evid")
	f, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "MARKOV\n%d\n%s\n%d\n", n, strings.TrimSpace(strings.Repeat("2 ", n)), 2*n+1)
	for y := range l {
		for x := range l {
			s := perm[y*l+x]
			fmt.Fprintf(w, "2 %d %d\n2 %d %d\n", s, perm[y*l+(x+1)%l], s, perm[(y+1)%l*l+x])
		}
	}
	fmt.Fprintf(w, "1 5\n")
	e := strconv.FormatFloat(math.Exp(0.4), 'g', -1, 64)
	for range 2 * n {
		fmt.Fprintf(w, "4\n%s 1 1 %s\n", e, e)
	}
	fmt.Fprintf(w, "2\n0.75 0.25\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evid, []byte("1 7 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return model, evid
}

// TestOrder: -order locality on a model of 33 124 variables numbered at
// random renumbers it, says so, and writes its marginals in the file's
// numbering (the evidence and the field where the file put them); a run
// interrupted and resumed from its checkpoints ends as an uninterrupted
// one; on a small model it keeps the numbering and says why; bad values
// and the flags it cannot serve are usage errors.
func TestOrder(t *testing.T) {
	dir := t.TempDir()
	model, evid := shuffledTorusUAI(t, dir, 182)
	out := filepath.Join(dir, "out.MAR")
	args := []string{"uai", "-model", model, "-evidence", evid, "-order", "locality", "-scan", "systematic", "-sampler", "gibbs", "-iters", "1000000"}
	start := time.Now()
	code, stdout, stderr := runCLI(t, append(args, "-out", out, "-json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := time.Since(start)
	var o struct {
		Order string `json:"order"`
	}
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(o.Order, "renumbered for locality") {
		t.Errorf("order %q, want the model renumbered", o.Order)
	}
	mar, err := uai.ReadMarginalsFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if mar[7][0] != 0 || mar[7][1] != 1 || !(mar[5][0] > 0.6) {
		t.Errorf("marginals of x_7 (observed at 1) %v and of x_5 (a field favouring 0) %v", mar[7], mar[5])
	}
	if code, text, stderr := runCLI(t, args...); code != 0 || !strings.Contains(text, "renumbered for locality") {
		t.Errorf("text output (exit %d, %s) does not say the model was renumbered:\n%s", code, stderr, text)
	}

	// Interrupted and resumed: the answer of the uninterrupted run.
	want := deterministic(t, stdout)
	delete(want, "out")
	// An interruption during the reading or the ordering leaves no
	// checkpoint (no chain is built yet): later ones until one does.
	ck := filepath.Join(dir, "ck")
	for _, at := range []time.Duration{d / 3, d / 2, 2 * d / 3, 5 * d / 6} {
		code, _, stderr = runCtx(t, at, append(args, "-json", "-checkpoint", ck, "-checkpoint-every", (d/10).String())...)
		if code != 130 && code != 0 { // 0: it finished first, its last checkpoint written
			t.Fatalf("interrupted run: exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(ck); err == nil {
			break
		}
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("no interruption left a checkpoint: %v", err)
	}
	// Interrupted once more if it does not finish within half the first
	// run's time, then run to the end.
	code, got, stderr := runCtx(t, d/2, "uai", "-resume", ck, "-json")
	if code == 130 {
		code, got, stderr = runCLI(t, "uai", "-resume", ck, "-json")
	}
	if code != 0 {
		t.Fatalf("resumed run: exit %d: %s", code, stderr)
	}
	if g := deterministic(t, got); !reflect.DeepEqual(g, want) {
		t.Errorf("resumed run:\n%v\nwant the uninterrupted run's\n%v", g, want)
	}

	small, smallEvid, _ := uaiFiles(t)
	code, stdout, stderr = runCLI(t, "uai", "-model", small, "-evidence", smallEvid, "-order", "locality", "-iters", "2000", "-sampler", "gibbs", "-json")
	if code != 0 || !strings.Contains(stdout, "kept the numbering") {
		t.Errorf("a small model: exit %d (%s), output %s; want the numbering kept, saying why", code, stderr, stdout)
	}
	for _, bad := range [][]string{
		{"-order", "rcm"},
		{"-order", ""},
		{"-order", "locality", "-trace", filepath.Join(dir, "t.csv")},
		{"-order", "locality", "-chain", "0", "-of", "2"},
	} {
		if code, _, stderr := runCLI(t, append([]string{"uai", "-model", small, "-iters", "100"}, bad...)...); code != 2 || !strings.Contains(stderr, "-order") {
			t.Errorf("%v: exit %d (stderr %q), want a usage error about -order", bad, code, stderr)
		}
	}
}
