package ir

import "strconv"

// DefaultToolImage fetches and uploads on Tekton and for a Job: rclone's own
// image (Alpine: sh, sha256sum, find, sort), pinned by digest. A
// platform's objectStore.toolImage overrides it, for air-gapped
// registries.
const DefaultToolImage = "docker.io/rclone/rclone:1.71.1@sha256:" +
	"d5971950c2b370fb04dd3292541b5bda6d9103143fd7e345aeb435a399388afc"

// ObjectStore is the bucket a run's data moves through: inputs given as
// URLs, and with an object workspace every step's outputs.
type ObjectStore struct {
	// S3 is the bucket the platform names; nil when the run uses the
	// artifact repository its Argo cluster configures (which Argo's
	// settings beside the pipeline may name, Pipeline.Engines), which only
	// Argo knows, or, for a platform that names no object store, when the
	// run only fetches HTTP(S) URLs, in ToolImage.
	S3 *S3Bucket `json:",omitempty"`
	// ToolImage fetches and uploads on engines that have no artifacts of
	// their own (Tekton, Job): it has sh, rclone and sha256sum.
	ToolImage string
	// Scratch is the volume of each pod that fetches, where its data
	// lands before it is checked: a generic ephemeral volume of this
	// template, of the size and storage class the platform's storage
	// asks for, so that fetched data never fills the node's own disk;
	// nil for an emptyDir, when the platform asks for none.
	Scratch *ClaimTemplate `json:",omitempty"`
	// Cache is set when the run keeps each step's outputs in the
	// bucket by the step's key, and skips a step whose key is there.
	Cache *Cache `json:",omitempty"`
}

// Cache is where a run keeps what its steps computed, below Prefix in
// the S3 bucket: for each key (StepKey), the entry of the run that
// computed it, <Prefix>/<key>/<run id>/<upload> for each upload, and
// <Prefix>/<key>/manifest, written once every upload is there, which
// names the entry and each upload's sha256 (CacheManifest). A step is
// skipped when its key's manifest is there, and the steps after it
// fetch from the entry the manifest names.
type Cache struct {
	Prefix string
	// ImageTags keys a step whose image is a tag alone by its tag.
	ImageTags bool `json:",omitempty"`
}

// StepKey is what the compiler knows of a cached step's key; the rest
// is known at run time: the values of Params and the digest of each of
// the step's fetches. KeyText says how they make the key.
type StepKey struct {
	// Recipe is the sha256, in hex, of what the step runs, written as
	// the cache-keys pass writes it (a JSON object, RecipeVersion's).
	Recipe string
	// Params are the pipeline parameters the recipe refers to, sorted.
	Params []string `json:",omitempty"`
	// Claims are the step's read-only mounts of a claim (the data of
	// storage.pvc under an object workspace), by MountPath in byte
	// order: the key task mounts each where the step does and digests
	// what is there, and the step, once it ran, digests it again and
	// fails when it changed, so that no entry holds outputs of other
	// data than its key says.
	Claims []Mount `json:",omitempty"`
}

// KeyText says how a cached step's key is made, on every engine: the
// sha256 of these lines, each ended by a newline, in this order: the
// version, "recipe <Recipe>", "param <name> <sha256 of its value>" for
// each of Params, and "input <fetch name> <sha256>" for each of the
// step's fetches, by name in byte order (a URL's written digest, or the
// one computed when it is fetched to make the key; another step's
// upload's, as that step recorded it), then "claim <mount path>
// <sha256>" for each of Claims, in their order (the digest of what the
// claim holds there, made at run time before the step: a file's, or a
// folder's as FolderDigest says, following symbolic links, as the step
// does when it reads them).
const KeyText = "mlcube-compile cache v1"

// ClaimAnswer names the answer of a key task that holds the digest of
// the step's i-th claim mount (StepKey.Claims), with "-sha256" after
// it: ClaimAnswerPrefix and i. The prefix has an underscore, which no
// fetch's name (a DNS label) has.
func ClaimAnswer(i int) string { return ClaimAnswerPrefix + strconv.Itoa(i) }

// ClaimAnswerPrefix starts every ClaimAnswer.
const ClaimAnswerPrefix = "claim_"

// KeyTaskSuffix ends the name of a cached step's key task, on every
// engine that runs one: no step of a run with a cache has such a name.
const KeyTaskSuffix = "-cache-key"

// CacheManifest is the first line of a key's manifest; each line after
// it is "entry <run id>", then "output <upload name> <sha256>" for each
// of the step's uploads.
const CacheManifest = "mlcube-compile cache manifest v1"

// S3Bucket is an S3-compatible bucket and the Secret keys that open it.
type S3Bucket struct {
	// Endpoint is host[:port], without a scheme.
	Endpoint, Bucket, Region string
	// Insecure speaks plain HTTP to the endpoint.
	Insecure             bool `json:",omitempty"`
	AccessKey, SecretKey SecretKey
}

// Fetch is data put in place before a step's container starts: an input
// given as a URL, or an output another step of the run uploaded.
type Fetch struct {
	// Name is unique among the step's fetches and uploads, and valid as
	// an engine's artifact, step and result name (a DNS label).
	Name string
	// URL is set for an input given as a URL, From for another step's
	// upload.
	URL  *URL    `json:",omitempty"`
	From *Output `json:",omitempty"`
	// Sub is the part of From's upload fetched, a relative path inside
	// it; empty for the whole upload.
	Sub string `json:",omitempty"`
	// Path is where the data lands, as the step's container sees it: an
	// absolute path, a folder, or a file for a URL that names one. A
	// fetching container mounts what the step's container mounts.
	Path Text
}

// URL is an input's object-store or HTTP(S) address.
type URL struct {
	// Raw is the URL as written, without its #sha256= fragment.
	Raw string
	// Scheme is s3, http or https.
	Scheme string
	// Bucket and Key are an s3 URL's; Key has no leading /.
	Bucket string `json:",omitempty"`
	Key    string `json:",omitempty"`
	// Folder says the URL names a folder (an s3 URL ending in /), not
	// one object.
	Folder bool `json:",omitempty"`
	// SHA256 is the digest the data must have, in hex: of the file, or
	// of a folder's listing (FolderDigest); empty when none is written.
	SHA256 string `json:",omitempty"`
}

// Output names one upload of a step of the run.
type Output struct {
	Step, Name string
}

// Upload is an output a step's container writes, sent to the object
// store when it ends, at a key of the run, the step and Name, with its
// sha256 recorded where the engine shows a step's outputs.
type Upload struct {
	// Name is unique among the step's fetches and uploads and valid as
	// an engine's artifact and result name (a DNS label).
	Name string
	// Path is where the container writes it: an absolute path, a file
	// or a folder. An uploading container mounts what the step's
	// container mounts.
	Path Text
	// Folder says the output is a folder (its parameter's type is
	// directory, or its path ends in /): its files go below the key.
	Folder bool `json:",omitempty"`
	// Final says no later step of the run fetches it: a result of the
	// run, kept when the run's other artifacts are deleted.
	Final bool `json:",omitempty"`
}

// FolderDigest says how a folder's sha256 is made, on every engine: the
// sha256 of the lines `sha256sum` prints for each file below it, run
// from the folder as ./path, sorted by path in byte order. A file's is
// its own sha256.
const FolderDigest = "sha256 of `find . -type f | LC_ALL=C sort | xargs sha256sum` in the folder"

// Provenance is what a run says of how its results were made: an in-toto
// v1 Statement with a SLSA v1 provenance predicate, which a task after
// every step writes beside the results in the bucket, at
// <run id>/ProvenanceFile. Its subjects are the run's final uploads
// with their sha256; its resolved dependencies, the specs, the images and
// the URL inputs (with their written digests).
type Provenance struct {
	// Specs is the sha256 of the spec files the run was compiled from:
	// of a line "<sha256>  <file name>" for each, the lines sorted.
	Specs string
	// Version and Commit are the compiler's.
	Version, Commit string
}

// FolderDigestKey names a statement's digest of a subject that is a
// folder: its sha256 is of the listing FolderDigest says, not of one
// file's bytes, which "sha256" names.
const FolderDigestKey = "mlcube-folder-sha256"

// ProvenanceTask names the task, after every step, that writes the
// run's provenance; no step of such a run has the name.
const ProvenanceTask = "mlcube-provenance"

// ProvenanceFile names the statement in the run's folder of the bucket.
const ProvenanceFile = "provenance.intoto.json"
