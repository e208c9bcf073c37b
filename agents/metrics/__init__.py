"""Metrics of runs, computed from the graph's ToolCall and Judgment nodes (no LLM): accuracy, Read Recall,
search hit rates, turns, quality and error analysis; paired gains with cluster-bootstrap intervals,
groupings, shared-access subsets, stratified common-weight gains, and the evidence funnel."""
