"""Kiln's stand-in for the zoo's EDSR model_utils package (its config.py parses the YAML config and the command line
at import): only `moxing_adapter`'s rank functions, which src/dataset.py imports."""
