"""A small protobuf wire encoder for tests: the bodies clients send
(application/vnd.kubernetes.protobuf: "k8s\\0" and a runtime.Unknown
envelope) and the messages inside them, built field by field so a test
says exactly which bytes go out."""

MAGIC = b"k8s\x00"


def varint(n):
    """Base-128 varint of n (negative int64 as two's complement)."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wire):
    return varint(num << 3 | wire)


def uint(num, n):
    """A varint field (int32, int64, bool, enum)."""
    return key(num, 0) + varint(int(n))


def string(num, s):
    """A length-delimited field: bytes, a string or an encoded message."""
    if isinstance(s, str):
        s = s.encode()
    return key(num, 2) + varint(len(s)) + s


def message(*fields):
    return b"".join(fields)


def envelope(api_version, kind, raw):
    """A whole body: magic, Unknown{typeMeta{apiVersion, kind}, raw}."""
    tm = message(string(1, api_version), string(2, kind))
    return MAGIC + message(string(1, tm), string(2, raw),
                           string(3, b""), string(4, b""))


def delete_options(grace=None, uid=None, rv=None, orphan=None,
                   policy=None, dry_run=()):
    """metav1.DeleteOptions as gogo-protobuf marshals it."""
    f = []
    if grace is not None:
        f.append(uint(1, grace))
    if uid is not None or rv is not None:
        pre = []
        if uid is not None:
            pre.append(string(1, uid))
        if rv is not None:
            pre.append(string(2, rv))
        f.append(string(2, message(*pre)))
    if orphan is not None:
        f.append(uint(3, orphan))
    if policy is not None:
        f.append(string(4, policy))
    for d in dry_run:
        f.append(string(5, d))
    return message(*f)


def fields(data):
    """Decodes one message into [(number, value)]: ints for varints,
    bytes for length-delimited fields, 8 raw bytes for fixed64."""
    out, i = [], 0
    while i < len(data):
        k, i = _read_varint(data, i)
        num, wire = k >> 3, k & 7
        if wire == 0:
            v, i = _read_varint(data, i)
        elif wire == 2:
            n, i = _read_varint(data, i)
            v, i = data[i:i + n], i + n
            assert i <= len(data), "truncated field %d" % num
        elif wire == 1:
            v, i = data[i:i + 8], i + 8
        elif wire == 5:
            v, i = data[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        out.append((num, v))
    return out


def _read_varint(data, i):
    n, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def get(data, num):
    """The values of field num, in order."""
    return [v for n, v in fields(data) if n == num]
