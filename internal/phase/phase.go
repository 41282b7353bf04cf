// Package phase marks the phases of a run — reading a model, planning and
// solving its exact elimination, the pilots that choose a sampler, building
// the chains, sampling, writing the results — so that tests can act at the
// start of each: deliver a signal there, cancel a context, and check that
// the run stops within its bound whatever it was doing.
package phase

// Hook, if not nil, is called with the phase's name as each phase begins.
// Only tests set it, before the run starts.
var Hook func(name string)

// Enter marks the start of phase name.
func Enter(name string) {
	if Hook != nil {
		Hook(name)
	}
}
