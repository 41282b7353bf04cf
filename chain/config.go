package chain

import "fmt"

// ConfigError is the refusal of a run's configuration by the package that
// runs it (lattice/simulation, mh/run): which field and why, so that a
// caller can name its own setting of the field (a command-line flag).
type ConfigError struct {
	Pkg   string // the refusing package: "simulation", "mh/run"
	Field string // the configuration's field
	Err   error  // why, beginning with the field's value where it has one
}

func (e *ConfigError) Error() string { return e.Pkg + ": " + e.Field + " " + e.Err.Error() }

func (e *ConfigError) Unwrap() error { return e.Err }

// Refuse returns a *ConfigError of pkg's field, its reason formatted as
// fmt.Errorf does (%w wraps).
func Refuse(pkg, field, format string, args ...any) error {
	return &ConfigError{Pkg: pkg, Field: field, Err: fmt.Errorf(format, args...)}
}
