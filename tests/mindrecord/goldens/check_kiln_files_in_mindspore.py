"""Checks that MindSpore 2.10 reads the MindRecord files Kiln writes (run in MindSpore's environment):

    KILN_PYTHON=/path/to/kiln-env/bin/python /path/to/mindspore-env/bin/python check_kiln_files_in_mindspore.py

Kiln (in a subprocess) writes the records of tests/mindrecord/paged_rows.py, with its default header and page sizes
and with small ones; MindSpore's FileReader, MindDataset and MindPage must give every record back.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
from mindspore import dataset as ds
from mindspore.mindrecord import FileReader, MindPage

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from paged_rows import image_rows, mixed_rows  # noqa: E402

WRITE = """
import sys
sys.path.insert(0, {rows_dir!r})
from kiln.mindrecord import FileWriter
from paged_rows import IMAGES_SCHEMA, MIXED_SCHEMA, image_rows, mixed_rows
for name, shards, schema, rows, small in (("mixed.mindrecord", 1, MIXED_SCHEMA, mixed_rows(), False),
                                          ("images.mindrecord", 2, IMAGES_SCHEMA, image_rows(0, 24), True)):
    w = FileWriter(name, shard_num=shards, overwrite=True)
    if small:
        w.set_header_size(1 << 14)
        w.set_page_size(1 << 15)
    w.add_schema(schema, "written by Kiln")
    if name.startswith("mixed"):
        w.add_index(["label", "name"])
    w.write_raw_data(rows[:10])
    w.write_raw_data(rows[10:])
    w.commit()
"""


def same(got, want):
    if isinstance(want, np.ndarray):
        return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    return got == want


with tempfile.TemporaryDirectory() as folder:
    code = WRITE.format(rows_dir=os.path.join(HERE, ".."))
    subprocess.run([os.environ["KILN_PYTHON"], "-c", code], cwd=folder, check=True)
    reader = FileReader(os.path.join(folder, "mixed.mindrecord"))
    got = list(reader.get_next())
    reader.close()
    assert len(got) == 6
    for row, want in zip(got, mixed_rows(), strict=True):
        assert all(same(row[k], want[k]) for k in want), (row, want)
    images = ds.MindDataset(os.path.join(folder, "images.mindrecord0"), shuffle=False)
    rows = list(images.create_dict_iterator(output_numpy=True, num_epochs=1))
    # each write_raw_data call spreads its records over the shards in blocks, in MindSpore as in Kiln
    order = [*range(0, 5), *range(10, 17), *range(5, 10), *range(17, 24)]
    assert [int(r["id"]) for r in rows] == order
    assert all(r["img"][0] == image_rows(i, 1)[0]["img"] for r, i in zip(rows, order, strict=True))
    half = ds.MindDataset(os.path.join(folder, "images.mindrecord1"), shuffle=False, num_shards=2, shard_id=1)
    print("shard 1 of 2:", [int(r["id"]) for r in half.create_dict_iterator(output_numpy=True, num_epochs=1)])
    page = MindPage(os.path.join(folder, "mixed.mindrecord"))
    page.category_field = "label"
    print(page.read_category_info())
    assert [r["name"] for r in page.read_at_page_by_name("1", 0, 5)] == ["name-3-é"]
print("MindSpore read every record Kiln wrote")
