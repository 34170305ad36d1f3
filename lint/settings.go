package lint

import (
	"path/filepath"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// settingsUnused drops from results each warning that a setting of a
// platform file applies to nothing (diag.Code's SaysSettingUnused) unless
// every compilation that reads that file gives it: a platform beside a
// pipeline and its cube serves both, and the mpi: settings the pipeline's
// steps use are not unused because the cube compiled alone has no mpi:
// step. A compile of one run says them all.
func settingsUnused(units []unit, results []result) {
	readers := map[string]int{}
	for _, u := range units {
		if u.platformOnly == "" && u.opts.Platform != "" {
			readers[filepath.Clean(u.opts.Platform)]++
		}
	}
	type place struct {
		pos   diag.Pos
		field string
		code  diag.Code
	}
	said := map[place]int{}
	for _, r := range results {
		seen := map[place]bool{}
		for _, d := range r.Diagnostics {
			at := place{d.Pos, d.Field, d.Code}
			if d.Code.SaysSettingUnused() && !seen[at] {
				seen[at] = true
				said[at]++
			}
		}
	}
	for i, r := range results {
		results[i].Diagnostics = slices.DeleteFunc(slices.Clone(r.Diagnostics), func(d diag.Diagnostic) bool {
			return d.Code.SaysSettingUnused() && said[place{d.Pos, d.Field, d.Code}] < readers[filepath.Clean(d.Pos.File)]
		})
	}
}
