"""The source datasets, by domain: base (the shared sampling and file handling), python (generators, arrays),
image_arrays, image_files, detection, text, audio, mindrecord and tfrecord. `kiln.dataset` exports them all."""
