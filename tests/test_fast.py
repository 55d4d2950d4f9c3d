"""O caminho rápido da atenção (``_fast.fast_scaled_dot_product_attention``): escala na query, softmax no
lugar, linhas divididas entre os núcleos. Tem de dar o resultado da fórmula e o do caminho de referência
(``attention.scaled_dot_product_attention``), com os mesmos erros."""

import warnings

import numpy as np
import pytest

from helpers import _fast
from helpers.attention import causal_mask, multi_head_attention, scaled_dot_product_attention

rapida = _fast.fast_scaled_dot_product_attention


def _referencia(q, k, v, mask=None):
    s = (q @ np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(s - m)
    tot = e.sum(axis=-1, keepdims=True)
    w = np.divide(e, tot, out=np.zeros_like(e), where=tot > 0)
    return w @ v, w


@pytest.fixture
def grande():
    rng = np.random.default_rng(7)
    # 3 · 700 · 600 = 1 260 000 escores: acima do limiar do caminho paralelo
    return rng.standard_normal((3, 700, 16)), rng.standard_normal((3, 600, 16)), rng.standard_normal((3, 600, 5))


@pytest.mark.parametrize("kw", [{}, {"causal": True}, {"mask": "aleatoria"}])
def test_parallel_softmax_matches_formula_and_serial_bit_for_bit(grande, kw, monkeypatch):
    q, k, v = grande
    assert q.shape[0] * q.shape[1] * k.shape[1] >= _fast.PARALLEL_FROM
    if kw.get("mask") == "aleatoria":
        kw = {"mask": np.random.default_rng(1).random((700, 600)) > 0.3}
    out, w = rapida(q, k, v, **kw)
    mask = kw.get("mask")
    if kw.get("causal"):
        mask = causal_mask(700, 600)
    ro, rw = _referencia(q, k, v, mask)
    np.testing.assert_allclose(w, rw, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.sum(-1), 1.0, rtol=1e-12)
    monkeypatch.setattr(_fast, "PARALLEL_FROM", 1 << 62)  # força um núcleo só
    out1, w1 = rapida(q, k, v, **kw)
    np.testing.assert_array_equal(w, w1)
    np.testing.assert_array_equal(out, out1)
    ref_out, ref_w = scaled_dot_product_attention(q, k, v, **kw)  # o caminho de referência
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)


def test_weights_are_a_fresh_contiguous_array(grande):
    q, k, v = grande
    _, w = rapida(q, k, v)
    assert w.flags.c_contiguous and w.flags.owndata and w.dtype == np.float64


def test_float32_stays_float32_on_the_fast_path(grande):
    q, k, v = (a.astype(np.float32) for a in grande)
    out, w = rapida(q, k, v)
    assert out.dtype == np.float32 and w.dtype == np.float32
    ro, rw = _referencia(*(a.astype(np.float64) for a in grande))
    np.testing.assert_allclose(w, rw, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("paralelo", [True, False])
def test_overflowing_scores_raise_the_softmax_error_with_the_full_shape(grande, paralelo, monkeypatch):
    if not paralelo:
        monkeypatch.setattr(_fast, "PARALLEL_FROM", 1 << 62)
    q, k, v = (a.copy() for a in grande)
    q[2, 650, 0] = 1e300
    k[2, 10, 0] = 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # o numpy avisa do estouro no matmul
        with pytest.raises(ValueError, match=r"x contém \+inf \(forma \(3, 700, 600\)\)"):
            rapida(q, k, v)
        with pytest.raises(ValueError, match=r"x contém \+inf \(forma \(3, 700, 600\)\)"):
            scaled_dot_product_attention(q, k, v)  # a referência dá o mesmo erro


def test_mask_with_extra_leading_dims_broadcasts_like_before():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((5, 4)), rng.standard_normal((6, 4)), rng.standard_normal((6, 3))
    mask = rng.random((2, 5, 6)) > 0.4
    out, w = rapida(q, k, v, mask)
    assert out.shape == (2, 5, 3) and w.shape == (2, 5, 6)
    for b in range(2):
        ro, rw = _referencia(q, k, v, mask[b])
        np.testing.assert_allclose(w[b], rw, atol=1e-12)
        np.testing.assert_allclose(out[b], ro, atol=1e-12)


def test_inputs_are_not_modified(grande):
    q, k, v = grande
    copias = [a.copy() for a in grande]
    rapida(q, k, v, causal=True)
    for a, b in zip(grande, copias, strict=True):
        np.testing.assert_array_equal(a, b)


def test_one_query_and_mixed_dtypes_match_the_reference():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal(4), rng.standard_normal((2, 6, 4)).astype(np.float32), rng.standard_normal((6, 3))
    out, w = rapida(q, k, v, causal=True, scale=0.3)
    ref_out, ref_w = scaled_dot_product_attention(q, k, v, causal=True, scale=0.3)
    assert out.shape == ref_out.shape == (2, 3) and w.shape == ref_w.shape == (2, 6)
    assert out.dtype == ref_out.dtype == np.float64 and w.dtype == ref_w.dtype == np.float64
    np.testing.assert_allclose(w, ref_w, rtol=1e-12)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12)
    assert w[0, 1:].sum() == 0.0  # q 1-D é a query 0: com causal=True, só vê a key 0
    np.testing.assert_allclose(w[:, 0], 1.0)


def test_multi_head_attention_uses_the_fast_path_and_matches_the_reference():
    from helpers.attention import merge_heads, split_heads

    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 8))
    wq, wk, wv, wo = (rng.standard_normal((8, 8)) for _ in range(4))
    out, w = multi_head_attention(x, x, wq, wk, wv, wo, n_heads=2, causal=True)
    qh, kh, vh = (split_heads(x @ m, 2) for m in (wq, wk, wv))
    ref_heads, ref_w = scaled_dot_product_attention(qh, kh, vh, causal=True)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, merge_heads(ref_heads) @ wo, rtol=1e-12, atol=1e-12)
