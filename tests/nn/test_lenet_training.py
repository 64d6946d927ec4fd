"""A MindSpore 2.x-style LeNet5 loop (value_and_grad + Momentum) in PyNative learns a task the test makes."""

import numpy as np

import kiln as ms
from kiln import nn
from kiln.demo.lenet import LeNet5


def _templates_dataset(templates: np.ndarray, n: int, rng: np.random.Generator):
    """Each sample is one of ten fixed 32x32 patterns plus noise, labelled by the pattern's index."""
    labels = rng.integers(0, 10, n)
    images = templates[labels] + 0.5 * rng.standard_normal((n, 1, 32, 32)).astype(np.float32)
    return images, labels.astype(np.int32)


def test_lenet5_pynative_training_reaches_a_low_loss():
    ms.set_seed(1)
    rng = np.random.default_rng(1)
    templates = rng.standard_normal((10, 1, 32, 32)).astype(np.float32)
    images, labels = _templates_dataset(templates, 320, rng)
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    # At learning rate 0.05 this loop sits at the edge of stability: two of eight init seeds end with loss > 1, and
    # one-ulp differences between CPUs flipped this test. At 0.02 all eight seeds end below 1e-4 by epoch 30.
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9)

    def forward_fn(data, label):
        logits = net(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    net.set_train()
    losses = []
    for _epoch in range(30):
        for i in range(0, len(images), 32):
            losses.append(float(train_step(ms.Tensor(images[i : i + 32]), ms.Tensor(labels[i : i + 32]))))
    assert np.isfinite(losses).all()
    assert np.mean(losses[:5]) > 2.0  # ln(10) ~ 2.3 at the start
    assert np.mean(losses[-5:]) < 0.1
    net.set_train(False)
    test_images, test_labels = _templates_dataset(templates, 200, np.random.default_rng(2))
    predicted = net(ms.Tensor(test_images)).asnumpy().argmax(axis=1)
    # New samples of the same ten patterns: chance is 10%.
    assert (predicted == test_labels).mean() > 0.9
