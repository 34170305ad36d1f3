package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMixedWriters(t *testing.T) {
	w := func(p ...string) []string { return p }
	cases := []struct {
		name  string
		io    []IO
		after [][]int
		want  []Mixed
	}{
		{"two models write one predictions folder, evaluate reads it", []IO{
			{Reads: w("w:/data"), Writes: w("w:/predictions")},
			{Reads: w("w:/data"), Writes: w("w:/predictions")},
			{Reads: w("w:/predictions")},
		}, nil, []Mixed{{Path: "w:/predictions", First: 0, Second: 1, Reader: 2}}},
		{"a reader of a file inside the folder", []IO{
			{Writes: w("w:/out")}, {Writes: w("w:/out")}, {Reads: w("w:/out/a.csv")},
		}, nil, []Mixed{{Path: "w:/out", First: 0, Second: 1, Reader: 2}}},
		{"a reader declared first waits for both", []IO{
			{Reads: w("w:/out")}, {Writes: w("w:/out")}, {Writes: w("w:/out")},
		}, nil, []Mixed{{Path: "w:/out", First: 1, Second: 2, Reader: 0}}},
		{"no reader: nothing to mix", []IO{
			{Writes: w("w:/logs")}, {Writes: w("w:/logs")},
		}, nil, nil},
		{"an in-place rewrite chain: the second reads the first's data", []IO{
			{Writes: w("w:/data")},
			{Reads: w("w:/data"), Writes: w("w:/data")},
			{Reads: w("w:/data")},
		}, nil, nil},
		{"ordered through another step's data", []IO{
			{Writes: w("w:/data")},
			{Reads: w("w:/data"), Writes: w("w:/stats")},
			{Reads: w("w:/stats"), Writes: w("w:/data")},
			{Reads: w("w:/data")},
		}, nil, nil},
		{"ordered by after:", []IO{
			{Writes: w("w:/data")}, {Writes: w("w:/data")}, {Reads: w("w:/data")},
		}, [][]int{nil, {0}, nil}, nil},
		{"a third writer not chained", []IO{
			{Writes: w("w:/data")},
			{Reads: w("w:/data"), Writes: w("w:/data")},
			{Writes: w("w:/data")},
			{Reads: w("w:/data")},
		}, nil, []Mixed{{Path: "w:/data", First: 1, Second: 2, Reader: 3}}},
		{"different volumes do not mix", []IO{
			{Writes: w("a:/out")}, {Writes: w("b:/out")}, {Reads: w("a:/out"), Writes: w("c:/x")},
		}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, MixedWriters(tc.io, tc.after)); diff != "" {
				t.Errorf("MixedWriters (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverwrites(t *testing.T) {
	w := func(p ...string) []string { return p }
	cases := []struct {
		name  string
		io    []IO
		after [][]int
		want  []Overwrite
	}{
		{"two writers, no reader: the second's is kept", []IO{
			{Writes: w("w:/logs", "w:/model")}, {Writes: w("w:/logs", "w:/model")},
		}, nil, []Overwrite{{Path: "w:/logs", First: 0, Second: 1}, {Path: "w:/model", First: 0, Second: 1}}},
		{"a reader: MixedWriters's, not this", []IO{
			{Writes: w("w:/out")}, {Writes: w("w:/out")}, {Reads: w("w:/out/a.csv")},
		}, nil, nil},
		{"ordered by after:", []IO{
			{Writes: w("w:/data")}, {Writes: w("w:/data")},
		}, [][]int{nil, {0}}, nil},
		{"an in-place rewrite chain", []IO{
			{Writes: w("w:/data")}, {Reads: w("w:/data"), Writes: w("w:/data")},
		}, nil, nil},
		{"ordered through another step's data", []IO{
			{Writes: w("w:/data")},
			{Reads: w("w:/data"), Writes: w("w:/stats")},
			{Reads: w("w:/stats"), Writes: w("w:/data")},
		}, nil, nil},
		{"an in-place rewrite, then a writer that does not read it", []IO{
			{Reads: w("w:/data"), Writes: w("w:/data")}, {Writes: w("w:/data")},
		}, nil, []Overwrite{{Path: "w:/data", First: 0, Second: 1}}},
		{"a chain, then a third writer not chained", []IO{
			{Writes: w("w:/data")}, {Reads: w("w:/data"), Writes: w("w:/data")}, {Writes: w("w:/data")},
		}, nil, []Overwrite{{Path: "w:/data", First: 1, Second: 2}}},
		{"paths one inside the other are not one path", []IO{
			{Writes: w("w:/out")}, {Writes: w("w:/out/b")},
		}, nil, nil},
		{"different volumes", []IO{
			{Writes: w("a:/out")}, {Writes: w("b:/out")},
		}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Overwrites(tc.io, tc.after)); diff != "" {
				t.Errorf("Overwrites (-want +got):\n%s", diff)
			}
		})
	}
}
