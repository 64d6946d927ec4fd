"""The parameters of public kiln.dataset / kiln.mindrecord signatures that are accepted and never read, each with
the reason the rows cannot differ from MindSpore's (tests/dataset/test_unread_parameters.py keeps it complete).

Parameters that can change results are not here: they are implemented (GeneratorDataset(schema=), `decrypt` of
the image-file sources, output_shapes(estimate=)), refused (`decrypt` of archive sources) or warn once
(VOCDataset/CocoDataset(extra_metadata=True), set_debug_mode(debug_hook_list=)).
"""

UNREAD_PARAMETERS: dict[str, str] = {
    "dataset/sources/base.py:SampledSource shared(cache)": (
        "a DatasetCache server only saves reading rows again; Kiln reads them again, the same rows"
    ),
    "dataset/engine.py:Dataset.filter(num_parallel_workers)": (
        "predicate threads: filter keeps the same rows in the same order with one"
    ),
    "dataset/engine.py:Dataset.batch(num_parallel_workers)": (
        "batching threads: the batches are the same, built in order on one"
    ),
    "dataset/engine.py:Dataset.padded_batch(num_parallel_workers)": (
        "batching threads: the padded batches are the same, built in order on one"
    ),
    "dataset/engine.py:Dataset.create_tuple_iterator(do_copy)": (
        "MindSpore's choice of copying into Tensors; Kiln's Tensors never alias the pipeline's arrays"
    ),
    "dataset/engine.py:Dataset.create_dict_iterator(do_copy)": (
        "MindSpore's choice of copying into Tensors; Kiln's Tensors never alias the pipeline's arrays"
    ),
    "dataset/sources/python.py:GeneratorDataset.__init__(python_multiprocessing)": (
        "processes instead of threads for the source: the rows and their order are the same"
    ),
    "dataset/sources/python.py:GeneratorDataset.__init__(max_rowsize)": (
        "the shared-memory size of MindSpore's worker processes, which Kiln's threads do not use"
    ),
    "dataset/sources/python.py:RandomDataset.__init__(cache)": (
        "a DatasetCache server only saves generating rows again; Kiln generates the same rows again"
    ),
    "dataset/sources/text.py:CSVDataset.__init__(cache)": (
        "a DatasetCache server only saves reading rows again; Kiln reads them again, the same rows"
    ),
    "dataset/sources/tfrecord.py:TFRecordDataset.__init__(cache)": (
        "a DatasetCache server only saves reading rows again; Kiln reads them again, the same rows"
    ),
    "dataset/callbacks.py:WaitedDSCallback.end(run_context)": (
        "training's run context: the pipeline only needs to know that training ended"
    ),
    "mindrecord/filereader.py:FileReader.__init__(operator)": (
        "reserved by MindSpore for future use; it does nothing there either"
    ),
    "mindrecord/filewriter.py:FileWriter.write_raw_data(parallel_writer)": (
        "writer threads: the rows and the files written are the same"
    ),
    "mindrecord/mindpage.py:MindPage.__init__(num_consumer)": ("reader threads: the pages read are the same"),
}
