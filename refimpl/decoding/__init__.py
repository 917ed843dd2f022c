"""Decoding: choosing tokens under the grammar (docs/generation.md)."""
