package diag

import (
	"encoding/json"
	"testing"
)

// An error's JSON carries its code, origin, structured path and related
// places; its text ends with the code and is followed by a note at each
// related place.
func TestFormatCodePathOriginRelated(t *testing.T) {
	at := At(Pos{File: "p.yaml", Line: 4, Col: 3}).Field("steps").Field("a b").Field("after").Index(1)
	d := Errorf(DuplicateKey, at, "duplicate key").WithRelated(Pos{File: "p.yaml", Line: 2, Col: 3}, "first written here")
	flag := Errorf(BadFlag, Flag("--namespace"), "bad")
	text, err := Format("text", Diagnostics{d, flag}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "p.yaml:4:3: steps.\"a b\".after[1]: duplicate key [MLC152]\n" +
		"p.yaml:2:3: note: steps.\"a b\".after[1]: first written here\n--namespace: bad [MLC750]\n"
	if string(text) != want {
		t.Errorf("text:\n%s\nwant:\n%s", text, want)
	}
	raw, err := Format("json", Diagnostics{d, flag}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	path, _ := json.Marshal(got[0]["path"])
	related, _ := json.Marshal(got[0]["related"])
	if got[0]["code"] != "MLC152" || got[0]["origin"] != "file" || string(path) != `["steps","a b","after",1]` ||
		string(related) != `[{"column":3,"file":"p.yaml","line":2,"message":"first written here"}]` {
		t.Errorf("json: %s", raw)
	}
	if got[1]["origin"] != "flag" || got[1]["flag"] != "--namespace" || got[1]["field"] != "" || got[1]["path"] != nil {
		t.Errorf("a flag's problem: %v", got[1])
	}
	// One annotation a problem, its related place a line of its message.
	gh, _ := Format("github", Diagnostics{d}, false)
	if want := "::error file=p.yaml,line=4,col=3,title=steps.\"a b\".after[1]::steps.\"a b\".after[1]: duplicate key " +
		"[MLC152]%0Ap.yaml:2:3: note: steps.\"a b\".after[1]: first written here\n"; string(gh) != want {
		t.Errorf("github:\n%s\nwant:\n%s", gh, want)
	}
}

// A detail and an engine: text prints the detail only when asked, on an
// indented line after the problem, and the engine before the message;
// JSON carries both as fields of their own, the message bare; github
// gives the detail as a line of the message.
func TestFormatDetailEngine(t *testing.T) {
	d := Warnf(GPUsByDRA, At(Pos{File: "p.yaml", Line: 2, Col: 3}).Field("gpu"),
		"one fact").WithDetail("why, and since which version")
	d.Engine = "tekton"
	for _, c := range []struct {
		form   string
		detail bool
		want   string
	}{
		{"text", false, "p.yaml:2:3: warning: gpu: tekton: one fact [MLC307]\n"},
		{"text", true, "p.yaml:2:3: warning: gpu: tekton: one fact [MLC307]\n    why, and since which version\n"},
		{"github", false, "::warning file=p.yaml,line=2,col=3,title=gpu::gpu: tekton: one fact [MLC307]%0Awhy, and since " +
			"which version\n"},
	} {
		if got, _ := Format(c.form, Diagnostics{d}, c.detail); string(got) != c.want {
			t.Errorf("%s, detail %v:\n%s\nwant:\n%s", c.form, c.detail, got, c.want)
		}
	}
	raw, _ := Format("json", Diagnostics{d}, false)
	var got []map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got[0]["message"] != "one fact" || got[0]["detail"] != "why, and since which version" ||
		got[0]["engine"] != "tekton" {
		t.Errorf("json: %s", raw)
	}
}
