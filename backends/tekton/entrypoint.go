package tekton

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Tekton runs a step without a command through its own entrypoint
// binary, so it looks up the image's: its ENTRYPOINT, or, in an image
// that has none, its CMD, even when the step has args (imageInfo,
// pkg/pod/entrypoint_lookup_impl.go, v1.15.1: ENTRYPOINT and CMD are
// joined only for a step with no args). Docker and the kubelet run the
// args alone in such an image. A MedPerf task's run_args.command is the
// whole command line in an image FROM python (CMD python3), so Tekton
// would run python3 python3 /project/prepare.py. With the image's
// ENTRYPOINT given by the platform (tekton.imageEntrypoints), the step
// names its command itself and Tekton looks nothing up.

// commandOf gives step st of s the command docker would run for it, when
// s's args are a whole command line and the platform says its image's
// ENTRYPOINT: that ENTRYPOINT before the args, or, for an image without
// one, the first word of the args.
func commandOf(p *ir.Pipeline, s *ir.Step, st *v1.Step) {
	entrypoint, ok := imageEntrypoint(p, s.Image)
	if !s.ArgsAreCommand || len(st.Command) > 0 || !ok {
		return
	}
	if len(entrypoint) > 0 {
		st.Command = slices.Clone(entrypoint)
		return
	}
	st.Command, st.Args = st.Args[:1], st.Args[1:]
}

// imageEntrypoint is the ENTRYPOINT the platform says image has, by
// the image as written or, for one the platform's imageDigests pins, by
// its name and tag.
func imageEntrypoint(p *ir.Pipeline, image string) ([]string, bool) {
	if e, ok := settingsOf(p).ImageEntrypoints[image]; ok {
		return e, true
	}
	e, ok := settingsOf(p).ImageEntrypoints[ir.ImageName(image)]
	return e, ok
}

// entrypointWarnings say which steps run a whole command line in an image
// whose ENTRYPOINT the platform does not say, once an image, at its first
// step; and which images the platform says that no such step runs.
func entrypointWarnings(p *ir.Pipeline) diag.Diagnostics {
	steps := map[string][]string{}
	var first []*ir.Step
	for _, s := range p.Steps {
		_, said := imageEntrypoint(p, s.Image)
		if s.Kind != ir.Container || !s.ArgsAreCommand || len(s.Command) > 0 || said {
			continue
		}
		if steps[s.Image] == nil {
			first = append(first, s)
		}
		steps[s.Image] = append(steps[s.Image], s.Name)
	}
	var out diag.Diagnostics
	for _, image := range slices.Sorted(maps.Keys(settingsOf(p).ImageEntrypoints)) {
		if !slices.ContainsFunc(p.Steps,
			func(s *ir.Step) bool {
				return (s.Image == image || ir.ImageName(s.Image) == image) && s.ArgsAreCommand && len(s.Command) == 0
			}) {
			out = append(out, diag.Warnf(diag.PlatformSettingUnused,
				p.Platform.Field("tekton").Field("imageEntrypoints").Field(image),
				"no step of the run runs a MedPerf run_args.command in image %s, so its entry applies to nothing", image))
		}
	}
	for _, s := range first {
		names := steps[s.Image]
		out = append(out, diag.Warnf(diag.TektonCmdBeforeArgs, s.Loc,
			"%s %s: Tekton runs image %s's CMD before MedPerf's run_args.command if the image has no ENTRYPOINT",
			stepWord(names), strings.Join(names, ", "), s.Image).
			WithFix(fmt.Sprintf("say the image's ENTRYPOINT on the platform, tekton: {imageEntrypoints: {%q: []}} for none, "+
				"and the step runs its command itself", ir.ImageName(s.Image))).
			WithDetail("MedPerf's run_args.command runs after the image's ENTRYPOINT, as docker runs it; with no "+
				"ENTRYPOINT docker runs the command alone, but Tekton runs the image's CMD before it (in an image FROM "+
				"python: python3 %s).", firstArg(s)))
	}
	return out
}

// firstArg is s's command line as far as its first literal words go.
func firstArg(s *ir.Step) string {
	var words []string
	for _, a := range s.Args {
		words = append(words, a.Prefix+a.Value.Render(func(p string) string { return fmt.Sprintf("$(params.%s)", p) }))
		if len(words) == 2 {
			break
		}
	}
	return strings.Join(words, " ")
}
