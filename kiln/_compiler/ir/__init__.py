"""Kiln's tensor IR: equations of primitives between typed Vars, nested graphs, the trace that records them.

Nothing here imports the backend or the rest of the compiler (see `graph`).
"""
