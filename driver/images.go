package driver

import (
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// ImageTag is an image a run names by its tag, with the first step that
// names it.
type ImageTag struct {
	Image string
	Step  *ir.Step
}

// ImageTags compiles the workspace's specs and lists the images its
// steps name by a tag, sorted, each once: those the specs give no
// digest, and those whose digest the platform's imageDigests gives, by
// their name and tag, which mlcube-compile lock resolves again. An
// image the cube itself pins (name@sha256:...) is not listed. The
// compile's warnings are left out: lock says nothing of the run but its
// images.
func ImageTags(w *compiler.Workspace) ([]ImageTag, error) {
	p, _, err := readPipeline(w)
	if err != nil {
		return nil, err
	}
	var out []ImageTag
	for _, s := range p.Steps {
		if strings.Contains(s.Image, "@") && !s.ImageLocked {
			continue
		}
		image := ir.ImageName(s.Image)
		if !slices.ContainsFunc(out, func(t ImageTag) bool { return t.Image == image }) {
			out = append(out, ImageTag{Image: image, Step: s})
		}
	}
	slices.SortFunc(out, func(a, b ImageTag) int { return strings.Compare(a.Image, b.Image) })
	return out, nil
}
