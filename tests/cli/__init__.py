"""Tests of the command line (cli/) as people run it."""
