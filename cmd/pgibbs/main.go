// Command pgibbs runs the samplers of this module from the command line:
// lattice simulations, UAI models, and the papers' experiments.
//
// With no arguments it runs the Poisson-Gibbs paper's Potts experiment
// (20×20, D = 10, β = 4.6) with plain Gibbs and Poisson-Gibbs (λ = L²) on
// the same time budget and prints a comparison table. `pgibbs help` lists
// the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/pgibbs/pgibbs/chain"
)

// command is one subcommand. run parses its own flags from args.
type command struct {
	name    string
	summary string
	example string
	run     func(ctx context.Context, env *env, args []string) error
}

// env is what a command writes to.
type env struct {
	stdout, stderr io.Writer
	// merged holds the parts `pgibbs merge` hands the command it runs.
	merged []*chain.Part
	// failure, set by a command that has printed its results, makes it
	// fail after all (a checkpoint that could not be saved).
	failure error
}

var commands = map[string]*command{}

// register adds a subcommand; each subcommand's file calls it from init.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("pgibbs: command " + c.name + " registered twice")
	}
	commands[c.name] = c
}

// usageError marks errors caused by the command line: exit status 2.
// printed says the flag package has already shown it with the usage.
type usageError struct {
	msg     string
	printed bool
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		signal.Stop(sigs) // a second signal kills at once
		cancel(signalError{sig.(syscall.Signal)})
	}()
	os.Exit(run(ctx, &env{stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
}

// signalError is the cause of a run cancelled by a signal: its exit
// status is 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return e.sig.String() }

// interruption says what interrupted a run cancelled through ctx:
// "interrupted by SIGTERM", or by whatever cancelled ctx.
func interruption(ctx context.Context) string {
	var se signalError
	if errors.As(context.Cause(ctx), &se) {
		switch se.sig {
		case syscall.SIGINT:
			return "interrupted by SIGINT"
		case syscall.SIGTERM:
			return "interrupted by SIGTERM"
		}
		return "interrupted by signal " + se.sig.String()
	}
	return fmt.Sprintf("interrupted (%v)", context.Cause(ctx))
}

// interruptedStatus is the exit status of a run cancelled through ctx.
func interruptedStatus(ctx context.Context) int {
	var se signalError
	if errors.As(context.Cause(ctx), &se) {
		return 128 + int(se.sig)
	}
	return 130
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, e *env, args []string) int {
	name := "default"
	if len(args) > 0 {
		name, args = args[0], args[1:]
		switch name {
		case "help", "-h", "-help", "--help":
			help(e.stdout, args)
			return 0
		case "version", "-version", "--version":
			if len(args) > 0 {
				fmt.Fprintf(e.stderr, "pgibbs %s: takes no arguments, got %q\n", name, args)
				return 2
			}
			fmt.Fprintln(e.stdout, version())
			return 0
		}
		if strings.HasPrefix(name, "-") { // flags of the default job
			name, args = "default", append([]string{name}, args...)
		}
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "pgibbs: unknown command %q\n\n", name)
		help(e.stderr, nil)
		return 2
	}
	err := c.run(ctx, e, args)
	if err == nil && e.failure != nil {
		err = e.failure
	}
	if err == nil && ctx.Err() != nil {
		// A signal came as the command finished: its results above are
		// complete, and it exits as a signalled process does.
		err = fmt.Errorf("%s as the command finished: the results above are complete (%w)", interruption(ctx), ctx.Err())
	}
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		if !ue.printed {
			fmt.Fprintf(e.stderr, "pgibbs %s: %v\n", c.name, err)
			fmt.Fprintf(e.stderr, "run 'pgibbs %s -h' for its flags\n", c.name)
		}
		return 2
	case errors.Is(err, context.Canceled):
		// Say what interrupted the run; the message says how to resume
		// if there is a checkpoint.
		msg := err.Error()
		switch {
		case ctx.Err() == nil: // not this run's context: say it as it is
		case strings.HasPrefix(msg, "interrupted"):
			msg = interruption(ctx) + strings.TrimPrefix(msg, "interrupted")
		case !strings.Contains(msg, "interrupted"):
			msg = interruption(ctx) + ": " + msg
		}
		fmt.Fprintf(e.stderr, "pgibbs %s: %s\n", c.name, msg)
		return interruptedStatus(ctx)
	default:
		fmt.Fprintf(e.stderr, "pgibbs %s: %v\n", c.name, err)
		return 1
	}
}

// version describes the build: the module's version (a tag, or a
// pseudo-version of the commit) and the Go toolchain.
func version() string {
	v := "(devel)"
	goV := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" && v == "(devel)" {
				v += " " + kv.Value
			}
		}
	}
	return "pgibbs " + v + " (" + goV + ")"
}

// help lists the subcommands, or describes one.
func help(w io.Writer, args []string) {
	if len(args) > 0 {
		if c, ok := commands[args[0]]; ok {
			fmt.Fprintf(w, "pgibbs %s: %s\n\nexample:\n  %s\n\nflags: pgibbs %s -h\n", c.name, c.summary, c.example, c.name)
			return
		}
	}
	fmt.Fprintln(w, "pgibbs: Poisson-minibatched Gibbs sampling and exact minibatch MCMC.")
	fmt.Fprintln(w, "\nusage: pgibbs [command] [flags]   (no command: the paper's Potts comparison)")
	fmt.Fprintln(w, "\ncommands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  %-10s %s\n             e.g. %s\n", c.name, c.summary, c.example)
	}
	fmt.Fprintln(w, "\n'pgibbs <command> -h' lists a command's flags; 'pgibbs -version' the build.")
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("pgibbs "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pgibbs %s [flags]\n%s\n\nflags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, turning flag errors (which the flag package prints
// with the usage) and stray arguments into usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{msg: err.Error(), printed: true}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
