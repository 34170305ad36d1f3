package main

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// buildContext is what the build sees of its context folder: every file
// and folder .dockerignore does not exclude, by its slash path relative
// to the folder; true for a folder.
type buildContext struct {
	dir     string
	entries map[string]bool
}

// readContext lists the context's files, without what its .dockerignore
// excludes.
func readContext(dir string) (*buildContext, error) {
	patterns, err := readIgnore(filepath.Join(dir, ".dockerignore"))
	if err != nil {
		return nil, err
	}
	c := &buildContext{dir: dir, entries: map[string]bool{}}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if excluded(patterns, rel) {
			return nil
		}
		c.entries[rel] = d.IsDir()
		return nil
	})
	return c, err
}

// ignorePattern is one line of a .dockerignore.
type ignorePattern struct {
	re        *regexp.Regexp
	exclusion bool
}

// readIgnore reads a .dockerignore (none: no pattern): a pattern a line,
// # comments, ! for an exception; each pattern cleaned and without a
// leading slash, as Docker reads them (moby/patternmatcher's
// ignorefile.ReadAll).
func readIgnore(file string) ([]ignorePattern, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ignorePattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := ignorePattern{}
		if strings.HasPrefix(line, "!") {
			p.exclusion, line = true, strings.TrimSpace(line[1:])
		}
		line = path.Clean(filepath.ToSlash(line))
		if len(line) > 1 && line[0] == '/' {
			line = line[1:]
		}
		p.re = regexp.MustCompile("^" + patternRegexp(line) + "$")
		out = append(out, p)
	}
	return out, sc.Err()
}

// patternRegexp is a .dockerignore pattern as a regular expression: **
// any number of folders, * and ? within one name, [...] a class, \ an
// escape.
func patternRegexp(p string) string {
	var re strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case strings.HasPrefix(p[i:], "**/"):
			re.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString("[^/]*")
		case c == '?':
			re.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				re.WriteString(`\[`)
				continue
			}
			re.WriteString(strings.Replace(p[i:i+end+1], "[!", "[^", 1))
			i += end
		case c == '\\' && i+1 < len(p):
			i++
			re.WriteString(regexp.QuoteMeta(p[i : i+1]))
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return re.String()
}

// excluded says whether the patterns exclude rel: the last pattern that
// matches it or one of its parent folders decides, as Docker's
// MatchesOrParentMatches (moby/patternmatcher) does.
func excluded(patterns []ignorePattern, rel string) bool {
	matched := false
	parts := strings.Split(rel, "/")
	for _, p := range patterns {
		if p.exclusion != matched {
			continue
		}
		match := p.re.MatchString(rel)
		for i := 1; !match && i < len(parts); i++ {
			match = p.re.MatchString(strings.Join(parts[:i], "/"))
		}
		if match {
			matched = !p.exclusion
		}
	}
	return matched
}

// sources are the context's entries a COPY source names: itself, or what
// its wildcards match, at its depth. "." is the context's root, "" here.
func (c *buildContext) sources(src string) []string {
	src = strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(src)), "/")
	if src == "" {
		return []string{""}
	}
	if !strings.ContainsAny(src, "*?[") {
		if _, ok := c.entries[src]; ok {
			return []string{src}
		}
		return nil
	}
	var out []string
	for rel := range c.entries {
		if ok, _ := path.Match(src, rel); ok {
			out = append(out, rel)
		}
	}
	return out
}

// under lists the entries inside folder dir ("" for the root), sorted
// by the caller.
func (c *buildContext) under(dir string) []string {
	var out []string
	for rel := range c.entries {
		if dir == "" || strings.HasPrefix(rel, dir+"/") {
			out = append(out, rel)
		}
	}
	return out
}
