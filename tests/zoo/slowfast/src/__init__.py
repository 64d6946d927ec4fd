"""Kiln's: the zoo's research/cv/slowfast/src/__init__.py sets up its logging and path manager (fvcore and
iopath), which these files do not use."""
