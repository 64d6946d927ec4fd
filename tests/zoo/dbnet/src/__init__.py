"""Kiln's: the zoo's official/cv/DBNet has no src/__init__.py (train.py runs from its folder); this one makes src a
package for the driver's imports."""
