"""Networks from MindSpore's model zoo (mindspore-ai/models), vendored unchanged, trained against MindSpore."""
