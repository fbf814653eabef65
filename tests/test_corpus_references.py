"""The corpus's float64 answers, checked against published values and against each other."""

from __future__ import annotations

import numpy as np

from kernels.corpus._references import (
    attention64,
    grouped_attention64,
    philox4x32,
    ragged_attention64,
    threefry2x32,
    unpage,
)


def test_threefry_matches_the_random123_known_answers() -> None:
    """Threefry-2x32, 20 rounds: the known-answer vectors published with Random123."""
    vectors = [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    for key, (hi, lo), expected in vectors:
        out = threefry2x32(
            np.array(key, np.uint32), np.array([hi], np.uint32), np.array([lo], np.uint32)
        )
        assert (int(out[0][0]), int(out[1][0])) == expected


def test_grouped_decode_attention_is_attention_of_one_query_per_head() -> None:
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, 4, 8))  # [batch, q heads, dim]
    k, v = rng.standard_normal((2, 2, 6, 2, 8))  # [batch, seq, kv heads, dim]
    by_head = np.repeat(k, 2, axis=2), np.repeat(v, 2, axis=2)
    expected = attention64(q[:, None], *by_head, causal=False)[0][:, 0]
    np.testing.assert_allclose(grouped_attention64(q, k, v), expected)
    short = grouped_attention64(q, k, v, np.array([3, 6]))
    np.testing.assert_allclose(short[0], grouped_attention64(q[:1], k[:1, :3], v[:1, :3])[0])


def test_pages_gather_back_into_sequences() -> None:
    pages = np.arange(2 * 4 * 3 * 1).reshape(2, 4, 3, 1)  # [kv heads, pages, page size, dim]
    seq = unpage(pages, np.array([[2, 0]]))  # one sequence: page 2, then page 0
    assert seq.shape == (1, 6, 2, 1)
    assert seq[0, :, 0, 0].tolist() == [6, 7, 8, 0, 1, 2]


def test_a_decode_step_of_ragged_attention_is_decode_attention() -> None:
    """One sequence, one query row at its last position: no causal cut, the plain decode."""
    rng = np.random.default_rng(1)
    q = rng.standard_normal((1, 2, 8))
    kv_pages = rng.standard_normal((3, 4, 2, 8))  # one kv head: k at 0, v at 1
    out = ragged_attention64(q, kv_pages, np.array([10]), np.array([[1, 2, 0]]), np.array([0, 1]))
    seq = kv_pages[[1, 2, 0]].reshape(12, 2, 8)[:10]
    expected = grouped_attention64(q, seq[None, :, 0:1], seq[None, :, 1:2])
    np.testing.assert_allclose(out, expected)


def test_philox_matches_the_random123_known_answers() -> None:
    """Philox-4x32, 10 rounds: the known-answer vectors published with Random123."""
    vectors = [
        ((0, 0), (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        (
            (0xA4093822, 0x299F31D0),
            (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
        ),
    ]
    for key, counter, expected in vectors:
        out = philox4x32(np.array(key, np.uint32), tuple(np.array([c], np.uint32) for c in counter))
        assert tuple(int(word[0]) for word in out) == expected
