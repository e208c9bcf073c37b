"""Prompts as versioned code (name, version, SHA-256), and the registry that lets users swap in files."""
