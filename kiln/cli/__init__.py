"""The `kiln` command line (`kiln run`, `kiln demo`) and the `mindspore` module alias."""

from kiln.cli.alias import install as install_mindspore_alias
from kiln.cli.alias import mindspore_alias

__all__ = ["install_mindspore_alias", "mindspore_alias"]
