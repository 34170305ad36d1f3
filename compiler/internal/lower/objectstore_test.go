package lower

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// A bucket name is one S3 accepts for a general purpose bucket.
func TestBucketName(t *testing.T) {
	at := diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1}).Field("bucket")
	for name, why := range map[string]string{
		"my-bucket.data":        "",
		"ab":                    "3 to 63 characters",
		strings.Repeat("a", 64): "3 to 63 characters",
		"My_Bucket":             "not a bucket name S3 accepts",
		"-bucket":               "not a bucket name S3 accepts",
		"a..b":                  "no two dots",
		"192.168.1.1":           "IP address",
		"xn--bucket":            "xn--",
		"data-s3alias":          "-s3alias",
		"data--ol-s3":           "--ol-s3",
	} {
		diags := bucketName(name, at)
		switch {
		case why == "" && diags != nil:
			t.Errorf("%q refused: %v", name, diags)
		case why != "" && (len(diags) != 1 || !strings.Contains(diags[0].Message+diags[0].Detail, why)):
			t.Errorf("%q: %v, want one saying %q", name, diags, why)
		}
	}
}
