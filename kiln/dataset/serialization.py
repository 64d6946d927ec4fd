"""serialize / deserialize / show / compare: a pipeline as a JSON-ready description.

Every node records the arguments it was built with; serialize writes the node's class, those arguments
(non-JSON values such as callables and arrays by their repr) and its children. deserialize rebuilds a
pipeline whose arguments are all plain data (file-based sources, batch, repeat, shuffle, take, skip,
project, rename, concat, zip, and map with transforms built from plain arguments).
"""

from __future__ import annotations

import importlib
import json

from kiln.dataset.engine import SERIALIZED_TAG as _TAG
from kiln.dataset.engine import Dataset


def serialize(dataset: Dataset, json_filepath: str = "") -> dict:
    """The pipeline that ends at `dataset` as a dict; also written to `json_filepath` when given.

    Args:
        dataset: the last node of the pipeline.
        json_filepath: a file to write the JSON to ("" or None: none).

    Returns:
        The description (a dict of op_type, args, kwargs and children).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize expects a Dataset, but got {type(dataset).__name__}.")
    return dataset.to_json(json_filepath or None)


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    obj = importlib.import_module(module.replace("mindspore", "kiln", 1))
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _decode(value, children: list):
    if isinstance(value, list):
        return [_decode(v, children) for v in value]
    if isinstance(value, dict):
        tag = value.get(_TAG)
        if tag == "child":
            return children.pop(0)
        if tag == "object":
            cls = _resolve(value["class"])
            return cls(*_decode(value["args"], children), **_decode(value["kwargs"], children))
        if tag == "enum":
            return getattr(_resolve(value["class"]), value["name"])
        if tag == "opaque":
            raise RuntimeError(f"deserialize: the value {value['repr']} was not serializable and cannot be rebuilt.")
        return {k: _decode(v, children) for k, v in value.items()}
    return value


def _build(node: dict) -> Dataset:
    children = [_build(c) for c in node["children"]]
    cls = getattr(importlib.import_module(node["op_module"]), node["op_type"])
    args = _decode(node["args"], children)
    kwargs = _decode(node["kwargs"], children)
    return cls(*args, **kwargs)


def deserialize(input_dict: dict | None = None, json_filepath: str | None = None) -> Dataset:
    """Rebuild a pipeline from `serialize`'s output.

    Args:
        input_dict: the description, or
        json_filepath: a file holding it.

    Returns:
        The rebuilt dataset.
    """
    if input_dict is None:
        if json_filepath is None:
            raise ValueError("deserialize: give input_dict or json_filepath.")
        with open(json_filepath) as f:
            input_dict = json.load(f)
    return _build(input_dict)


def show(dataset: Dataset, indentation: int = 2) -> None:
    """Print the pipeline's description as JSON.

    Args:
        dataset: the last node of the pipeline.
        indentation: spaces per level (None: one line).
    """
    print(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1: Dataset, pipeline2: Dataset) -> bool:
    """Whether two pipelines have the same nodes with the same arguments.

    Args:
        pipeline1: a dataset.
        pipeline2: another dataset.

    Returns:
        True when their serialized descriptions are equal.
    """
    return serialize(pipeline1) == serialize(pipeline2)
