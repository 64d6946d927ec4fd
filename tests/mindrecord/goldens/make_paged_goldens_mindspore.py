"""Writes the MindRecord goldens with MindSpore 2.10 (run in its environment, from this folder):

    /path/to/mindspore-env/bin/python make_paged_goldens_mindspore.py

- mixed.mindrecord: one shard, every field type (tests/mindrecord/paged_rows.py), index fields label and name.
- images.mindrecord0/1: two shards of 12 records each, pages of 32 KiB, so that records span several blob pages.
- paged_goldens_mindspore.json: what MindSpore's own readers give (MindDataset column dtypes and shapes, its row
  order unsharded and for shard 1 of 2, MindPage's categories).
"""

import json
import os
import sys

import numpy as np
from mindspore import dataset as ds
from mindspore.mindrecord import FileReader, FileWriter, MindPage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from paged_rows import IMAGES_SCHEMA, MIXED_SCHEMA, image_rows, mixed_rows  # noqa: E402


def write(name, shards, schema, rows, index=None):
    w = FileWriter(name, shard_num=shards, overwrite=True)
    w.set_header_size(1 << 14)  # the smallest MindSpore allows, to keep the files small
    w.set_page_size(1 << 15)
    w.add_schema(schema, "kiln golden")
    if index:
        w.add_index(index)
    w.write_raw_data(rows)
    w.commit()


def same(a, b):
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return a == b


write("mixed.mindrecord", 1, MIXED_SCHEMA, mixed_rows(), ["label", "name"])
write("images.mindrecord", 2, IMAGES_SCHEMA, image_rows(0, 24))
reader = FileReader("mixed.mindrecord")
for got, want in zip(reader.get_next(), mixed_rows(), strict=True):
    assert all(same(got[k], want[k]) for k in want), (got, want)
reader.close()

out = {}
for name in ("mixed.mindrecord", "images.mindrecord0"):
    rows = list(ds.MindDataset(name, shuffle=False).create_dict_iterator(output_numpy=True, num_epochs=1))
    out[name] = {"columns": {k: [v.dtype.str, list(v.shape)] for k, v in rows[0].items()}, "rows": len(rows)}
ids = lambda d: [int(r["id"]) for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]  # noqa: E731
out["images_ids"] = ids(ds.MindDataset("images.mindrecord1", shuffle=False))
out["images_ids_shard_1_of_2"] = ids(ds.MindDataset("images.mindrecord0", shuffle=False, num_shards=2, shard_id=1))
page = MindPage("mixed.mindrecord")
page.category_field = "name"
out["mindpage_name_categories"] = json.loads(page.read_category_info())
page.category_field = "label"
out["mindpage_label_categories"] = json.loads(page.read_category_info())
page.category_field = "name"
out["mindpage_name_3"] = [int(r["label"]) for r in page.read_at_page_by_name("name-3-é", 0, 2)]
with open("paged_goldens_mindspore.json", "w") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
