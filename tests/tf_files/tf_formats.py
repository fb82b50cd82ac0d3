"""Readers of TensorFlow's on-disk formats written from their published descriptions, with
no code from ClusterLab: the table format of a checkpoint's .index (LevelDB's sorted string
table, as TensorFlow's tensorflow/core/lib/io/table keeps it), TFRecord framing, and CRC-32C
with TensorFlow's mask. The messages inside are decoded with modules generated from
TensorFlow's own .proto files."""

import struct

# CRC-32C (Castagnoli), reflected polynomial 0x82F63B78.
_CRC_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """The stored form TFRecord and the table's block trailers use: rotated right by 15 bits
    plus a constant, so that a CRC of data holding CRCs stays well distributed."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


class FormatError(Exception):
    pass


def _varint(data, pos):
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise FormatError("varint runs past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise FormatError("varint longer than 10 bytes")


TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48  # two block handles padded to 40 bytes, then the 8-byte magic number
BLOCK_TRAILER_SIZE = 5  # 1 byte compression type, 4 bytes masked CRC-32C


def _block_handle(data, pos):
    offset, pos = _varint(data, pos)
    size, pos = _varint(data, pos)
    return (offset, size), pos


def _read_block(file_bytes, handle, what):
    offset, size = handle
    end = offset + size
    if end + BLOCK_TRAILER_SIZE > len(file_bytes):
        raise FormatError(f"{what} block [{offset}, {end}) runs past the end of the file")
    contents = file_bytes[offset:end]
    compression = file_bytes[end]
    (stored_crc,) = struct.unpack_from("<I", file_bytes, end + 1)
    if masked_crc32c(contents + bytes([compression])) != stored_crc:
        raise FormatError(f"{what} block at {offset}: CRC-32C of contents and type does not match its trailer")
    if compression != 0:
        raise FormatError(f"{what} block at {offset}: compression type {compression} (expected 0, none)")
    return contents


def _block_entries(block, what):
    """(key, value) pairs of a block: prefix-compressed entries, then the restart offsets
    (fixed32 each) and their count (fixed32)."""
    if len(block) < 4:
        raise FormatError(f"{what} block shorter than its restart count")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise FormatError(f"{what} block: {num_restarts} restarts do not fit")
    restarts = struct.unpack_from(f"<{num_restarts}I", block, limit)
    pos, key, out = 0, b"", []
    while pos < limit:
        shared, pos = _varint(block, pos)
        non_shared, pos = _varint(block, pos)
        value_length, pos = _varint(block, pos)
        if shared > len(key):
            raise FormatError(f"{what} block: an entry shares {shared} bytes of a {len(key)}-byte key")
        if pos in restarts and shared != 0:
            raise FormatError(f"{what} block: an entry at a restart point shares bytes")
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        value = block[pos:pos + value_length]
        pos += value_length
        if pos > limit:
            raise FormatError(f"{what} block: an entry runs into the restart array")
        if out and out[-1][0] >= key:
            raise FormatError(f"{what} block: key {key!r} does not follow {out[-1][0]!r} in order")
        out.append((key, value))
    return out


def read_table(file_bytes):
    """Every (key, value) of a table file, in order; FormatError names what is wrong."""
    if len(file_bytes) < FOOTER_SIZE:
        raise FormatError(f"{len(file_bytes)} bytes: shorter than the table footer")
    footer = file_bytes[-FOOTER_SIZE:]
    (magic,) = struct.unpack_from("<Q", footer, 40)
    if magic != TABLE_MAGIC:
        raise FormatError(f"bad table magic number {magic:#x}")
    metaindex, pos = _block_handle(footer, 0)
    index, _ = _block_handle(footer, pos)
    _read_block(file_bytes, metaindex, "metaindex")
    entries = []
    for last_key, handle_bytes in _block_entries(_read_block(file_bytes, index, "index"), "index"):
        handle, _ = _block_handle(handle_bytes, 0)
        block = _block_entries(_read_block(file_bytes, handle, "data"), "data")
        if block and block[-1][0] > last_key:
            raise FormatError(f"data block's last key {block[-1][0]!r} is after its index key {last_key!r}")
        if entries and block and block[0][0] <= entries[-1][0]:
            raise FormatError("data blocks are not in key order")
        entries += block
    return entries


def read_records(file_bytes):
    """The records of a TFRecord file: length (fixed64), masked CRC of the length, data,
    masked CRC of the data."""
    pos, out = 0, []
    while pos < len(file_bytes):
        if pos + 12 > len(file_bytes):
            raise FormatError(f"record at {pos}: truncated header")
        header = file_bytes[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack_from("<I", file_bytes, pos + 8)
        if masked_crc32c(header) != length_crc:
            raise FormatError(f"record at {pos}: length CRC does not match")
        start = pos + 12
        end = start + length
        if end + 4 > len(file_bytes):
            raise FormatError(f"record at {pos}: {length} bytes of data run past the end")
        data = file_bytes[start:end]
        (data_crc,) = struct.unpack_from("<I", file_bytes, end)
        if masked_crc32c(data) != data_crc:
            raise FormatError(f"record at {pos}: data CRC does not match")
        out.append(data)
        pos = end + 4
    return out
