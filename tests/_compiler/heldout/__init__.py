"""A held-out set of small user programs run in every mode against MindSpore 2.10's goldens (issue 18)."""
