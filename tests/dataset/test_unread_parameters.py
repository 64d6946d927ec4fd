"""The dataset walk of tools/unused_params.py: every parameter of a public kiln.dataset / kiln.mindrecord signature
is read, or the one allowlist of unread parameters (tools/unused_params_allowlist.txt, which
tests/test_public_parameters.py holds against both walks) gives its reason.

The walk reads the dataset's sources file by file, so it also sees what the public-API walk cannot: the
constructors the source base generates, whose shared parameters are read (or not) in SampledSource.
"""

from __future__ import annotations

from tools import unused_params


def test_every_unread_parameter_is_listed_with_a_reason():
    allow = unused_params.read_allowlist()
    unread = unused_params.dataset_unread_parameters()
    assert unread, "the walk found nothing: it no longer reads the sources"
    unlisted = sorted(key for key in unread if unused_params.allowlist_entry(key, allow) is None)
    assert unlisted == [], "read these parameters, refuse them, or list them in tools/unused_params_allowlist.txt"


def test_a_generated_constructors_unread_shared_parameter_is_found():
    assert "kiln.dataset.ImageFolderDataset.__init__:cache" in unused_params.dataset_unread_parameters()
