"""The stored recommendation's compression (decision 0081): Zstandard written, zlib still read."""

import zlib

import pytest

from advisor.recommendation import compression

DATA = b'{"options": [' + b'{"key": "gy-h800", "cost_cny": "1234.50"},' * 400 + b"]}"


@pytest.mark.parametrize(
    ("written", "kind"),
    [
        (compression.compress(DATA), "zstandard"),
        (zlib.compress(DATA, 1), "zlib level 1 (decision 0058)"),
        (zlib.compress(DATA, 9), "zlib level 9"),
    ],
)
def test_what_was_written_reads_back(written, kind):
    assert compression.decompress(written) == DATA, kind
    assert compression.decompress(memoryview(written)) == DATA, kind  # as a database returns it


def test_written_bytes_are_a_zstandard_frame_smaller_than_the_data():
    written = compression.compress(DATA)
    assert written[:4] == bytes.fromhex("28b52ffd")
    assert len(written) < len(DATA) / 10


@pytest.mark.parametrize(
    "damaged",
    [
        b"",
        b"not compressed",
        compression.compress(DATA)[:-8],  # a frame cut short
        bytes.fromhex("28b52ffd") + b"\x00" * 12,  # the magic number and nothing sensible
        zlib.compress(DATA)[:-4],
    ],
)
def test_damaged_bytes_raise_unreadable(damaged):
    with pytest.raises(compression.Unreadable):
        compression.decompress(damaged)
