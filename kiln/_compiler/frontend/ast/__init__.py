"""The AST frontend (PSJit): the parser, the Python-level IR it builds, its rewrites and its interpreter."""
