package spec

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/diag"
)

func TestCredentials(t *testing.T) {
	refused := func(diags diag.Diagnostics) bool { return diags.HasErrors() }
	at := diag.At(diag.Pos{File: "f"})
	env := map[string]bool{ // KEY=value -> refused
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG":          true,
		"AWS_ACCESS_KEY_ID=ABCDEFGHIJ":                         true,
		"HF_TOKEN=abc123":                                      true,
		"key=myawskey":                                         true,
		"secret_key=myawssecretkey":                            true,
		"x-api-key=123qweasd":                                  true,
		"DB_PASSWORD=hunter2":                                  true,
		"S3_USER=AKIAIOSFODNN7EXAMPLE":                         true,
		"MAX_TOKENS=512":                                       false,
		"TOKENIZERS_PARALLELISM=false":                         false,
		"GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/gcp.json": false,
		"HF_HUB_DISABLE_TOKEN=1":                               false,
		"TOKEN_FILE=token.txt":                                 false,
		"OMP_NUM_THREADS=4":                                    false,
	}
	for kv, want := range env {
		k, v := splitKV(kv)
		if got := refused(CheckCredential(k, v, at.Field("env"))); got != want {
			t.Errorf("env %s: refused %v, want %v", kv, got, want)
		}
	}
	args := map[string]bool{
		"--password=hunter2": true,
		"--api-key=abc":      true,
		"--hf=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH": true,
		"Authorization: Bearer abcdefghijklmnopqr":   true,
		"--pad_token=<pad>":                          false,
		"--eos-token=</s>":                           false,
		"--key=image":                                false,
		"--use_auth_token":                           false,
		"--max_tokens=512":                           false,
		"--password-file=/run/secrets/pw":            false,
		"--primary-key-id=7":                         false,
	}
	for a, want := range args {
		if got := refused(CheckArgCredential(a, at.Field("args"))); got != want {
			t.Errorf("arg %s: refused %v, want %v", a, got, want)
		}
	}
	if !refused(CheckParamCredential("hf_token", "", at.Field("params"))) {
		t.Error("a parameter named hf_token with no default is accepted")
	}
}

func splitKV(kv string) (string, string) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:]
		}
	}
	return kv, ""
}
