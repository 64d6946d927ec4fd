"""MindSpore model zoo imports under Kiln: scan mindspore-ai/models, check each pair (see README.md)."""
