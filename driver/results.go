package driver

import (
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// resultNotes say, for a run whose steps upload their outputs, where
// each of the run's results is kept: the uploads no later step fetches,
// at the step that writes them. Every engine keys an upload by the run's
// uid, the step and the output; a cached step's, by its key in the cache
// and the run's uid.
func resultNotes(p *ir.Pipeline) diag.Diagnostics {
	if p.ObjectStore == nil {
		return nil
	}
	where := "Argo's artifact repository"
	if b := p.ObjectStore.S3; b != nil {
		where = "s3://" + b.Bucket
	}
	var notes diag.Diagnostics
	for _, s := range p.Steps {
		for _, u := range s.Uploads {
			if !u.Final {
				continue
			}
			if s.Key != nil {
				notes = append(notes, diag.Notef(diag.ResultsKept, s.Loc,
					"output %s is a result of the run, kept in the cache in %s below %s/<key>/, in the entry the key's "+
						"manifest names (the step's key task prints its key; a Job keeps it at <run uid>/%s/%s)",
					u.Name, where, p.ObjectStore.Cache.Prefix, s.Name, u.Name))
				continue
			}
			notes = append(notes, diag.Notef(diag.ResultsKept, s.Loc,
				"output %s is a result of the run, kept in %s at <run uid>/%s/%s", u.Name, where, s.Name, u.Name))
		}
	}
	return notes
}
