"""Input formats -> events: ColaBench bundles, knowledge-base JSONL, TREC iKAT, LoCoMo, LongMemEval."""
