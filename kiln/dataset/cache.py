"""DatasetCache: MindSpore's cache-server client, accepted as `cache=` and recording its arguments."""

from __future__ import annotations


class DatasetCache:
    """MindSpore's cache-server client. Kiln has no cache server: the object is accepted as `cache=` and
    records its arguments; sources read their data directly.

    Args:
        session_id: the cache session id.
        size: the cache size in MB (0: unlimited).
        spilling: spill to disk when memory is full.
        hostname, port, num_connections, prefetch_size: the server connection.
    """

    def __init__(
        self,
        session_id: int,
        size: int = 0,
        spilling: bool = False,
        hostname=None,
        port=None,
        num_connections=None,
        prefetch_size=None,
    ) -> None:
        if isinstance(session_id, bool) or not isinstance(session_id, int) or session_id < 0:
            raise ValueError(f"DatasetCache: session_id must be a non-negative int, but got {session_id!r}.")
        self.session_id, self.size, self.spilling = session_id, size, spilling
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size

    def get_stat(self) -> dict:
        """Cache statistics (all zero: nothing is cached)."""
        return {"mem_cached": 0, "disk_cached": 0, "avg_cache_sz": 0, "num_mem_cached": 0, "num_disk_cached": 0}
