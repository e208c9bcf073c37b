"""Retrieval expansions from LongMemEval: fact-augmented index keys (`keys`), time-aware query expansion
(`time_range`), and the ranking of keyed units by a recipe's channels (`unit_ranking`). Used by `eval qa
--feed rag` and `eval retrieval --key-expansion facts --time-aware`."""
