"""Packed repeated numbers of a protobuf message as numpy arrays without a Python object per
number: the message is serialized (a memory copy in the C implementation) and its packed fields
are found by walking the protobuf wire format's few top-level tags, then viewed with
numpy.frombuffer. Reading `message.positions_m` element by element instead costs one Python
float per coordinate (about 5 ms per 100k numbers), which is what made Session.step slow on
large deformables."""

import numpy as np

_WIRE_VARINT, _WIRE_FIXED64, _WIRE_LENGTH, _WIRE_FIXED32 = 0, 1, 2, 5


def _varint(data, position):
    result = shift = 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, position
        shift += 7


def packed_arrays(message, dtypes):
    """{field number: numpy array} for the packed repeated fields of `message` named by `dtypes`
    ({field number: numpy dtype, e.g. "<f8" for double, "<f4" for float}); a field that is absent
    gives an empty array. The arrays are writable and own (share) one copy of the message's
    bytes."""
    data = bytearray(message.SerializeToString())
    chunks = {number: [] for number in dtypes}
    position, end = 0, len(data)
    while position < end:
        key, position = _varint(data, position)
        number, wire_type = key >> 3, key & 7
        if wire_type == _WIRE_VARINT:
            _, position = _varint(data, position)
        elif wire_type == _WIRE_FIXED64:
            if number in dtypes:  # written unpacked (legal on the wire): take the slow path
                return _fallback(message, dtypes)
            position += 8
        elif wire_type == _WIRE_FIXED32:
            if number in dtypes:
                return _fallback(message, dtypes)
            position += 4
        elif wire_type == _WIRE_LENGTH:
            length, position = _varint(data, position)
            if number in dtypes:
                dtype = np.dtype(dtypes[number])
                chunks[number].append(np.frombuffer(data, dtype=dtype,
                                                    count=length // dtype.itemsize,
                                                    offset=position))
            position += length
        else:
            raise ValueError(f"unexpected protobuf wire type {wire_type} in "
                             f"{message.DESCRIPTOR.full_name}")
    result = {}
    for number, parts in chunks.items():
        if not parts:
            result[number] = np.empty(0, dtype=dtypes[number])
        else:
            result[number] = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return result


def _fallback(message, dtypes):
    by_number = message.DESCRIPTOR.fields_by_number
    return {number: np.array(getattr(message, by_number[number].name), dtype=dtype)
            for number, dtype in dtypes.items()}


def xyz(values):
    """A packed x y z array as shape (n, 3) (a view)."""
    return values.reshape(-1, 3)
