"""Tests of the GraphQL API and its pages (api/)."""
