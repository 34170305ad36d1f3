package lower

import (
	"cmp"
	"encoding/json"
	"net"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// defaultRegion is the region of an S3 bucket the platform names none of.
const defaultRegion = "us-east-1"

// defaultCachePrefix is the key prefix of the cache in the bucket.
const defaultCachePrefix = "mlcube-cache"

// lowerObjectStore reads the platform's objectStore, written at at: an S3 bucket, or
// Argo's artifact repository (its ConfigMap's key, or the default), whose
// settings, and when Argo deletes the run's artifacts, are Argo's alone:
// argo is them as Argo's settings beside the pipeline, nil for none.
func lowerObjectStore(os *spec.ObjectStore, at diag.Loc) (store *ir.ObjectStore, argo json.RawMessage,
	diags diag.Diagnostics) {
	if os == nil {
		return nil, nil, nil
	}
	store = &ir.ObjectStore{ToolImage: os.ToolImage}
	if store.ToolImage == "" {
		store.ToolImage = ir.DefaultToolImage
	}
	settings := argoSettings{ArtifactRepositoryRef: os.ArtifactRepositoryRef}
	if os.ArtifactGC != "Never" {
		settings.ArtifactGC = os.ArtifactGC
	}
	if settings != (argoSettings{}) {
		// Plain strings and a struct of strings: Marshal cannot fail.
		argo, _ = json.Marshal(settings)
	}
	if c := os.Cache; c != nil {
		store.Cache = &ir.Cache{Prefix: cmp.Or(c.Prefix, defaultCachePrefix), ImageTags: c.ImageTags}
		switch {
		case os.S3 == nil:
			diags = append(diags, diag.Errorf(diag.BadCache, at.Field("cache"),
				"the cache is kept in the bucket, and objectStore names none").
				WithFix("name the bucket in objectStore.s3 (its endpoint, bucket and Secret keys)"))
			store.Cache = nil
		case settings.ArtifactGC != "":
			diags = append(diags, diag.Errorf(diag.BadCache, at.Field("artifactGC"),
				"a cached run moves its data with the tool image, which Argo's artifact GC does not delete").
				WithFix("drop artifactGC, or the cache; expire the cache with a lifecycle rule of the bucket"))
		}
	}
	if s3 := os.S3; s3 != nil {
		diags = append(diags, bucketName(s3.Bucket, at.Field("s3").Field("bucket"))...)
		store.S3 = &ir.S3Bucket{
			Endpoint: s3.Endpoint, Bucket: s3.Bucket, Region: s3.Region, Insecure: s3.Insecure,
			AccessKey: ir.SecretKey{Secret: s3.AccessKeySecret.Name, Key: s3.AccessKeySecret.Key},
			SecretKey: ir.SecretKey{Secret: s3.SecretKeySecret.Name, Key: s3.SecretKeySecret.Key},
		}
		if store.S3.Region == "" {
			store.S3.Region = defaultRegion
		}
		if os.ArtifactRepositoryRef != nil {
			diags = append(diags, diag.Errorf(diag.NoObjectStore, at.Field("artifactRepositoryRef"),
				"s3 names the bucket, while artifactRepositoryRef names Argo's artifact repository; give one or the other"))
		}
	}
	return store, argo, diags
}

// argoSettings are the object store's settings that only Argo reads, as
// the argo engine's settings beside the pipeline (ir.Pipeline.Engines).
type argoSettings struct {
	ArtifactRepositoryRef *spec.RepositoryRef `json:"artifactRepositoryRef,omitempty"`
	ArtifactGC            string              `json:"artifactGC,omitempty"`
}

var (
	bucketChars = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*[a-z0-9]$`)
	sha256Hex   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// bucketName refuses a bucket name S3 would refuse (its bucket naming
// rules for general purpose buckets), at at.
func bucketName(name string, at diag.Loc) diag.Diagnostics {
	var why string
	switch {
	case len(name) < 3 || len(name) > 63:
		why = "it is 3 to 63 characters long"
	case !bucketChars.MatchString(name):
		return diag.Diagnostics{diag.Errorf(diag.BadBucket, at, "%q is not a bucket name S3 accepts", name).
			WithDetail("A bucket name is lower case letters, digits, '.' and '-', starting and ending with a letter or " +
				"digit.")}
	case strings.Contains(name, ".."):
		why = "it has no two dots in a row"
	case net.ParseIP(name) != nil:
		why = "it is not shaped like an IP address"
	case strings.HasPrefix(name, "xn--") || strings.HasSuffix(name, "-s3alias") || strings.HasSuffix(name, "--ol-s3"):
		why = "it does not start with xn-- or end in -s3alias or --ol-s3"
	}
	if why != "" {
		return diag.Diagnostics{diag.Errorf(diag.BadBucket, at, "%q is not a bucket name S3 accepts: %s", name, why)}
	}
	return nil
}

// isURL says whether a path is written as a URL.
func isURL(raw string) bool { return strings.Contains(raw, "://") }

// parseURL reads an input written as a URL at at: s3://bucket/key (a
// folder when it ends in /), or http(s):// naming one file, each with an
// optional #sha256=<hex>; an s3:// URL needs store, the platform's. It
// returns nil after an error.
func parseURL(raw string, at diag.Loc, store *ir.ObjectStore) (*ir.URL, diag.Diagnostics) {
	if strings.Contains(raw, "${") {
		return nil, diag.Diagnostics{diag.Errorf(diag.BadURL, at,
			"%q: a URL input takes no ${params.X}; write the URL itself", raw)}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, diag.Diagnostics{diag.Errorf(diag.BadURL, at, "%q is not a URL: %v", raw, err)}
	}
	out := &ir.URL{Scheme: u.Scheme}
	if u.Fragment != "" {
		digest, ok := strings.CutPrefix(u.Fragment, "sha256=")
		if !ok || !sha256Hex.MatchString(digest) {
			return nil, diag.Diagnostics{diag.Errorf(diag.BadURL, at,
				"%q: the part after # is a digest, sha256= and 64 lower case hexadecimal digits", raw)}
		}
		out.SHA256, u.Fragment = digest, ""
	}
	out.Raw = u.String()
	switch u.Scheme {
	case "s3":
		return s3URL(u, out, raw, at, store)
	case "http", "https":
		if u.Host == "" || strings.HasSuffix(u.Path, "/") || path.Base(u.Path) == "." || u.Path == "" {
			return nil, diag.Diagnostics{diag.Errorf(diag.BadURL, at,
				"%q: an HTTP URL names one file, such as https://example.com/data.tgz", raw)}
		}
		return out, nil
	}
	return nil, diag.Diagnostics{diag.Errorf(diag.BadURL, at, "%q: the scheme %s:// is not fetched", raw, u.Scheme).
		WithFix("use s3://bucket/key, http:// or https:// (copy the data to an S3 bucket)")}
}

// s3URL completes an s3:// URL's bucket and key; it needs the
// platform's object store, which says the endpoint and credentials.
func s3URL(u *url.URL, out *ir.URL, raw string, at diag.Loc,
	store *ir.ObjectStore) (*ir.URL, diag.Diagnostics) {
	if u.User != nil || u.RawQuery != "" {
		return nil, diag.Diagnostics{diag.Errorf(diag.BadURL, at,
			"%q: an s3:// URL is s3://bucket/key, with no user or query; credentials come from the platform's objectStore",
			raw)}
	}
	out.Bucket, out.Key = u.Host, strings.TrimPrefix(u.Path, "/")
	out.Folder = out.Key == "" || strings.HasSuffix(out.Key, "/")
	if p := path.Clean("/" + out.Key); p != "/"+strings.TrimSuffix(out.Key, "/") && out.Key != "" {
		return nil, diag.Diagnostics{diag.Errorf(diag.BadURL, at, "%q: the key is not clean (no //, . or ..); write %s",
			raw, strings.TrimPrefix(p, "/"))}
	}
	diags := bucketName(out.Bucket, at)
	if store == nil {
		return nil, append(diags, diag.Errorf(diag.NoObjectStore, at,
			"%q is in an object store, and the platform names none", raw).
			WithFix("add objectStore to the platform, with s3's endpoint, bucket and Secret keys (or, on Argo, "+
				"artifactRepositoryRef)"))
	}
	return out, diags
}
