"""Reports of evaluation runs (HTML with inline SVG, JSON, Markdown) and of the no-LLM retrieval line."""
