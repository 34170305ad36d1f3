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

// github gives one workflow command a problem, whatever it holds: its
// fixes' advice, its detail and its related places are in its message,
// lines apart (%0A), never annotations of their own; a note is a notice.
func TestFormatGitHubOneAnnotation(t *testing.T) {
	at := At(Pos{File: "p.yaml", Line: 3, Col: 5}).Field("steps").Field("train").Field("after").Index(0)
	d := Warnf(DisableUnused, at, "%s", "100% of it: a::b").
		WithFix("did you mean \"prep\"?", Edit{Pos: Pos{File: "p.yaml", Line: 3, Col: 5}, Old: "prepp", New: "prep"}).
		WithFix("or drop it").
		WithDetail("first line\nsecond line\r").
		WithRelated(Pos{File: "p.yaml", Line: 1, Col: 1}, "declared here").
		WithRelated(Pos{File: "q.yaml", Line: 2, Col: 3}, "and here")
	note := Notef(PlatformRead, At(Pos{File: "platform.yaml"}), "read")
	got, err := Format("github", Diagnostics{d, note}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := "::warning file=p.yaml,line=3,col=5,title=steps.train.after[0]::steps.train.after[0]: 100%25 of it: " +
		"a::b; did you mean \"prep\"?; or drop it [MLC107]%0Afirst line%0Asecond line%0D%0A" +
		"p.yaml:1:1: note: steps.train.after[0]: declared here%0Aq.yaml:2:3: note: steps.train.after[0]: and here\n" +
		"::notice file=platform.yaml::read [MLC710]\n"
	if string(got) != want {
		t.Errorf("github:\n%s\nwant:\n%s", got, want)
	}
}
