"""The zoo's MobileNetV2 (official/cv/MobileNet/mobilenetv2), trained three steps against MindSpore 2.10's losses."""
