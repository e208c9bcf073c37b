"""Memory-quality evaluation (HaluMem's axes) of a memory system's memory against what the graph says should
have been remembered: expected memory points are a profile's facts with the turns that disclosed them.

`points` reads the material from the graph, `coverage` computes the no-LLM part by query (facts remembered
from their disclosing turn, memories derived from no disclosing turn, memories per turn), `judge_inputs` and
`pipeline` run the memory judges (integrity, accuracy, update, qa; `questions` reads the qa axis's questions)
and record each verdict as a MemoryJudged event, `scores` turns the recorded verdicts into tables with "all"
and "valid" denominators, and `report` assembles and renders the report of `./colabench eval memory` (also
shown as a section of evaluation reports).
"""
