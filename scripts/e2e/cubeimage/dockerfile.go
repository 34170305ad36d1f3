package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// escapeDirective is the parser directive that changes the escape
// character, which this parser does not follow.
var escapeDirective = regexp.MustCompile(`(?i)^#\s*escape\s*=`)

// instruction is one Dockerfile instruction: its keyword in upper case,
// the rest of its line(s) joined, and the line it starts on.
type instruction struct {
	cmd  string
	args string
	line int
}

// parseDockerfile reads a Dockerfile's instructions: comment lines and
// blank lines are dropped, and a line ending in a backslash continues on
// the next, as Docker's parser reads them (the default escape character:
// an escape directive fails).
func parseDockerfile(file string) ([]instruction, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []instruction
	var cur *instruction
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "#") {
			if cur == nil && len(out) == 0 && escapeDirective.MatchString(text) {
				return nil, fmt.Errorf("%s:%d: parser directive %q is not supported", file, n, text)
			}
			continue
		}
		if cur == nil {
			if text == "" {
				continue
			}
			word, rest, _ := strings.Cut(text, " ")
			cur = &instruction{cmd: strings.ToUpper(word), line: n}
			text = rest
		}
		more := strings.HasSuffix(text, `\`)
		text = strings.TrimSuffix(text, `\`)
		cur.args = strings.TrimSpace(cur.args + " " + strings.TrimSpace(text))
		if !more {
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out, sc.Err()
}

// execForm reads an instruction's arguments in the exec (JSON) form, or
// in the shell form, which Docker runs as /bin/sh -c.
func execForm(args string) ([]string, error) {
	if strings.HasPrefix(args, "[") {
		var words []string
		if err := json.Unmarshal([]byte(args), &words); err != nil {
			return nil, fmt.Errorf("not a JSON array of strings: %v", err)
		}
		return words, nil
	}
	if args == "" {
		return nil, fmt.Errorf("no command")
	}
	return []string{"/bin/sh", "-c", args}, nil
}

// envPairs reads ENV's arguments: KEY=VALUE pairs, or the legacy
// "KEY VALUE" form (one variable, the rest of the line its value).
// Quotes around a value are removed; variable references are not
// supported.
func envPairs(args string) ([][2]string, error) {
	if strings.Contains(args, "$") {
		return nil, fmt.Errorf("variable references are not supported")
	}
	key, rest, _ := strings.Cut(args, " ")
	if !strings.Contains(key, "=") {
		if key == "" || strings.TrimSpace(rest) == "" {
			return nil, fmt.Errorf("want KEY VALUE or KEY=VALUE")
		}
		return [][2]string{{key, unquote(strings.TrimSpace(rest))}}, nil
	}
	var out [][2]string
	for _, w := range shellWords(args) {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not KEY=VALUE", w)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// unquote drops one pair of matching quotes around s.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// shellWords splits s at blanks outside quotes, removing the quotes.
func shellWords(s string) []string {
	var out []string
	var word strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			word.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, word.String())
				word.Reset()
				in = false
			}
		default:
			word.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, word.String())
	}
	return out
}
