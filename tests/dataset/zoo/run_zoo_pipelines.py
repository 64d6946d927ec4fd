"""Run model-zoo `create_dataset` functions unchanged and write every column of every batch to an .npz file.

    python run_zoo_pipelines.py OUT.npz            (MindSpore's Python: the goldens)
    kiln run run_zoo_pipelines.py OUT.npz          (Kiln)

The pipelines (vendored from mindspore-ai/models, see tests/dataset/zoo/README.md):
- ResNet's create_dataset2/create_dataset4 (eval): ImageFolderDataset, Decode, Resize(256)/Resize(292) of the shorter
  side, CenterCrop, Normalize, HWC2CHW, TypeCast, batch(drop_remainder=True) on the six files of data/imagefolder.
  Their ImageFolderDataset has shuffle=True written in; the one change made here is a wrapper that passes
  shuffle=False, so that both frameworks read the files in the same order.
- BERT's create_eval_dataset: MindDataset of a MindRecord file written here (by the running framework's
  FileWriter), a PaddedDataset concatenated to fill the last batch, use_sampler(DistributedSampler), TypeCast.
"""

import importlib.util
import os
import sys
import tempfile

import mindspore.dataset as ds
import numpy as np
from mindspore.mindrecord import FileWriter

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def without_shuffle(cls):
    def make(*args, **kwargs):
        kwargs["shuffle"] = False
        return cls(*args, **kwargs)

    return make


def bert_records(folder: str) -> None:
    """Nine rows of BERT pre-training columns (int64 as the zoo's conversion script writes them)."""
    rng = np.random.default_rng(0)
    writer = FileWriter(os.path.join(folder, "part.mindrecord"), 1)
    length, masked = 16, 4
    schema = {k: {"type": "int64", "shape": [length]} for k in ("input_ids", "input_mask", "segment_ids")}
    schema.update({k: {"type": "int64", "shape": [masked]} for k in ("masked_lm_positions", "masked_lm_ids")})
    schema["next_sentence_labels"] = {"type": "int64", "shape": [1]}
    schema["masked_lm_weights"] = {"type": "float32", "shape": [masked]}
    writer.add_schema(schema, "bert")
    rows = []
    for i in range(9):
        rows.append(
            {
                "input_ids": rng.integers(0, 100, length),
                "input_mask": (np.arange(length) < 10 + i % 5).astype(np.int64),
                "segment_ids": (np.arange(length) > 8).astype(np.int64),
                "next_sentence_labels": np.array([i % 2]),
                "masked_lm_positions": rng.integers(0, length, masked),
                "masked_lm_ids": rng.integers(0, 100, masked),
                "masked_lm_weights": rng.random(masked).astype(np.float32),
            }
        )
    writer.write_raw_data(rows)
    writer.commit()


def batches(dataset, prefix: str, out: dict) -> None:
    out[f"{prefix}/columns"] = np.array(dataset.get_col_names())
    for i, row in enumerate(dataset.create_dict_iterator(output_numpy=True, num_epochs=1)):
        for name, value in row.items():
            out[f"{prefix}/{i}/{name}"] = np.asarray(value)


def main() -> None:
    ds.ImageFolderDataset = without_shuffle(ds.ImageFolderDataset)
    resnet = load("zoo_resnet_dataset", "resnet/src/dataset.py")
    bert = load("zoo_bert_dataset", "bert/src/dataset.py")
    images = os.path.join(HERE, "data", "imagefolder")
    out = {}
    batches(resnet.create_dataset2(images, False, batch_size=3, eval_image_size=24), "resnet2", out)
    batches(resnet.create_dataset4(images, False, batch_size=2, eval_image_size=20), "resnet4", out)
    with tempfile.TemporaryDirectory() as tmp:
        bert_records(tmp)
        batches(bert.create_eval_dataset(4, 1, 0, tmp, ""), "bert_eval", out)
        batches(bert.create_eval_dataset(2, 2, 1, tmp, ""), "bert_eval_rank1", out)
    np.savez_compressed(sys.argv[1], **out)


if __name__ == "__main__":
    main()
