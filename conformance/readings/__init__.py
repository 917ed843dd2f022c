"""Readings shared by several peers: how they read grammars, JSON and token bytes, for the
predicates of their known differences (and, for byte_level, for building their inputs)."""
