"""Golden outputs of MindSpore 2.10 for tests/dataset/test_goldens.py.

Run with MindSpore's environment from the repository root:
    /tmp/msvenv/bin/python tests/dataset/make_goldens.py
It writes tests/dataset/goldens/vision.npz and tests/dataset/goldens/pipeline.json.
"""

import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402
import mindspore.dataset as ds  # noqa: E402
import mindspore.dataset.vision as v  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens")
IMG, VISION_CASES = fixtures.IMG, fixtures.VISION_CASES


def vision_goldens() -> None:
    out = {}
    for name, (make, x) in VISION_CASES.items():
        try:
            out[name] = np.asarray(make(v)(x))
        except Exception as exc:  # noqa: BLE001  (recorded: the test skips what MindSpore cannot run)
            print(f"{name}: MindSpore failed: {exc}".splitlines()[0])
    slices = v.SlicePatches(2, 3)(IMG)
    for i, s in enumerate(slices):
        out[f"slice_{i}"] = s
    np.savez_compressed(os.path.join(HERE, "vision.npz"), **out)


def rows(dataset) -> list:
    out = []
    for r in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        out.append([x.tolist() for x in r])
    return out


def pipeline_goldens(tmp: str) -> dict:
    p = fixtures.make_all(tmp)
    res = {}
    nums = lambda: ds.NumpySlicesDataset({"a": np.arange(10), "b": np.arange(10) * 3}, shuffle=False)  # noqa: E731

    def gen():
        for i in range(1, 8):
            yield np.arange(i), np.ones((2, i % 3 + 1), np.float32) * i

    var = lambda: ds.GeneratorDataset(gen, ["x", "y"], shuffle=False)  # noqa: E731
    res["seq_sampler"] = rows(ds.NumpySlicesDataset({"a": np.arange(10)}, sampler=ds.SequentialSampler(2, 5)))
    s = ds.SubsetSampler([5, 1, 3])
    s.add_child(ds.SequentialSampler(2))
    res["subset_child"] = rows(ds.NumpySlicesDataset({"a": np.arange(10)}, sampler=s))
    res["list_sampler"] = rows(ds.NumpySlicesDataset({"a": np.arange(10)}, sampler=[7, 2, 2, 0]))
    res["dist_sampler"] = [
        rows(ds.NumpySlicesDataset({"a": np.arange(10)}, sampler=ds.DistributedSampler(3, k, shuffle=False)))
        for k in range(3)
    ]
    res["per_batch_map"] = rows(
        nums().batch(3, per_batch_map=lambda a, info: ([x * 2 + info.get_batch_num() for x in a],), input_columns=["a"])
    )
    res["per_batch_map_new_col"] = rows(
        nums().batch(
            4,
            drop_remainder=True,
            per_batch_map=lambda a, info: ([x + 1 for x in a], [x * x for x in a]),
            input_columns=["a"],
            output_columns=["a", "sq"],
        )
    )
    res["callable_batch"] = rows(nums().batch(lambda info: info.get_batch_num() + 1))
    res["padded_all"] = rows(var().padded_batch(3, pad_info={}))
    res["padded_shape"] = rows(var().padded_batch(3, pad_info={"x": ([8], -1), "y": ([3, 4], 5)}))
    res["bucket"] = rows(
        var().bucket_batch_by_length(["x"], [3, 5], [2, 2, 2], pad_info={"x": (None, 0), "y": (None, 0)})
    )
    res["bucket_drop"] = rows(
        var().bucket_batch_by_length(
            ["x", "y"],
            [3, 5],
            [2, 1, 3],
            lambda x, y: x.shape[0],
            {"x": (None, 0), "y": (None, 0)},
            drop_remainder=True,
        )
    )
    res["split_sizes"] = [rows(d) for d in nums().split([0.33, 0.33, 0.34], randomize=False)]
    res["split_ints"] = [rows(d) for d in nums().split([6, 4], randomize=False)]
    one = lambda: ds.NumpySlicesDataset({"a": np.arange(4)}, shuffle=False)  # noqa: E731
    res["flat_map"] = rows(one().flat_map(lambda a: ds.NumpySlicesDataset({"a": np.arange(int(a) + 1)}, shuffle=False)))
    res["padded_dataset"] = rows(ds.PaddedDataset([{"a": np.array([1, 2])}, {"a": np.array([3, 4])}]))
    # sources (one reader thread: MindSpore interleaves files read by several)
    res["textfile"] = rows(ds.TextFileDataset([p["text_b"], p["text_a"]], shuffle=False, num_parallel_workers=1))
    res["textfile_shards"] = [
        rows(ds.TextFileDataset([p["text_a"], p["text_b"]], shuffle=False, num_shards=4, shard_id=k)) for k in range(4)
    ]
    res["textfile_file_shards"] = [
        rows(ds.TextFileDataset([p["text_a"], p["text_b"]], shuffle=False, num_shards=2, shard_id=k)) for k in range(2)
    ]
    res["csv"] = rows(ds.CSVDataset(p["csv"], shuffle=False))
    res["csv_typed"] = rows(ds.CSVDataset(p["csv"], column_defaults=[0, "x", 1.0], shuffle=False))
    res["csv_named"] = rows(ds.CSVDataset(p["csv"], column_names=["a", "b", "c"], shuffle=False))
    corpora = {
        "agnews": ds.AGNewsDataset,
        "amazon": ds.AmazonReviewDataset,
        "dbpedia": ds.DBpediaDataset,
        "sogou": ds.SogouNewsDataset,
        "yahoo": ds.YahooAnswersDataset,
        "yelp": ds.YelpReviewDataset,
    }
    for name, cls in corpora.items():
        res[name] = rows(cls(p[name], shuffle=False, num_parallel_workers=1))
        res[name + "_test"] = rows(cls(p[name], usage="test", shuffle=False))
    for name, cls in (("ptb", ds.PennTreebankDataset), ("wikitext", ds.WikiTextDataset)):
        res[name] = rows(cls(p[name], shuffle=False, num_parallel_workers=1))
        res[name + "_valid"] = rows(cls(p[name], usage="valid", shuffle=False))
    res["enwik9"] = rows(ds.EnWik9Dataset(p["enwik9"], shuffle=False))
    res["imdb"] = rows(ds.IMDBDataset(p["imdb"], shuffle=False))
    res["sst2"] = rows(ds.SST2Dataset(p["sst2"], shuffle=False))
    res["sst2_test"] = rows(ds.SST2Dataset(p["sst2"], usage="test", shuffle=False))
    res["semeion"] = rows(ds.SemeionDataset(p["semeion"], shuffle=False))
    res["caltech256"] = rows(ds.Caltech256Dataset(p["caltech256"], shuffle=False))
    res["manifest"] = rows(ds.ManifestDataset(p["manifest"], shuffle=False))
    res["fashion"] = rows(ds.FashionMnistDataset(p["fashion"], shuffle=False))
    res["kmnist"] = rows(ds.KMnistDataset(p["kmnist"], usage="test", shuffle=False))
    res["emnist"] = rows(ds.EMnistDataset(p["emnist"], "digits", shuffle=False))
    return res


if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    vision_goldens()
    with tempfile.TemporaryDirectory() as tmp:
        data = pipeline_goldens(tmp)
    with open(os.path.join(HERE, "pipeline.json"), "w") as f:
        json.dump(data, f)
    print("wrote", sorted(data))
