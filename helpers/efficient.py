"""Atenção eficiente, só com numpy: local (janela), linear (kernel) e exata por blocos (softmax online).

A atenção exata (:func:`helpers.attention.scaled_dot_product_attention`) monta a matriz ``n × n`` de
escores: o tempo e a memória crescem com ``n²``. Aqui estão três saídas para isso, com as mesmas
convenções de forma de :mod:`helpers.attention`:

- ``q``: ``(..., n_q, d_k)`` ou ``(d_k,)`` (uma query só); ``k``: ``(..., n_k, d_k)``;
  ``v``: ``(..., n_k, d_v)``; máscaras booleanas com ``True`` = **pode olhar**;
- dimensões iniciais (lote, cabeças) seguem o *broadcasting* do numpy;
- entradas inválidas levantam ``ValueError`` em português; nada devolve NaN em silêncio
  (uma query sem nenhuma key visível recebe saída 0).

As três funções:

- :func:`local_attention` — cada query só olha para as keys a até ``window`` posições dela.
  É a atenção exata **com uma máscara de faixa**, mas calculada sem a matriz ``n × n``:
  custo ``O(n·window)``, e um bloco de queries por vez na memória. Perde o que está fora da janela.
- :func:`linear_attention` — troca ``exp(q·k)`` por ``φ(q)·φ(k)`` e reordena as contas:
  ``φ(Q)(φ(K)ᵀV)`` custa ``O(n·d²)``. **Não** é a atenção com softmax: é outro modelo, com pesos
  mais espalhados.
- :func:`blockwise_attention` — a atenção **exata**, bloco de keys por bloco de keys, com a softmax
  "online" (máximo e soma corrigidos a cada bloco; a ideia do FlashAttention). Faz as mesmas ``n²``
  contas, mas guarda só um bloco de escores por vez.

As peças da softmax online também estão aqui, para uma query (ou várias) e um bloco de escores por
vez: :func:`partial_state`, :func:`combine_states` e :func:`finish_state`.

As contas de custo (quantos escores, operações e bytes cada método gasta, sem calcular atenção
nenhuma) moram em :mod:`helpers.costs` e são reexportadas aqui: ``efficient.attention_costs``,
``efficient.band_count`` etc. continuam valendo.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validation as val
from ._fast import BLOCO_PADRAO, PARALLEL_FROM, blas_one_thread, cores, local_query_block
from .costs import attention_costs, band_count, causal_tile_count, computed_pairs, layer_comparison, longest_path

__all__ = [
    "band_mask",
    "local_attention",
    "elu_feature_map",
    "linear_attention",
    "linear_attention_weights",
    "partial_state",
    "combine_states",
    "finish_state",
    "blockwise_attention",
    "band_count",
    "causal_tile_count",
    "attention_costs",
    "computed_pairs",
    "longest_path",
    "layer_comparison",
]


def _blocos(block_size: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(block_size, tuple):
        if len(block_size) != 2:
            raise ValueError(f"block_size deve ser um inteiro ou um par (bloco_q, bloco_k); recebi {block_size!r}.")
        return val.positive_int(block_size[0], "block_size[0]"), val.positive_int(block_size[1], "block_size[1]")
    b = val.positive_int(block_size, "block_size")
    return b, b


# ---------------------------------------------------------------------------------------------
# Atenção local (janela deslizante)
# ---------------------------------------------------------------------------------------------


def band_mask(n_q: int, n_k: int | None = None, window: int = 1, *, causal: bool = False) -> NDArray[np.bool_]:
    """Máscara de faixa ``(n_q, n_k)``: a query ``i`` pode ver a key ``j`` se ``|i − j| ≤ window``.

    Com ``causal=True``, só ``i − window ≤ j ≤ i`` (a janela olha só para trás). É a máscara que,
    passada a :func:`helpers.attention.scaled_dot_product_attention`, dá o mesmo resultado que
    :func:`local_attention` — mas ela própria já tem ``n_q · n_k`` elementos.
    """
    n_q = val.positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else val.positive_int(n_k, "n_k")
    w = val.window(window)
    dif = np.arange(n_k)[None, :] - np.arange(n_q)[:, None]  # j - i
    return (dif >= -w) & (dif <= (0 if causal else w))


def local_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    window: int,
    *,
    causal: bool = False,
    scale: float | None = None,
    block_size: int | None = None,
) -> NDArray[np.floating]:
    """Atenção local: a query ``i`` só olha para as keys ``j`` com ``|i − j| ≤ window``.

    Com ``causal=True``, só para ``i − window ≤ j ≤ i``. O resultado é **igual** ao da atenção exata
    com a máscara :func:`band_mask`, mas a matriz ``n × n`` nunca é montada: as queries são
    processadas em blocos de ``block_size`` linhas, e cada bloco só calcula os escores contra a faixa
    de keys que ele pode ver (``block_size + 2·window`` keys, no máximo). Custo ``O(n·window·d)``,
    memória extra ``O(block_size·(block_size + window))``.

    Formas
    ------
    q : ``(..., n_q, d_k)`` ou ``(d_k,)``; k : ``(..., n_k, d_k)``; v : ``(..., n_k, d_v)``.
    window : inteiro ``>= 0`` (``0`` = cada query só vê a key da própria posição).
    scale : padrão ``1/√d_k``. block_size : padrão ``max(64, window)``.

    Retorna
    -------
    ``output`` ``(..., n_q, d_v)`` (ou ``(..., d_v)`` para ``q`` 1-D). As posições são alinhadas no
    início (a query ``i`` e a key ``i`` são a mesma posição); uma query sem nenhuma key na janela
    recebe saída 0.
    """
    qa, ka, va, single, lead = val.qkv(q, k, v)
    w = val.window(window)
    d_k = qa.shape[-1]
    s = val.scale_for(d_k, scale)
    b = local_query_block(w) if block_size is None else val.positive_int(block_size, "block_size")
    dtype = np.result_type(qa, ka, va)
    n_q, n_k = qa.shape[-2], ka.shape[-2]
    out = np.zeros((*lead, n_q, va.shape[-1]), dtype=dtype)
    escala = np.asarray(s, dtype=qa.dtype)
    for i0 in range(0, n_q, b):
        i1 = min(i0 + b, n_q)
        lo, hi = max(0, i0 - w), min(n_k, i1 + (0 if causal else w))
        if lo >= hi:  # nenhuma key na janela destas queries
            continue
        with np.errstate(over="ignore", invalid="ignore"):  # um q·k que estoura vira o ValueError abaixo
            z = np.matmul(qa[..., i0:i1, :] * escala, np.swapaxes(ka[..., lo:hi, :], -1, -2)).astype(dtype, copy=False)
        dif = np.arange(lo, hi)[None, :] - np.arange(i0, i1)[:, None]
        fora = (dif < -w) | (dif > (0 if causal else w))
        if fora.any():
            z = np.where(fora, -np.inf, z)
        m = np.max(z, axis=-1, keepdims=True)
        val.finite_row_max(m)
        m[np.isneginf(m)] = 0.0  # linha sem nenhuma key visível: evita -inf - (-inf)
        z -= m
        np.exp(z, out=z)
        total = np.sum(z, axis=-1, keepdims=True)
        np.divide(z, total, out=z, where=total > 0)
        out[..., i0:i1, :] = np.matmul(z, va[..., lo:hi, :])
    return out[..., 0, :] if single else out


# ---------------------------------------------------------------------------------------------
# Atenção linear (kernel)
# ---------------------------------------------------------------------------------------------


def elu_feature_map(x: ArrayLike) -> NDArray[np.floating]:
    """``φ(x) = elu(x) + 1``, elemento a elemento: ``x + 1`` se ``x > 0``, senão ``eˣ``. Sempre ``> 0``.

    É o mapa de características de Katharopoulos et al. (2020), *Transformers are RNNs*.
    """
    arr = np.asarray(x)
    return np.where(arr > 0, arr + 1.0, np.exp(np.minimum(arr, 0.0)))


def _phi(feature_map: Callable[[np.ndarray], ArrayLike], x: np.ndarray, nome: str) -> np.ndarray:
    y = np.asarray(feature_map(x))
    if y.ndim < 2 or y.shape[:-1] != x.shape[:-1]:
        raise ValueError(
            f"feature_map precisa manter as posições: recebeu {nome} de forma {x.shape} e devolveu "
            f"{y.shape}; a forma esperada é {x.shape[:-1]} + (d_φ,)."
        )
    if y.dtype.kind != "f":
        y = y.astype(np.float64)
    if not np.isfinite(y).all():
        raise ValueError(f"feature_map devolveu NaN ou inf para {nome}; ele precisa dar valores finitos.")
    if (y < 0).any():
        raise ValueError(
            f"feature_map devolveu valores negativos para {nome}: com φ negativo os 'pesos' φ(q)·φ(k) "
            "podem ser negativos e o denominador pode ser 0. Use um mapa positivo, como elu(x) + 1."
        )
    return y


def _dividir(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` por linha, com 0 onde ``den == 0`` (nenhuma key com peso)."""
    out = np.zeros(np.broadcast_shapes(num.shape, den.shape), dtype=np.result_type(num, den))
    np.divide(num, den, out=out, where=den > 0)
    return out


def linear_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    feature_map: Callable[[np.ndarray], ArrayLike] = elu_feature_map,
    *,
    causal: bool = False,
    chunk_size: int = 256,
) -> NDArray[np.floating]:
    """Atenção linear: ``φ(Q) (φ(K)ᵀ V) / (φ(Q) (φ(K)ᵀ 1))``, sem matriz ``n × n``.

    A atenção com softmax pesa a key ``j`` por ``exp(q·k_j/√d)``; a linear troca esse peso por
    ``φ(q)·φ(k_j)`` (padrão: ``φ = elu + 1``, sempre positivo) e normaliza pela soma. Como não há
    exponencial de um produto, a associatividade deixa calcular primeiro ``φ(K)ᵀV`` (``d_φ × d_v``)
    e ``φ(K)ᵀ1`` (``d_φ``) e depois multiplicar por ``φ(Q)``: custo ``O(n·d_φ·d_v)``, linear em ``n``.

    **Não** é igual à atenção com softmax: é outro modelo (os pesos são outros, em geral mais
    espalhados). Para a sua própria definição ela é exata: igual a :func:`linear_attention_weights`
    ``@ v``, a forma explícita ``n × n``.

    Com ``causal=True`` a query ``i`` só usa as keys ``j <= i``: as somas ``Σ_{j<=i} φ(k_j) v_jᵀ`` são
    acumuladas ao longo da sequência em pedaços de ``chunk_size`` posições (dentro de um pedaço, a
    forma explícita com máscara triangular; entre pedaços, o estado acumulado).

    Formas
    ------
    q : ``(..., n_q, d_k)`` ou ``(d_k,)``; k : ``(..., n_k, d_k)``; v : ``(..., n_k, d_v)``.
    feature_map : função ``(..., n, d_k) → (..., n, d_φ)`` com valores finitos e ``>= 0``.

    Retorna
    -------
    ``output`` ``(..., n_q, d_v)`` (ou ``(..., d_v)`` para ``q`` 1-D). Uma query cujo denominador
    dá 0 (todos os pesos nulos) recebe saída 0.
    """
    qa, ka, va, single, _lead = val.qkv(q, k, v)
    if not callable(feature_map):
        raise ValueError(f"feature_map precisa ser uma função (recebi {feature_map!r}).")
    chunk = val.positive_int(chunk_size, "chunk_size")
    fq = _phi(feature_map, qa, "q")
    fk = _phi(feature_map, ka, "k")
    if fq.shape[-1] != fk.shape[-1]:
        raise ValueError(f"feature_map deu tamanhos diferentes para q ({fq.shape[-1]}) e k ({fk.shape[-1]}).")
    dtype = np.result_type(fq, fk, va)
    if not causal:
        estado = np.matmul(np.swapaxes(fk, -1, -2), va)  # (..., d_φ, d_v)
        soma_k = np.sum(fk, axis=-2)[..., :, None]  # (..., d_φ, 1)
        out = _dividir(np.matmul(fq, estado), np.matmul(fq, soma_k)).astype(dtype, copy=False)
        return out[..., 0, :] if single else out

    n_q, n_k = fq.shape[-2], fk.shape[-2]
    lead = np.broadcast_shapes(fq.shape[:-2], fk.shape[:-2], va.shape[:-2])
    out = np.zeros((*lead, n_q, va.shape[-1]), dtype=dtype)
    estado = np.zeros((*lead, fk.shape[-1], va.shape[-1]), dtype=dtype)
    soma_k = np.zeros((*lead, fk.shape[-1], 1), dtype=dtype)
    for a in range(0, n_q, chunk):
        b = min(a + chunk, n_q)
        fq_c = fq[..., a:b, :]
        kb = min(b, n_k)
        num = np.matmul(fq_c, estado)
        den = np.matmul(fq_c, soma_k)
        if a < kb:  # as keys deste pedaço: a forma explícita com a máscara triangular
            fk_c, v_c = fk[..., a:kb, :], va[..., a:kb, :]
            p = np.matmul(fq_c, np.swapaxes(fk_c, -1, -2)) * np.tri(b - a, kb - a, dtype=dtype)
            num = num + np.matmul(p, v_c)
            den = den + np.sum(p, axis=-1, keepdims=True)
            estado = estado + np.matmul(np.swapaxes(fk_c, -1, -2), v_c)
            soma_k = soma_k + np.sum(fk_c, axis=-2)[..., :, None]
        out[..., a:b, :] = _dividir(num, den)
    return out[..., 0, :] if single else out


def linear_attention_weights(
    q: ArrayLike,
    k: ArrayLike,
    feature_map: Callable[[np.ndarray], ArrayLike] = elu_feature_map,
    *,
    causal: bool = False,
) -> NDArray[np.floating]:
    """Os pesos **explícitos** da atenção linear: ``φ(q_i)·φ(k_j) / Σ_j φ(q_i)·φ(k_j)``, ``(..., n_q, n_k)``.

    É a forma ``n × n`` (custo ``n²``) que :func:`linear_attention` evita montar; serve para ver os
    pesos e comparar com os da softmax. Cada linha soma 1 (ou é toda 0, se o denominador for 0).
    """
    qa = val.as_float(q, "q")
    ka = val.as_float(k, "k")
    single = qa.ndim == 1
    if single:
        qa = qa[None, :]
    if ka.ndim < 2 or ka.shape[-1] != qa.shape[-1]:
        raise ValueError(f"q {np.shape(q)} e k {ka.shape} precisam ter o mesmo d_k no último eixo (k: (..., n_k, d_k)).")
    fq = _phi(feature_map, qa, "q")
    fk = _phi(feature_map, ka, "k")
    p = np.matmul(fq, np.swapaxes(fk, -1, -2))
    if causal:
        p = p * np.tri(p.shape[-2], p.shape[-1], dtype=p.dtype)
    w = _dividir(p, np.sum(p, axis=-1, keepdims=True))
    return w[..., 0, :] if single else w


# ---------------------------------------------------------------------------------------------
# Softmax online: os estados parciais
# ---------------------------------------------------------------------------------------------


def partial_state(scores: ArrayLike, values: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """O estado parcial ``(m, l, acc)`` da softmax online para **um bloco** de escores.

    - ``m = max_j z_j`` (o maior escore do bloco);
    - ``l = Σ_j e^(z_j − m)`` (a soma das exponenciais, medidas a partir de ``m``);
    - ``acc = Σ_j e^(z_j − m) v_j`` (a soma dos values com esses mesmos pesos, ainda sem dividir).

    Formas: ``scores`` ``(..., b)`` (``b`` keys do bloco; ``-inf`` = mascarada), ``values`` ``(b, d_v)``
    ou ``(..., b, d_v)``. Devolve ``m`` e ``l`` ``(...)`` e ``acc`` ``(..., d_v)``. Um bloco todo
    ``-inf`` dá o estado vazio ``(-inf, 0, 0)``. A saída da atenção é ``acc / l``
    (:func:`finish_state`), e dois estados se juntam com :func:`combine_states`.
    """
    z = val.as_float(scores, "scores", allow_neg_inf=True)
    vals = val.as_float(values, "values")
    if z.ndim == 0 or vals.ndim < 2 or vals.shape[-2] != z.shape[-1]:
        raise ValueError(
            f"scores (..., b) e values (..., b, d_v) precisam ter o mesmo número b de keys; recebi "
            f"scores {z.shape} e values {vals.shape}."
        )
    if z.shape[-1] == 0:
        raise ValueError("o bloco de escores está vazio (b = 0).")
    m = np.max(z, axis=-1)
    ref = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(z - ref[..., None])
    l_ = np.sum(e, axis=-1)
    acc = np.matmul(e[..., None, :], vals)[..., 0, :]
    return m, l_, acc


def combine_states(
    a: tuple[ArrayLike, ArrayLike, ArrayLike], b: tuple[ArrayLike, ArrayLike, ArrayLike]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Junta dois estados parciais ``(m, l, acc)`` de blocos diferentes das mesmas queries.

    O novo máximo é ``m = max(m_a, m_b)``. Cada estado foi medido a partir do **seu** máximo; para
    somá-los, os dois são trazidos para a nova referência multiplicando por ``e^(m_a − m)`` e
    ``e^(m_b − m)`` (números ``<= 1``, então nada estoura)::

        l   = l_a · e^(m_a − m) + l_b · e^(m_b − m)
        acc = acc_a · e^(m_a − m) + acc_b · e^(m_b − m)

    O estado vazio ``(-inf, 0, 0)`` é o elemento neutro. Formas: ``m``, ``l`` ``(...)``,
    ``acc`` ``(..., d_v)``.
    """
    try:
        m_a, l_a, acc_a = a
        m_b, l_b, acc_b = b
    except (TypeError, ValueError) as exc:
        raise ValueError("cada estado precisa ser uma tripla (m, l, acc).") from exc
    m_a, m_b = (val.as_float(x, nome, allow_neg_inf=True) for x, nome in ((m_a, "m_a"), (m_b, "m_b")))
    l_a, l_b, acc_a, acc_b = (val.as_float(x, nome) for x, nome in
                              ((l_a, "l_a"), (l_b, "l_b"), (acc_a, "acc_a"), (acc_b, "acc_b")))
    m = np.maximum(m_a, m_b)
    ref = np.where(np.isneginf(m), 0.0, m)  # os dois vazios: evita -inf - (-inf)
    fa, fb = np.exp(m_a - ref), np.exp(m_b - ref)
    return m, l_a * fa + l_b * fb, acc_a * fa[..., None] + acc_b * fb[..., None]


def finish_state(state: tuple[ArrayLike, ArrayLike, ArrayLike]) -> np.ndarray:
    """A saída da atenção a partir do estado final: ``acc / l`` (0 onde ``l = 0``, o estado vazio)."""
    _m, l_, acc = state
    l_arr = np.asarray(l_, dtype=float)[..., None]
    return _dividir(np.asarray(acc, dtype=float), l_arr)


# ---------------------------------------------------------------------------------------------
# Atenção exata por blocos (softmax online)
# ---------------------------------------------------------------------------------------------


def blockwise_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    block_size: int | tuple[int, int] = BLOCO_PADRAO,
    *,
    causal: bool = False,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    return_lse: bool = False,
) -> NDArray[np.floating] | tuple[NDArray[np.floating], NDArray[np.floating]]:
    """A atenção **exata** ``softmax(q kᵀ · scale) v``, calculada bloco a bloco, sem a matriz ``n × n``.

    As queries são divididas em blocos de ``bloco_q`` linhas; para cada bloco, as keys são
    percorridas em blocos de ``bloco_k``. Cada query carrega três coisas de um bloco de keys para o
    seguinte — a *softmax online*:

    - ``m``: o maior escore visto até agora;
    - ``l``: a soma de ``e^(z − m)`` até agora;
    - ``acc``: a soma de ``e^(z − m) v`` até agora.

    Quando um bloco novo traz um máximo maior, ``l`` e ``acc`` são multiplicados por
    ``e^(m_velho − m_novo)`` antes de somar o bloco novo. No fim, ``saída = acc / l``. É a ideia do
    FlashAttention (Dao et al., 2022). O resultado é igual ao de
    :func:`helpers.attention.scaled_dot_product_attention` a menos de arredondamento (~1e-15 em
    float64); com ``causal=True`` os blocos inteiramente no futuro nem são calculados.

    Memória extra: um bloco ``bloco_q × bloco_k`` de escores e ``m``, ``l``, ``acc`` do bloco de
    queries, mais a saída (``n_q × d_v``) — ``O(bloco_q·bloco_k + n·d)``, nunca ``n²``.

    Formas
    ------
    q : ``(..., n_q, d_k)`` ou ``(d_k,)``; k : ``(..., n_k, d_k)``; v : ``(..., n_k, d_v)``.
    block_size : inteiro (o mesmo para queries e keys) ou par ``(bloco_q, bloco_k)``; padrão 256.
        Não precisa dividir ``n``: o último bloco fica menor.
    causal : a query ``i`` só vê as keys ``j <= i`` (combina com ``mask``).
    mask : booleana, *broadcastable* para ``(..., n_q, n_k)``; ``True`` = pode olhar.
    scale : padrão ``1/√d_k``.
    return_lse : se ``True``, devolve também ``log Σ_j e^(z_ij)`` por query, ``(..., n_q)``
        (``-inf`` para uma query sem nenhuma key visível).

    Retorna
    -------
    ``output`` ``(..., n_q, d_v)`` (ou ``(..., d_v)`` para ``q`` 1-D), no tipo das entradas
    (float32 continua float32); ``(output, lse)`` com ``return_lse=True``. Uma query com todas as
    keys mascaradas recebe saída 0, nunca NaN.
    """
    qa, ka, va, single, lead = val.qkv(q, k, v)
    bq, bk = _blocos(block_size)
    d_k = qa.shape[-1]
    s = val.scale_for(d_k, scale)
    n_q, n_k, d_v = qa.shape[-2], ka.shape[-2], va.shape[-1]
    mascara, lead = val.mask(mask, n_q, n_k, lead)
    dtype = np.result_type(qa, ka, va)
    escala = np.asarray(s, dtype=qa.dtype)
    kt = np.swapaxes(ka, -1, -2)  # uma vista: (..., d_k, n_k)
    lead_qk = np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2])

    out = np.empty((*lead, n_q, d_v), dtype=dtype)
    lse = np.empty((*lead, n_q), dtype=dtype) if return_lse else None

    def bloco_de_queries(i0: int) -> None:
        """As linhas ``i0 : i0 + bloco_q`` da saída (e do lse), varrendo as keys bloco a bloco."""
        i1 = min(i0 + bq, n_q)
        qb = qa[..., i0:i1, :] * escala
        m = np.full((*lead, i1 - i0, 1), -np.inf, dtype=dtype)
        soma = np.zeros((*lead, i1 - i0, 1), dtype=dtype)
        acc = out[..., i0:i1, :]  # o acumulador mora na própria saída: nenhuma cópia extra
        acc.fill(0.0)
        fim_k = min(n_k, i1) if causal else n_k  # causal: keys depois da última query do bloco não contam
        # o único bloco de escores (bq × bk) e o bloco de pesos @ values: alocados uma vez, reusados
        escores = np.empty((*lead_qk, i1 - i0, min(bk, fim_k)), dtype=dtype)
        parcela = np.empty((*lead, i1 - i0, d_v), dtype=dtype)
        for j0 in range(0, fim_k, bk):
            j1 = min(j0 + bk, fim_k)
            with np.errstate(over="ignore", invalid="ignore"):  # um q·k que estoura vira o ValueError abaixo
                z = np.matmul(qb, kt[..., j0:j1], out=escores[..., : j1 - j0])
            proibido = None
            if causal and j1 - 1 > i0:  # o bloco cruza a diagonal
                proibido = np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None]
            if mascara is not None:
                fora = ~mascara[..., i0:i1, j0:j1]
                proibido = fora if proibido is None else (fora | proibido)
            if proibido is not None:
                forma = np.broadcast_shapes(z.shape, proibido.shape)
                if forma != z.shape:  # a máscara traz dimensões iniciais que q, k e v não têm
                    z = np.broadcast_to(z, forma).copy()
                np.copyto(z, -np.inf, where=proibido)
            m_bloco = np.max(z, axis=-1, keepdims=True)
            val.finite_row_max(m_bloco)
            m_novo = np.maximum(m, m_bloco)
            if proibido is not None:
                ref = np.where(np.isneginf(m_novo), 0.0, m_novo)  # linha ainda sem nenhuma key visível
            else:
                ref = m_novo  # sem máscara todo escore é finito: m_novo também
            z -= ref
            np.exp(z, out=z)  # os pesos do bloco, ainda sem dividir; todos <= 1
            fator = np.exp(m - ref)  # e^(m_velho − m_novo) <= 1; 0 no primeiro bloco (m = -inf)
            soma *= fator
            soma += np.sum(z, axis=-1, keepdims=True)
            acc *= fator
            acc += np.matmul(z, va[..., j0:j1, :], out=parcela)
            m = m_novo
        np.divide(acc, soma, out=acc, where=soma > 0)  # onde soma = 0 (nenhuma key visível) acc já é 0
        if lse is not None:
            with np.errstate(divide="ignore"):
                lse[..., i0:i1] = (m + np.log(soma))[..., 0]

    inicios = range(0, n_q, bq)
    nucleos = min(cores(), 8, len(inicios))
    if nucleos > 1 and n_q * n_k * max(1, math.prod(lead)) >= PARALLEL_FROM:
        # blocos de queries são independentes e o numpy solta o GIL nas contas: um bloco por núcleo
        # de cada vez (a memória extra vira um bloco de escores por núcleo)
        # (com o BLAS em 1 thread: cada núcleo já tem o seu bloco; threads do BLAS só disputariam os núcleos)
        with blas_one_thread(), ThreadPoolExecutor(nucleos) as executor:
            list(executor.map(bloco_de_queries, inicios))
    else:
        for i0 in inicios:
            bloco_de_queries(i0)
    if single:
        out = out[..., 0, :]
        lse = None if lse is None else lse[..., 0]
    return (out, lse) if return_lse else out
