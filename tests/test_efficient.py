"""Testes de helpers.efficient: atenção local, linear e exata por blocos (softmax online).

A referência é :func:`helpers.attention.scaled_dot_product_attention` (testada à parte contra laços
explícitos) e, para a atenção linear, a forma explícita ``n × n`` escrita aqui mesmo.
"""

import math
import tracemalloc

import numpy as np
import pytest

from helpers.attention import causal_mask, padding_mask, scaled_dot_product_attention, softmax
from helpers.efficient import (
    band_mask,
    blockwise_attention,
    combine_states,
    elu_feature_map,
    finish_state,
    linear_attention,
    linear_attention_weights,
    local_attention,
    partial_state,
)


def _qkv(rng, n_q, n_k, d=8, d_v=5, lead=(), dtype=np.float64):
    q = rng.normal(size=(*lead, n_q, d)).astype(dtype)
    k = rng.normal(size=(*lead, n_k, d)).astype(dtype)
    v = rng.normal(size=(*lead, n_k, d_v)).astype(dtype)
    return q, k, v


def _pico(f):
    """Maior memória alocada (bytes) durante ``f()``, além da que já estava alocada."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        r = f()
        pico = tracemalloc.get_traced_memory()[1] - base
        del r
    finally:
        tracemalloc.stop()
    return pico


# --- máscara de faixa ------------------------------------------------------------------------------


def test_band_mask_small_cases_by_hand():
    esperado = np.array([[1, 1, 0, 0],
                         [1, 1, 1, 0],
                         [0, 1, 1, 1],
                         [0, 0, 1, 1]], dtype=bool)
    np.testing.assert_array_equal(band_mask(4, window=1), esperado)
    np.testing.assert_array_equal(band_mask(4, window=1, causal=True), esperado & np.tri(4, dtype=bool))
    np.testing.assert_array_equal(band_mask(3, 5, window=0), np.eye(3, 5, dtype=bool))
    assert band_mask(5, window=10).all()  # janela maior que a sequência = atenção completa


@pytest.mark.parametrize("janela", [-1, 1.5, True, "2"])
def test_band_mask_rejects_bad_window(janela):
    with pytest.raises(ValueError, match="window"):
        band_mask(4, window=janela)


# --- atenção local ---------------------------------------------------------------------------------


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("janela", [0, 1, 3, 10, 60])
@pytest.mark.parametrize("bloco", [None, 4, 7])
def test_local_equals_exact_with_band_mask(causal, janela, bloco):
    rng = np.random.default_rng(janela * 10 + (bloco or 1))
    q, k, v = _qkv(rng, 37, 37)
    ref, _ = scaled_dot_product_attention(q, k, v, band_mask(37, window=janela, causal=causal))
    out = local_attention(q, k, v, janela, causal=causal, block_size=bloco)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)


def test_local_differs_from_full_attention_when_window_is_short():
    rng = np.random.default_rng(1)
    q, k, v = _qkv(rng, 20, 20)
    cheia, _ = scaled_dot_product_attention(q, k, v)
    assert np.abs(local_attention(q, k, v, 2) - cheia).max() > 0.05
    np.testing.assert_allclose(local_attention(q, k, v, 19), cheia, atol=1e-12)


def test_local_last_query_cannot_read_first_token():
    """A key 0 casa perfeitamente com a última query, mas está fora da janela: não entra na saída."""
    n, d = 12, 4
    q = np.zeros((n, d))
    k = np.zeros((n, d))
    v = np.zeros((n, 2))
    q[-1] = k[0] = [5.0, 0, 0, 0]
    v[0] = [100.0, 0.0]
    cheia, w = scaled_dot_product_attention(q, k, v)
    assert w[-1, 0] > 0.9 and cheia[-1, 0] > 90
    local = local_attention(q, k, v, 4, causal=True)
    assert local[-1, 0] == 0.0


def test_local_shapes_single_query_batch_and_rectangular():
    rng = np.random.default_rng(2)
    q, k, v = _qkv(rng, 9, 9, lead=(2, 3))
    ref, _ = scaled_dot_product_attention(q, k, v, band_mask(9, window=2))
    out = local_attention(q, k, v, 2, block_size=4)
    assert out.shape == (2, 3, 9, 5)
    np.testing.assert_allclose(out, ref, atol=1e-12)
    # uma query só (1-D): é a posição 0
    out1 = local_attention(q[0, 0, 0], k[0, 0], v[0, 0], 2)
    np.testing.assert_allclose(out1, ref[0, 0, 0], atol=1e-12)
    # mais queries que keys: as últimas queries não têm nenhuma key na janela → saída 0, sem NaN
    q2, k2, v2 = _qkv(rng, 10, 4)
    out2 = local_attention(q2, k2, v2, 1, block_size=3)
    ref2, _ = scaled_dot_product_attention(q2, k2, v2, band_mask(10, 4, window=1))
    np.testing.assert_allclose(out2, ref2, atol=1e-12)
    assert np.all(out2[5:] == 0) and np.isfinite(out2).all()


def test_local_float32_preserved():
    rng = np.random.default_rng(3)
    q, k, v = _qkv(rng, 16, 16, dtype=np.float32)
    out = local_attention(q, k, v, 3)
    assert out.dtype == np.float32
    ref, _ = scaled_dot_product_attention(q.astype(float), k.astype(float), v.astype(float), band_mask(16, window=3))
    np.testing.assert_allclose(out, ref, atol=1e-5)


def test_local_memory_grows_with_window_not_with_n_squared():
    rng = np.random.default_rng(4)
    q, k, v = _qkv(rng, 2048, 2048, d=64, d_v=64)
    exata = _pico(lambda: scaled_dot_product_attention(q, k, v, band_mask(2048, window=16)))
    local = _pico(lambda: local_attention(q, k, v, 16))
    assert local < exata / 10, (local, exata)


def test_local_errors_in_portuguese():
    rng = np.random.default_rng(5)
    q, k, v = _qkv(rng, 4, 4)
    with pytest.raises(ValueError, match="window"):
        local_attention(q, k, v, -2)
    with pytest.raises(ValueError, match="mesmo tamanho de vetor d_k"):
        local_attention(q, k[:, :3], v, 1)
    with pytest.raises(ValueError, match="NaN"):
        local_attention(np.full((2, 8), np.nan), k, v, 1)
    with pytest.raises(ValueError, match="block_size"):
        local_attention(q, k, v, 1, block_size=0)


# --- atenção linear --------------------------------------------------------------------------------


def test_elu_feature_map_values():
    np.testing.assert_allclose(elu_feature_map([-1.0, 0.0, 2.0, -800.0]), [math.exp(-1), 1.0, 3.0, 0.0])


def test_linear_attention_hand_example():
    # φ(q) = (1, 2); φ(k₁) = (2, 1), φ(k₂) = (1, e⁻¹): pesos ∝ (4, 1 + 2/e)
    q = np.array([[0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, -1.0]])
    v = np.array([[1.0], [3.0]])
    p = np.array([4.0, 1 + 2 / math.e])
    np.testing.assert_allclose(linear_attention_weights(q, k), [p / p.sum()])
    np.testing.assert_allclose(linear_attention(q, k, v), [[(p[0] * 1 + p[1] * 3) / p.sum()]])


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("pedaco", [1, 5, 256])
def test_linear_equals_its_explicit_n_by_n_form(causal, pedaco):
    rng = np.random.default_rng(6)
    q, k, v = _qkv(rng, 23, 23)
    w = linear_attention_weights(q, k, causal=causal)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)
    if causal:
        assert np.all(w[np.triu_indices(23, 1)] == 0)
    out = linear_attention(q, k, v, causal=causal, chunk_size=pedaco)
    np.testing.assert_allclose(out, w @ v, rtol=1e-12, atol=1e-12)


def test_linear_is_not_softmax_attention_and_is_flatter():
    rng = np.random.default_rng(7)
    q, k, v = _qkv(rng, 30, 30, d=16)
    q, k = 2 * q, 2 * k
    soft, w_soft = scaled_dot_product_attention(q, k, v)
    w_lin = linear_attention_weights(q, k)
    assert np.abs(linear_attention(q, k, v) - soft).max() > 0.05
    entropia = lambda w: -(w * np.log(w)).sum(axis=-1)  # noqa: E731
    assert entropia(w_lin).mean() > entropia(w_soft).mean()
    assert w_lin.max(axis=-1).mean() < w_soft.max(axis=-1).mean()


def test_linear_batch_single_query_custom_map_and_rectangular_causal():
    rng = np.random.default_rng(8)
    q, k, v = _qkv(rng, 6, 6, lead=(2,))
    out = linear_attention(q, k, v)
    assert out.shape == (2, 6, 5)
    np.testing.assert_allclose(out, linear_attention_weights(q, k) @ v, atol=1e-12)
    np.testing.assert_allclose(linear_attention(q[0, 0], k[0], v[0]), out[0, 0], atol=1e-12)
    quadrado = lambda x: x**2  # noqa: E731 - outro mapa positivo (muda o tamanho? não: d_φ = d)
    np.testing.assert_allclose(linear_attention(q, k, v, quadrado),
                               linear_attention_weights(q, k, quadrado) @ v, atol=1e-12)
    # n_q ≠ n_k com causal: a query i vê as keys j <= i
    q2, k2, v2 = _qkv(rng, 7, 4)
    w = linear_attention_weights(q2, k2, causal=True)
    np.testing.assert_allclose(linear_attention(q2, k2, v2, causal=True, chunk_size=3), w @ v2, atol=1e-12)


def test_linear_zero_denominator_gives_zero_not_nan():
    q = np.full((2, 3), -1000.0)  # φ(q) = e^-1000 = 0 em float64
    k = np.ones((4, 3))
    v = np.ones((4, 2))
    out = linear_attention(q, k, v)
    assert np.isfinite(out).all() and np.all(out == 0)


def test_linear_errors_in_portuguese():
    rng = np.random.default_rng(9)
    q, k, v = _qkv(rng, 4, 4)
    with pytest.raises(ValueError, match="negativos"):
        linear_attention(q, k, v, feature_map=lambda x: x)
    with pytest.raises(ValueError, match="manter as posições"):
        linear_attention(q, k, v, feature_map=lambda x: x.sum(axis=-1))
    with pytest.raises(ValueError, match="função"):
        linear_attention(q, k, v, feature_map=3)
    with pytest.raises(ValueError, match="NaN ou inf"):
        linear_attention(q, k, v, feature_map=lambda x: np.full(x.shape, np.inf))
    with pytest.raises(ValueError, match="n_k"):
        linear_attention(q, k, v[:3])


def test_linear_cost_has_no_n_by_n_matrix():
    rng = np.random.default_rng(10)
    q, k, v = _qkv(rng, 4096, 4096, d=16, d_v=16)
    pico = _pico(lambda: linear_attention(q, k, v))
    assert pico < 4096 * 4096 * 8 / 50, pico  # a matriz n × n sozinha teria 128 MiB


# --- softmax online: estados parciais --------------------------------------------------------------


def test_online_softmax_two_blocks_by_hand():
    z = np.array([1.0, 3.0, 5.0, 2.0])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    a = partial_state(z[:2], v[:2])
    b = partial_state(z[2:], v[2:])
    assert a[0] == 3.0 and math.isclose(a[1], math.exp(-2) + 1)
    np.testing.assert_allclose(a[2], [math.exp(-2), 1.0])
    assert b[0] == 5.0 and math.isclose(b[1], 1 + math.exp(-3))
    m, l_, acc = combine_states(a, b)
    assert m == 5.0
    assert math.isclose(l_, (math.exp(-2) + 1) * math.exp(-2) + 1 + math.exp(-3))
    np.testing.assert_allclose(finish_state((m, l_, acc)), softmax(z) @ v, rtol=1e-14)
    # a ordem não importa e o estado vazio é neutro
    np.testing.assert_allclose(combine_states(b, a)[1], l_)
    vazio = (-np.inf, 0.0, np.zeros(2))
    for lado in (combine_states(vazio, a), combine_states(a, vazio)):
        assert lado[0] == a[0] and lado[1] == a[1]
        np.testing.assert_array_equal(lado[2], a[2])


def test_online_softmax_empty_states_give_zero_not_nan():
    vazio = partial_state(np.array([-np.inf, -np.inf]), np.ones((2, 3)))
    assert vazio[0] == -np.inf and vazio[1] == 0 and np.all(vazio[2] == 0)
    junto = combine_states(vazio, vazio)
    assert junto[0] == -np.inf and junto[1] == 0 and np.isfinite(junto[2]).all()
    np.testing.assert_array_equal(finish_state(junto), np.zeros(3))


def test_online_softmax_many_queries_and_errors():
    rng = np.random.default_rng(11)
    z = rng.normal(size=(3, 10)) * 5
    v = rng.normal(size=(10, 4))
    estado = partial_state(z[:, :4], v[:4])
    for a, b in ((4, 7), (7, 10)):
        estado = combine_states(estado, partial_state(z[:, a:b], v[a:b]))
    np.testing.assert_allclose(finish_state(estado), softmax(z) @ v, rtol=1e-13)
    with pytest.raises(ValueError, match="mesmo número b"):
        partial_state(z, v[:3])
    with pytest.raises(ValueError, match="tripla"):
        combine_states((1.0, 2.0), estado)


# --- atenção exata por blocos ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_q", "n_k", "bloco"),
    [(1000, 1000, 128), (77, 131, (16, 50)), (64, 64, 64), (5, 300, 7), (300, 5, 1), (33, 33, 1000)],
)
@pytest.mark.parametrize("causal", [False, True])
def test_blockwise_equals_exact(n_q, n_k, bloco, causal):
    rng = np.random.default_rng(n_q + n_k)
    q, k, v = _qkv(rng, n_q, n_k, d=16, d_v=7)
    q *= 3  # escores grandes: sem a softmax online estável, exp estouraria
    ref, _ = scaled_dot_product_attention(q, k, v, causal=causal)
    out = blockwise_attention(q, k, v, bloco, causal=causal)
    assert out.shape == ref.shape and out.dtype == np.float64
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12)


def test_blockwise_parallel_path_equals_exact():
    # 1100 × 1100 escores > 2²⁰: os blocos de queries vão para vários núcleos
    rng = np.random.default_rng(12)
    q, k, v = _qkv(rng, 1100, 1100, d=32, d_v=32)
    for causal in (False, True):
        ref, _ = scaled_dot_product_attention(q, k, v, causal=causal)
        np.testing.assert_allclose(blockwise_attention(q, k, v, 128, causal=causal), ref, atol=1e-12)


def test_blockwise_masks_and_fully_masked_rows_give_zeros():
    rng = np.random.default_rng(13)
    q, k, v = _qkv(rng, 40, 50)
    mask = rng.random((40, 50)) < 0.3
    mask[[0, 17, 39]] = False  # três queries sem nenhuma key
    for causal in (False, True):
        ref, _ = scaled_dot_product_attention(q, k, v, mask, causal=causal)
        out = blockwise_attention(q, k, v, (8, 12), mask=mask, causal=causal)
        assert np.isfinite(out).all()
        np.testing.assert_allclose(out, ref, atol=1e-12)
        assert np.all(out[[0, 17, 39]] == 0)


def test_blockwise_batch_heads_single_query_and_padding_mask():
    rng = np.random.default_rng(14)
    q, k, v = _qkv(rng, 12, 12, lead=(2, 3))
    ref, _ = scaled_dot_product_attention(q, k, v, causal=True)
    np.testing.assert_allclose(blockwise_attention(q, k, v, 5, causal=True), ref, atol=1e-12)
    # máscara de padding (b, 1, n) com dimensões iniciais que q, k, v não têm
    q2, k2, v2 = _qkv(rng, 6, 6)
    pad = padding_mask(np.array([6, 3, 0]), 6)
    ref2, _ = scaled_dot_product_attention(q2, k2, v2, pad)
    out2 = blockwise_attention(q2, k2, v2, 4, mask=pad)
    assert out2.shape == (3, 6, 5)
    np.testing.assert_allclose(out2, ref2, atol=1e-12)
    assert np.all(out2[2] == 0)  # comprimento 0: nada para olhar
    # uma query só (1-D), como o resto de helpers
    ref1, _ = scaled_dot_product_attention(q2[0], k2, v2)
    out1 = blockwise_attention(q2[0], k2, v2, 4)
    assert out1.shape == (5,)
    np.testing.assert_allclose(out1, ref1, atol=1e-12)


def test_blockwise_log_sum_exp():
    rng = np.random.default_rng(15)
    q, k, v = _qkv(rng, 20, 30)
    mask = causal_mask(20, 30)
    mask[3] = False
    out, lse = blockwise_attention(q, k, v, 7, mask=mask, return_lse=True)
    z = np.where(mask, q @ k.T / math.sqrt(8), -np.inf)
    with np.errstate(divide="ignore"):
        esperado = np.log(np.exp(z).sum(axis=-1))
    np.testing.assert_allclose(lse, esperado, rtol=1e-12)
    assert lse[3] == -np.inf and np.all(out[3] == 0)
    out1, lse1 = blockwise_attention(q[5], k, v, 7, return_lse=True)
    assert out1.shape == (5,) and np.ndim(lse1) == 0


def test_blockwise_float32():
    rng = np.random.default_rng(16)
    q, k, v = _qkv(rng, 100, 100, d=16, dtype=np.float32)
    out = blockwise_attention(q, k, v, 32, causal=True)
    assert out.dtype == np.float32
    ref, _ = scaled_dot_product_attention(q.astype(float), k.astype(float), v.astype(float), causal=True)
    np.testing.assert_allclose(out, ref, atol=1e-5)


def test_blockwise_memory_is_a_fraction_of_exact():
    rng = np.random.default_rng(17)
    q, k, v = _qkv(rng, 2048, 2048, d=64, d_v=64)
    exata = _pico(lambda: scaled_dot_product_attention(q, k, v))
    blocos = _pico(lambda: blockwise_attention(q, k, v))
    assert exata > 2048 * 2048 * 8  # a exata guarda a matriz de pesos inteira (32 MiB)
    assert blocos < exata / 10, (blocos, exata)


def test_blockwise_errors_in_portuguese():
    rng = np.random.default_rng(18)
    q, k, v = _qkv(rng, 4, 4)
    with pytest.raises(ValueError, match="block_size"):
        blockwise_attention(q, k, v, 0)
    with pytest.raises(ValueError, match="block_size"):
        blockwise_attention(q, k, v, (4, 4, 4))
    with pytest.raises(ValueError, match="booleana"):
        blockwise_attention(q, k, v, mask=np.ones((4, 4)))
    with pytest.raises(ValueError, match="compatível"):
        blockwise_attention(q, k, v, mask=np.ones((3, 5), dtype=bool))
    with pytest.raises(ValueError, match="n_k"):
        blockwise_attention(q, k, v[:2])
    with pytest.raises(ValueError, match="scale"):
        blockwise_attention(q, k, v, scale=-1.0)
    # escores que estouram o float32: erro claro, como na atenção exata (nunca NaN silencioso)
    grande = np.full((2, 4), 1e20, dtype=np.float32)
    with pytest.raises(ValueError, match="estourou"):
        blockwise_attention(grande, grande, grande)
    with pytest.raises(ValueError, match="estourou"):
        local_attention(grande, grande, grande, 1)


# --- o caminho mais longo e a tabela das três camadas -------------------------------------------------


def test_longest_path_matches_the_closed_forms():
    from helpers import attention, efficient

    n = 33
    cadeia = np.eye(n, k=-1, dtype=bool)                      # i lê só i − 1: uma recorrência
    assert efficient.longest_path(cadeia) == n - 1
    assert efficient.longest_path(attention.causal_mask(n)) == 1
    assert efficient.longest_path(np.ones((n, n), dtype=bool)) == 1
    for w in (1, 4, 5, 8, 32, 40):
        assert efficient.longest_path(efficient.band_mask(n, window=w, causal=True)) == -(-(n - 1) // w), w
        assert efficient.layer_comparison(n, 8, window=w)["local"]["caminho_maximo"] == -(-(n - 1) // w)


def test_longest_path_rejects_non_boolean_or_non_square():
    from helpers import efficient

    with pytest.raises(ValueError, match="booleana quadrada"):
        efficient.longest_path(np.ones((3, 4), dtype=bool))
    with pytest.raises(ValueError, match="booleana quadrada"):
        efficient.longest_path(np.ones((3, 3)))


def test_layer_comparison_counts():
    from helpers import efficient

    t = efficient.layer_comparison(4096, 64, window=128)
    assert t["recorrente"] == {"flops": 4 * 4096 * 64**2, "passos_sequenciais": 4096, "caminho_maximo": 4095,
                               "estado": 64}
    assert t["autoatencao"]["flops"] == 4 * 4096**2 * 64 and t["autoatencao"]["passos_sequenciais"] == 1
    assert t["autoatencao"]["estado"] == 2 * 4096 * 64
    assert t["local"]["flops"] == 4 * efficient.band_count(4096, 128, causal=True) * 64
    assert t["local"]["caminho_maximo"] == 32 and t["local"]["estado"] == 2 * 128 * 64
    assert t["linear causal"]["flops"] == t["recorrente"]["flops"] and t["linear causal"]["estado"] == 64 * 64 + 64
    # a mesma conta em pedaços de 256: 16 passos em fila, as contas de dentro de cada pedaço a mais
    pedacos = t["linear causal em pedaços"]
    assert pedacos["passos_sequenciais"] == 16 and pedacos["caminho_maximo"] == 1 and pedacos["estado"] == 64 * 64 + 64
    assert pedacos["flops"] == 4 * 4096 * 64**2 + 4 * 16 * 256**2 * 64
    assert efficient.layer_comparison(1000, 8, chunk=256)["linear causal em pedaços"]["passos_sequenciais"] == 4
    # a atenção exata passa a recorrente quando n > d: a razão dos FLOPs é n / d
    assert t["autoatencao"]["flops"] / t["recorrente"]["flops"] == 4096 / 64
