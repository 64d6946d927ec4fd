"""Every `ops` function, Tensor method and Primitive class called on standard inputs, in MindSpore 2.10 and in Kiln,
and Kiln's GRAPH_MODE against its PyNative: where they differ (see README.md)."""
