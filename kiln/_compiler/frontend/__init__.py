"""Frontends: how a user function's Python becomes equations of the tensor IR (ast, bytecode, trace)."""
