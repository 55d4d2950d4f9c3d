"""Notebook ``custo_quadratico``: medir o custo — cronometrar com tudo num núcleo só, o pico de memória de
uma chamada, o tempo de uma camada recorrente, as marcas em milissegundos dos gráficos de tempo e os bytes
escritos com vírgula decimal.
"""

from __future__ import annotations

import contextlib
import math
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from ...formato import bytes_legiveis

__all__ = ["bytes_na_prosa", "cronometrar", "marcas_em_ms", "pico_de_memoria", "tempo_rnn", "um_nucleo"]


def marcas_em_ms(ax: Axes, *tempos_ms: ArrayLike) -> None:
    """Marcas legíveis no eixo y (logarítmico) de um gráfico de tempos em milissegundos: as potências de 4
    (0,25, 1, 4, 16, 64…) dentro da faixa dos ``tempos_ms`` — cada marca é um "andar" de ×4, o que um custo
    quadrático sobe quando ``n`` dobra. Sem as marcas menores."""
    from matplotlib.ticker import NullLocator

    todos = np.concatenate([np.ravel(np.asarray(t, dtype=float)) for t in tempos_ms])
    todos = todos[np.isfinite(todos) & (todos > 0)]
    if not todos.size:
        return
    baixo, alto = math.ceil(math.log(todos.min(), 4)), math.floor(math.log(todos.max(), 4))
    marcas = 4.0 ** np.arange(baixo, max(alto, baixo) + 1)
    ax.set_yticks(marcas, [f"{m:g}".replace(".", ",") for m in marcas])  # vírgula decimal: 0,25
    ax.yaxis.set_minor_locator(NullLocator())


def bytes_na_prosa(n_bytes: float) -> str:
    """:func:`helpers.formato.bytes_legiveis` com vírgula decimal, para frases e tabelas em português:
    ``34603008`` → ``"33,0 MiB"``. (Um candidato a :mod:`helpers.formato`.)"""
    return bytes_legiveis(n_bytes).replace(".", ",")


# ---------------------------------------------------------------------------------------------
# Medir com honestidade: tudo num núcleo só
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def um_nucleo() -> Iterator[None]:
    """Dentro do ``with``, **toda** a conta roda num núcleo só: o BLAS (as multiplicações de matrizes do
    numpy, limitadas pelo ``threadpoolctl``) **e** as contas que a própria coleção divide entre os
    núcleos — o caminho rápido da atenção de várias cabeças, que a partir de 2²⁰ escores reparte as linhas da
    softmax entre threads, e a atenção por blocos, que reparte os blocos de queries. Assim o tempo medido é o de um núcleo, e a
    inclinação não mistura trechos em paralelo com trechos sequenciais.
    """
    from ... import _fast, efficient

    originais = (_fast.cores, efficient.cores)
    _fast.cores = efficient.cores = lambda: 1
    try:
        with _fast.blas_one_thread():
            yield
    finally:
        _fast.cores, efficient.cores = originais


def cronometrar(f: Callable[..., Any], *args: Any, repeticoes: int = 5) -> float:
    """O menor de ``repeticoes`` tempos (em segundos) de ``f(*args)``, com tudo num núcleo só (:func:`um_nucleo`)."""
    melhor = float("inf")
    with um_nucleo():
        for _ in range(repeticoes):
            inicio = time.perf_counter()
            f(*args)
            melhor = min(melhor, time.perf_counter() - inicio)
    return melhor


def pico_de_memoria(f: Callable[..., Any], *args: Any) -> int:
    """O maior número de bytes alocados ao mesmo tempo durante ``f(*args)`` (o pico que o :mod:`tracemalloc`, do
    Python, registra; o numpy informa a ele cada array que aloca), com tudo num núcleo só (:func:`um_nucleo`:
    em paralelo, cada núcleo teria o seu bloco de trabalho)."""
    with um_nucleo():
        tracemalloc.start()
        try:
            f(*args)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def tempo_rnn(n: int, d: int = 64, seed: int = 0) -> float:
    """O tempo (s, o melhor de 5, num núcleo só) de uma camada recorrente ``h_t = tanh(W_h h_{t−1} + W_x x_t)``
    sobre ``n`` posições com vetores de tamanho ``d``: ``n`` passos, um depois do outro."""
    rng = np.random.default_rng(seed)
    W_h, W_x = rng.normal(size=(d, d)) / math.sqrt(d), rng.normal(size=(d, d)) / math.sqrt(d)
    xs = rng.normal(size=(n, d))

    def camada() -> np.ndarray:
        h = np.zeros(d)
        for x in xs:                          # cada passo espera o anterior
            h = np.tanh(W_h @ h + W_x @ x)
        return h

    return cronometrar(camada, repeticoes=5)
