"""MindSpore's checkpoint protobuf messages, built at import time from a descriptor.

The schema (verified against a file written by MindSpore 2.10):

    message Checkpoint {
      message Value {
        required string tag = 1;
        oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; }
      }
      repeated Value value = 1;
    }
    message TensorProto {
      repeated int64 dims = 1;          // proto2: not packed
      required string tensor_type = 2;  // "Float32", "Int32", ..., "str"
      required bytes tensor_content = 3;
    }
    message MapTensorProto { repeated TensorProto tensor = 1; }

Building the classes from a `FileDescriptorProto` keeps generated code out of
the repository; a private pool avoids clashing with MindSpore's own
`checkpoint.proto` if both libraries are imported in one process.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "kiln.checkpoint"


def _field(msg, name: str, number: int, ftype: int, label: int, type_name: str | None = None, oneof=None) -> None:
    f = msg.field.add()
    f.name, f.number, f.type, f.label = name, number, ftype, label
    if type_name is not None:
        f.type_name = type_name
    if oneof is not None:
        f.oneof_index = oneof


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(name="kiln_checkpoint.proto", package=_PACKAGE, syntax="proto2")

    tensor = fdp.message_type.add(name="TensorProto")
    _field(tensor, "dims", 1, _F.TYPE_INT64, _F.LABEL_REPEATED)
    _field(tensor, "tensor_type", 2, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(tensor, "tensor_content", 3, _F.TYPE_BYTES, _F.LABEL_REQUIRED)

    map_tensor = fdp.message_type.add(name="MapTensorProto")
    _field(map_tensor, "tensor", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, f".{_PACKAGE}.TensorProto")

    ckpt = fdp.message_type.add(name="Checkpoint")
    value = ckpt.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    _field(value, "tag", 1, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(value, "tensor", 2, _F.TYPE_MESSAGE, _F.LABEL_OPTIONAL, f".{_PACKAGE}.TensorProto", oneof=0)
    _field(value, "maptensor", 3, _F.TYPE_MESSAGE, _F.LABEL_OPTIONAL, f".{_PACKAGE}.MapTensorProto", oneof=0)
    _field(ckpt, "value", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, f".{_PACKAGE}.Checkpoint.Value")
    return fdp


def _message_class(pool: descriptor_pool.DescriptorPool, full_name: str):
    desc = pool.FindMessageTypeByName(full_name)
    get = getattr(message_factory, "GetMessageClass", None)
    if get is not None:
        return get(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)  # protobuf < 4.22


_pool = descriptor_pool.DescriptorPool()
_pool.Add(_file_descriptor())

Checkpoint = _message_class(_pool, f"{_PACKAGE}.Checkpoint")
TensorProto = _message_class(_pool, f"{_PACKAGE}.TensorProto")

__all__ = ["Checkpoint", "TensorProto"]
