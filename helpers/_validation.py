"""Validação de entradas do núcleo matemático (attention, efficient, recurrent) e do modelo do notebook 09.

Tudo aqui levanta ``ValueError`` com uma mensagem em português que cita as formas ou os valores
envolvidos. É privado ao pacote (o ``_`` do nome do módulo): as lições e os notebooks usam as funções
públicas de :mod:`helpers.attention`, :mod:`helpers.efficient`, :mod:`helpers.recurrent` e companhia,
que chamam estas.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray


def float_array(x: ArrayLike, name: str) -> NDArray[np.floating]:
    """Converte ``x`` em array de ponto flutuante (float32 é preservado; inteiros viram float64), sem
    olhar os valores (quem chama confere NaN e infinitos)."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # listas irregulares, objetos estranhos
        raise ValueError(f"{name} precisa ser um array numérico; não consegui convertê-lo ({exc}).") from exc
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} precisa ser um array numérico (recebi dtype {arr.dtype}).")
    return arr if arr.dtype.kind == "f" else arr.astype(np.float64)


def no_nan_or_pos_inf(maxima: np.ndarray, name: str, shape: tuple) -> None:
    """Levanta o erro de :func:`as_float` se algum máximo (de uma linha de ``name``, de forma ``shape``)
    é NaN ou +inf: o máximo de uma fatia denuncia os dois sem percorrer o array outra vez."""
    if np.isnan(maxima).any():
        raise ValueError(f"{name} contém NaN (forma {shape}); verifique de onde vieram esses valores.")
    if np.isposinf(maxima).any():
        raise ValueError(f"{name} contém +inf (forma {shape}); use valores finitos.")


def as_float(x: ArrayLike, name: str, *, allow_neg_inf: bool = False) -> NDArray[np.floating]:
    """:func:`float_array` que também rejeita NaN e infinitos (``-inf`` só com ``allow_neg_inf``, para
    escores mascarados)."""
    arr = float_array(x, name)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contém NaN (forma {arr.shape}); verifique de onde vieram esses valores.")
    bad = np.isposinf(arr) if allow_neg_inf else np.isinf(arr)
    if bad.any():
        which = "+inf" if allow_neg_inf else "inf"
        raise ValueError(f"{name} contém {which} (forma {arr.shape}); use valores finitos.")
    return arr


def as_float64(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """:func:`as_float` em float64 (as redes recorrentes e o modelo treinado trabalham em float64)."""
    return as_float(x, name).astype(np.float64, copy=False)


def positive(value: float, name: str) -> float:
    """Um número finito e ``> 0`` (escala, temperatura, regularização)."""
    try:
        val = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} precisa ser um número positivo (recebi {value!r}).") from exc
    if not math.isfinite(val) or val <= 0:
        raise ValueError(f"{name} precisa ser um número finito e positivo (recebi {value!r}).")
    return val


def positive_int(value: int, name: str, minimum: int = 1) -> int:
    """Um inteiro de verdade (não ``bool``, não ``float``) ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        if minimum == 1:
            raise ValueError(f"{name} precisa ser um inteiro positivo (recebi {value!r}).")
        raise ValueError(f"{name} precisa ser um inteiro >= {minimum} (recebi {value!r}).")
    return int(value)


def sequence(xs: ArrayLike, d: int) -> NDArray[np.float64]:
    """Uma sequência de entradas ``(..., T, d)`` para as redes recorrentes, em float64, com ``T > 0``."""
    arr = as_float64(xs, "xs")
    if arr.ndim < 2 or arr.shape[-1] != d:
        raise ValueError(f"xs precisa ter forma (..., T, d) com d = {d}; recebi {arr.shape}.")
    if arr.shape[-2] == 0:
        raise ValueError(f"a sequência está vazia (xs tem forma {arr.shape}, T = 0).")
    return arr


def qkv(q: ArrayLike, k: ArrayLike, v: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool, tuple]:
    """Valida e converte ``q, k, v`` para toda função de atenção (exata, eficiente, gradiente).

    Devolve ``(q2, k, v, single, lead)``: ``q2`` sempre com o eixo das queries (``q`` 1-D vira
    ``(1, d_k)``), ``single`` diz se ``q`` era 1-D e ``lead`` é a forma das dimensões iniciais.
    """
    qa = as_float(q, "q")
    ka = as_float(k, "k")
    va = as_float(v, "v")
    if qa.ndim == 0:
        raise ValueError("q precisa ter pelo menos um eixo: (d_k,) ou (..., n_q, d_k).")
    if ka.ndim < 2 or va.ndim < 2:
        raise ValueError(
            f"k e v precisam ter forma (..., n_k, d); recebi k {ka.shape} e v {va.shape}. "
            "Para uma única key, use forma (1, d)."
        )
    single = qa.ndim == 1
    if single:
        qa = qa[None, :]
    d_k = qa.shape[-1]
    if ka.shape[-1] != d_k:
        raise ValueError(
            f"q e k precisam ter o mesmo tamanho de vetor d_k: q tem forma {np.shape(q)} (d_k={d_k}) "
            f"e k tem forma {ka.shape} (d_k={ka.shape[-1]})."
        )
    if ka.shape[-2] != va.shape[-2]:
        raise ValueError(
            f"k e v precisam ter o mesmo número de posições n_k: k tem forma {ka.shape} "
            f"(n_k={ka.shape[-2]}) e v tem forma {va.shape} (n_k={va.shape[-2]})."
        )
    if ka.shape[-2] == 0:
        raise ValueError(f"não há keys para olhar (k tem forma {ka.shape}, n_k=0).")
    if d_k == 0:
        raise ValueError(f"os vetores têm tamanho d_k=0 (q {qa.shape}, k {ka.shape}).")
    try:
        lead = np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2])
    except ValueError as exc:
        raise ValueError(
            f"as dimensões iniciais (lote, cabeças) de q {np.shape(q)}, k {ka.shape} e v {va.shape} "
            "não são compatíveis por broadcasting."
        ) from exc
    return qa, ka, va, single, lead


def mask(m: ArrayLike | None, n_q: int, n_k: int, lead: tuple) -> tuple[np.ndarray | None, tuple]:
    """A máscara booleana como uma vista ``(..., n_q, n_k)`` (sem cópia) e as dimensões iniciais
    atualizadas (a máscara pode trazer um eixo de lote que ``q``, ``k`` e ``v`` não têm)."""
    if m is None:
        return None, lead
    arr = np.asarray(m)
    if arr.dtype != np.bool_:
        raise ValueError(
            f"a máscara precisa ser booleana (True = pode olhar); recebi dtype {arr.dtype}. "
            "Dica: use mask.astype(bool) ou uma comparação como (lengths > j)."
        )
    alvo = (*lead, n_q, n_k)
    try:
        forma = np.broadcast_shapes(arr.shape, alvo)
    except ValueError as exc:
        raise ValueError(
            f"a máscara de forma {arr.shape} não é compatível (broadcast) com os escores de forma "
            f"{alvo} = (..., n_q, n_k)."
        ) from exc
    if forma[-2:] != (n_q, n_k):
        raise ValueError(f"a máscara de forma {arr.shape} não casa com (n_q, n_k) = ({n_q}, {n_k}).")
    return np.broadcast_to(arr, forma), forma[:-2]


def attention_args(q: ArrayLike, k: ArrayLike, v: ArrayLike, m: ArrayLike | None,
                   scale: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, float, bool]:
    """Tudo o que a atenção exata confere antes da conta, numa chamada: ``(q2, k, v, mask, scale, single)``.

    ``q2``, ``k`` e ``v`` voltam no mesmo tipo de ponto flutuante (o comum aos três), ``q2`` sempre com o
    eixo das queries (``q`` 1-D vira ``(1, d_k)``; ``single`` diz se era 1-D); ``mask`` é booleana e
    *broadcastable* para ``(..., n_q, n_k)`` (ou ``None``); ``scale`` é ``1/√d_k`` se não for dado.
    """
    qa, ka, va, single, lead = qkv(q, k, v)
    dtype = np.result_type(qa, ka, va)
    qa, ka, va = (a.astype(dtype, copy=False) for a in (qa, ka, va))
    allowed, _ = mask(m, qa.shape[-2], ka.shape[-2], lead)
    return qa, ka, va, allowed, scale_for(qa.shape[-1], scale), single


def scale_for(d_k: int, scale: float | None) -> float:
    """O fator dos escores: ``1/√d_k`` por padrão, ou o ``scale`` dado (finito e positivo)."""
    return 1.0 / math.sqrt(d_k) if scale is None else positive(scale, "scale")


def window(value: int) -> int:
    """A meia-largura de uma janela local: um inteiro ``>= 0``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"window precisa ser um inteiro >= 0 (quantas posições para cada lado); recebi {value!r}.")
    return int(value)


def finite_row_max(maxima: np.ndarray) -> None:
    """Levanta o erro da softmax se algum máximo de linha de escores é NaN ou +inf (um q·k que estourou)."""
    if np.isnan(maxima).any() or np.isposinf(maxima).any():
        raise ValueError(
            "os escores q·k contêm NaN ou +inf (o produto estourou o tipo de ponto flutuante); "
            "reduza a escala de q e k ou use float64."
        )
