// Package passes holds lowering's whole-pipeline passes: each reads and
// rewrites the IR that the steps were lowered into, and says what it finds
// as diagnostics. Table runs them in order; each states what it needs of
// the IR when it runs, and the passes it must come after. A pass reads
// nothing but the IR: whatever a platform or spec says that it needs,
// lowering has put there first.
package passes
