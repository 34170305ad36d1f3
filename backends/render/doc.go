// Package render draws a pipeline's DAG as Mermaid or Graphviz DOT: each
// step with its cube and task, and an edge from each dependency.
package render
