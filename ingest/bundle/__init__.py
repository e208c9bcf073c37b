"""The ColaBench bundle format: a folder (or .tar.gz) of JSONL files, one pydantic model per file."""
