package chain

import (
	"context"
	"errors"
	"fmt"
)

// Session is what surrounds a Runner in a program that runs chains from any
// source with trace files, checkpoints, resumption and runs split across
// processes: the chains' CSV traces (one file a chain, TracePath), their
// restoration from a checkpoint or from the parts of a split run, how the
// run ended (End), and what it leaves: flushed traces, the final states'
// hash and, for chain k of K, its Part.
//
// A Session is used once: Add each chain as it is built, Attach, run the
// chains (unless Attach says they ended in the parts), End with the
// Runner's error, then Flush and, for a split run, Part; Close always.
type Session struct {
	// Meta describes the run for its checkpoints and its part; Meta.Trace,
	// if set, is the base path of the chains' CSV traces.
	Meta Meta
	// Inputs are the run's input files, hashed into its Part.
	Inputs []string
	// Of is the number of chains of the whole run (TracePath).
	Of int
	// Trace returns the CSV trace of chain c: its header, interval and
	// row (nil: no traces).
	Trace func(c *Chain) (header string, every int64, row RowFunc, err error)
	// Resume, read from ResumePath, restores the chains; their trace files
	// are then reopened as the checkpoint left them, not created.
	Resume     *Checkpoint
	ResumePath string
	// Parts, if set, hold the chains' final states: Attach loads them and
	// the chains are not run.
	Parts []*Part

	// Chains are the chains added, Seconds the run's sampling time (the
	// slowest part's when loaded from Parts) and Hash the final states'
	// StateHash (set by Attach from Parts, or Flush).
	Chains  []*Chain
	Seconds float64
	Hash    string

	indices []int
	files   []*CSV
}

// Indices returns the global indices of the chains a process runs: chain
// k alone of a run split into of > 0 processes, else 0…n−1.
func Indices(k, of, n int) []int {
	if of > 0 {
		return []int{k}
	}
	ks := make([]int, n)
	for i := range ks {
		ks[i] = i
	}
	return ks
}

// Build builds the chains of the global indices (build(k): chain k) with
// burn-in burn and adds them, one at a time (Add).
func (s *Session) Build(indices []int, burn int64, build func(k int) (*Chain, error)) error {
	for _, k := range indices {
		c, err := build(k)
		if err != nil {
			return err
		}
		c.Burn = burn
		if err := s.Add(c, k); err != nil {
			return err
		}
	}
	return nil
}

// Add adds chain c, of global index k, opening its trace file as one of
// its observers when the session traces.
func (s *Session) Add(c *Chain, k int) error {
	s.Chains, s.indices = append(s.Chains, c), append(s.indices, k)
	if s.Meta.Trace == "" || s.Trace == nil {
		return nil
	}
	header, every, row, err := s.Trace(c)
	if err != nil {
		return err
	}
	path := TracePath(s.Meta.Trace, k, s.Of)
	var file *CSV
	if s.Resume != nil {
		file, err = OpenCSV(path, every, row)
	} else {
		file, err = CreateCSV(path, header, every, row)
	}
	if err != nil {
		return err
	}
	s.files = append(s.files, file)
	c.Observers = append(c.Observers, file)
	return nil
}

// Attach restores the chains from Resume, or loads them from Parts: then
// run is false, the chains in their final states.
func (s *Session) Attach() (run bool, err error) {
	if s.Parts != nil {
		if s.Seconds, err = RestoreParts(s.Parts, s.Chains); err != nil {
			return false, err
		}
		s.Hash = StateHash(States(s.Chains)...)
		return false, nil
	}
	if s.Resume != nil {
		if err := s.Resume.Restore(s.Chains); err != nil {
			return false, fmt.Errorf("%s: %w", s.ResumePath, err)
		}
	}
	return true, nil
}

// Ending is how a run that has results ended.
type Ending struct {
	// Unsaved is the error of a complete run whose final checkpoint could
	// not be written: the results stand, and the run failed after them.
	Unsaved error
	// Interrupted is the error of a run its context cancelled after its
	// burn-in: the results are those so far.
	Interrupted error
}

// End says how the run of the chains ended from the Runner's error err:
// complete says the run completed whatever the steps done (a time budget,
// a stopping rule), otherwise it did when every chain made steps. It
// returns the run's error when the chains have no results: a failure, or
// an end within the burn-in (the interruption's error if interrupted).
func (s *Session) End(err error, complete bool, steps, burn int64) (Ending, error) {
	var end Ending
	complete = complete || s.allDone(steps)
	var save *SaveError
	switch {
	case err == nil:
	case errors.As(err, &save) && complete && !Stopped(err):
		end.Unsaved = err
	case errors.Is(err, context.Canceled):
		end.Interrupted = err
	default:
		return end, err
	}
	for _, c := range s.Chains {
		if c.Done() <= burn {
			if end.Interrupted != nil {
				return end, end.Interrupted
			}
			return end, &BurnInError{Done: c.Done()}
		}
	}
	return end, nil
}

// allDone reports whether every chain made steps.
func (s *Session) allDone(steps int64) bool {
	for _, c := range s.Chains {
		if c.Done() < steps {
			return false
		}
	}
	return true
}

// Flush writes out the trace files and records the final states' hash.
func (s *Session) Flush() error {
	for _, file := range s.files {
		if err := file.Flush(); err != nil {
			return err
		}
	}
	s.Hash = StateHash(States(s.Chains)...)
	return nil
}

// Part returns the part of chain k of K the session ran alone: the run's
// Meta with its input files' identities and the chain's final state.
func (s *Session) Part() (*Part, error) {
	st, err := s.Chains[0].Save()
	if err != nil {
		return nil, err
	}
	m := s.Meta
	if m.Inputs, err = HashFiles(s.Inputs...); err != nil {
		return nil, err
	}
	return &Part{Meta: m, Chain: s.indices[0], Of: s.Of, Seconds: s.Seconds, State: st}, nil
}

// Close closes the trace files.
func (s *Session) Close() {
	for _, c := range s.files {
		c.Close()
	}
}

// BurnInError is End's error for a run that ended within its burn-in
// (a time budget spent before any draw was kept): the chains have no
// results.
type BurnInError struct {
	Done int64 // the steps the chain made
}

func (e *BurnInError) Error() string {
	return fmt.Sprintf("the run ended after %d steps, within the burn-in", e.Done)
}
