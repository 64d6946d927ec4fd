"""Four steps of the zoo's YOLOv5 (official/cv/YOLOv5/src: YOLOV5's input normalisation, NHWC->NCHW transpose and
Focus space-to-depth by strided slices and Concat; the backbone's Conv (Conv2d 'same'/'pad', BatchNorm2d with
momentum 0.97, eps 1e-3, the zoo's SiLU of ops.Sigmoid), BottleneckCSPs with and without shortcut, SPP (three 'same'
MaxPool2d of 5, 9, 13 and Concat); the PAN neck's ResizeNearestNeighbor upsampling; the 1x1 YoloBlocks and three
DetectionBlocks (Reshape, Transpose, a grid of ms.numpy.arange and Tile, sigmoid and exp box decoding against the
anchors)) through YoloWithLossCell: per scale YoloLossBlock's IoU against every padded ground-truth box, ReduceMax
and an ignore mask under stop_gradient, ConfidenceLoss and ClassLoss (SigmoidCrossEntropyWithLogits, ReduceSum over
all axes), GIoU (clip_by_value) of the xywh->x1y1x2y2 boxes, the scales weighted 1, 1, 0.2 and divided by the batch.
Trained as train.py wires it: the no-decay (bias, gamma, beta) / decay parameter groups of util.get_param_groups,
nn.Momentum (0.9, weight decay 5e-4, loss_scale 1024) on lr_scheduler.get_lr's cosine_annealing array, and
nn.TrainOneStepCell with sensitivity loss_scale // 2 = 512. Then train.py's and eval.py's eval path: a second
YOLOV5(is_training=False), the trained parameters loaded into it by train.py's load_parameters (the 'yolo_network.'
prefix stripped, 'moments.' skipped), and its decoded boxes (xy, wh, sigmoid confidence and class probabilities);
and export.py's: the TrainOneStepCell saved by ms.save_checkpoint as train.py does, loaded as it is into
YOLOV5s_Infer (whose input_shape is a Python int), exported to MINDIR at an int8 zero input, and read back by
nn.GraphCell to decode an int8 image.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_yolov5.py MODE...; for each
MODE it prints `MODE losses: ...`, `MODE step1 state: ...` and `MODE state: ...` (after the first and the last step:
the sum of each parameter, the absolute sum of each momentum, the sum of each BatchNorm moving statistic) and `MODE
eval state: ...`: the counts of parameters load_param_into_net did not load and of entries it did not use (304:
train.py's keys are the TrainOneStepCell's structural names, so the 183 momenta, 'optimizer.moments....', are not
skipped, and the 120 BatchNorm statistics, 'network.yolo_network....', load by their trailing names), then for each
of the three decoded outputs the sums of x, y, w, h, confidence and class probabilities, then the first image's 8
highest confidences; and `MODE export state: ...`: the same two counts for the checkpoint loaded into YOLOV5s_Infer
(0 and 487: its parameters are 'network.feature_map....', found by prefix under the checkpoint's
'yolo_network.feature_map....'), then the GraphCell's decoded sums for the first batch's image minus 128 as int8.

The zoo trains yolov5s (widths 32..512, depth 1) on 640x640 COCO, batch 32, 80 classes; here the stand-in config
(model_utils/config.py) keeps yolov5s's widths and depth, with 4 classes and the anchors scaled by 1/10, on 2 images
of 64x64 (2x2, 4x4 and 8x8 grids), with 3 synthetic boxes per image turned into the zoo's targets (per scale y_true of
[grid_y, grid_x, anchor, xywh + objectness + one-hot class], padded gt_box lists of max_box 4) by the best anchor, as
transforms._preprocess_true_boxes does in its best-anchor pass (transforms.py needs cv2; its top-4 IoU pass is left
out). Weights are NumPy-seeded in the kinds of initializer.default_recurisive_init (HeUniform(sqrt(5)) convolutions,
which draw from MindSpore's generator), BatchNorm gamma and beta perturbed. get_lr runs with one step per epoch,
warm-up 2 of 4 epochs, at lr 0.001 (the config's 0.01 / 10: at 0.01 batch 2 blew the weights up within four steps
at a quarter of these widths, and the eval network's box widths overflowed to inf).
"""

import os
import sys
import tempfile
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_utils.config import config  # noqa: E402
from src.lr_scheduler import get_lr  # noqa: E402
from src.yolo import YOLOV5, YOLOV5s_Infer, YoloWithLossCell  # noqa: E402

BATCH, SIZE, STEPS, BOXES = 2, 64, 4, 3
LR = SimpleNamespace(lr_scheduler="cosine_annealing", lr=0.001, warmup_epochs=2, max_epoch=STEPS, T_max=STEPS,
                     eta_min=0.0)  # fmt: skip


def get_param_groups(network):
    """util.get_param_groups (util.py imports pycocotools at its top): biases, gammas and betas undecayed."""
    no_decay = [x for x in network.trainable_params() if x.name.endswith((".bias", ".gamma", ".beta"))]
    decay = [x for x in network.trainable_params() if not x.name.endswith((".bias", ".gamma", ".beta"))]
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay}]


def init_weights(net) -> None:
    """NumPy-seeded weights: HeUniform(sqrt(5)) convolutions (bound 1 / sqrt(fan_in)), BatchNorm gamma near 1 and
    beta near 0, the YoloBlocks' biases uniform in the same bound."""
    rng = np.random.RandomState(5)
    fan_in = 1
    for p in net.trainable_params():
        shape = p.shape
        if len(shape) == 4:
            fan_in = shape[1] * shape[2] * shape[3]
            value = rng.uniform(-1, 1, shape) / np.sqrt(fan_in)
        elif p.name.endswith(".bias"):  # follows its weight
            value = rng.uniform(-1, 1, shape) / np.sqrt(fan_in)
        elif p.name.endswith(".gamma"):
            value = 1 + 0.1 * rng.standard_normal(shape)
        else:  # beta
            value = 0.1 * rng.standard_normal(shape)
        p.set_data(Tensor(value.astype(np.float32)))


def targets(rng):
    """Synthetic boxes in the zoo's target format: per image, y_true for the stride-32, 16 and 8 grids (the anchor
    masks 6-8, 3-5, 0-2) and the padded gt_box of each, as transforms._preprocess_true_boxes returns them."""
    anchors = np.array(config.anchor_scales, np.float32)
    anchor_mask = [[6, 7, 8], [3, 4, 5], [0, 1, 2]]
    classes, max_box = config.num_classes, config.max_box
    grids = [SIZE // 32, SIZE // 16, SIZE // 8]
    y_true = [np.zeros((BATCH, g, g, 3, 5 + classes), np.float32) for g in grids]
    gt_box = [np.zeros((BATCH, max_box, 4), np.float32) for _ in grids]
    for b in range(BATCH):
        for _ in range(BOXES):
            wh = rng.uniform(4, 40, 2).astype(np.float32)
            xy = rng.uniform(wh / 2, SIZE - wh / 2).astype(np.float32)
            c = rng.randint(classes)
            inter = np.minimum(wh, anchors).prod(-1)
            n = int(np.argmax(inter / (wh.prod() + anchors.prod(-1) - inter)))
            for l, mask in enumerate(anchor_mask):
                if n in mask:
                    i, j = (np.floor(xy / SIZE * grids[l])).astype(np.int32)
                    y_true[l][b, j, i, mask.index(n), 0:2] = xy / SIZE
                    y_true[l][b, j, i, mask.index(n), 2:4] = wh / SIZE
                    y_true[l][b, j, i, mask.index(n), 4] = 1.0
                    y_true[l][b, j, i, mask.index(n), 5 + c] = 1.0
        for l in range(3):
            boxes = y_true[l][b][y_true[l][b, ..., 4] == 1][:, 0:4][:max_box]
            gt_box[l][b, : len(boxes)] = boxes
    return y_true, gt_box


def state_sums(net, optimizer) -> list[float]:
    """The sum of each parameter, the absolute sum of each momentum and the sum of each BatchNorm moving statistic."""
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moments]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    return state


def load_parameters(val_network, train_network):
    """train.py's load_parameters, without its logger."""
    param_dict_new = {}
    for key, values in train_network.parameters_and_names():
        if key.startswith("moments."):
            continue
        elif key.startswith("yolo_network."):
            param_dict_new[key[13:]] = values
        else:
            param_dict_new[key] = values
    return ms.load_param_into_net(val_network, param_dict_new)


def decoded_sums(outputs) -> list[float]:
    """For each decoded output, the sums of x, y, w, h, confidence and the class probabilities."""
    sums = []
    for out in outputs:
        out = out.asnumpy().astype(np.float64)
        sums += [float(out[..., k].sum()) for k in range(5)] + [float(out[..., 5:].sum())]
    return sums


def export_path(train, image) -> list[float]:
    """train.py's checkpoint of the TrainOneStepCell, then export.py: YOLOV5s_Infer at the image size, the checkpoint
    loaded as it is, exported to MINDIR at an int8 zero input; read back through nn.GraphCell, it decodes `image`
    (int8). Returns the counts load_param_into_net did not load and did not use, then the decoded sums."""
    with tempfile.TemporaryDirectory() as folder:
        ckpt = os.path.join(folder, "yolov5_1_4.ckpt")
        ms.save_checkpoint(train, ckpt)
        network = YOLOV5s_Infer(SIZE)
        network.set_train(False)
        not_loaded = ms.load_param_into_net(network, ms.load_checkpoint(ckpt))
        input_data = ms.numpy.zeros([BATCH, SIZE, SIZE, 3], ms.int8)
        ms.export(network, input_data, file_name=os.path.join(folder, "yolov5"), file_format="MINDIR")
        graph = nn.GraphCell(ms.load(os.path.join(folder, "yolov5.mindir")))
        outputs = graph(Tensor(image))
    return [float(len(not_loaded[0])), float(len(not_loaded[1]))] + decoded_sums(outputs)


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(7)
    images = rng.uniform(0, 255, (STEPS, BATCH, SIZE, SIZE, 3)).astype(np.float32)
    data = [targets(rng) for _ in range(STEPS)]
    network = YOLOV5(is_training=True)
    init_weights(network)
    network = YoloWithLossCell(network)
    lr = get_lr(LR, 1)
    opt = nn.Momentum(params=get_param_groups(network), momentum=0.9, learning_rate=Tensor(lr), weight_decay=0.0005,
                      loss_scale=1024)  # fmt: skip
    train = nn.TrainOneStepCell(network, opt, 1024 // 2)
    train.set_train()
    input_shape = Tensor(images.shape[2:4], ms.float32)
    losses = []
    for step in range(STEPS):
        y_true, gt_box = data[step]
        loss = train(Tensor(images[step]), *(Tensor(y) for y in y_true), *(Tensor(g) for g in gt_box), input_shape)
        losses.append(float(loss.asnumpy()))
        if step == 0:
            first = state_sums(network, opt)
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} step1 state:", " ".join(repr(v) for v in first))
    print(f"{mode} state:", " ".join(repr(v) for v in state_sums(network, opt)))

    val_network = YOLOV5(is_training=False)
    not_loaded = load_parameters(val_network, train)
    val_network.set_train(False)
    outputs = val_network(Tensor(images[0]), input_shape)
    evals = [float(len(not_loaded[0])), float(len(not_loaded[1]))] + decoded_sums(outputs)
    conf = np.concatenate([o.asnumpy()[0, ..., 4].reshape(-1) for o in outputs])
    evals += [float(v) for v in np.sort(conf)[-8:]]
    print(f"{mode} eval state:", " ".join(repr(v) for v in evals))
    exported = export_path(train, (images[0] - 128).astype(np.int8))
    print(f"{mode} export state:", " ".join(repr(v) for v in exported))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
