"""Tests of the agents room (agents/): one folder per part, plus the modules at the room's top."""
