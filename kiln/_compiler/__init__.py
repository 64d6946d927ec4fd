"""Graph mode: the tensor IR (`ir`), the frontends (ast, bytecode, trace), passes, lowering, the compile cache.

`api` is the entry (`jit`, and `run_cell` for GRAPH_MODE Cells). This package's own import is empty on
purpose: `kiln._core` imports `kiln._compiler.ir.graph`, the one part of the compiler below it.
"""
