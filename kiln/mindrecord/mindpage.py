"""MindPage: rows of a MindRecord file set grouped by the value of one index field, read page by page."""

from __future__ import annotations

import json

import numpy as np

from kiln.mindrecord.common import ParamTypeError, ParamValueError
from kiln.mindrecord.filereader import ShardSet


class MindPage:
    """Browse a MindRecord file set by category: the distinct values of one index field (see FileWriter.add_index).

    Args:
        file_name: one shard file (the whole set is read) or a list of shard files.
        num_consumer: accepted for compatibility.
    """

    def __init__(self, file_name, num_consumer: int = 4) -> None:
        self._set = ShardSet(file_name)
        self._field: str | None = None
        self._categories: list | None = None

    def candidate_fields(self) -> list[str]:
        """The index fields that can serve as category fields."""
        return list(self._set.index_fields)

    @property
    def category_field(self) -> str | None:
        """The field rows are grouped by."""
        return self._field

    @category_field.setter
    def category_field(self, field: str) -> None:
        if field not in self._set.index_fields:
            raise ParamValueError(
                f"MindPage: {field!r} is not an index field; the candidates are {self._set.index_fields}."
            )
        self._field = field
        self._categories = None

    def _groups(self) -> list[tuple]:
        if self._field is None:
            raise ParamValueError("MindPage: set category_field first.")
        if self._categories is None:
            rows: dict = {}
            for k, shard in enumerate(self._set.shards):
                for local, value in enumerate(shard.index_values(self._field)):
                    rows.setdefault(value, []).append(self._set.starts[k] + local)
            # As MindSpore: a category's name is the value as text, and categories come in the names' sorted order.
            self._categories = [(i, name, rows[name]) for i, name in enumerate(sorted(rows))]
        return self._categories

    def read_category_info(self) -> str:
        """A JSON string: per category its id, name and row count (`categories`), and the field as `key`, which
        MindSpore spells as its index column, the field's name + "_0"."""
        groups = self._groups()
        categories = [{"id": i, "name": n, "count": len(r)} for i, n, r in groups]
        return json.dumps({"categories": categories, "key": f"{self._field}_0"})

    def _page(self, ids: list, page: int, num_row: int) -> list[dict]:
        for name, v in (("page", page), ("num_row", num_row)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ParamTypeError(f"MindPage: {name} must be an int, but got {type(v).__name__}.")
        if page < 0 or num_row < 1:
            raise ParamValueError(f"MindPage: page must be >= 0 and num_row >= 1, got {page} and {num_row}.")
        out = []
        for i in ids[page * num_row : (page + 1) * num_row]:
            row = self._set.read(i)
            out.append({k: v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v for k, v in row.items()})
        return out

    def read_at_page_by_id(self, category_id: int, page: int, num_row: int) -> list[dict]:
        """Rows `page * num_row` ... of the category with id `category_id`."""
        groups = self._groups()
        if isinstance(category_id, bool) or not isinstance(category_id, int) or not 0 <= category_id < len(groups):
            raise ParamValueError(f"MindPage: category_id must be in [0, {len(groups)}), but got {category_id!r}.")
        return self._page(groups[category_id][2], page, num_row)

    def read_at_page_by_name(self, category_name, page: int, num_row: int) -> list[dict]:
        """Rows `page * num_row` ... of the category whose value, as text, is `category_name` (a number is taken as
        its text)."""
        for _, name, ids in self._groups():
            if name == str(category_name):
                return self._page(ids, page, num_row)
        raise ParamValueError(f"MindPage: no category named {category_name!r}.")
