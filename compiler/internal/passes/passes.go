package passes

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A Pass is one whole-pipeline step of lowering.
type Pass struct {
	Name string
	// Needs is what the pass relies on in the IR it is given.
	Needs string
	// After are the passes whose result it reads; Table runs them first.
	After []string
	Run   func(*ir.Pipeline) diag.Diagnostics
}

// Table is every pass, in the order Run runs them. Lowering has, before
// the first: lowered every step, ordered them (Steps in a topological
// order, After set), listed Volumes by name, and listed in
// ResourceClaimTemplates every template a step's request made.
var Table = []Pass{
	{Name: "claim-access", Run: ClaimAccess,
		Needs: "steps in run order; Volumes listed; a claim the run creates carries the access modes the platform " +
			"writes, or none"},
	{Name: "url-fetches", Run: URLFetches,
		Needs: "every fetch of a URL lowered, into the fetched volume"},
	{Name: "scheduled-concurrency", Run: ScheduledConcurrency,
		Needs: "Volumes listed"},
	{Name: "claim-templates", Run: ClaimTemplates,
		Needs: "every step's resources final"},
	{Name: "queued-claims", Run: QueuedClaims, After: []string{"claim-templates"},
		Needs: "every step's queue set"},
	{Name: "param-values", Run: ParamValues,
		Needs: "every reference to a param read: each param's Named, Used and AtRunTime set; NeedValues set; " +
			"FileSteps listed for a pipeline file"},
	{Name: "cache-keys", Run: CacheKeys,
		Needs: "every step lowered whole: its image, command, args, env, mounts, fetches, uploads and folders final, " +
			"and its CacheSetting read; Volumes listed; the object store's cache read"},
}

// Run runs every pass of Table on p, in order.
func Run(p *ir.Pipeline) diag.Diagnostics {
	var out diag.Diagnostics
	for _, pass := range Table {
		out = append(out, pass.Run(p)...)
	}
	return out
}
