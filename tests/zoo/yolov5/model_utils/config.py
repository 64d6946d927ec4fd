"""Stand-in for the zoo's YAML-driven `model_utils.config` (official/cv/YOLOv5/model_utils/config.py reads
default_config.yaml and the command line): only the fields `src/yolo.py` reads, at a tiny size.

default_config.yaml's values are kept but for: `input_shape`, yolov5s's row alone (the YAML's narrowest and
shallowest: widths 32, 64, 128, 256, 512, depth 1); `num_classes` 4 (80: COCO's); `max_box` 4 (150);
`anchor_scales` the YAML's divided by 10, for 64x64 images instead of 640x640.
"""

from types import SimpleNamespace

config = SimpleNamespace(
    num_classes=4,
    max_box=4,
    ignore_threshold=0.7,
    anchor_scales=[
        [1.2, 1.6],
        [1.9, 3.6],
        [4.0, 2.8],
        [3.6, 7.5],
        [7.6, 5.5],
        [7.2, 14.6],
        [14.2, 11.0],
        [19.2, 24.3],
        [45.9, 40.1],
    ],
    out_channel=27,  # 3 * (num_classes + 5); YOLO sets it again
    input_shape=[[3, 32, 64, 128, 256, 512, 1]],
)
