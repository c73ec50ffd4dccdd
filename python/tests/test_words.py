"""ndma.asm, disasm, decode, encode, validate, describe, lower."""

import numpy as np
import pytest

import ndma
from conftest import example

MEMCPY = example("memcpy.s")


def test_asm_bytes_from_the_spec():
    w = ndma.asm(MEMCPY)
    assert isinstance(w, bytes) and len(w) == 2 * 64
    # field-tables: byte 0 is the opcode (0xb8 DMAMEMCPY), byte 1 inst_word_len in 4-byte words (0x10)
    assert w[0] == 0xB8 and w[64] == 0xB8
    assert w[1] == 0x10 and w[65] == 0x10


def test_round_trips():
    w = ndma.asm(MEMCPY)
    assert ndma.asm(ndma.disasm(w, "cayman")) == w
    d = ndma.decode(w, "cayman")
    assert [x["mnemonic"] for x in d] == ["DMAMEMCPY", "DMAMEMCPY"]
    assert [x["offset"] for x in d] == [0, 64]
    assert ndma.encode(d, "cayman") == w
    assert ndma.decode(bytearray(w), "cayman") == d
    assert ndma.decode(np.frombuffer(w, np.uint8), "cayman") == d


def test_encode_changes_the_field_describe_places():
    w = ndma.asm(MEMCPY)
    d = ndma.decode(w, "cayman")[0]
    row = [f for f in ndma.describe("DMAMEMCPY", "cayman")["fields"] if f["field"].endswith("semaphore")]
    assert len(row) == 1 and row[0]["width"] == 8
    d["fields"]["semaphore"] = 77
    w2 = ndma.encode(d, "cayman")
    diff = [i for i in range(64) if w2[i] != w[i]]
    assert diff == [row[0]["offset"]] and w2[row[0]["offset"]] == 77


def test_describe():
    d = ndma.describe(0xB8, "cayman")
    assert d["opcode"] == 0xB8 and d["mnemonic"] == "DMAMEMCPY"
    assert d["fields"][0]["field"] == "header.opcode" and d["fields"][0]["offset"] == 0
    assert all(set(f) >= {"offset", "bit", "width", "field", "type", "prov", "reserved", "note"} for f in d["fields"])
    with pytest.raises(ndma.InputError):
        ndma.describe("NO_SUCH_OPCODE")


def broken_transpose():
    text = example("transpose.s")
    assert "tile_src_rows=16" in text
    return text.replace("tile_src_rows=16", "tile_src_rows=8")


def test_validation_names_the_predicate():
    with pytest.raises(ndma.ValidationError) as e:
        ndma.asm(broken_transpose())
    assert "has_valid_xpose_tile_rows_temporary" in str(e.value)
    assert any(p["predicate"] == "has_valid_xpose_tile_rows_temporary" for p in e.value.problems)
    assert isinstance(e.value, ValueError)
    w = ndma.asm(broken_transpose(), validate=False)
    ps = ndma.validate(w, "cayman")
    hit = [p for p in ps if p.predicate == "has_valid_xpose_tile_rows_temporary"]
    assert hit and hit[0].field.endswith("tile_src_rows") and hit[0].value == "8" and hit[0].severity == "error"
    assert ndma.validate(ndma.asm(MEMCPY), "cayman") == []


def test_asm_errors():
    with pytest.raises(ndma.AsmError) as e:
        ndma.asm(".gen cayman\ndmamemcpy no_such_field=1\n")
    assert e.value.diagnostics[0]["line"] == 2
    with pytest.raises(ndma.InputError):
        ndma.asm(b"bytes")
    with pytest.raises(ndma.InputError) as e:
        ndma.disasm(b"\0" * 63, "cayman")
    assert e.value.name == "words"
    with pytest.raises(ndma.InputError):
        ndma.disasm(ndma.asm(MEMCPY), "no-such-gen")
    with pytest.raises(ndma.InputError):
        ndma.validate(ndma.asm(MEMCPY), None)
    with pytest.raises(ndma.InputError):
        ndma.encode([{"mnemonic": "DMAMEMCPY", "fields": {"semaphore": 1 << 20}}], "cayman")


def test_lower():
    w = ndma.asm(MEMCPY)
    lw = ndma.lower(w, "cayman")
    assert [p["offset"] for p in lw.program] == [0, 64]
    assert all(p["trace"] and p["backend"] for p in lw.program)
    ds = lw.descriptors
    assert ds.dtype == ndma.DESCRIPTOR and ds.dtype.itemsize == 50
    for word in (0, 1):
        m2s = ds[(ds["word"] == word) & (ds["leg"] == 0)]
        assert m2s["length"].sum() == 128 * 4  # 128 fp32 elements read
        assert m2s["first"][0] and m2s["last"][-1]
    # the first word reads hbm:0x0: the HBM window's SoC base (field-tables §11.2), 0x1_0000_0000
    first = ds[(ds["word"] == 0) & (ds["leg"] == 0)][0]
    assert first["buf_ptr"] == 0x1_0000_0000
    # the raw 16 bytes hold what the record states: length in bits 0-15 of word 0
    # (0 = 64 KiB), buf_ptr in bytes 8-15, little-endian (docs/sim.md descriptor layout)
    for d in ds:
        raw = bytes(d["raw"])
        assert (int.from_bytes(raw[0:2], "little") or 65536) == int(d["length"])
        assert int.from_bytes(raw[8:16], "little") == int(d["buf_ptr"])
    with pytest.raises(ndma.InputError):
        ndma.lower(w, "cayman", backend="nope")


def test_panic_does_not_cross():
    from ndma import _lib
    with pytest.raises(ndma.Error) as e:
        _lib.call("panic")
    assert "internal error" in str(e.value)
    assert ndma.disasm(ndma.asm(MEMCPY), "cayman")  # the library still works after it
