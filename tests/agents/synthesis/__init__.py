"""Tests of synthesis (agents/synthesis/, `synth`) against the fake endpoint."""
