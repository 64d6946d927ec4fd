"""Frontends: Python source (AST) -> Kiln IR."""

from kiln._compiler.frontend.parser import Namespace, ParsedFunction, parse_function

__all__ = ["Namespace", "ParsedFunction", "parse_function"]
