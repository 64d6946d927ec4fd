"""The zoo's research/cv/dcrnn/src (a package here; the zoo's has no __init__.py)."""
