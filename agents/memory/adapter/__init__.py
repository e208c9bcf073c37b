"""`http:<name>`: any memory system behind the colabench memory adapter protocol (JSON over HTTP, versioned:
docs/memory-adapter.md). `protocol` holds the messages, `client` the HTTP calls, `settings` the named adapters,
`system` the registered memory system that speaks it. The reference server is agents.memory.adapter_server."""
