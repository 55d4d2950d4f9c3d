"""As redes recorrentes do notebook 01, só com numpy: um passo da RNN, a RNN tanh, a RNN com porta e o
registrador de deslocamento (a memória linear ideal).

Todas leem a sequência um token por vez e guardam tudo o que viram num estado ``h`` de ``n`` números,
do mesmo tamanho por mais tokens que passem. :mod:`helpers.recurrent` mede quanto dá para ler desse
estado, e reexporta tudo o que está aqui.

Convenções de forma (as de :mod:`helpers.recurrent`): ``x`` ``(..., T, d)``; ``h`` ``(..., n)``;
``W_h`` ``(n, n)``, ``W_x`` ``(n, d)``, ``b`` ``(n,)``; ``run`` devolve os estados ``(..., T, n)`` — a
linha ``t`` é o estado depois de ler o token ``t`` (o estado inicial é zero).

As RNNs têm pesos recorrentes aleatórios e **fixos**, não treinados (um reservatório): só a leitura,
em :mod:`helpers.recurrent`, é treinada. Entradas inválidas levantam ``ValueError`` em português.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validation as val
from ._fast import sigmoid

__all__ = [
    "rnn_step",
    "TanhRNN",
    "GatedRNN",
    "make_tanh_rnn",
    "make_gated_rnn",
    "ShiftRegister",
    "make_shift_register",
]


# ---------------------------------------------------------------------------------------------
# Um passo da RNN e os dois modelos
# ---------------------------------------------------------------------------------------------


def rnn_step(h: ArrayLike, x: ArrayLike, W_h: ArrayLike, W_x: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """Um passo da RNN simples: ``h_novo = tanh(W_h h + W_x x + b)``.

    Formas: ``h`` ``(..., n)``, ``x`` ``(..., d)``, ``W_h`` ``(n, n)``, ``W_x`` ``(n, d)``, ``b`` ``(n,)``.
    Devolve ``h_novo`` ``(..., n)``: o **mesmo** tamanho de ``h``, por mais tokens que já tenham
    passado. (É a referência do exercício do notebook 01.)
    """
    h = val.as_float64(h, "h")
    x = val.as_float64(x, "x")
    W_h = val.as_float64(W_h, "W_h")
    W_x = val.as_float64(W_x, "W_x")
    b = val.as_float64(b, "b")
    if W_h.ndim != 2 or W_h.shape[0] != W_h.shape[1]:
        raise ValueError(f"W_h precisa ser quadrada (n, n); recebi forma {W_h.shape}.")
    n = W_h.shape[0]
    if W_x.ndim != 2 or W_x.shape[0] != n:
        raise ValueError(f"W_x precisa ter forma (n, d) = ({n}, d); recebi {W_x.shape}.")
    if b.shape != (n,):
        raise ValueError(f"b precisa ter forma (n,) = ({n},); recebi {b.shape}.")
    if h.ndim == 0 or h.shape[-1] != n:
        raise ValueError(f"h precisa ter forma (..., n) com n = {n} (o tamanho de W_h); recebi {h.shape}.")
    if x.ndim == 0 or x.shape[-1] != W_x.shape[1]:
        raise ValueError(f"x precisa ter forma (..., d) com d = {W_x.shape[1]} (as colunas de W_x); recebi {x.shape}.")
    return np.tanh(h @ W_h.T + x @ W_x.T + b)


@dataclass(frozen=True)
class _RNNBase:
    """O que as duas RNNs têm em comum: ``W_h`` ``(n, n)``, ``W_x`` ``(n, d)``, ``b`` ``(n,)``."""

    W_h: NDArray[np.float64]
    W_x: NDArray[np.float64]
    b: NDArray[np.float64]

    @property
    def n(self) -> int:
        """Tamanho do estado oculto."""
        return self.W_h.shape[0]

    @property
    def d(self) -> int:
        """Tamanho de cada entrada ``x_t``."""
        return self.W_x.shape[1]


@dataclass(frozen=True)
class TanhRNN(_RNNBase):
    """RNN simples: ``h_t = tanh(W_h h_{t-1} + W_x x_t + b)``, com ``h_0 = 0``.

    ``W_h`` ``(n, n)``, ``W_x`` ``(n, d)``, ``b`` ``(n,)``. Crie com :func:`make_tanh_rnn`.
    """

    def step(self, h: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Um passo: ``h`` ``(..., n)`` e ``x`` ``(..., d)`` → ``h_novo`` ``(..., n)``."""
        return np.tanh(h @ self.W_h.T + x @ self.W_x.T + self.b)

    def run(self, xs: ArrayLike) -> NDArray[np.float64]:
        """Lê ``xs`` ``(..., T, d)`` e devolve todos os estados ``(..., T, n)`` (a linha ``t`` = depois do token ``t``)."""
        return _run(self, val.sequence(xs, self.d))


@dataclass(frozen=True)
class GatedRNN(_RNNBase):
    """RNN com porta (uma GRU simplificada, só com a porta de atualização ``z``)::

        z_t  = σ(U_z h_{t-1} + W_z x_t + b_z)          # quanto reescrever, por unidade (0 … 1)
        h̃_t  = tanh(W_h h_{t-1} + W_x x_t + b)         # o candidato
        h_t  = (1 - z_t) ⊙ h_{t-1} + z_t ⊙ h̃_t

    Com ``z`` perto de 0 a unidade quase não muda: guarda o passado por mais tempo. Mesmo assim o
    estado continua tendo ``n`` números. Formas: ``W_h``, ``U_z`` ``(n, n)``; ``W_x``, ``W_z``
    ``(n, d)``; ``b``, ``b_z`` ``(n,)``. Crie com :func:`make_gated_rnn`.
    """

    U_z: NDArray[np.float64]
    W_z: NDArray[np.float64]
    b_z: NDArray[np.float64]

    def gate(self, h: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.float64]:
        """A porta ``z`` ``(..., n)`` para o estado ``h`` e a entrada ``x``."""
        return sigmoid(h @ self.U_z.T + x @ self.W_z.T + self.b_z)

    def step(self, h: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Um passo: ``h`` ``(..., n)`` e ``x`` ``(..., d)`` → ``h_novo`` ``(..., n)``."""
        z = self.gate(h, x)
        candidato = np.tanh(h @ self.W_h.T + x @ self.W_x.T + self.b)
        return (1.0 - z) * h + z * candidato

    def run(self, xs: ArrayLike) -> NDArray[np.float64]:
        """Lê ``xs`` ``(..., T, d)`` e devolve todos os estados ``(..., T, n)``."""
        return _run(self, val.sequence(xs, self.d))


def _run(model: TanhRNN | GatedRNN, xs: NDArray[np.float64]) -> NDArray[np.float64]:
    h = np.zeros((*xs.shape[:-2], model.n))
    estados = np.empty((*xs.shape[:-1], model.n))
    for t in range(xs.shape[-2]):
        h = model.step(h, xs[..., t, :])
        estados[..., t, :] = h
    return estados


def _recurrent_matrix(rng: np.random.Generator, n: int, spectral_radius: float) -> NDArray[np.float64]:
    """Matriz ``(n, n)`` aleatória reescalada para ter raio espectral (maior |autovalor|) dado."""
    W = rng.normal(size=(n, n))
    raio = float(np.max(np.abs(np.linalg.eigvals(W))))
    return W * (spectral_radius / raio)


def make_tanh_rnn(
    n: int, d: int, *, spectral_radius: float = 0.95, input_scale: float = 0.5, seed: int = 0
) -> TanhRNN:
    """Uma :class:`TanhRNN` com pesos aleatórios fixos (reservatório).

    ``W_h`` tem raio espectral ``spectral_radius`` (< 1: o efeito de um token some aos poucos, sem
    explodir); ``W_x ~ N(0, input_scale²)``; ``b ~ N(0, 0.1²)``. Mesma ``seed`` → mesmos pesos.
    """
    n = val.positive_int(n, "n")
    d = val.positive_int(d, "d")
    rho = val.positive(spectral_radius, "spectral_radius")
    escala = val.positive(input_scale, "input_scale")
    rng = np.random.default_rng(seed)
    W_h = _recurrent_matrix(rng, n, rho)
    W_x = rng.normal(size=(n, d)) * escala
    b = rng.normal(size=n) * 0.1
    return TanhRNN(W_h, W_x, b)


def make_gated_rnn(
    n: int,
    d: int,
    *,
    spectral_radius: float = 0.95,
    input_scale: float = 0.5,
    gate_bias: tuple[float, float] = (-3.0, 0.0),
    seed: int = 0,
) -> GatedRNN:
    """Uma :class:`GatedRNN` com pesos aleatórios fixos.

    Os pesos do candidato são sorteados como em :func:`make_tanh_rnn` (mesma ``seed`` → mesmos
    ``W_h``, ``W_x``, ``b``). O viés da porta ``b_z`` de cada unidade é sorteado uniforme em
    ``gate_bias`` = ``(mínimo, máximo)``: viés muito negativo → ``z ≈ 0`` → unidade lenta, que guarda
    o passado; viés perto de 0 → ``z ≈ 0.5`` → unidade rápida. Assim o estado tem memórias de várias
    durações.
    """
    base = make_tanh_rnn(n, d, spectral_radius=spectral_radius, input_scale=input_scale, seed=seed)
    lo, hi = (float(v) for v in gate_bias)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise ValueError(f"gate_bias precisa ser (mínimo, máximo) finitos com mínimo <= máximo; recebi {gate_bias!r}.")
    rng = np.random.default_rng([seed, 1])
    U_z = rng.normal(size=(base.n, base.n)) / math.sqrt(base.n)
    W_z = rng.normal(size=(base.n, base.d))
    b_z = rng.uniform(lo, hi, size=base.n)
    return GatedRNN(base.W_h, base.W_x, base.b, U_z, W_z, b_z)


# ---------------------------------------------------------------------------------------------
# A memória linear ideal
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShiftRegister:
    """A memória linear ideal: um registrador de deslocamento que guarda os últimos ``n // d`` tokens
    sem mistura nenhuma, ``h_t = (x_t, h_{t-1}[:n-d])`` (o token novo entra na frente, o mais velho
    cai do fim).

    Com leitura linear ela chega ao teto: reconstrói exatamente ``n`` números da sequência (os ``n // d``
    tokens mais recentes) e nada do resto. ``n`` e ``d`` como nas RNNs; crie com :func:`make_shift_register`.
    """

    n: int
    d: int

    def run(self, xs: ArrayLike) -> NDArray[np.float64]:
        """Lê ``xs`` ``(..., T, d)`` e devolve todos os estados ``(..., T, n)``."""
        xs = val.sequence(xs, self.d)
        h = np.zeros((*xs.shape[:-2], self.n))
        estados = np.empty((*xs.shape[:-1], self.n))
        for t in range(xs.shape[-2]):
            h = np.concatenate([xs[..., t, :], h[..., : self.n - self.d]], axis=-1)
            estados[..., t, :] = h
        return estados


def make_shift_register(n: int, d: int) -> ShiftRegister:
    """Um :class:`ShiftRegister` com estado de ``n`` números para tokens de ``d`` números (``n`` múltiplo de ``d``)."""
    n = val.positive_int(n, "n")
    d = val.positive_int(d, "d")
    if n % d:
        raise ValueError(f"n = {n} precisa ser múltiplo de d = {d} (o registrador guarda n // d tokens inteiros).")
    return ShiftRegister(n, d)
