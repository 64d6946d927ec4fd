"""MindSpore 2.10's public names under Kiln: which of them `kiln run`'s alias resolves (see README.md)."""
