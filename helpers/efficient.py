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

E, no fim, as contas de custo, sem calcular atenção nenhuma (os métodos ``"exata"``, ``"local"``,
``"linear"`` e ``"blocos"``, nos nomes das chaves):

- :func:`band_count` e :func:`causal_tile_count` — quantos pares ``(query, key)`` a atenção local e a
  por blocos causal calculam;
- :func:`attention_costs` — escores, operações e memória de uma cabeça, método por método;
- :func:`longest_path` e :func:`layer_comparison` — o caminho mais longo entre duas posições e a
  comparação de uma camada recorrente com as de atenção (a tabela 1 de *Attention Is All You Need*);
- :func:`computed_pairs` — quais pares cada método calcula, resumidos numa imagem.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validation as val
from ._fast import PARALLEL_FROM, blas_one_thread, cores

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


#: tamanho padrão dos blocos de queries e de keys da atenção por blocos (um bloco de escores
#: 256 × 256 em float64 ocupa 0.5 MiB)
BLOCO_PADRAO = 256


def local_query_block(window: int) -> int:
    """O bloco de queries padrão da atenção local: ``max(64, window)`` (usado pela conta e pelo custo)."""
    return max(64, window)


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


# ---------------------------------------------------------------------------------------------
# Os custos: quantos escores, operações e bytes cada método gasta (sem calcular atenção nenhuma)
# ---------------------------------------------------------------------------------------------


def band_count(n: int, window: int, *, causal: bool = False) -> int:
    """Quantos pares ``(i, j)`` a atenção local avalia em ``n`` posições: o número de ``True`` de
    :func:`helpers.efficient.band_mask`.

    Sem máscara causal, ``n(2w + 1) − w(w + 1)`` (cada query vê até ``w`` vizinhos de cada lado; nas
    pontas faltam ``1 + 2 + … + w`` de cada lado); com ``causal=True``, ``n(w + 1) − w(w + 1)/2``.
    Com ``w >= n − 1`` a janela cobre tudo: ``n²`` (ou ``n(n + 1)/2``).
    """
    n = val.positive_int(n, "n")
    w = min(val.window(window), n - 1)
    if causal:
        return n * (w + 1) - w * (w + 1) // 2
    return n * (2 * w + 1) - w * (w + 1)


def causal_tile_count(n: int, block_size: int) -> int:
    """Quantos escores a atenção por blocos calcula com ``causal=True``: os blocos inteiramente no
    futuro são pulados; os que cruzam a diagonal são calculados inteiros (e mascarados por dentro)."""
    n = val.positive_int(n, "n")
    b = val.positive_int(block_size, "block_size")
    inicios = np.arange(0, n, b)
    fins = np.minimum(inicios + b, n)
    return int(np.sum((fins - inicios) * fins))  # bloco de queries [i0, i1) contra as keys [0, i1)


def attention_costs(
    n: int,
    d: int = 64,
    *,
    window: int = 32,
    block_size: int = BLOCO_PADRAO,
    causal: bool = False,
    bytes_per_value: int = 4,
) -> dict[str, dict[str, int]]:
    """As contas de custo de uma cabeça de atenção com ``n`` posições e vetores de tamanho ``d``.

    Para cada método (``"exata"``, ``"local"``, ``"linear"``, ``"blocos"``) devolve um dicionário com:

    - ``escores``: quantos produtos ``q·k`` são calculados;
    - ``flops``: operações aproximadas (uma multiplicação e uma soma contam 2) das duas
      multiplicações de matrizes — ``Q Kᵀ`` e ``pesos @ V`` custam ``2·escores·d`` cada, daí
      ``4·escores·d``; na linear, ``φ(K)ᵀV`` e ``φ(Q)·(φ(K)ᵀV)`` custam ``2·n·d²`` cada: ``4·n·d²``;
    - ``numeros``: quantos números a conta precisa guardar ao mesmo tempo, além de ``q``, ``k``,
      ``v`` e da saída — exata: a matriz de pesos ``n × n``; local: um bloco de escores de
      :func:`helpers.efficient.local_attention`, ``b`` queries contra as até ``b + 2·window`` keys
      que elas veem (``b + window`` com ``causal``; ``b = max(64, window)``, o bloco padrão dela);
      linear: ``φ(K)ᵀV`` (``d × d``) e ``φ(K)ᵀ1`` (``d``); por blocos: um bloco ``B × B`` de escores
      e o máximo e a soma corridos (``2B``);
    - ``bytes``: ``numeros · bytes_per_value`` (4 = float32).

    A exata com ``causal=True`` ainda calcula os ``n²`` escores (e joga fora os de cima da
    diagonal); a por blocos pula os blocos inteiramente no futuro (:func:`causal_tile_count`).
    """
    n = val.positive_int(n, "n")
    d = val.positive_int(d, "d")
    b = min(val.positive_int(block_size, "block_size"), n)
    nb = val.positive_int(bytes_per_value, "bytes_per_value")
    banda = band_count(n, window, causal=causal)
    escores_blocos = causal_tile_count(n, b) if causal else n * n
    w = val.window(window)
    b_local = min(n, local_query_block(w))  # o bloco de queries padrão de local_attention
    faixa_local = min(n, b_local + (w if causal else 2 * w))  # as keys que um bloco de queries vê, no máximo
    custos = {
        "exata": {"escores": n * n, "flops": 4 * n * n * d, "numeros": n * n},
        "local": {"escores": banda, "flops": 4 * banda * d, "numeros": b_local * faixa_local},
        "linear": {"escores": 0, "flops": 4 * n * d * d, "numeros": d * d + d},
        "blocos": {"escores": escores_blocos, "flops": 4 * escores_blocos * d, "numeros": b * b + 2 * b},
    }
    for c in custos.values():
        c["bytes"] = c["numeros"] * nb
    return custos


def longest_path(mask: ArrayLike) -> int:
    """O caminho mais longo entre duas posições: quantas ligações diretas (passos de uma recorrência,
    ou camadas de atenção empilhadas), no máximo, a informação de uma posição ``j`` atravessa para
    chegar a uma posição ``i`` que a enxerga.

    ``mask`` ``(n, n)`` booleana: ``mask[i, j]`` = a posição ``i`` lê a posição ``j`` **diretamente**
    numa camada (a diagonal é somada se faltar: cada posição guarda o que já tinha). A conta é a das
    potências da matriz de ligações (a entrada ``(i, j)`` de ``Mᴸ`` é positiva quando há um caminho de
    ``j`` até ``i`` em ``L`` passos): devolve o menor ``L`` com que todo par que se alcança em algum
    número de passos já se alcança. Uma recorrência (``i`` lê só ``i − 1``) dá ``n − 1``; a
    autoatenção, 1; a janela ``w``, ``⌈(n − 1)/w⌉``.
    """
    m = np.asarray(mask)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.dtype != np.bool_:
        raise ValueError(f"mask precisa ser uma matriz booleana quadrada (n, n); recebi forma {m.shape} e dtype {m.dtype}.")
    n = m.shape[0]
    ligacoes = (m | np.eye(n, dtype=bool)).astype(np.float64)
    alcance = ligacoes.copy()
    passos = 1
    while True:
        proximo = (alcance @ ligacoes) > 0
        if np.array_equal(proximo, alcance > 0):
            return passos
        alcance = proximo.astype(np.float64)
        passos += 1


def layer_comparison(n: int, d: int = 64, *, window: int = 128, chunk: int = 256) -> dict[str, dict[str, int]]:
    """Uma camada de cada tipo, com ``n`` posições e vetores de tamanho ``d``: a tabela 1 de
    *Attention Is All You Need* (Vaswani e colegas, 2017), com números em vez de ordens de grandeza.

    Para ``"recorrente"`` (``h_t = tanh(W_h h_{t−1} + W_x x_t)``, matrizes ``d × d``),
    ``"autoatencao"`` (a exata, causal ou não), ``"local"`` (janela causal de ``window`` posições
    para trás), ``"linear causal"`` (a atenção linear escrita como recorrência, um token por vez, estado
    ``d × d``) e ``"linear causal em pedaços"`` (a mesma conta na forma de
    :func:`helpers.efficient.linear_attention`: pedaços de ``chunk`` posições, cada um de uma vez, e o
    estado passado de um pedaço ao seguinte):

    - ``flops``: as multiplicações da camada (uma multiplicação e uma soma contam 2) — recorrente:
      ``2·d²`` de ``W_h h`` mais ``2·d²`` de ``W_x x`` por posição, ``4·n·d²``; autoatenção:
      ``4·n²·d``; local: ``4·(pares da faixa causal)·d``; linear causal: ``4·n·d²``; em pedaços, mais
      ``4·c²·d`` por pedaço de ``c`` posições (a forma explícita dentro do pedaço, calculada inteira e
      mascarada);
    - ``passos_sequenciais``: quantas contas precisam esperar a anterior — ``n`` na recorrência (e na
      linear escrita como recorrência), ``⌈n/chunk⌉`` na linear em pedaços, 1 nas atenções (todas as
      posições de uma vez);
    - ``caminho_maximo``: :func:`longest_path` das ligações diretas de uma camada — ``n − 1``,
      1, ``⌈(n − 1)/w⌉``; na linear causal, 1 (a saída ``i`` soma ``φ(k_j) v_jᵀ`` de todo ``j ≤ i``
      direto no estado). O caminho conta saltos, não capacidade: na linear, o salto leva a um estado de
      tamanho fixo, somado por cima do de todos os outros tokens;
    - ``estado``: quantos números a camada carrega de uma posição para a seguinte na geração — ``d``
      (o estado oculto), ``2·n·d`` (o KV cache, que cresce), ``2·w·d`` (a janela do cache) e
      ``d² + d``.
    """
    n = val.positive_int(n, "n")
    d = val.positive_int(d, "d")
    w = min(val.window(window), n - 1) if n > 1 else 0
    banda = band_count(n, w, causal=True)
    c = min(val.positive_int(chunk, "chunk"), n)
    pares_pedacos = (n // c) * c * c + (n % c) ** 2  # cada pedaço calcula os seus c × c pares
    return {
        "recorrente": {"flops": 4 * n * d * d, "passos_sequenciais": n, "caminho_maximo": n - 1, "estado": d},
        "autoatencao": {"flops": 4 * n * n * d, "passos_sequenciais": 1, "caminho_maximo": 1, "estado": 2 * n * d},
        "local": {"flops": 4 * banda * d, "passos_sequenciais": 1,
                  "caminho_maximo": -(-(n - 1) // w) if w else 0, "estado": 2 * w * d},
        "linear causal": {"flops": 4 * n * d * d, "passos_sequenciais": n, "caminho_maximo": 1, "estado": d * d + d},
        "linear causal em pedaços": {"flops": 4 * n * d * d + 4 * pares_pedacos * d, "passos_sequenciais": -(-n // c),
                                     "caminho_maximo": 1, "estado": d * d + d},
    }


def _fraction_by_offset(resolution: int, s: int, lower: float, upper: float) -> np.ndarray:
    """Para células ``s × s`` de uma grade ``resolution × resolution``: a fração dos pares ``(i, j)`` da
    célula ``(I, J)`` com ``lower <= j − i <= upper``, que só depende de ``δ = J − I``.

    Dentro de uma célula, ``j − i = δ·s + t`` com ``t`` de ``−(s − 1)`` a ``s − 1``, e cada ``t``
    aparece ``s − |t|`` vezes; somas acumuladas dessas contagens dão a fração de cada ``δ`` sem
    percorrer os ``n²`` pares.
    """
    t = np.arange(-(s - 1), s)
    acc = np.concatenate(([0.0], np.cumsum(s - np.abs(t), dtype=float)))  # acc[k] = soma das k primeiras contagens
    delta = np.arange(-(resolution - 1), resolution)
    a = np.clip(lower - delta * s, -(s - 1), s)  # o intervalo de t permitido, cortado a [−(s − 1), s − 1]
    b = np.clip(upper - delta * s, -s, s - 1)
    count = np.where(a <= b, acc[(np.maximum(b, a - 1) + s).astype(int)] - acc[(a + s - 1).astype(int)], 0.0)
    idx = np.arange(resolution)
    return (count / (s * s))[idx[None, :] - idx[:, None] + resolution - 1]  # (R, R)


def computed_pairs(n: int, method: str, window: int, block_size: int, causal: bool,
                   resolution: int = 128) -> NDArray[np.float64]:
    """Quais pares ``(query, key)`` cada método calcula, resumidos numa imagem ``(R, R)``, ``R = min(n, resolution)``.

    Cada célula resume ``(n/R)²`` pares; o valor é a média de: 1 = calculado e usado, 0.5 = calculado
    e descartado (mascarado), 0 = nem calculado. Com ``n > resolution``, ``n`` e ``block_size``
    precisam ser potências de dois. ``method``: ``"exata"``, ``"local"`` (janela ``window`` de cada
    lado), ``"linear"`` (nenhum par) ou ``"blocos"`` (blocos ``block_size × block_size``; com ``causal``,
    os blocos inteiramente no futuro são pulados e os da diagonal, calculados e mascarados por dentro).
    """
    n = val.positive_int(n, "n")
    w = val.window(window)
    r = min(n, val.positive_int(resolution, "resolution"))
    if n % r:
        raise ValueError(f"n = {n} precisa ser múltiplo de {r} para resumir a matriz em {r} × {r} células.")
    if method not in ("exata", "local", "linear", "blocos"):
        raise ValueError(f"método desconhecido: {method!r}; use 'exata', 'local', 'linear' ou 'blocos'.")
    s = n // r
    if method == "linear":
        return np.zeros((r, r))
    if method == "local":
        return _fraction_by_offset(r, s, -w, 0 if causal else w)
    if not causal:
        return np.ones((r, r))
    past = _fraction_by_offset(r, s, -math.inf, 0)  # j <= i: calculado e usado
    if method == "exata":
        return past + 0.5 * (1.0 - past)  # a exata calcula também o futuro, e o descarta
    b = min(val.positive_int(block_size, "block_size"), n)
    if s <= b:  # células menores que os blocos: cada célula cai dentro de um bloco só
        block_of_cell = np.arange(r) * s // b
        same_block = block_of_cell[:, None] == block_of_cell[None, :]
        return past + 0.5 * (1.0 - past) * same_block
    # células maiores que os blocos: só a diagonal tem blocos cortados pela máscara
    image = past.copy()
    image[np.diag_indices(r)] += 0.5 * (s // b) * b * (b - 1) / 2 / (s * s)
    return image
