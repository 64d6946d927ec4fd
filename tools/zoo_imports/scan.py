"""Collect the `mindspore` import pairs of the model zoo's Python files (official/ and research/).

A pair is (module, name): `import mindspore.a.b` gives ("mindspore.a.b", None), `from mindspore.a import b`
gives ("mindspore.a", "b"), `from mindspore.a import *` gives ("mindspore.a", "*"). Every import statement of a
file counts, at module level or inside functions and `try` blocks.

An attribute chain is what a file reads through a name it bound to MindSpore: with `import mindspore.nn as nn`,
`nn.Dense` is "mindspore.nn.Dense"; with `from mindspore.ops import operations as P`, `P.Add` is
"mindspore.ops.operations.Add" (the longest chain of each expression, `a.b.c` and not also `a.b`).
"""

from __future__ import annotations

import ast
import subprocess
import warnings
from collections import Counter

ZOO_DIRS = ("official/", "research/")
ROOT = "mindspore"

Pair = tuple[str, str | None]


def pairs_of_source(source: str | bytes) -> set[Pair]:
    """The `mindspore` import pairs of one Python source text.

    Args:
        source: the file's text.

    Returns:
        The distinct pairs it imports.

    Raises:
        SyntaxError: the text does not parse as Python 3 (also ValueError for NUL bytes).
    """
    tree = _parse(source)
    pairs: set[Pair] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == ROOT or alias.name.startswith(ROOT + "."):
                    pairs.add((alias.name, None))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == ROOT or node.module.startswith(ROOT + "."):
                for alias in node.names:
                    pairs.add((node.module, alias.name))
    return pairs


def _parse(source: str | bytes) -> ast.AST:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences in old zoo files are not our concern
        return ast.parse(source)


def attribute_chains_of_source(source: str | bytes) -> set[str]:
    """The MindSpore attribute chains one Python source text reads (module docstring).

    Names are bound by every `mindspore` import of the file wherever it stands; a name bound twice keeps its last
    import. Relative imports bind nothing here.

    Raises:
        SyntaxError: the text does not parse as Python 3 (also ValueError for NUL bytes).
    """
    tree = _parse(source)
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == ROOT or alias.name.startswith(ROOT + "."):
                    # `import mindspore.nn` binds `mindspore`; `import mindspore.nn as nn` binds `nn`
                    bound[alias.asname or ROOT] = alias.name if alias.asname else ROOT
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == ROOT or node.module.startswith(ROOT + "."):
                for alias in node.names:
                    if alias.name != "*":
                        bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    if not bound:
        return set()
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    chains: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        names = []
        value: ast.AST = node
        while isinstance(value, ast.Attribute):
            names.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in bound:
            chains.add(".".join([bound[value.id], *reversed(names)]))
    return chains


def zoo_python_files(git_dir: str, ref: str = "HEAD") -> list[tuple[str, str]]:
    """(path, blob id) of every .py file under official/ and research/ at `ref` of a bare git directory."""
    out = subprocess.run(
        ["git", "--git-dir", git_dir, "ls-tree", "-r", ref], check=True, capture_output=True, text=True
    ).stdout
    files = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind == "blob" and path.endswith(".py") and path.startswith(ZOO_DIRS):
            files.append((path, blob))
    return files


def read_blobs(git_dir: str, blobs: list[str]) -> list[bytes]:
    """The contents of `blobs`, read in one `git cat-file --batch` process."""
    proc = subprocess.run(
        ["git", "--git-dir", git_dir, "cat-file", "--batch"],
        input="".join(b + "\n" for b in blobs).encode(),
        check=True,
        capture_output=True,
    )
    data, pos, contents = proc.stdout, 0, []
    for _ in blobs:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        if header[1] == b"missing":
            contents.append(b"")
            pos = end + 1
            continue
        size = int(header[2])
        contents.append(data[end + 1 : end + 1 + size])
        pos = end + 1 + size + 1  # the content is followed by a newline
    return contents


def scan(git_dir: str, ref: str = "HEAD") -> dict:
    """Scan the zoo at `ref`: its import pairs, and the files grouped by the set of pairs they import.

    Args:
        git_dir: bare git directory of mindspore-ai/models.
        ref: the commit to read.

    Returns:
        A JSON-ready dict: `commit`, `python_files`, `unparsable` (paths), `pairs` (sorted [module, name] rows
        with the number of files using each), `file_groups` (one row per distinct set of pairs a file imports:
        [number of such files, pair index, pair index, ...]) and `attributes` (sorted [chain, files reading it]).
    """
    commit = subprocess.run(
        ["git", "--git-dir", git_dir, "rev-parse", ref], check=True, capture_output=True, text=True
    ).stdout.strip()
    files = zoo_python_files(git_dir, ref)
    contents = read_blobs(git_dir, [blob for _, blob in files])
    unparsable: list[str] = []
    per_file: dict[str, set[Pair]] = {}
    chain_uses: Counter[str] = Counter()
    for (path, _), text in zip(files, contents, strict=True):
        try:
            pairs = pairs_of_source(text)
            chain_uses.update(attribute_chains_of_source(text))
        except (SyntaxError, ValueError):
            unparsable.append(path)
            continue
        if pairs:
            per_file[path] = pairs
    all_pairs = sorted({p for ps in per_file.values() for p in ps}, key=lambda p: (p[0], p[1] or ""))
    index = {p: i for i, p in enumerate(all_pairs)}
    uses = [0] * len(all_pairs)
    groups: dict[tuple[int, ...], list[str]] = {}
    for path, pairs in sorted(per_file.items()):
        key = tuple(sorted(index[p] for p in pairs))
        groups.setdefault(key, []).append(path)
        for i in key:
            uses[i] += 1
    return {
        "commit": commit,
        "python_files": len(files),
        "unparsable": sorted(unparsable),
        "pairs": [[m, n, uses[i]] for i, (m, n) in enumerate(all_pairs)],
        "file_groups": [[len(paths), *key] for key, paths in sorted(groups.items())],
        "attributes": [[chain, uses] for chain, uses in sorted(chain_uses.items())],
    }
