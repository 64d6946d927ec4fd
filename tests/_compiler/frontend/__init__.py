"""Tests of the compiler frontends (mirrors kiln/_compiler/frontend)."""
