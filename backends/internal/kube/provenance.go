package kube

import (
	"encoding/json"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// The statement's parts, as in-toto v1 and SLSA provenance v1 name them.
const (
	statementType  = "https://in-toto.io/Statement/v1"
	predicateType  = "https://slsa.dev/provenance/v1"
	buildType      = "https://github.com/mlcube-compile/mlcube-compile/blob/main/docs/caching.md#provenance"
	builderID      = "https://github.com/mlcube-compile/mlcube-compile"
	runPlaceholder = "@@run@@"
)

// Statement is an in-toto v1 Statement of SLSA v1 provenance, as the
// provenance task writes it and `mlcube-compile verify` reads it.
type Statement struct {
	Type          string       `json:"_type"`
	Subject       []Descriptor `json:"subject"`
	PredicateType string       `json:"predicateType"`
	Predicate     Predicate    `json:"predicate"`
}

// Descriptor is an in-toto ResourceDescriptor.
type Descriptor struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest,omitempty"`
}

// Predicate is SLSA v1 provenance's.
type Predicate struct {
	BuildDefinition struct {
		BuildType            string         `json:"buildType"`
		ExternalParameters   map[string]any `json:"externalParameters"`
		ResolvedDependencies []Descriptor   `json:"resolvedDependencies"`
	} `json:"buildDefinition"`
	RunDetails struct {
		Builder struct {
			ID      string            `json:"id"`
			Version map[string]string `json:"version"`
		} `json:"builder"`
		Metadata struct {
			InvocationID string `json:"invocationId"`
		} `json:"metadata"`
	} `json:"runDetails"`
}

// Subject is a final upload of the run, which the statement's subject
// of the same index is.
type Subject struct {
	Step   *ir.Step
	Upload ir.Upload
}

// SubjectFetch is the n-th subject, sub, as a fetch of the provenance
// task, whose Want refers to the sha256 its step recorded; named by its
// index, which no two subjects share.
func SubjectFetch(n int, sub Subject) ir.Fetch {
	return ir.Fetch{Name: "subject-" + strconv.Itoa(n), From: &ir.Output{Step: sub.Step.Name, Name: sub.Upload.Name}}
}

// ProvenanceOf is p's statement with placeholders, @@N@@ for the sha256
// of the N-th subject, "@@paramN@@" for the N-th param's object (its
// value's sha256 and its value: ProvenanceScript) and @@run@@ for the
// run's id, and its subjects: every final upload, as <step>/<output>.
// engine names the engine.
func ProvenanceOf(p *ir.Pipeline, engine string) (string, []Subject) {
	st := Statement{Type: statementType, PredicateType: predicateType}
	var subjects []Subject
	images := map[string]bool{}
	bd := &st.Predicate.BuildDefinition
	bd.BuildType = buildType
	bd.ExternalParameters = map[string]any{"pipeline": p.Name, "engine": engine}
	if len(p.Params) > 0 {
		params := map[string]string{}
		for i, prm := range p.Params {
			params[prm.Name] = "@@param" + strconv.Itoa(i) + "@@"
		}
		bd.ExternalParameters["params"] = params
	}
	bd.ResolvedDependencies = []Descriptor{{Name: "specs", Digest: map[string]string{"sha256": p.Provenance.Specs}}}
	for _, s := range p.Steps {
		if s.Image != "" && !images[s.Image] {
			images[s.Image] = true
			d := Descriptor{URI: s.Image}
			if _, digest, ok := strings.Cut(s.Image, "@sha256:"); ok {
				d.Digest = map[string]string{"sha256": digest}
			}
			bd.ResolvedDependencies = append(bd.ResolvedDependencies, d)
		}
		for _, f := range s.Fetches {
			if f.URL != nil {
				d := Descriptor{URI: f.URL.Raw}
				if f.URL.SHA256 != "" {
					d.Digest = map[string]string{"sha256": f.URL.SHA256}
				}
				bd.ResolvedDependencies = append(bd.ResolvedDependencies, d)
			}
		}
		for _, u := range s.Uploads {
			if !u.Final {
				continue
			}
			key := "sha256"
			if u.Folder {
				key = ir.FolderDigestKey
			}
			n := strconv.Itoa(len(subjects))
			d := Descriptor{Name: s.Name + "/" + u.Name, Digest: map[string]string{key: "@@" + n + "@@"}}
			if s.Key != nil {
				// Where it is: the entry of the cache its key's manifest
				// names, which the run may not have written.
				d.URI = "@@uri" + n + "@@"
			}
			st.Subject = append(st.Subject, d)
			subjects = append(subjects, Subject{s, u})
		}
	}
	rd := &st.Predicate.RunDetails
	rd.Builder.ID = builderID
	rd.Builder.Version = map[string]string{"mlcube-compile": p.Provenance.Version, "commit": p.Provenance.Commit}
	rd.Metadata.InvocationID = runPlaceholder
	// Plain strings, maps and slices of them: Marshal cannot fail.
	text, _ := json.MarshalIndent(st, "", "  ")
	return string(text) + "\n", subjects
}

// ProvenanceScript writes the run's statement. Its first four words are
// the bucket/key it goes to, the cache (bucket/prefix; - for none), the
// run's id and the statement (ProvenanceOf); then items of three words:
// "param N VALUE" for the N-th param, or "paramenv N VAR" for one whose
// value is in the variable VAR (ProvenanceContainer), whose object
// holds the sha256 of the value the run got, and the value itself when
// it is made of letters, digits, spaces and ._:/=+,%~- alone (no
// character JSON or sed would read); "digest N SHA256" for the N-th subject, or
// "digestfile N FILE" for one whose sha256 is in FILE (DigestScript's, in
// the same container); or "cached N KEY/OUTPUT" for one a cached step
// uploaded: its sha256 and its place (@@uriN@@), the entry, as its key's
// manifest names them, read once.
const ProvenanceScript = `set -eu
` + manifestFn + `dest=$1 cache=$2 run=$3 statement=$4; shift 4
f=$(mktemp)
printf '%s' "$statement" | sed "s/` + runPlaceholder + `/$run/" >"$f"
while [ $# -ge 3 ]; do
  kind=$1 n=$2 a=$3; shift 3
  case $kind in
  param | paramenv)
    [ "$kind" = param ] || eval "a=\${$a-}"
    h=$(printf '%s' "$a" | sha256sum | cut -d' ' -f1)
    case $a in
    *[!A-Za-z0-9._:/=+,%~\ -]*) v="{\"sha256\": \"$h\"}" ;;
    *) v="{\"sha256\": \"$h\", \"value\": \"$a\"}" ;;
    esac
    sed -i "s|\"@@param$n@@\"|$v|" "$f"
    continue ;;
  digest) d=$a ;;
  digestfile) d=$(cat "$a") ;;
  cached)
    readManifest "$cache/${a%/*}" "${a##*/}"
    sed -i "s|@@uri$n@@|s3://$cache/${a%/*}/$e/${a##*/}|" "$f" ;;
  esac
  case $d in
  '' | *[!0-9a-f]*) echo "mlcube-compile: subject $n has no sha256: '$d'" >&2; exit 1 ;;
  esac
  sed -i "s/@@$n@@/$d/" "$f"
done
cat "$f"
rclone copyto "$f" ":s3:$dest"
echo "mlcube-compile: provenance written to s3://$dest"
`

// ProvenanceContainer writes p's statement (ProvenanceScript) for
// engine, to the run's folder in the bucket. The engine gives each
// param's value to a variable (paramVar), not to an argument: the
// kubelet replaces $(VAR) in a container's arguments by its variables,
// the bucket's secret key among them, and in a variable's value only by
// those defined before it, which the params' are.
func (m Mover) ProvenanceContainer(p *ir.Pipeline, engine, name string) corev1.Container {
	c := m.container(p, name)
	var env []corev1.EnvVar
	for i, prm := range p.Params {
		env = append(env, corev1.EnvVar{Name: paramVar(i), Value: m.Ref(prm.Name)})
	}
	c.Env = append(env, c.Env...)
	c.Command = []string{"sh", "-c", ir.KubeLiteral(ProvenanceScript), "mlcube-compile"}
	c.Args = m.provenanceItems(p, engine, func(i int) []string { return []string{"paramenv", paramVar(i)} })
	c.VolumeMounts = nil
	c.SecurityContext = HelperSecurity(p, nil)
	return c
}

// paramVar names the variable of the provenance container that holds
// the i-th param's value.
func paramVar(i int) string { return "MLCUBE_PARAM_" + strconv.Itoa(i) }

// ProvenancePhase writes p's statement for engine as a phase of the
// container that uploads its subjects (UploadContainer), whose digests
// are in their DigestFiles: a Job's, whose pod runs its one step, and
// whose params' values Ref writes as the literals the compile gave them.
func (m Mover) ProvenancePhase(p *ir.Pipeline, engine string) Phase {
	return Phase{"provenance", ProvenanceScript, m.provenanceItems(p, engine,
		func(i int) []string { return []string{"param", m.Ref(p.Params[i].Name)} })}
}

// provenanceItems are ProvenanceScript's words for p's statement on
// engine: each param's, as param gives the kind and the last word; a
// subject's sha256 is what Want refers to, or, without Want, what its
// DigestFile holds.
func (m Mover) provenanceItems(p *ir.Pipeline, engine string, param func(i int) []string) []string {
	statement, subjects := ProvenanceOf(p, engine)
	cache := "-"
	if p.ObjectStore.Cache != nil {
		cache = CacheOf(p)
	}
	args := []string{p.ObjectStore.S3.Bucket + "/" + m.RunID + "/" + ir.ProvenanceFile, cache, m.RunID,
		ir.KubeLiteral(statement)}
	for i := range p.Params {
		words := param(i)
		args = append(args, words[0], strconv.Itoa(i), words[1])
	}
	for i, sub := range subjects {
		n := strconv.Itoa(i)
		switch {
		case sub.Step.Key != nil:
			args = append(args, "cached", n, m.Key(sub.Step.Name)+"/"+sub.Upload.Name)
		case m.Want == nil:
			args = append(args, "digestfile", n, m.DigestFile(sub.Upload))
		default:
			args = append(args, "digest", n, m.Want(SubjectFetch(i, sub)))
		}
	}
	return args
}
