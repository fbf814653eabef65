"""The float64 answers, written from the math (never from the reference functions that ship
in the files under test)."""

from __future__ import annotations

import numpy as np


def softmax64(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention64(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool
) -> tuple[np.ndarray, np.ndarray]:
    """[batch, seq, heads, dim]; (output, d sum(output) / dq), scale 1, float64."""
    logits = np.einsum("bqhd,bkhd->bhqk", q, k)
    if causal:
        seq = q.shape[1]
        logits = np.where(np.tril(np.ones((seq, seq), bool)), logits, -np.inf)
    p = softmax64(logits)
    out = np.einsum("bhqk,bkhd->bqhd", p, v)
    d_p = np.einsum("bkhd->bhk", v)[:, :, None, :] * np.ones_like(p)  # d sum(out) / d p
    d_logits = p * (d_p - (d_p * p).sum(-1, keepdims=True))
    return out, np.einsum("bhqk,bkhd->bqhd", d_logits, k)


def grouped_attention64(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, lengths: np.ndarray | None = None
) -> np.ndarray:
    """Decode attention, scale 1: q [batch, q_heads, dim], k and v [batch, seq, kv_heads, dim];
    q head h reads kv head h // (q_heads / kv_heads); example b sees its first lengths[b] keys."""
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    group = q.shape[1] // k.shape[2]
    k, v = (np.repeat(t, group, axis=2) for t in (k, v))
    logits = np.einsum("bhd,bshd->bhs", q, k)
    if lengths is not None:
        seen = np.arange(k.shape[1])[None, :] < np.asarray(lengths)[:, None]
        logits = np.where(seen[:, None, :], logits, -np.inf)
    return np.einsum("bhs,bshd->bhd", softmax64(logits), v)


def unpage(pages: np.ndarray, page_indices: np.ndarray) -> np.ndarray:
    """[kv_heads, total_pages, page_size, dim] pages -> [batch, seq, kv_heads, dim]."""
    gathered = pages[:, page_indices]  # [kv_heads, batch, pages_per_seq, page_size, dim]
    heads, batch, per_seq, size, dim = gathered.shape
    return gathered.reshape(heads, batch, per_seq * size, dim).transpose(1, 2, 0, 3)


def ragged_attention64(
    q: np.ndarray,
    kv_pages: np.ndarray,
    kv_lens: np.ndarray,
    page_indices: np.ndarray,
    cu_q_lens: np.ndarray,
) -> np.ndarray:
    """Mixed prefill and decode, scale 1: sequence i owns q rows cu_q_lens[i]:cu_q_lens[i+1],
    which are the last of its kv_lens[i] positions (causal); kv_pages interleave k (even
    heads) and v (odd heads): [total_pages, page_size, 2 * kv_heads, dim]."""
    out = []
    for i in range(len(kv_lens)):
        rows = q[cu_q_lens[i] : cu_q_lens[i + 1]].astype(np.float64)
        pages = kv_pages[page_indices[i]].reshape(-1, *kv_pages.shape[2:])[: kv_lens[i]]
        group = q.shape[1] // (kv_pages.shape[2] // 2)
        k, v = (np.repeat(pages[:, j::2].astype(np.float64), group, axis=1) for j in (0, 1))
        logits = np.einsum("qhd,khd->hqk", rows, k)
        position = kv_lens[i] - len(rows) + np.arange(len(rows))
        logits = np.where(position[:, None] >= np.arange(kv_lens[i])[None, :], logits, -np.inf)
        out.append(np.einsum("hqk,khd->qhd", softmax64(logits), v))
    return np.concatenate(out)


def threefry2x32(key: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, ...]:
    """Threefry-2x32 with 20 rounds (Salmon et al., 2011), as JAX defines its PRNG."""
    k0, k1 = (np.uint32(x) for x in key)
    ks = (k0, k1, np.uint32(k0 ^ k1 ^ np.uint32(0x1BD11BDA)))
    x = [hi.astype(np.uint32) + ks[0], lo.astype(np.uint32) + ks[1]]
    rotations = ((13, 15, 26, 6), (17, 29, 16, 24))
    for i in range(5):
        for r in rotations[i % 2]:
            x[0] = x[0] + x[1]
            x[1] = ((x[1] << np.uint32(r)) | (x[1] >> np.uint32(32 - r))) ^ x[0]
        x[0] = x[0] + ks[(i + 1) % 3]
        x[1] = x[1] + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x[0], x[1]


def philox4x32(key: np.ndarray, counter: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Philox-4x32 with 10 rounds (Salmon et al., 2011): counter (c0, c1, c2, c3), key
    (k0, k1)."""
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    w0, w1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
    k0, k1 = (np.uint32(x) for x in key)
    c0, c1, c2, c3 = (np.asarray(c, np.uint32) for c in counter)
    for i in range(10):
        p0, p1 = m0 * c0.astype(np.uint64), m1 * c2.astype(np.uint64)
        hi0, lo0 = (p0 >> np.uint64(32)).astype(np.uint32), p0.astype(np.uint32)
        hi1, lo1 = (p1 >> np.uint64(32)).astype(np.uint32), p1.astype(np.uint32)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        if i != 9:
            k0, k1 = np.uint32(k0 + w0), np.uint32(k1 + w1)
    return c0, c1, c2, c3
