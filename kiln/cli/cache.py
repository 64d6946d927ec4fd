"""`kiln cache info|clear`: the on-disk cache of compiled executables."""

from __future__ import annotations

import os

from kiln._backend import cache


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def run_cache(action: str) -> int:
    """Print the cache's location, size and entry count (`info`), or delete its contents (`clear`).

    Returns:
        The exit status.
    """
    where = cache.cache_dir()
    source = f"{cache.ENV_DIR}" if os.environ.get(cache.ENV_DIR) is not None else "default; set KILN_CACHE_DIR"
    if where is None:
        print(f"The compilation cache is off ({cache.ENV_DIR}={os.environ.get(cache.ENV_DIR)!r}).")
        return 0
    if action == "info":
        st = cache.info(where)
        print(f"location: {st.path}  ({source})")
        print(f"entries:  {st.entries} compiled executables ({st.files} files)")
        print(f"size:     {_mib(st.bytes)} of at most {_mib(st.max_bytes)}  ({cache.ENV_MAX_MB})")
        if not where.is_dir():
            print("          (the folder does not exist yet: nothing has been compiled with the cache on)")
        return 0
    if action == "clear":
        before = cache.info(where)
        freed = cache.clear(where)
        print(f"Removed {before.entries} compiled executables ({_mib(freed)}) from {where}")
        return 0
    raise ValueError(f"unknown cache action {action!r}")
