"""The machinery behind `kiln.parallel`, below `context` and `nn` so that both can use it: the auto-parallel
settings (`context`) and semi-auto parallelism's `Layout` and sharding constraints (`shard`)."""
