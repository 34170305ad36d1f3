package spec

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Manifests are stored in etcd, shown by `kubectl get -o yaml` and kept in
// Git, so a credential written into a spec leaks. Values that look like
// one are refused, and secretEnv takes them from a Secret instead.

// credentialLastWords end a key that names a credential: DB_PASSWORD,
// HF_TOKEN, client_secret.
var credentialLastWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "secret": true,
	"token": true, "apikey": true, "credential": true, "credentials": true,
}

// credentialLastPairs end a key that names a credential: x-api-key,
// AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID, secret_key.
var credentialLastPairs = map[string]bool{
	"api key": true, "access key": true, "secret key": true, "private key": true,
	"auth key": true, "account key": true, "key id": true, "signing key": true,
}

// credentialShapes are values that are credentials whatever their key.
var credentialShapes = []struct {
	name string
	re   *regexp.Regexp
}{
	{"an AWS access key ID", regexp.MustCompile(`\b(AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`)},
	{"a private key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY`)},
	{"a GitHub token", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}`)},
	{"a Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{"a JSON Web Token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.`)},
	{"a URL with a password", regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`)},
	{"a Hugging Face token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	{"an OpenAI API key", regexp.MustCompile(`\bsk-(proj-)?[A-Za-z0-9_-]{20,}`)},
	{"an Azure storage key", regexp.MustCompile(`AccountKey=[A-Za-z0-9+/=]{20,}`)},
	{"a bearer token", regexp.MustCompile(`\bBearer\s+[A-Za-z0-9._~+/=-]{16,}`)},
}

// notASecret matches values that name no credential even under a key that
// would: a path to one (GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/gcp.json),
// a switch (HF_HUB_DISABLE_TOKEN=1) or nothing at all.
var notASecret = regexp.MustCompile(`^(|[./~].*|\d+|true|false|yes|no|on|off|True|False)$`)

// tokenizerWords name tokenizer tokens, not credentials: --pad_token=<pad>.
var tokenizerWords = map[string]bool{"pad": true, "eos": true, "bos": true, "unk": true, "sep": true, "cls": true,
	"mask": true, "special": true, "start": true, "end": true}

// credential refuses a credential written in a spec, at at: the message
// says what was found; the fix is how to pass it instead, and the detail
// why.
func credential(at diag.Loc, format string, args ...any) diag.Diagnostic {
	return diag.Errorf(diag.Credential, at, format, args...).
		WithFix("put it in a Kubernetes Secret and refer to it from the pipeline file with " +
			"secretEnv: {NAME: {secret: SECRET_NAME, key: KEY}}").
		WithDetail("A spec is not the place for credentials: manifests are stored and shown in plain text.")
}

// credentialKey reports whether a key names a credential.
func credentialKey(key string) bool {
	words := keyWords(key)
	n := len(words)
	switch {
	case n == 0:
		return false
	case n == 1 && words[0] == "key":
		return true
	case credentialLastWords[words[n-1]]:
		return true
	case n >= 2 && credentialLastPairs[words[n-2]+" "+words[n-1]]:
		return true
	}
	return false
}

// credentialValue names the kind of credential a value looks like, or "".
func credentialValue(value string) string {
	for _, s := range credentialShapes {
		if s.re.MatchString(value) {
			return s.name
		}
	}
	return ""
}

// CheckCredential refuses a key or value, written at, that looks like a
// credential; nil when it does not.
func CheckCredential(key, value string, at diag.Loc) diag.Diagnostics {
	if credentialKey(key) && !notASecret.MatchString(value) {
		return diag.Diagnostics{credential(at, "%q names a credential", key)}
	}
	if kind := credentialValue(value); kind != "" {
		return diag.Diagnostics{credential(at, "the value looks like %s", kind)}
	}
	return nil
}

// CheckParamCredential refuses a parameter named for a credential whatever
// its default: the value given at submit time is kept in the run's spec.
func CheckParamCredential(name, def string, at diag.Loc) diag.Diagnostics {
	if credentialKey(name) {
		return diag.Diagnostics{credential(at,
			"%q names a credential, and a parameter's value is kept in the run's spec", name)}
	}
	return CheckCredential("", def, at)
}

// CheckArgCredential refuses an argument such as --password=hunter2, or
// one whose value has a credential's shape. Flags are read more loosely
// than env keys: --key=image and --pad_token=<pad> are not credentials.
func CheckArgCredential(arg string, at diag.Loc) diag.Diagnostics {
	flag, value, hasValue := strings.Cut(arg, "=")
	words := keyWords(flag)
	n := len(words)
	switch {
	case !strings.HasPrefix(flag, "-") || !hasValue || n == 0:
		return CheckCredential("", arg, at)
	case n == 1 && words[0] == "key":
		return CheckCredential("", value, at)
	case words[n-1] == "token" && n >= 2 && tokenizerWords[words[n-2]]:
		return CheckCredential("", value, at)
	}
	return CheckCredential(strings.TrimLeft(flag, "-"), value, at)
}

// keyWords splits a key into lower-case words at punctuation and at case
// changes: "AWSSecretKey" and "aws_secret_key" give aws, secret, key.
func keyWords(key string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(key)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}
