"""The zoo's GAT sources: research/gnn/gat/src at eab643f, vendored unchanged (this file is Kiln's)."""
