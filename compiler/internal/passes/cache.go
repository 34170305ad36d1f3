package passes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// CacheKeys gives each step the run caches its StepKey: the sha256 of
// its recipe, what it runs, and the params the recipe refers to, whose
// values, with the digests of what the step fetches, complete the key
// at run time (ir.KeyText). A step the cache cannot key runs every time,
// with a warning that says why; one whose cache: is false, quietly. Two
// steps whose keys would be equal are refused: both would write one
// entry.
func CacheKeys(p *ir.Pipeline) diag.Diagnostics {
	var diags diag.Diagnostics
	if cacheOf(p) == nil {
		for _, s := range p.Steps {
			if s.CacheSetting != nil {
				diags = append(diags, diag.Warnf(diag.CacheSettingUnused, s.Loc.Field("cache"),
					"step %s says whether the cache keeps it, and the platform has no cache", s.Written).
					WithFix("add objectStore.cache to the platform, or drop the step's cache:"))
			}
		}
		return diags
	}
	perPod := map[string]bool{}
	for _, v := range p.Volumes {
		perPod[v.Name] = v.PerPod
	}
	keyed := map[string]*ir.Step{}
	// The cached steps whose image is a tag alone, by tag, in the
	// order of the tags' first steps.
	byTag, tags := map[string][]string{}, []string(nil)
	names := map[string]*ir.Step{}
	for _, s := range p.Steps {
		names[s.Name] = s
	}
	for _, s := range p.Steps {
		if other := names[s.Name+ir.KeyTaskSuffix]; other != nil {
			diags = append(diags, diag.Errorf(diag.CacheKeysCollide, other.Loc,
				"step %s has the name of step %s's key task, which a run with a cache runs before it", other.Written,
				s.Written).
				WithFix("rename the step"))
		}
	}
	for _, s := range p.Steps {
		if s.CacheSetting != nil && !*s.CacheSetting || len(s.Uploads) == 0 && s.Kind == ir.Container {
			// A step that uploads nothing has nothing to keep.
			continue
		}
		if why := uncacheable(p, s, perPod); why != "" {
			diags = append(diags, diag.Warnf(diag.StepNotCached, s.Loc,
				"step %s is not cached: %s; it runs every time", s.Written, why).
				WithFix("set cache: false on the step to say so"))
			continue
		}
		if !strings.Contains(s.Image, "@sha256:") {
			if byTag[s.Image] == nil {
				tags = append(tags, s.Image)
			}
			byTag[s.Image] = append(byTag[s.Image], s.Written)
		}
		r := recipeOf(p, s)
		// A recipe is plain strings and bools: Marshal cannot fail.
		text, _ := json.Marshal(r)
		sum := sha256.Sum256(text)
		s.Key = &ir.StepKey{Recipe: hex.EncodeToString(sum[:]), Params: r.params(), Claims: claimsOf(s, perPod)}
		same := s.Key.Recipe + " " + strings.Join(inputsOf(s), " ")
		if other, ok := keyed[same]; ok {
			diags = append(diags, diag.Errorf(diag.CacheKeysCollide, s.Loc,
				"steps %s and %s would have one cache key: they run the same task with the same arguments on the same "+
					"inputs", other.Written, s.Written).
				WithFix("drop one, give them different arguments, or set cache: false on one"))
			continue
		}
		keyed[same] = s
	}
	for _, tag := range tags {
		steps := "steps " + strings.Join(byTag[tag], ", ") + " are"
		if len(byTag[tag]) == 1 {
			steps = "step " + byTag[tag][0] + " is"
		}
		diags = append(diags, diag.Warnf(diag.CachedByTag,
			p.Platform.Field("objectStore").Field("cache").Field("imageTags"),
			"%s cached by image %s's tag: an image pushed again under the tag gets this one's outputs", steps, tag).
			WithFix("lock the tag to its digest with the platform's imageDigests (mlcube-compile lock prints them)"))
	}
	return diags
}

// cacheOf is p's cache; nil when it keeps none.
func cacheOf(p *ir.Pipeline) *ir.Cache {
	if p.ObjectStore == nil {
		return nil
	}
	return p.ObjectStore.Cache
}

// uncacheable says why step s cannot be keyed: the key would miss
// something that changes its outputs. Empty when it can.
func uncacheable(p *ir.Pipeline, s *ir.Step, perPod map[string]bool) string {
	switch {
	case s.Kind != ir.Container:
		return "a distributed step's pods share data on a claim, which the cache does not digest"
	case !strings.Contains(s.Image, "@sha256:") && !p.ObjectStore.Cache.ImageTags:
		return "its image " + s.Image + " is a tag alone, which may name another image tomorrow (pin it by " +
			"digest, with the platform's imageDigests, or set objectStore.cache.imageTags)"
	}
	for _, m := range s.Mounts {
		if perPod[m.Volume] {
			continue
		}
		if !m.ReadOnly {
			return "it writes to the claim of volume " + m.Volume + " at " + m.MountPath + ", which a skipped step " +
				"would leave as it was"
		}
		for _, in := range s.Mounts {
			// A part of the same claim inside it is data the key task
			// digests twice, as the step reads it.
			if in.Volume != m.Volume && strings.HasPrefix(in.MountPath, m.MountPath+"/") {
				return "its mount at " + in.MountPath + " is inside the claim's at " + m.MountPath + ", which its key " +
					"task digests without it"
			}
		}
	}
	for _, e := range s.Env {
		if e.Config != nil && (p.Config == nil || e.Config.ConfigMap != p.Config.Name) {
			return "its variable " + e.Name + " comes from ConfigMap " + e.Config.ConfigMap + ", not the run's"
		}
	}
	return ""
}

// claimsOf are the mounts of a claim of step s, which uncacheable lets
// only be read-only, by mount path in byte order (ir.StepKey.Claims).
func claimsOf(s *ir.Step, perPod map[string]bool) []ir.Mount {
	var out []ir.Mount
	for _, m := range s.Mounts {
		if !perPod[m.Volume] {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b ir.Mount) int { return strings.Compare(a.MountPath, b.MountPath) })
	return out
}

// inputsOf are the sources of s's fetches, as a key's inputs are made of
// them, by fetch name: a URL by its written digest, else by itself.
func inputsOf(s *ir.Step) []string {
	var out []string
	for _, f := range s.Fetches {
		src := ""
		switch {
		case f.From != nil:
			src = "from:" + f.From.Step + "/" + f.From.Name
		case f.URL != nil && f.URL.SHA256 != "":
			src = "sha256:" + f.URL.SHA256
		case f.URL != nil:
			src = "url:" + f.URL.Raw
		}
		out = append(out, f.Name+"="+src)
	}
	slices.Sort(out)
	return out
}

// recipe is what a cached step runs, as its key holds it: each field
// with its JSON name, in this order (docs/caching.md lists them). Text
// that refers to params is a list of pieces, each a literal or a param's
// name, whose value the key holds at run time.
type recipe struct {
	Version        string        `json:"version"`
	Image          string        `json:"image"`
	Command        []string      `json:"command,omitempty"`
	ArgsAreCommand bool          `json:"argsAreCommand,omitempty"`
	Args           []recipeText  `json:"args,omitempty"`
	Env            []recipeEnv   `json:"env,omitempty"`
	Mounts         []recipeMount `json:"mounts,omitempty"`
	Fetches        []recipePath  `json:"fetches,omitempty"`
	Uploads        []recipePath  `json:"uploads,omitempty"`
	Folders        []recipeText  `json:"folders,omitempty"`
}

type recipeText []recipePiece

type recipePiece struct {
	Literal string `json:"literal,omitempty"`
	Param   string `json:"param,omitempty"`
}

type recipeEnv struct {
	Name  string     `json:"name"`
	Value recipeText `json:"value,omitempty"`
	// Secret is a Secret's name and key: the key holds which Secret, not
	// what it holds.
	Secret string `json:"secret,omitempty"`
	// Config is the value of the run's ConfigMap's key.
	Config *string `json:"config,omitempty"`
}

type recipeMount struct {
	Path     string     `json:"path"`
	SubPath  recipeText `json:"subPath,omitempty"`
	ReadOnly bool       `json:"readOnly,omitempty"`
	File     bool       `json:"file,omitempty"`
}

type recipePath struct {
	Name   string     `json:"name"`
	Path   recipeText `json:"path"`
	Sub    string     `json:"sub,omitempty"`
	Folder bool       `json:"folder,omitempty"`
}

// recipeOf is step s's recipe.
func recipeOf(p *ir.Pipeline, s *ir.Step) recipe {
	r := recipe{Version: ir.KeyText, Image: s.Image, Command: s.Command, ArgsAreCommand: s.ArgsAreCommand}
	for _, a := range s.Args {
		r.Args = append(r.Args, textOf(append(ir.Lit(a.Prefix), a.Value...)))
	}
	for _, e := range s.Env {
		re := recipeEnv{Name: e.Name, Value: textOf(e.Value)}
		switch {
		case e.Secret != nil:
			re.Secret = e.Secret.Secret + "/" + e.Secret.Key
		case e.Config != nil:
			v := ""
			if p.Config != nil {
				v = p.Config.Data[e.Config.Key]
			}
			re.Config = &v
		}
		r.Env = append(r.Env, re)
	}
	for _, m := range s.Mounts {
		r.Mounts = append(r.Mounts, recipeMount{Path: m.MountPath, SubPath: textOf(m.SubPath), ReadOnly: m.ReadOnly,
			File: m.File})
	}
	for _, f := range s.Fetches {
		r.Fetches = append(r.Fetches, recipePath{Name: f.Name, Path: textOf(f.Path), Sub: f.Sub})
	}
	for _, u := range s.Uploads {
		r.Uploads = append(r.Uploads, recipePath{Name: u.Name, Path: textOf(u.Path), Folder: u.Folder})
	}
	for _, f := range s.Folders {
		r.Folders = append(r.Folders, textOf(f.Path))
	}
	return r
}

// textOf is t as a recipe writes it, with the literal pieces that are
// empty left out, so that how lowering split a text does not change it.
func textOf(t ir.Text) recipeText {
	var out recipeText
	for _, pc := range t {
		switch {
		case pc.Param != "":
			out = append(out, recipePiece{Param: pc.Param})
		case pc.Literal == "":
		case len(out) > 0 && out[len(out)-1].Param == "":
			out[len(out)-1].Literal += pc.Literal
		default:
			out = append(out, recipePiece{Literal: pc.Literal})
		}
	}
	return out
}

// params are the params r refers to, sorted, each once.
func (r recipe) params() []string {
	var out []string
	add := func(t recipeText) {
		for _, pc := range t {
			if pc.Param != "" && !slices.Contains(out, pc.Param) {
				out = append(out, pc.Param)
			}
		}
	}
	for _, a := range r.Args {
		add(a)
	}
	for _, e := range r.Env {
		add(e.Value)
	}
	for _, m := range r.Mounts {
		add(m.SubPath)
	}
	for _, f := range r.Fetches {
		add(f.Path)
	}
	for _, u := range r.Uploads {
		add(u.Path)
	}
	for _, f := range r.Folders {
		add(f)
	}
	slices.Sort(out)
	return out
}
