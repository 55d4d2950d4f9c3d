"""Redes recorrentes pequenas, só com numpy, para **medir** o gargalo do estado de tamanho fixo.

A ideia do notebook 01: uma RNN lê a sequência um token por vez e guarda tudo o que viu num único
vetor ``h`` de ``n`` números. Duas medidas, ambas com uma leitura linear (regressão *ridge*)
treinada em muitas sequências aleatórias e avaliada em sequências que ela nunca viu:

- :func:`recall_curve`: quanto do **primeiro** token ainda dá para ler depois de ``T`` passos. O
  resultado é o **desta** rede, com estas configurações (raio espectral, escala da entrada): outras
  configurações lembram mais ou menos;
- :func:`reconstruction_curve`: quanto da sequência **inteira** (qualquer posição) a leitura
  reconstrói. Aqui há um teto que vale para qualquer rede com ``n`` números e leitura linear,
  treinada ou não: a soma dos R² de todas as ``T·d`` coordenadas não passa de ``n``
  (:class:`ShiftRegister` é a rede que chega nele).

A atenção, ao contrário, guarda um vetor por posição e lê qualquer uma diretamente.

As redes vêm primeiro: :func:`rnn_step` (um passo), :class:`TanhRNN`, :class:`GatedRNN` (com porta) e
:class:`ShiftRegister` (o registrador de deslocamento, a memória linear ideal), com as funções ``make_*``
que as criam; depois, as medidas.

Convenções de forma:

- ``tokens``: inteiros ``(N, T)`` (ou ``(T,)``) com valores em ``0 … vocab-1``;
- ``x``: tokens em *one-hot*, ``(..., T, d)`` com ``d = vocab`` (ou vetores ±1 de :func:`random_signs`);
- ``h``: estado oculto ``(..., n)``; ``W_h`` ``(n, n)``, ``W_x`` ``(n, d)``, ``b`` ``(n,)``;
- estados de uma sequência inteira: ``(..., T, n)`` — a linha ``t`` é o estado depois de ler o
  token ``t`` (o estado inicial é zero).

As RNNs têm pesos recorrentes aleatórios e **fixos**, não treinados (uma *echo state network*,
ou reservatório): só a leitura é treinada. Entradas inválidas levantam ``ValueError`` em português;
nada devolve NaN em silêncio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validation as val
from ._fast import blas_one_thread
from .attention import scaled_dot_product_attention

__all__ = [
    "rnn_step",
    "TanhRNN",
    "GatedRNN",
    "make_tanh_rnn",
    "make_gated_rnn",
    "random_tokens",
    "one_hot",
    "fit_ridge",
    "predict_ridge",
    "recall_curve",
    "attention_recall",
    "attention_recall_curve",
    "MemoryGrid",
    "memory_grid",
    "gradient_to_first_token",
    "random_signs",
    "ShiftRegister",
    "make_shift_register",
    "Reconstruction",
    "reconstruction_curve",
    "attention_reconstruction_curve",
]


# ---------------------------------------------------------------------------------------------
# Um passo da RNN e os dois modelos
# ---------------------------------------------------------------------------------------------


def sigmoid(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """A sigmoide ``σ(z)``, elemento a elemento (a porta de :class:`GatedRNN`)."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # = 1 / (1 + e^-z), sem overflow


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


# ---------------------------------------------------------------------------------------------
# Validação
# ---------------------------------------------------------------------------------------------


def _tokens(tokens: ArrayLike, vocab: int) -> NDArray[np.int64]:
    arr = np.asarray(tokens)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"tokens precisam ser inteiros (recebi dtype {arr.dtype}, forma {arr.shape}).")
    if arr.size and (arr.min() < 0 or arr.max() >= vocab):
        raise ValueError(
            f"cada token precisa estar entre 0 e vocab-1 = {vocab - 1}; recebi valores de "
            f"{int(arr.min())} a {int(arr.max())}."
        )
    return arr.astype(np.int64, copy=False)


# ---------------------------------------------------------------------------------------------
# Dados: sequências aleatórias de tokens
# ---------------------------------------------------------------------------------------------


def random_tokens(n_seq: int, length: int, vocab: int, seed: int = 0) -> NDArray[np.int64]:
    """``n_seq`` sequências de ``length`` tokens sorteados uniformemente em ``0 … vocab-1``: ``(n_seq, length)``."""
    n_seq = val.positive_int(n_seq, "n_seq")
    length = val.positive_int(length, "length")
    vocab = val.positive_int(vocab, "vocab", minimum=2)
    return np.random.default_rng(seed).integers(0, vocab, size=(n_seq, length))


def one_hot(tokens: ArrayLike, vocab: int) -> NDArray[np.float64]:
    """Tokens inteiros ``(...)`` → vetores *one-hot* ``(..., vocab)`` (um 1 na posição do token)."""
    vocab = val.positive_int(vocab, "vocab", minimum=2)
    return np.eye(vocab)[_tokens(tokens, vocab)]


# ---------------------------------------------------------------------------------------------
# Leitura linear (ridge)
# ---------------------------------------------------------------------------------------------


def fit_ridge(features: ArrayLike, targets: ArrayLike, lam: float = 1e-3) -> NDArray[np.float64]:
    """Leitura linear por mínimos quadrados com penalidade *ridge*.

    Resolve ``min_W ‖[F, 1] W - Y‖² + lam · N · ‖W_sem_viés‖²``.

    Formas: ``features`` ``F`` ``(N, m)``, ``targets`` ``Y`` ``(N, c)`` (por exemplo *one-hot* do
    token a lembrar). Devolve ``W`` ``(m + 1, c)``; a última linha é o viés (não penalizado).
    ``lam > 0`` deixa o sistema sempre resolvível, mesmo com colunas repetidas.
    """
    F = val.as_float64(features, "features")
    Y = val.as_float64(targets, "targets")
    lam = val.positive(lam, "lam")
    if F.ndim != 2 or Y.ndim != 2 or F.shape[0] != Y.shape[0] or F.shape[0] == 0:
        raise ValueError(
            f"features precisa ser (N, m) e targets (N, c) com o mesmo N > 0; recebi {F.shape} e {Y.shape}."
        )
    N, m = F.shape
    A = np.concatenate([F, np.ones((N, 1))], axis=1)
    G = A.T @ A
    G[np.arange(m), np.arange(m)] += lam * N
    return np.linalg.solve(G, A.T @ Y)


def predict_ridge(features: ArrayLike, W: ArrayLike) -> NDArray[np.float64]:
    """Aplica a leitura: ``[F, 1] @ W``; ``features`` ``(N, m)``, ``W`` ``(m + 1, c)`` → ``(N, c)``."""
    F = val.as_float64(features, "features")
    W = val.as_float64(W, "W")
    if F.ndim != 2 or W.ndim != 2 or W.shape[0] != F.shape[1] + 1:
        raise ValueError(f"features (N, m) e W (m + 1, c) não combinam: recebi {F.shape} e {W.shape}.")
    return F @ W[:-1] + W[-1]


def recall_curve(
    model: TanhRNN | GatedRNN,
    max_length: int,
    *,
    n_train: int = 1500,
    n_test: int = 500,
    lam: float = 1e-3,
    seed: int = 1,
) -> NDArray[np.float64]:
    """Acurácia ao ler o **primeiro** token do estado final, para cada comprimento ``T = 1 … max_length``.

    Sorteia ``n_train + n_test`` sequências de ``max_length`` tokens (vocabulário ``model.d``, em
    *one-hot*). Para cada ``T``, o estado depois de ``T`` tokens é o estado final da sequência
    formada pelos ``T`` primeiros tokens; treina uma leitura ridge nas ``n_train`` primeiras
    sequências (alvo: o token da posição 0) e mede, nas ``n_test`` restantes (nunca vistas), a
    fração em que o maior valor da leitura aponta o token certo.

    Devolve ``acc`` ``(max_length,)``; ``acc[T-1]`` é a acurácia para comprimento ``T``. O acaso é
    ``1 / model.d``.
    """
    max_length = val.positive_int(max_length, "max_length")
    n_train = val.positive_int(n_train, "n_train")
    n_test = val.positive_int(n_test, "n_test")
    lam = val.positive(lam, "lam")
    with blas_one_thread():  # matrizes pequenas: várias threads do BLAS só atrapalham (ver _fast)
        return _recall_curve(model, max_length, n_train, n_test, lam, seed)


def _recall_curve(model: TanhRNN | GatedRNN, L: int, n_train: int, n_test: int, lam: float,
                  seed: int) -> NDArray[np.float64]:
    vocab, n = model.d, model.n
    tokens = random_tokens(n_train + n_test, L, vocab, seed)
    # Tudo em float32 (metade da memória, o dobro da velocidade); o sistema da ridge é resolvido em float64.
    f32 = np.float32
    W_h = model.W_h.T.astype(f32)
    entrada = model.W_x.T.astype(f32)[tokens]  # (N, L, n): W_x x_t para x_t one-hot = uma coluna de W_x
    b = model.b.astype(f32)
    gated = isinstance(model, GatedRNN)
    if gated:
        U_z, entrada_z, b_z = model.U_z.T.astype(f32), model.W_z.T.astype(f32)[tokens], model.b_z.astype(f32)
    # A[t] = [estado depois de t+1 tokens, 1] para todas as sequências: (L, N, n + 1)
    A = np.ones((L, tokens.shape[0], n + 1), dtype=f32)
    h = np.zeros((tokens.shape[0], n), dtype=f32)
    for t in range(L):
        pre = h @ W_h + entrada[:, t] + b
        if gated:
            z = sigmoid(h @ U_z + entrada_z[:, t] + b_z)
            h = (1 - z) * h + z * np.tanh(pre)
        else:
            h = np.tanh(pre)
        A[t, :, :n] = h
    # Uma leitura ridge por comprimento (fit_ridge para todos os t de uma vez).
    treino = A[:, :n_train]
    G = np.matmul(treino.transpose(0, 2, 1), treino).astype(np.float64)
    G[:, np.arange(n), np.arange(n)] += lam * n_train
    alvo = np.eye(vocab, dtype=f32)[tokens[:n_train, 0]]
    W = np.linalg.solve(G, np.matmul(treino.transpose(0, 2, 1), alvo).astype(np.float64))
    previsto = np.argmax(np.matmul(A[:, n_train:], W.astype(f32)), axis=2)  # (L, n_test)
    acc = np.mean(previsto == tokens[n_train:, 0], axis=1)
    return acc


# ---------------------------------------------------------------------------------------------
# A atenção lendo a posição 0 diretamente
# ---------------------------------------------------------------------------------------------


def attention_recall(
    tokens: ArrayLike, vocab: int, *, position: int = 0, sharpness: float = 10.0
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Recupera o token da posição ``position`` com :func:`helpers.attention.scaled_dot_product_attention`.

    - keys: o código da posição de cada token, *one-hot* ``(T, T)`` (a key ``j`` diz "sou a posição j");
    - values: o próprio token em *one-hot*, ``(N, T, vocab)``;
    - query: ``sharpness ·`` (código da posição procurada), ``(T,)``; usamos ``scale = 1``.

    O escore da posição procurada é ``sharpness`` e o das outras é 0, então o peso dela é
    ``e^s / (e^s + T - 1)`` (≈ 0,998 para ``s = 10`` e ``T = 40``). A saída é quase exatamente o
    *one-hot* do token procurado, em **qualquer** comprimento em que ``e^s > T - 1``.

    ``tokens`` ``(N, T)`` ou ``(T,)``. Devolve ``(previsto, pesos)``: o token lido ``(N,)`` (ou
    escalar) e os pesos de atenção ``(T,)`` (os mesmos para todas as sequências).
    """
    vocab = val.positive_int(vocab, "vocab", minimum=2)
    toks = _tokens(tokens, vocab)
    if toks.ndim not in (1, 2) or toks.shape[-1] == 0:
        raise ValueError(f"tokens precisa ter forma (N, T) ou (T,) com T > 0; recebi {toks.shape}.")
    T = toks.shape[-1]
    position = val.positive_int(position, "position", minimum=0)
    if position >= T:
        raise ValueError(f"position={position} não existe numa sequência de T = {T} tokens (posições 0 … {T - 1}).")
    s = val.positive(sharpness, "sharpness")
    keys = np.eye(T)
    query = s * keys[position]
    values = np.eye(vocab)[toks]
    saida, pesos = scaled_dot_product_attention(query, keys, values, scale=1.0)
    return np.argmax(saida, axis=-1), pesos.reshape(-1, T)[0]


def attention_recall_curve(
    max_length: int,
    vocab: int,
    *,
    n_train: int = 1500,
    n_test: int = 500,
    sharpness: float = 10.0,
    seed: int = 1,
) -> NDArray[np.float64]:
    """Acurácia da atenção ao ler o token da posição 0, para ``T = 1 … max_length``: ``(max_length,)``.

    Avalia nas mesmas sequências de teste de :func:`recall_curve` com os mesmos ``n_train``,
    ``n_test`` e ``seed`` (as ``n_test`` últimas); a atenção não precisa de treino.
    """
    max_length = val.positive_int(max_length, "max_length")
    n_train = val.positive_int(n_train, "n_train")
    n_test = val.positive_int(n_test, "n_test")
    tokens = random_tokens(n_train + n_test, max_length, vocab, seed)[n_train:]
    acc = np.empty(max_length)
    for T in range(1, max_length + 1):
        previsto, _ = attention_recall(tokens[:, :T], vocab, sharpness=sharpness)
        acc[T - 1] = np.mean(previsto == tokens[:, 0])
    return acc


# ---------------------------------------------------------------------------------------------
# A grade usada pelas figuras e pelo painel (calculada uma vez por sessão)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryGrid:
    """Acurácias medidas para vários tamanhos de estado e comprimentos.

    ``lengths`` ``(L,)`` = ``1 … max_length``; ``sizes`` ``(S,)``; ``tanh`` e ``gated`` ``(S, L)``
    (linha = tamanho, coluna = comprimento); ``attention`` ``(L,)``; ``chance = 1 / vocab``.
    """

    lengths: NDArray[np.int64]
    sizes: NDArray[np.int64]
    tanh: NDArray[np.float64]
    gated: NDArray[np.float64]
    attention: NDArray[np.float64]
    vocab: int
    n_test: int

    @property
    def chance(self) -> float:
        """A acurácia de quem chuta: ``1 / vocab``."""
        return 1.0 / self.vocab

    @property
    def chance_margin(self) -> float:
        """Três desvios-padrão da acurácia de quem chuta: ``3 √(p(1-p)/n_test)``, com ``p = 1/vocab``.

        Uma acurácia abaixo de ``chance + chance_margin`` não se distingue do acaso.
        """
        p = self.chance
        return 3.0 * math.sqrt(p * (1.0 - p) / self.n_test)

    def index(self, length: int, size: int) -> tuple[int, int]:
        """Os índices ``(i_tamanho, i_comprimento)`` de uma configuração da grade."""
        if size not in self.sizes:
            raise ValueError(f"tamanho de estado {size} não está na grade {self.sizes.tolist()}.")
        if not 1 <= length <= len(self.lengths):
            raise ValueError(f"comprimento {length} fora da grade 1 … {len(self.lengths)}.")
        return int(np.flatnonzero(self.sizes == size)[0]), int(length) - 1


@lru_cache(maxsize=4)
def memory_grid(
    sizes: tuple[int, ...] = (4, 8, 16, 32, 64, 128),
    max_length: int = 40,
    vocab: int = 8,
    *,
    n_train: int = 1500,
    n_test: int = 500,
    seed: int = 0,
) -> MemoryGrid:
    """Mede :func:`recall_curve` para a RNN tanh e a com porta em cada tamanho, e a atenção.

    Leva por volta de um segundo; o resultado fica guardado (mesmos argumentos → mesmo objeto),
    então o painel e as figuras do notebook reaproveitam as mesmas contas. Os arrays são só leitura.
    """
    if not sizes:
        raise ValueError("sizes precisa ter pelo menos um tamanho de estado.")
    sizes_arr = np.array([val.positive_int(s, "cada tamanho em sizes") for s in sizes])
    vocab = val.positive_int(vocab, "vocab", minimum=2)
    kw = dict(n_train=n_train, n_test=n_test, seed=seed + 1)
    with blas_one_thread():
        tanh = np.array([recall_curve(make_tanh_rnn(int(n), vocab, seed=seed), max_length, **kw) for n in sizes_arr])
        gated = np.array([recall_curve(make_gated_rnn(int(n), vocab, seed=seed), max_length, **kw)
                          for n in sizes_arr])
        att = attention_recall_curve(max_length, vocab, **kw)
    grade = MemoryGrid(np.arange(1, max_length + 1), sizes_arr, tanh, gated, att, vocab, n_test)
    for arr in (grade.lengths, grade.sizes, grade.tanh, grade.gated, grade.attention):
        arr.setflags(write=False)
    return grade


# ---------------------------------------------------------------------------------------------
# O gradiente que chega ao primeiro token
# ---------------------------------------------------------------------------------------------


def gradient_to_first_token(model: TanhRNN | GatedRNN, xs: ArrayLike) -> NDArray[np.float64]:
    """``‖∂h_t/∂x_0‖`` (norma de Frobenius) para ``t = 0 … T-1``: quanto o estado depois de ``t + 1``
    tokens ainda "sente" o primeiro token.

    É o caminho que o gradiente de uma perda no passo ``t`` percorre até o primeiro token no
    treinamento (o produto dos jacobianos ``∂h_s/∂h_{s-1}`` de cada passo). ``xs`` ``(T, d)``: uma
    sequência; devolve ``(T,)``. Na RNN com porta, ``z ≈ 0`` deixa passar ``(1 - z) ≈ 1`` de um passo
    para o outro, e o gradiente encolhe bem mais devagar.
    """
    xs = val.sequence(xs, model.d)
    if xs.ndim != 2:
        raise ValueError(f"xs precisa ser uma sequência só, forma (T, d); recebi {xs.shape}.")
    with blas_one_thread():  # matrizes pequenas: uma thread do BLAS é mais rápida
        return _gradient_to_first_token(model, xs)


def _gradient_to_first_token(model: TanhRNN | GatedRNN, xs: NDArray[np.float64]) -> NDArray[np.float64]:
    h = np.zeros(model.n)
    G = np.zeros((model.n, model.d))  # ∂h_t/∂x_0
    normas = np.empty(xs.shape[0])
    for t, x in enumerate(xs):
        candidato = np.tanh(model.W_h @ h + model.W_x @ x + model.b)
        d_cand = 1.0 - candidato**2  # tanh'
        if isinstance(model, GatedRNN):
            z = model.gate(h, x)
            dz = (candidato - h) * z * (1.0 - z)  # ∂h_novo/∂(pré-ativação da porta)
            J_h = np.diag(1.0 - z) + dz[:, None] * model.U_z + (z * d_cand)[:, None] * model.W_h
            J_x = dz[:, None] * model.W_z + (z * d_cand)[:, None] * model.W_x
            h = (1.0 - z) * h + z * candidato
        else:
            J_h = d_cand[:, None] * model.W_h
            J_x = d_cand[:, None] * model.W_x
            h = candidato
        G = J_x if t == 0 else J_h @ G
        normas[t] = np.linalg.norm(G)
    return normas


# ---------------------------------------------------------------------------------------------
# A capacidade: lembrar qualquer posição
# ---------------------------------------------------------------------------------------------


def random_signs(n_seq: int, length: int, d: int, seed: int = 0) -> NDArray[np.float64]:
    """Sequências de tokens que são vetores de ``d`` números ±1 sorteados: ``(n_seq, length, d)``.

    Cada coordenada tem média 0 e variância 1 e é independente das outras: uma sequência de ``T``
    tokens carrega ``T·d`` números que não dá para adivinhar uns pelos outros (``2^d`` tokens possíveis).
    """
    n_seq = val.positive_int(n_seq, "n_seq")
    length = val.positive_int(length, "length")
    d = val.positive_int(d, "d")
    return np.random.default_rng(seed).choice(np.array([-1.0, 1.0]), size=(n_seq, length, d))


@dataclass(frozen=True)
class Reconstruction:
    """Quanto da sequência uma leitura linear reconstrói a partir do estado, para cada comprimento.

    ``lengths`` ``(L,)`` = ``1 … L``; ``fraction`` ``(L,)``: a média, sobre as ``T·d`` coordenadas dos
    ``T`` tokens, de ``R² = 1 - erro quadrático médio / variância`` nas sequências de teste (1 = tudo
    reconstruído, 0 = o mesmo que chutar a média); ``capacity`` ``(L,)``: a soma desses R² (quantos
    números da sequência a leitura recupera). ``n``: o tamanho do estado; ``d``: números por token.
    """

    lengths: NDArray[np.int64]
    fraction: NDArray[np.float64]
    capacity: NDArray[np.float64]
    n: int
    d: int

    @property
    def ceiling(self) -> NDArray[np.float64]:
        """O teto de qualquer leitura linear de ``n`` números: ``min(1, n / (T·d))`` para cada ``T``."""
        return np.minimum(1.0, self.n / (self.lengths * self.d))


def reconstruction_curve(
    model: TanhRNN | GatedRNN | ShiftRegister, xs: ArrayLike, *, n_train: int, lam: float = 1e-4
) -> Reconstruction:
    """Para cada ``T = 1 … L``: uma leitura ridge lê, do estado depois de ``T`` tokens, **todos** os ``T``
    tokens (``T·d`` números); mede o R² de cada número nas sequências de teste.

    ``xs`` ``(N, L, d)`` (por exemplo de :func:`random_signs`): as ``n_train`` primeiras sequências treinam a
    leitura, as outras testam. Para qualquer rede com estado de ``n`` números, a soma dos R² não passa de
    ``n`` (as previsões de uma leitura linear vivem num espaço de ``n`` dimensões, mais o viés), a menos do
    ruído de amostragem: ``fraction <= ceiling``.
    """
    xs = val.sequence(xs, model.d)
    if xs.ndim != 3:
        raise ValueError(f"xs precisa ter forma (N, L, d) (várias sequências); recebi {xs.shape}.")
    N, L, d = xs.shape
    n_train = val.positive_int(n_train, "n_train")
    if n_train >= N:
        raise ValueError(f"n_train = {n_train} não deixa sequências para testar (há N = {N}).")
    lam = val.positive(lam, "lam")
    with blas_one_thread():
        estados = model.run(xs)  # (N, L, n)
        frac, cap = np.empty(L), np.empty(L)
        for T in range(1, L + 1):
            alvo = xs[:, :T].reshape(N, T * d)  # (N, T·d): a sequência inteira até aqui
            W = fit_ridge(estados[:n_train, T - 1], alvo[:n_train], lam)
            previsto = predict_ridge(estados[n_train:, T - 1], W)
            teste = alvo[n_train:]
            r2 = 1.0 - np.mean((previsto - teste) ** 2, axis=0) / np.var(teste, axis=0)
            frac[T - 1], cap[T - 1] = r2.mean(), r2.sum()
    return Reconstruction(np.arange(1, L + 1), frac, cap, int(model.n), int(d))


def attention_reconstruction_curve(xs: ArrayLike, *, n_train: int, sharpness: float = 10.0) -> NDArray[np.float64]:
    """A mesma medida de :func:`reconstruction_curve` para a atenção, que guarda os ``T`` tokens: ``(L,)``.

    Para ler a posição ``p`` de uma sequência de ``T`` tokens: *keys* = códigos *one-hot* das posições
    ``(T, T)``, *query* = ``sharpness ·`` código da posição ``p``, *values* = os próprios tokens; a saída é
    :func:`helpers.attention.scaled_dot_product_attention` com ``scale = 1``. Nada é treinado; usa só as
    sequências de teste (as que vêm depois das ``n_train`` primeiras).
    """
    xs = val.as_float64(xs, "xs")
    if xs.ndim != 3 or xs.shape[1] == 0:
        raise ValueError(f"xs precisa ter forma (N, L, d) com L > 0; recebi {xs.shape}.")
    N, L, d = xs.shape
    n_train = val.positive_int(n_train, "n_train", minimum=0)
    if n_train >= N:
        raise ValueError(f"n_train = {n_train} não deixa sequências para testar (há N = {N}).")
    s = val.positive(sharpness, "sharpness")
    teste = xs[n_train:]
    frac = np.empty(L)
    for T in range(1, L + 1):
        keys = np.eye(T)  # key j = "sou a posição j"
        # uma query por posição (T, T): a linha p procura a posição p; values: (N, T, d)
        saida, _ = scaled_dot_product_attention(s * keys, keys, teste[:, :T], scale=1.0)
        alvo = teste[:, :T]
        r2 = 1.0 - np.mean((saida - alvo) ** 2, axis=0) / np.var(alvo, axis=0)
        frac[T - 1] = r2.mean()
    return frac
