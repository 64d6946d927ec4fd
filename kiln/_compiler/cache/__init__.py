"""The compile caches: `memory` (signature + guards -> executable, in this process) and `persistent` (on disk)."""
