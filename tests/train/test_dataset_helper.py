"""DatasetHelper, connect_network_with_dataset and data_sink over an in-memory dataset."""

import numpy as np

from kiln import nn, train
from tests.train.helpers import ArrayDataset, CrossEntropy, Linear, make_data


def test_dataset_helper_and_connect():
    x, y = make_data()
    ds = ArrayDataset(x, y)
    helper = train.DatasetHelper(ds, dataset_sink_mode=False, epoch_num=2)
    batches = list(helper)
    assert len(batches) == len(helper) == 8
    np.testing.assert_array_equal(batches[4][0].asnumpy(), x[:12])

    net = nn.TrainOneStepCell(nn.WithLossCell(Linear(), CrossEntropy()), nn.SGD(Linear().trainable_params(), 0.1))
    seen = []

    class Count(nn.Cell):
        def construct(self, a, b):
            seen.append(a.asnumpy()[0, 0])
            return a.sum()

    sink = train.DatasetHelper(ds, dataset_sink_mode=True, sink_size=3, epoch_num=1)
    assert sink.sink_size() == 3 and len(sink) == 1
    connected = train.connect_network_with_dataset(Count(), sink)
    for inputs in sink:
        out = connected(*inputs)
    assert len(seen) == 3
    np.testing.assert_allclose(out.asnumpy(), x[24:36].sum(), rtol=1e-5)
    connected()  # continues across the epoch boundary
    assert seen[3] == x[36, 0] and seen[4] == x[0, 0]
    assert train.connect_network_with_dataset(net, helper) is net
    dtypes, shapes = sink.types_shapes()
    assert shapes == [(12, 4), (12,)]


def test_data_sink():
    x, y = make_data()
    calls = []

    def step(a, b):
        calls.append(a.asnumpy()[0, 0])
        return a.mean()

    fn = train.data_sink(step, ArrayDataset(x, y), sink_size=2)
    out = fn()
    assert calls == [x[0, 0], x[12, 0]]
    np.testing.assert_allclose(out.asnumpy(), x[12:24].mean(), rtol=1e-5)
    fn()
    fn()
    assert calls[-1] == x[12, 0]  # cycles through epochs
