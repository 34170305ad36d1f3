package diag

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Suggest is what a message about an unknown name ends with: `; did you
// mean "train"?` when one of candidates is near enough to name to be a
// slip of the keyboard (see Nearest), and "" otherwise. Every "no such
// name" message appends it, so a suggestion always reads the same way.
func Suggest(name string, candidates []string) string {
	if hint := DidYouMean(name, candidates); hint != "" {
		return "; " + hint
	}
	return ""
}

// DidYouMean is a diagnostic's Hint for an unknown name: `did you mean
// "train"?` (see Suggest), or "".
func DidYouMean(name string, candidates []string) string {
	best := Nearest(name, candidates)
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %q?", best)
}

// Nearest returns the candidate nearest to name by edit distance (optimal
// string alignment: an insertion, deletion, substitution or swap of two
// neighbouring characters each count one, letter case ignored), or "" when
// none is within maxDistance(name). Ties go to the candidate whose case
// matches name more closely, then to the one that sorts first, so the
// answer never depends on the order of candidates.
func Nearest(name string, candidates []string) string {
	limit := maxDistance(name)
	if limit == 0 {
		return ""
	}
	lower := strings.ToLower(name)
	best, bestDist, bestCase := "", limit+1, 0
	for _, c := range candidates {
		if c == name || c == "" || absDiff(utf8.RuneCountInString(c), utf8.RuneCountInString(name)) > limit {
			continue
		}
		d := distance(lower, strings.ToLower(c), limit)
		if d > limit || d > bestDist {
			continue
		}
		caseDist := distance(name, c, utf8.RuneCountInString(name)+limit)
		if d < bestDist || caseDist < bestCase || caseDist == bestCase && c < best {
			best, bestDist, bestCase = c, d, caseDist
		}
	}
	return best
}

// maxDistance is how far a candidate may be from name and still be
// suggested: one edit for a name of up to five characters, two for up to
// eight, and a third of the length beyond. A name of one character
// suggests nothing: every other one-letter name is as near.
func maxDistance(name string) int {
	n := utf8.RuneCountInString(name)
	if n < 2 {
		return 0
	}
	return max(n, 3) / 3
}

// distance is the optimal string alignment distance between a and b,
// counted in runes; it stops early and returns limit+1 once every
// alignment costs more than limit.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	// prev2, prev and cur are three rows of the table: row i-2, i-1, i.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(rb)], limit+1)
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}
