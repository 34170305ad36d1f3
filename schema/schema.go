package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"
)

//go:embed *.cue
var files embed.FS

// Kind names one kind of spec file, and the CUE definition that checks it.
type Kind string

// The kinds of spec file mlcube-compile reads.
const (
	MLCube         Kind = "#MLCube"
	MLCubeFile     Kind = "#MLCubeFile"
	LegacyRoot     Kind = "#LegacyRoot"
	LegacyPlatform Kind = "#LegacyPlatform"
	LegacyInvoke   Kind = "#LegacyInvoke"
	LegacyTask     Kind = "#LegacyTask"
	CompactRoot    Kind = "#CompactRoot"
	Platform       Kind = "#Platform"
	Pipeline       Kind = "#Pipeline"
	Values         Kind = "#Values"
	// ContainerConfig is MedPerf's container_config.yaml.
	ContainerConfig Kind = "#ContainerConfig"
)

// Schema is the compiled set of definitions, and the CUE context every
// spec must be built in before it is unified with a definition. A CUE
// context is not safe for concurrent use, so a Schema is used through
// Do, by one function at a time.
type Schema struct {
	mu  sync.Mutex
	ctx Context
}

// Context is a Schema in use: what a function given to Do reads specs
// with. It is valid only until that function returns.
type Context struct {
	cue   *cue.Context
	value cue.Value
	// defs holds each definition once it is looked up: a large pipeline
	// is checked a batch of steps at a time, each against #Pipeline.
	defs map[Kind]cue.Value
	// help explains the schema's patterns, from their @help attributes.
	help []patternHelp
}

var (
	once     sync.Once
	compiled *Schema
	errLoad  error
	// dnsSubdomain is #DNSSubdomain's pattern, read by Load.
	dnsSubdomain *regexp.Regexp
)

// Load compiles the embedded schemas the first time it is called and
// returns the same Schema on every later call.
func Load() (*Schema, error) {
	once.Do(func() {
		compiled, errLoad = compile()
		if errLoad == nil {
			dnsSubdomain, errLoad = onePattern(compiled.ctx.value.LookupPath(cue.ParsePath("#DNSSubdomain")))
		}
	})
	return compiled, errLoad
}

// New compiles a Schema of its own, with its own CUE context, for a
// goroutine that checks specs alongside others.
func New() (*Schema, error) { return compile() }

// Do runs f with the schema's Context. Calls of Do on one Schema run one
// at a time; f must not call Do on the same Schema.
func (s *Schema) Do(f func(c *Context)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.ctx)
}

func compile() (*Schema, error) {
	inst := build.NewContext().NewInstance("schema", nil)
	names, err := fs.Glob(files, "*.cue")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var helps []cue.Path
	for _, name := range names {
		src, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile("schema/"+name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if err := inst.AddSyntax(f); err != nil {
			return nil, err
		}
		paths, err := helpPaths(f)
		if err != nil {
			return nil, err
		}
		helps = append(helps, paths...)
	}
	ctx := cuecontext.New()
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("compiling embedded schema: %w", err)
	}
	help, err := readHelp(v, helps)
	if err != nil {
		return nil, fmt.Errorf("reading the embedded schema's @help: %w", err)
	}
	return &Schema{ctx: Context{cue: ctx, value: v, defs: map[Kind]cue.Value{}, help: help}}, nil
}

// CUE is the CUE context every spec is built in.
func (c *Context) CUE() *cue.Context { return c.cue }

// Def returns the definition that checks specs of kind k.
func (c *Context) Def(k Kind) cue.Value {
	v, ok := c.defs[k]
	if !ok {
		v = c.value.LookupPath(cue.ParsePath(string(k)))
		c.defs[k] = v
	}
	return v
}

// IsDNSSubdomain reports whether name matches #DNSSubdomain's pattern, for
// a name the compiler checks itself; its length is not checked.
func IsDNSSubdomain(name string) bool {
	_, err := Load()
	return err == nil && dnsSubdomain.MatchString(name)
}

// sources returns the embedded schema files by name, for printing.
func sources() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		out[p] = b
		return err
	})
	return out, err
}
