"""Testes de helpers.attention: exemplos do texto-base, estabilidade, equivalências e erros."""

import math

import numpy as np
import pytest

from helpers.attention import (
    attention_backward,
    causal_mask,
    kv_cache_bytes,
    kv_head_of_query,
    merge_heads,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    softmax,
    softmax_jacobian,
    split_heads,
)

Q_SEED = np.array([1.0, 0.0])
K_SEED = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
V_SEED = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])


# --- referência independente: laços explícitos em Python, sem helpers ------------------------


def ref_attention(q, k, v, allowed=None, scale=None):
    """Uma query por vez, uma key por vez, com math.exp: lenta e óbvia."""
    n_q, d = q.shape
    n_k, d_v = v.shape
    s = 1 / math.sqrt(d) if scale is None else scale
    out = np.zeros((n_q, d_v))
    weights = np.zeros((n_q, n_k))
    for i in range(n_q):
        scores = [sum(q[i, t] * k[j, t] for t in range(d)) * s for j in range(n_k)]
        ok = [allowed is None or bool(allowed[i, j]) for j in range(n_k)]
        if not any(ok):
            continue
        top = max(sc for sc, o in zip(scores, ok) if o)
        e = [math.exp(sc - top) if o else 0.0 for sc, o in zip(scores, ok)]
        tot = sum(e)
        for j in range(n_k):
            weights[i, j] = e[j] / tot
            out[i] += weights[i, j] * v[j]
    return out, weights


# --- o exemplo resolvido ----------------------------------------------------------------------


def test_seed_example_by_hand():
    out, w = scaled_dot_product_attention(Q_SEED, K_SEED, V_SEED)
    assert w.shape == (3,) and out.shape == (2,)
    # valores exatos: exp(1/√2), exp(0), exp(0.5/√2) normalizados
    e = np.array([math.exp(1 / math.sqrt(2)), 1.0, math.exp(0.5 / math.sqrt(2))])
    np.testing.assert_allclose(w, e / e.sum(), rtol=1e-12)
    np.testing.assert_allclose(w, [0.4555, 0.2246, 0.3199], atol=1e-4)
    np.testing.assert_allclose(out, [6.1546, 3.8454], atol=1e-4)
    # o texto arredonda os pesos para (0.455, 0.225, 0.320) e, com esses, a saída dá (6.15, 3.85)
    rounded = np.array([0.455, 0.225, 0.320])
    np.testing.assert_allclose(rounded @ V_SEED, [6.15, 3.85], atol=1e-12)
    np.testing.assert_allclose(np.round(out, 2), [6.15, 3.85])


def test_seed_example_rounding_path():
    # o texto arredonda os escores para 3 casas (0.707, 0, 0.354) e as exponenciais para 2.028 etc.
    exps = np.round(np.exp(np.round(np.array([1, 0, 0.5]) / math.sqrt(2), 3)), 3)
    np.testing.assert_allclose(exps, [2.028, 1.000, 1.425])
    np.testing.assert_allclose(np.round(exps / exps.sum(), 3), [0.455, 0.225, 0.320])


# --- softmax ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_stable_extreme(dtype):
    x = np.array([1e4, 0.0, -1e4], dtype=dtype)
    y = softmax(x)
    assert y.dtype == dtype
    np.testing.assert_allclose(y, [1, 0, 0])
    y = softmax(np.array([[1e4, 1e4 - 1]], dtype=dtype))
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y, [[1 / (1 + math.exp(-1)), 1 / (1 + math.e)]], rtol=1e-5)


def test_softmax_invariant_to_constant_and_sums_to_one():
    x = np.random.default_rng(0).normal(size=(4, 6))
    np.testing.assert_allclose(softmax(x), softmax(x + 123.4), rtol=1e-12)
    np.testing.assert_allclose(softmax(x).sum(-1), 1.0)
    np.testing.assert_allclose(softmax(x, axis=0).sum(0), 1.0)


def test_softmax_neg_inf_and_all_masked():
    y = softmax([0.0, -np.inf, 0.0])
    np.testing.assert_allclose(y, [0.5, 0.0, 0.5])
    y = softmax(np.array([[-np.inf, -np.inf], [1.0, 1.0]]))
    np.testing.assert_array_equal(y, [[0.0, 0.0], [0.5, 0.5]])
    assert not np.isnan(y).any()


def test_softmax_temperature():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(softmax(x, temperature=2.0), softmax(x / 2.0))
    np.testing.assert_allclose(softmax(x, temperature=1e-3), [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(softmax(x, temperature=1e6), [1 / 3] * 3, atol=1e-5)


@pytest.mark.parametrize("t", [0.0, -1.0, float("nan"), float("inf")])
def test_softmax_bad_temperature(t):
    with pytest.raises(ValueError, match="temperature"):
        softmax([1.0, 2.0], temperature=t)


def test_softmax_rejects_nan_and_pos_inf():
    with pytest.raises(ValueError, match="NaN"):
        softmax([1.0, float("nan")])
    with pytest.raises(ValueError, match=r"\+inf"):
        softmax([1.0, float("inf")])
    with pytest.raises(ValueError, match="axis"):
        softmax([1.0, 2.0], axis=3)


# --- atenção contra a referência independente -------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_sdpa_matches_reference_with_masks(seed):
    rng = np.random.default_rng(seed)
    n_q, n_k, d, d_v = rng.integers(1, 6, size=4)
    q, k, v = rng.normal(size=(n_q, d)), rng.normal(size=(n_k, d)), rng.normal(size=(n_k, d_v))
    out, w = scaled_dot_product_attention(q, k, v)
    ro, rw = ref_attention(q, k, v)
    np.testing.assert_allclose(out, ro, atol=1e-12)
    np.testing.assert_allclose(w, rw, atol=1e-12)
    allowed = rng.random((n_q, n_k)) < 0.6
    out, w = scaled_dot_product_attention(q, k, v, allowed)
    ro, rw = ref_attention(q, k, v, allowed)
    np.testing.assert_allclose(out, ro, atol=1e-12)
    np.testing.assert_allclose(w, rw, atol=1e-12)
    out, w = scaled_dot_product_attention(q, k, v, causal=True, scale=0.3)
    tri = np.array([[j <= i for j in range(n_k)] for i in range(n_q)])
    ro, rw = ref_attention(q, k, v, tri, scale=0.3)
    np.testing.assert_allclose(out, ro, atol=1e-12)
    np.testing.assert_allclose(w, rw, atol=1e-12)


def test_sdpa_batched_broadcast_equals_loop():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(2, 3, 4, 5))
    k = rng.normal(size=(3, 6, 5))  # sem eixo de lote: broadcast
    v = rng.normal(size=(3, 6, 2))
    out, w = scaled_dot_product_attention(q, k, v, causal=True)
    assert out.shape == (2, 3, 4, 2) and w.shape == (2, 3, 4, 6)
    for b in range(2):
        for h in range(3):
            ro, rw = ref_attention(q[b, h], k[h], v[h], np.tri(4, 6, dtype=bool))
            np.testing.assert_allclose(out[b, h], ro, atol=1e-12)
            np.testing.assert_allclose(w[b, h], rw, atol=1e-12)


def test_sdpa_float32_preserved():
    rng = np.random.default_rng(2)
    q, k, v = (rng.normal(size=(4, 8)).astype(np.float32) for _ in range(3))
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.dtype == np.float32 and w.dtype == np.float32
    ro, _ = ref_attention(q.astype(float), k.astype(float), v.astype(float))
    np.testing.assert_allclose(out, ro, rtol=1e-5, atol=1e-5)


def test_fully_masked_query_gives_zeros_not_nan():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    mask = np.ones((3, 5), bool)
    mask[1] = False
    out, w = scaled_dot_product_attention(q, k, v, mask)
    np.testing.assert_array_equal(w[1], 0)
    np.testing.assert_array_equal(out[1], 0)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(w[[0, 2]].sum(-1), 1)


def test_causal_and_padding_masks():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    np.testing.assert_array_equal(causal_mask(2, 4, offset=2), [[1, 1, 1, 0], [1, 1, 1, 1]])
    pm = padding_mask([2, 3], 4)
    assert pm.shape == (2, 1, 4)
    np.testing.assert_array_equal(pm[:, 0], [[1, 1, 0, 0], [1, 1, 1, 0]])
    # padding: as posições de enchimento não recebem peso, e mudar o enchimento não muda nada
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 4, 3))
    _, w = scaled_dot_product_attention(x, x, x, pm)
    np.testing.assert_array_equal(w[0, :, 2:], 0)
    x2 = x.copy()
    x2[0, 2:, :] = 99.0
    o1, _ = scaled_dot_product_attention(x[:, :2], x, x, pm)
    o2, _ = scaled_dot_product_attention(x2[:, :2], x2, x2, pm)
    np.testing.assert_allclose(o1[0], o2[0])


def test_causal_future_does_not_leak():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(6, 4))
    out1, _ = scaled_dot_product_attention(x, x, x, causal=True)
    y = x.copy()
    y[4:] = rng.normal(size=(2, 4))
    out2, _ = scaled_dot_product_attention(y, y, y, causal=True)
    np.testing.assert_allclose(out1[:4], out2[:4])
    assert not np.allclose(out1[4:], out2[4:])


def test_self_attention_permutation_equivariant():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(7, 4))
    perm = rng.permutation(7)
    out, w = scaled_dot_product_attention(x, x, x)
    out_p, w_p = scaled_dot_product_attention(x[perm], x[perm], x[perm])
    np.testing.assert_allclose(out_p, out[perm], atol=1e-12)
    np.testing.assert_allclose(w_p, w[np.ix_(perm, perm)], atol=1e-12)


# --- várias cabeças ----------------------------------------------------------------------------


def _weights(rng, d_model, n_heads, n_kv, d_head, d_out=None):
    d_out = d_model if d_out is None else d_out
    return (
        rng.normal(size=(d_model, n_heads * d_head)),
        rng.normal(size=(d_model, n_kv * d_head)),
        rng.normal(size=(d_model, n_kv * d_head)),
        rng.normal(size=(n_heads * d_head, d_out)),
    )


def test_split_merge_roundtrip():
    x = np.arange(2 * 3 * 8).reshape(2, 3, 8)
    h = split_heads(x, 4)
    assert h.shape == (2, 4, 3, 2)
    np.testing.assert_array_equal(h[1, 2, 0], x[1, 0, 4:6])
    np.testing.assert_array_equal(merge_heads(h), x)


@pytest.mark.parametrize("causal", [False, True])
def test_multi_head_equals_loop_over_heads(causal):
    rng = np.random.default_rng(7)
    n_heads, d_head, d_model = 3, 2, 5
    x = rng.normal(size=(4, d_model))
    wq, wk, wv, wo = _weights(rng, d_model, n_heads, n_heads, d_head)
    out, w = multi_head_attention(x, x, wq, wk, wv, wo, n_heads, causal=causal)
    assert out.shape == (4, d_model) and w.shape == (n_heads, 4, 4)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        allowed = np.tri(4, dtype=bool) if causal else None
        o, ww = ref_attention(x @ wq[:, cols], x @ wk[:, cols], x @ wv[:, cols], allowed)
        np.testing.assert_allclose(w[h], ww, atol=1e-12)
        heads.append(o)
    np.testing.assert_allclose(out, np.concatenate(heads, axis=-1) @ wo, atol=1e-10)


def test_gqa_with_all_heads_equals_mha_and_grouping_rule():
    rng = np.random.default_rng(8)
    n_heads, d_head, d_model = 4, 3, 6
    x = rng.normal(size=(2, 5, d_model))
    wq, wk, wv, wo = _weights(rng, d_model, n_heads, n_heads, d_head)
    a, wa = multi_head_attention(x, x, wq, wk, wv, wo, n_heads)
    b, wb = multi_head_attention(x, x, wq, wk, wv, wo, n_heads, n_kv_heads=n_heads)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(wa, wb)
    # GQA com 2 grupos = MHA cujas keys/values das cabeças 2h e 2h+1 são a cabeça kv h
    wq, wk, wv, wo = _weights(rng, d_model, n_heads, 2, d_head)
    g, wg = multi_head_attention(x, x, wq, wk, wv, wo, n_heads, n_kv_heads=2)
    expand = lambda w: np.concatenate([w[:, (h // 2) * d_head:(h // 2 + 1) * d_head] for h in range(n_heads)], axis=1)  # noqa: E731
    m, wm = multi_head_attention(x, x, wq, expand(wk), expand(wv), wo, n_heads)
    np.testing.assert_allclose(g, m, atol=1e-12)
    np.testing.assert_allclose(wg, wm, atol=1e-12)


def test_multi_query_by_hand():
    rng = np.random.default_rng(9)
    n_heads, d_head, d_model = 4, 2, 4
    xq = rng.normal(size=(3, d_model))
    xkv = rng.normal(size=(5, d_model))  # atenção cruzada: outra sequência
    wq, wk, wv, wo = _weights(rng, d_model, n_heads, 1, d_head, d_out=3)
    out, w = multi_head_attention(xq, xkv, wq, wk, wv, wo, n_heads, n_kv_heads=1)
    assert out.shape == (3, 3) and w.shape == (4, 3, 5)
    k, v = xkv @ wk, xkv @ wv  # uma única key/value para todas as cabeças
    heads = [ref_attention(xq @ wq[:, h * d_head:(h + 1) * d_head], k, v)[0] for h in range(n_heads)]
    np.testing.assert_allclose(out, np.concatenate(heads, -1) @ wo, atol=1e-12)


def test_multi_head_mask_applies_to_every_head():
    rng = np.random.default_rng(10)
    x = rng.normal(size=(2, 4, 4))
    wq, wk, wv, wo = _weights(rng, 4, 2, 2, 2)
    pm = padding_mask([4, 2], 4)
    _, w = multi_head_attention(x, x, wq, wk, wv, wo, 2, mask=pm)
    assert w.shape == (2, 2, 4, 4)
    np.testing.assert_array_equal(w[1, :, :, 2:], 0)
    np.testing.assert_allclose(w.sum(-1), 1)


def test_kv_cache_bytes():
    # 2 (K,V) · 32 camadas · 8 cabeças kv · 4096 tokens · 128 · 2 bytes = 512 MiB
    assert kv_cache_bytes(4096, 32, 8, 128) == 2 * 32 * 8 * 4096 * 128 * 2 == 512 * 2**20


# --- entradas inválidas: ValueError em português ----------------------------------------------

BAD_SDPA = [
    (dict(q=np.ones(3), k=np.ones((2, 2)), v=np.ones((2, 2))), r"mesmo tamanho de vetor d_k.*\(3,\).*\(2, 2\)"),
    (dict(q=np.ones(2), k=np.ones((3, 2)), v=np.ones((4, 2))), r"mesmo número de posições.*\(3, 2\).*\(4, 2\)"),
    (dict(q=np.ones(2), k=np.ones((3, 2)), v=np.ones((3, 2)), mask=np.ones(4, bool)), r"máscara de forma \(4,\)"),
    (dict(q=np.ones(2), k=np.ones((3, 2)), v=np.ones((3, 2)), mask=np.ones(3)), "booleana"),
    (dict(q=[np.nan, 0], k=np.ones((3, 2)), v=np.ones((3, 2))), "q contém NaN"),
    (dict(q=np.ones(2), k=[[np.inf, 0]], v=np.ones((1, 2))), "k contém inf"),
    (dict(q=np.ones(2), k=np.ones((1, 2)), v=[[0, -np.inf]]), "v contém inf"),
    (dict(q=np.ones(2), k=np.ones((0, 2)), v=np.ones((0, 2))), "n_k=0"),
    (dict(q=np.ones(2), k=np.ones((3, 2)), v=np.ones((3, 2)), scale=0.0), "scale"),
    (dict(q=np.ones(2), k=np.ones((3, 2)), v=np.ones((3, 2)), scale=-1.0), "scale"),
    (dict(q=np.ones((2, 4, 2)), k=np.ones((3, 4, 2)), v=np.ones((3, 4, 2))), "broadcasting"),
    (dict(q=np.ones(2), k=np.ones(2), v=np.ones((1, 2))), r"\(\.\.\., n_k, d\)"),
]


@pytest.mark.parametrize(("kwargs", "pattern"), BAD_SDPA)
def test_sdpa_bad_inputs(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        scaled_dot_product_attention(**kwargs)


def test_mha_bad_inputs():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(3, 4))
    wq, wk, wv, wo = _weights(rng, 4, 2, 2, 3)
    with pytest.raises(ValueError, match=r"n_heads=4 não divide a largura projetada de w_q \(6\)"):
        multi_head_attention(x, x, wq, wk, wv, wo, 4)
    wq, wk, wv, wo = _weights(rng, 4, 4, 3, 1)
    with pytest.raises(ValueError, match="n_kv_heads=3 não divide n_heads=4"):
        multi_head_attention(x, x, wq, wk, wv, wo, 4, n_kv_heads=3)
    wq, wk, wv, wo = _weights(rng, 4, 2, 2, 2)
    with pytest.raises(ValueError, match=r"w_q tem forma \(4, 4\), mas x_q tem d_model=5"):
        multi_head_attention(rng.normal(size=(3, 5)), x, wq, wk, wv, wo, 2)
    with pytest.raises(ValueError, match="n_heads precisa ser um inteiro positivo"):
        multi_head_attention(x, x, wq, wk, wv, wo, 0)
    with pytest.raises(ValueError, match=r"w_o tem forma \(3, 4\)"):
        multi_head_attention(x, x, wq, wk, wv, wo[:3], 2)
    with pytest.raises(ValueError, match="x_q contém NaN"):
        multi_head_attention(np.full((3, 4), np.nan), x, wq, wk, wv, wo, 2)
    with pytest.raises(ValueError, match="máscara"):
        multi_head_attention(x, x, wq, wk, wv, wo, 2, mask=np.ones((2, 2), bool))
    with pytest.raises(ValueError, match="n_heads=3 não divide a largura"):
        split_heads(np.ones((2, 4)), 3)
    with pytest.raises(ValueError, match="lengths"):
        padding_mask([[1]], 3)
    with pytest.raises(ValueError, match="entre 0 e n=3"):
        padding_mask([4], 3)


# ---------------------------------------------------------------------------------------------
# O gradiente: attention_backward contra diferenças finitas
# ---------------------------------------------------------------------------------------------


def _diferencas_finitas(f, x, h=1e-5):
    """∂f/∂x por diferenças centrais, entrada a entrada (f devolve um escalar)."""
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        mais, menos = x.copy(), x.copy()
        mais[idx] += h
        menos[idx] -= h
        g[idx] = (f(mais) - f(menos)) / (2 * h)
    return g


def _confere_gradientes(q, k, v, G, **kw):
    """Os três gradientes de L = Σ saída ⊙ G batem com diferenças finitas a 1e-6 (relativo)."""
    gq, gk, gv = attention_backward(q, k, v, G, **kw)
    assert gq.shape == np.shape(q) and gk.shape == np.shape(k) and gv.shape == np.shape(v)

    def perda(qq, kk, vv):
        return float(np.sum(scaled_dot_product_attention(qq, kk, vv, **kw)[0] * G))

    numericos = (
        _diferencas_finitas(lambda x: perda(x, k, v), q),
        _diferencas_finitas(lambda x: perda(q, x, v), k),
        _diferencas_finitas(lambda x: perda(q, k, x), v),
    )
    for analitico, numerico in zip((gq, gk, gv), numericos, strict=True):
        escala = max(1.0, float(np.abs(numerico).max()))
        assert np.abs(analitico - numerico).max() <= 1e-6 * escala, (analitico, numerico)


@pytest.mark.parametrize(
    "kw",
    [{}, {"causal": True}, {"scale": 0.37}, {"mask": "aleatoria"}, {"mask": "aleatoria", "causal": True, "scale": 2.0}],
    ids=["simples", "causal", "escala", "mascara", "tudo"],
)
def test_attention_backward_matches_finite_differences(kw):
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(2, 3, 6, 2))
    if kw.get("mask") == "aleatoria":
        mask = rng.random((4, 6)) > 0.4
        mask[:, 0] = True  # toda query vê pelo menos uma key
        kw = {**kw, "mask": mask}
    G = rng.normal(size=(2, 3, 4, 2))
    _confere_gradientes(q, k, v, G, **kw)


def test_attention_backward_single_query_and_broadcast_keys():
    rng = np.random.default_rng(4)
    # q 1-D: o gradiente de q também é 1-D
    q, k, v = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    _confere_gradientes(q, k, v, rng.normal(size=2))
    # k e v compartilhados pelas 4 sequências do lote: os gradientes somam as contribuições
    q, k, v = rng.normal(size=(4, 2, 3)), rng.normal(size=(5, 3)), rng.normal(size=(1, 5, 2))
    _confere_gradientes(q, k, v, rng.normal(size=(4, 2, 2)))


def test_attention_backward_by_hand_one_query_two_keys():
    # s = 1, q = (1, 0), k₁ = (1, 0), k₂ = (0, 0): escores (1, 0), P = (σ(1), σ(-1))
    q, k, v = np.array([1.0, 0.0]), np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[1.0], [0.0]])
    gq, gk, gv = attention_backward(q, k, v, np.array([1.0]), scale=1.0)
    p1 = 1 / (1 + np.exp(-1.0))
    p = np.array([p1, 1 - p1])
    np.testing.assert_allclose(gv, p[:, None])  # dV = Pᵀ dO
    dS = p * (np.array([1.0, 0.0]) - p1)  # dP = dO Vᵀ = (1, 0); rowsum(dP ⊙ P) = p₁
    np.testing.assert_allclose(gq, dS @ k)
    np.testing.assert_allclose(gk, np.outer(dS, q))


def test_attention_backward_uses_the_softmax_jacobian():
    rng = np.random.default_rng(5)
    q, k, v, G = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    _, P = scaled_dot_product_attention(q, k, v)
    dP = G @ v.T
    dS = np.einsum("qij,qj->qi", softmax_jacobian(P), dP)  # J é simétrico: Jᵀ dP = J dP
    gq, gk, _ = attention_backward(q, k, v, G)
    np.testing.assert_allclose(gq, dS @ k / 2.0, atol=1e-12)
    np.testing.assert_allclose(gk, dS.T @ q / 2.0, atol=1e-12)


def test_attention_backward_fully_masked_rows_give_zero_gradients():
    rng = np.random.default_rng(6)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False  # a query 1 não vê nada
    gq, gk, gv = attention_backward(q, k, v, rng.normal(size=(3, 3)), mask)
    assert np.isfinite(gq).all() and np.isfinite(gk).all() and np.isfinite(gv).all()
    np.testing.assert_array_equal(gq[1], 0.0)
    # e as outras queries continuam com o gradiente de quem não tivesse a linha 1
    G = rng.normal(size=(3, 3))
    G_sem = G.copy()
    G_sem[1] = 0.0
    for a, b in zip(attention_backward(q, k, v, G, mask), attention_backward(q, k, v, G_sem, mask), strict=True):
        np.testing.assert_allclose(a, b)


def test_attention_backward_float32_stays_float32():
    rng = np.random.default_rng(8)
    q, k, v = (rng.normal(size=s).astype(np.float32) for s in ((3, 4), (5, 4), (5, 2)))
    grads = attention_backward(q, k, v, np.ones((3, 2), dtype=np.float32))
    assert all(g.dtype == np.float32 for g in grads)
    ref = attention_backward(*(a.astype(np.float64) for a in (q, k, v)), np.ones((3, 2)))
    for g, r in zip(grads, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("args", "kw", "trecho"),
    [
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones((3, 3))), {}, r"grad_out precisa ter a forma da saída"),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones(2)), {}, r"\(3, 2\)"),
        ((np.ones((3, 4)), np.ones((5, 3)), np.ones((5, 2)), np.ones((3, 2))), {}, "mesmo tamanho de vetor d_k"),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.full((3, 2), np.nan)), {}, "grad_out contém NaN"),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones((3, 2))), {"mask": np.ones((3, 5))}, "booleana"),
        ((np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones((3, 2))), {"scale": -1.0}, "scale precisa"),
    ],
)
def test_attention_backward_rejects_bad_input(args, kw, trecho):
    with pytest.raises(ValueError, match=trecho):
        attention_backward(*args, **kw)


def test_softmax_jacobian_matches_finite_differences_and_bounds():
    z = np.array([0.707, 0.0, 0.354])
    p = softmax(z)
    J = softmax_jacobian(p)
    num = np.stack([_diferencas_finitas(lambda x, i=i: softmax(x)[i], z) for i in range(3)])
    np.testing.assert_allclose(J, num, atol=1e-9)
    np.testing.assert_allclose(J, J.T)
    np.testing.assert_allclose(J.sum(axis=1), 0.0, atol=1e-15)  # os pesos somam 1 sempre: Σᵢ ∂pᵢ = 0
    assert np.abs(softmax_jacobian(softmax(np.random.default_rng(0).normal(size=(50, 6)) * 5))).max() <= 0.25
    np.testing.assert_allclose(softmax_jacobian(np.array([1.0, 0.0, 0.0])), 0.0)  # saturada: nada passa


def test_kv_head_of_query_mha_gqa_mqa():
    assert kv_head_of_query(4, 4) == [0, 1, 2, 3]
    assert kv_head_of_query(8, 2) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert kv_head_of_query(4, 1) == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="não divide n_heads=6"):
        kv_head_of_query(6, 4)


def test_softmax_out_writes_in_place_and_checks_the_array():
    x = np.array([[1.0, 2.0, 3.0], [0.0, -np.inf, 0.0]])
    esperado = softmax(x.copy())
    y = softmax(x, out=x)
    assert y is x
    np.testing.assert_allclose(x, esperado, rtol=1e-15)
    np.testing.assert_allclose(x, [[0.09003057, 0.24472847, 0.66524096], [0.5, 0.0, 0.5]], rtol=1e-7)
    with pytest.raises(ValueError, match="out precisa ser um array da forma"):
        softmax(np.ones((2, 3)), out=np.ones((3, 2)))
    with pytest.raises(ValueError, match="do tipo float64"):
        softmax(np.ones((2, 3)), out=np.ones((2, 3), dtype=np.float32))


def test_reference_attention_holds_one_score_matrix_at_a_time():
    """O caminho de referência escreve a escala e a softmax nos próprios escores: o pico de memória é o da
    matriz n × n (mais o pequeno), não o dobro."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 512
    q, k, v = (rng.standard_normal((n, 8)) for _ in range(3))
    tracemalloc.start()
    try:
        scaled_dot_product_attention(q, k, v)
        _, pico = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    matriz = n * n * 8
    assert matriz <= pico < 1.25 * matriz, (pico, matriz)
