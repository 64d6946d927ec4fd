# The MindSpore tutorial script of seed 003 (LeNet5 on MNIST, Model.train then Model.fit), unchanged except:
# no download (the test writes an MNIST-format folder), and the mode and the number of steps per epoch come
# from the command line (the tutorial used 1875 steps; the test data is smaller).
#
#     kiln run seed003_lenet.py PYNATIVE_MODE 8
#
# Kept byte-for-byte in the tutorial's own style, so linting and formatting are off for this file.
# ruff: noqa
# fmt: off
import sys

import numpy as np
import mindspore as ms
from mindspore import nn, Model, Parameter, Tensor
from mindspore.dataset import vision, transforms, MnistDataset
from mindspore.common.initializer import Normal
from mindspore import dtype as mstype

MODE = sys.argv[1]
STEPS = int(sys.argv[2])


def proc_dataset(data_path, batch_size=32):
    mnist_ds = MnistDataset(data_path, shuffle=True)

    # preprocess transformation operations
    image_transforms = [
        vision.Resize(32),
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW()
    ]

    label_transform = transforms.TypeCast(mstype.int32)

    mnist_ds = mnist_ds.map(operations=label_transform, input_columns="label")
    mnist_ds = mnist_ds.map(operations=image_transforms, input_columns="image")
    mnist_ds = mnist_ds.batch(batch_size, drop_remainder=True)
    return mnist_ds


# Define simple network structure.
class LeNet5(nn.Cell):

    def __init__(self, num_class=10, num_channel=1):
        super(LeNet5, self).__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode='valid')
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.counted = Parameter(Tensor(np.zeros((1))), requires_grad=False)

    def construct(self, x):
        if self.counted != Tensor(np.ones((1))):
            print("\nThis string is only printed in the PYNATIVE_MODE\n")
            self.counted = Tensor(np.ones((1)))
        x = self.conv1(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.conv2(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def create_model():
    model = LeNet5()
    net_loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    net_opt = nn.Momentum(model.trainable_params(), learning_rate=0.01, momentum=0.9)
    trainer = Model(model, loss_fn=net_loss, optimizer=net_opt, metrics={"Accuracy": nn.Accuracy()})
    return trainer


# Defining callbacks
from mindspore import LossMonitor
from mindspore import CheckpointConfig, ModelCheckpoint
from mindspore import TimeMonitor

loss_monitor = LossMonitor(STEPS)
config = CheckpointConfig(save_checkpoint_steps=STEPS, keep_checkpoint_max=10)
time_monitor = TimeMonitor(STEPS)
ckpt_callback = ModelCheckpoint(prefix="mnist", directory="./checkpoint", config=config)

train_dataset = proc_dataset('MNIST_Data/train')
test_dataset = proc_dataset('MNIST_Data/test')

# Configuring the dynamic graph mode
ms.set_context(mode=getattr(ms, MODE))

trainer = create_model()
trainer.train(3, train_dataset, callbacks=[ckpt_callback, loss_monitor, time_monitor])
print("\nEvaluation:\n")
trainer.fit(2, train_dataset, test_dataset, callbacks=[loss_monitor])
