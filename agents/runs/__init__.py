"""Evaluation runs: planning a batch (one run per method), executing it with bounded concurrency and resume,
and the run record (dataset fingerprint, models, prompt hashes, seeds, library versions)."""
