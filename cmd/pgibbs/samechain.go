package main

import (
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/pgibbs/pgibbs/blocks"
	"github.com/pgibbs/pgibbs/infer"
)

// sameChain returns the flags of `pgibbs uai` that name the sampler spec,
// the default's choice, so that their chain 0 is the default's chain with
// the same seed (infer: the pilots run on chain 0's stream from its start
// state), or "" where no flags name it (single sites, Wolff's tuned
// clusters, blocks bounded by their tables, blocks capped in size on a
// large model). The flags are checked by parsing them as the command does: the
// spec they give must be spec.
func sameChain(spec infer.Spec, seed uint64) string {
	args := []string{"-sampler", spec.Name}
	switch spec.Name {
	case "sw":
	case "exchange":
		if spec.Houdayer {
			args = append(args, "-houdayer")
		}
	case "block":
		if spec.Block.Forests {
			args = append(args, "-forests")
		} else {
			args = append(args, "-width", strconv.Itoa(spec.Block.MaxWidth))
		}
		if spec.Flips {
			args = append(args, "-flips")
		}
	default:
		return ""
	}
	u, err := parseUAI(&env{stdout: io.Discard, stderr: io.Discard}, append([]string{"-model", "m.uai"}, args...))
	if err != nil {
		return ""
	}
	named := infer.Spec{Name: u.f.sampler, Block: u.block, Flips: u.flips, Houdayer: *u.houdayer}
	if spec.Block.MaxVars == blocks.DefaultVars {
		spec.Block.MaxVars = 0 // the same bound: 0 means DefaultVars
	}
	if !reflect.DeepEqual(named, spec) {
		return ""
	}
	return strings.Join(append(args, "-seed", strconv.FormatUint(seed, 10)), " ")
}
