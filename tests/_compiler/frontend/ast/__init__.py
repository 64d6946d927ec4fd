"""Tests of the AST frontend (mirrors kiln/_compiler/frontend/ast)."""
