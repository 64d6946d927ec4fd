"""Whole-network mistakes a user makes, each a small script: the user's file for `network_survey.py`.

Each `c_*` function builds a network and runs it through `run(fn, *args)`, which the survey binds to
PyNative, GRAPH_MODE or an @jit step. The line marked `# FAULT` is the one a good error blames.
`SHAPES[name]` lists the shapes or dtypes the message should name. `ms` is bound by the survey.
"""

import numpy as np

ms = nn = ops = Tensor = Parameter = None  # bound by bind()


def bind(framework):
    global ms, nn, ops, Tensor, Parameter
    ms, nn, ops, Tensor, Parameter = framework, framework.nn, framework.ops, framework.Tensor, framework.Parameter


def T(*shape, dtype=np.float32):
    return Tensor(np.ones(shape, dtype))


SHAPES = {}


def c_dense_in_channels(run):
    net = nn.Dense(4, 2)
    return run(net, T(3, 5))  # FAULT


SHAPES["c_dense_in_channels"] = ("(3, 5)", "4")


def c_conv2d_in_channels(run):
    net = nn.Conv2d(3, 8, 3)
    return run(net, T(1, 1, 8, 8))  # FAULT


SHAPES["c_conv2d_in_channels"] = ("(1, 1, 8, 8)", "3")


def c_flatten_forgotten(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
            self.fc = nn.Dense(4 * 6 * 6, 10)

        def construct(self, x):
            x = self.conv(x)
            return self.fc(x)  # FAULT

    return run(Net(), T(2, 1, 8, 8))


SHAPES["c_flatten_forgotten"] = ("(2, 4, 6, 6)", "144")


def c_sce_sparse_float_labels(run):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return run(loss, T(3, 4), T(3))  # FAULT


SHAPES["c_sce_sparse_float_labels"] = ("Float32",)


def c_sce_sparse_onehot_labels(run):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return run(loss, T(3, 4), T(3, 4, dtype=np.int32))  # FAULT


SHAPES["c_sce_sparse_onehot_labels"] = ("(3, 4)",)


def c_sce_sparse_float_labels_none(run):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)  # reduction="none", the default: a one_hot path
    return run(loss, T(3, 4), T(3))  # FAULT


SHAPES["c_sce_sparse_float_labels_none"] = ("Float32",)


def c_sce_sparse_onehot_labels_none(run):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    return run(loss, T(3, 4), T(3, 4, dtype=np.int32))  # FAULT


SHAPES["c_sce_sparse_onehot_labels_none"] = ("(3, 4)",)


def c_sce_dense_int_labels(run):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean")
    return run(loss, T(3, 4), T(3, dtype=np.int32))  # FAULT


SHAPES["c_sce_dense_int_labels"] = ("(3,)", "Int32")


def c_sce_dense_shape(run):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False)
    return run(loss, T(3, 4), T(3, 5))  # FAULT


SHAPES["c_sce_dense_shape"] = ("(3, 4)", "(3, 5)")


def c_nll_float_labels(run):
    loss = nn.NLLLoss()
    return run(loss, T(3, 4), T(3))  # FAULT


SHAPES["c_nll_float_labels"] = ("Float32",)


def c_nll_labels_shape(run):
    loss = nn.NLLLoss()
    return run(loss, T(3, 4), T(3, 4, dtype=np.int32))  # FAULT


SHAPES["c_nll_labels_shape"] = ("(3, 4)",)


def c_ce_labels_shape(run):
    loss = nn.CrossEntropyLoss()
    return run(loss, T(3, 4), T(2, dtype=np.int32))  # FAULT


SHAPES["c_ce_labels_shape"] = ("(3, 4)", "(2,)")


def c_ce_prob_target_shape(run):
    loss = nn.CrossEntropyLoss()
    return run(loss, T(3, 4), T(3, 5))  # FAULT


SHAPES["c_ce_prob_target_shape"] = ("(3, 4)", "(3, 5)")


def c_batchnorm2d_on_2d(run):
    net = nn.BatchNorm2d(4)
    return run(net, T(3, 4))  # FAULT


SHAPES["c_batchnorm2d_on_2d"] = ("(3, 4)",)


def c_embedding_out_of_range(run):
    net = nn.Embedding(10, 4)
    return run(net, Tensor(np.array([[1, 12]], np.int32)))  # FAULT


SHAPES["c_embedding_out_of_range"] = ("12",)


def c_embedding_float_index(run):
    net = nn.Embedding(10, 4)
    return run(net, T(2, 3))  # FAULT


SHAPES["c_embedding_float_index"] = ("Float32",)


def c_concat_in_construct(run):
    class Net(nn.Cell):
        def construct(self, x, y):
            return ops.concat((x, y), 0)  # FAULT

    return run(Net(), T(2, 3), T(3, 4))


SHAPES["c_concat_in_construct"] = ("(2, 3)", "(3, 4)")


def c_stack_in_construct(run):
    class Net(nn.Cell):
        def construct(self, x, y):
            return ops.stack((x, y))  # FAULT

    return run(Net(), T(2, 3), T(2, 4))


SHAPES["c_stack_in_construct"] = ("(2, 3)", "(2, 4)")


def c_reshape_impossible(run):
    class Net(nn.Cell):
        def construct(self, x):
            return x.reshape(4, 4)  # FAULT

    return run(Net(), T(2, 3))


SHAPES["c_reshape_impossible"] = ("(2, 3)", "(4, 4)")


def c_list_indexed_by_tensor(run):
    class Net(nn.Cell):
        def construct(self, x, i):
            xs = [x, x + 1, x + 2]
            return xs[i]  # FAULT

    return run(Net(), T(2), Tensor(5))


SHAPES["c_list_indexed_by_tensor"] = ("5",)


def c_dict_indexed_by_tensor(run):
    class Net(nn.Cell):
        def construct(self, x, i):
            d = {"a": x, "b": x + 1}
            return d[i]  # FAULT

    return run(Net(), T(2), Tensor(1))


SHAPES["c_dict_indexed_by_tensor"] = ()


def c_tensor_as_bool(run):
    class Net(nn.Cell):
        def construct(self, x):
            if x:  # FAULT
                return x + 1
            return x - 1

    return run(Net(), T(3))


SHAPES["c_tensor_as_bool"] = ("(3,)",)


def c_undefined_attribute(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(3, 3)

        def construct(self, x):
            return self.fc2(x)  # FAULT

    return run(Net(), T(2, 3))


SHAPES["c_undefined_attribute"] = ("fc2",)


def c_undefined_method(run):
    class Net(nn.Cell):
        def construct(self, x):
            return self.forward_features(x)  # FAULT

    return run(Net(), T(2, 3))


SHAPES["c_undefined_method"] = ("forward_features",)


def c_ops_typo(run):
    class Net(nn.Cell):
        def construct(self, x):
            return ops.reducesum(x)  # FAULT

    return run(Net(), T(2, 3))


SHAPES["c_ops_typo"] = ("reducesum",)


def c_construct_too_many_args(run):
    class Net(nn.Cell):
        def construct(self, x):
            return x * 2

    return run(Net(), T(2), T(2))  # FAULT


SHAPES["c_construct_too_many_args"] = ()


def c_construct_too_few_args(run):
    class Net(nn.Cell):
        def construct(self, x, y):
            return x * y

    return run(Net(), T(2))  # FAULT


SHAPES["c_construct_too_few_args"] = ("y",)


def c_parameter_assign_shape(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(T(2, 2), name="w")

        def construct(self, x):
            ops.assign(self.w, x)  # FAULT
            return self.w * 1

    return run(Net(), T(3, 3))


SHAPES["c_parameter_assign_shape"] = ("(2, 2)", "(3, 3)")


def c_parameter_assign_dtype(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(T(2, 2), name="w")

        def construct(self, x):
            ops.assign(self.w, x)  # FAULT
            return self.w * 1

    return run(Net(), Tensor(np.ones((2, 2), np.bool_)))


SHAPES["c_parameter_assign_dtype"] = ("Float32", "Bool")


def c_set_data_shape(run):
    net = nn.Dense(3, 2)
    net.weight.set_data(T(3, 3))  # takes the new shape, as in MindSpore: the call is the fault
    return run(net, T(1, 3))  # FAULT


SHAPES["c_set_data_shape"] = ("[3]", "[2]")


def c_grad_weights_not_in_net(run):
    net = nn.Dense(3, 2)
    other = nn.Dense(3, 2)
    grad = ops.GradOperation(get_by_list=True)
    fn = grad(net, ms.ParameterTuple(other.trainable_params()))
    return run(fn, T(1, 3))  # FAULT


SHAPES["c_grad_weights_not_in_net"] = ()


def c_grad_position_out_of_range(run):
    net = nn.Dense(3, 2)
    fn = ms.value_and_grad(net, grad_position=2)
    return run(fn, T(1, 3))  # FAULT


SHAPES["c_grad_position_out_of_range"] = ("2",)


def c_optimizer_empty(run):
    ms.nn.Momentum([], 0.1, 0.9)  # FAULT


SHAPES["c_optimizer_empty"] = ()


def c_optimizer_not_parameters(run):
    ms.nn.SGD([T(2, 2)], 0.1)  # FAULT


SHAPES["c_optimizer_not_parameters"] = ("Tensor",)


def c_dataset_wrong_dtype(run):
    net = nn.Dense(3, 2)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), 0.1)
    data = {"x": np.ones((4, 3), np.float64), "y": np.zeros((4,), np.int32)}
    ds = ms.dataset.NumpySlicesDataset(data, shuffle=False).batch(2)
    model = ms.train.Model(net, loss, opt)
    model.train(1, ds)  # FAULT


SHAPES["c_dataset_wrong_dtype"] = ("Float64",)


def c_dataset_labels_float(run):
    net = nn.Dense(3, 2)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), 0.1)
    data = {"x": np.ones((4, 3), np.float32), "y": np.zeros((4,), np.float32)}
    ds = ms.dataset.NumpySlicesDataset(data, shuffle=False).batch(2)
    model = ms.train.Model(net, loss, opt)
    model.train(1, ds)  # FAULT


SHAPES["c_dataset_labels_float"] = ("Float32",)


def c_checkpoint_shapes(run):
    small = nn.Dense(3, 2)
    big = nn.Dense(4, 2)
    params = {p.name: p for p in small.get_parameters()}
    ms.load_param_into_net(big, params, strict_load=True)  # FAULT


SHAPES["c_checkpoint_shapes"] = ("(2, 3)", "(2, 4)")


def c_checkpoint_missing_strict(run):
    net = nn.Dense(3, 2)
    params = {"weight": Parameter(T(2, 3), name="weight")}
    left = ms.load_param_into_net(net, params, strict_load=True)  # FAULT
    return left


SHAPES["c_checkpoint_missing_strict"] = ("bias",)


def c_grad_of_int_input(run):
    class Net(nn.Cell):
        def construct(self, x):
            return (x * 2).sum()

    fn = ms.grad(Net())
    return run(fn, Tensor(np.array([1, 2, 3], np.int32)))  # FAULT


SHAPES["c_grad_of_int_input"] = ("Int32",)


def c_sens_shape(run):
    net = nn.Dense(3, 2)
    grad = ops.GradOperation(sens_param=True)
    fn = grad(net)
    return run(fn, T(4, 3), T(4, 5))  # FAULT


SHAPES["c_sens_shape"] = ("(4, 2)", "(4, 5)")


def c_train_one_step_sens(run):
    net = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepCell(net, opt, sens=T(2, 2))  # FAULT
    return run(step, T(4, 3), T(4, 2))


SHAPES["c_train_one_step_sens"] = ()


def c_forgot_super_init(run):
    class Net(nn.Cell):
        def __init__(self):
            self.fc = nn.Dense(3, 2)  # FAULT

        def construct(self, x):
            return self.fc(x)

    return run(Net(), T(1, 3))


SHAPES["c_forgot_super_init"] = ("super",)


def c_maxpool_kernel_too_big(run):
    net = nn.MaxPool2d(kernel_size=5, stride=1)
    return run(net, T(1, 1, 3, 3))  # FAULT


SHAPES["c_maxpool_kernel_too_big"] = ("(1, 1, 3, 3)",)


def c_dense_int_input(run):
    net = nn.Dense(3, 2)
    return run(net, T(2, 3, dtype=np.int32))  # FAULT


SHAPES["c_dense_int_input"] = ("Int32",)


def c_return_list_of_tensors(run):
    class Net(nn.Cell):
        def construct(self, x):
            return [x + 1, x * 2]

    out = run(Net(), T(2))
    assert len(out) == 2 and float(out[1].asnumpy()[0]) == 2.0, out
    return out


SHAPES["c_return_list_of_tensors"] = ()


CASES = [name for name in list(globals()) if name.startswith("c_")]
