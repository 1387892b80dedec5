"""A minimal protobuf wire codec for the end-to-end suites, which must
write and read Kubernetes protobuf bodies (application/vnd.kubernetes.
protobuf) that the Python client cannot.

A message is a list of (field number, value) pairs, in wire order:

    bool or int     varint (wire type 0)
    float           double, fixed64 (wire type 1)
    str, bytes      length-delimited (wire type 2), str as UTF-8
    list            a nested message, length-delimited

decode() gives the same shape back, with length-delimited values as bytes
(decode them again to descend) and fixed64 values as floats.

    body = envelope("v1", "ConfigMap", encode([(1, [(1, "name")])]))
    api_version, kind, raw = unwrap(r.body)
"""

import struct

MAGIC = b"k8s\x00"


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def encode(fields):
    """The bytes of a message given as (number, value) pairs."""
    out = bytearray()
    for num, value in fields:
        if isinstance(value, (bool, int)):
            out += _varint(num << 3) + _varint(int(value))
        elif isinstance(value, float):
            out += _varint(num << 3 | 1) + struct.pack("<d", value)
        else:
            if isinstance(value, str):
                value = value.encode()
            elif isinstance(value, list):
                value = encode(value)
            out += _varint(num << 3 | 2) + _varint(len(value)) + value
    return bytes(out)


def _read_varint(data, i):
    n = shift = 0
    while True:
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return n, i


def decode(data):
    """The (number, value) pairs of a message's bytes."""
    fields = []
    i = 0
    while i < len(data):
        tag, i = _read_varint(data, i)
        num, wire = tag >> 3, tag & 7
        if wire == 0:
            value, i = _read_varint(data, i)
        elif wire == 1:
            value = struct.unpack("<d", data[i:i + 8])[0]
            i += 8
        elif wire == 2:
            n, i = _read_varint(data, i)
            value = data[i:i + n]
            i += n
        elif wire == 5:
            value = data[i:i + 4]
            i += 4
        else:
            raise ValueError("wire type %d" % wire)
        fields.append((num, value))
    return fields


def get(fields, num, default=None):
    """The last value of field num (protobuf: the last one wins)."""
    values = every(fields, num)
    return values[-1] if values else default


def every(fields, num):
    """The values of a repeated field num."""
    return [v for n, v in fields if n == num]


def envelope(api_version, kind, raw):
    """A body: magic, then runtime.Unknown{TypeMeta, raw, "", ""}."""
    return MAGIC + encode([(1, [(1, api_version), (2, kind)]), (2, raw),
                           (3, b""), (4, b"")])


def unwrap(body):
    """(apiVersion, kind, raw message bytes) of a body."""
    assert body[:4] == MAGIC, body[:16]
    unknown = decode(body[4:])
    type_meta = decode(get(unknown, 1, b""))
    return (get(type_meta, 1, b"").decode(), get(type_meta, 2, b"").decode(),
            get(unknown, 2, b""))
