"""As contas de custo da atenção, só com numpy: quantos escores, operações e bytes cada método gasta,
sem calcular atenção nenhuma.

Os métodos são os de :mod:`helpers.efficient`, que reexporta tudo o que está aqui (``"exata"``,
``"local"``, ``"linear"`` e ``"blocos"``, nos nomes das chaves):

- :func:`band_count` e :func:`causal_tile_count` — quantos pares ``(query, key)`` a atenção local e a
  por blocos causal calculam;
- :func:`attention_costs` — escores, operações e memória de uma cabeça, método por método;
- :func:`longest_path` e :func:`layer_comparison` — o caminho mais longo entre duas posições e a
  comparação de uma camada recorrente com as de atenção (a tabela 1 de *Attention Is All You Need*);
- :func:`computed_pairs` — quais pares cada método calcula, resumidos numa imagem.

Entradas inválidas levantam ``ValueError`` em português.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validation as val
from ._fast import BLOCO_PADRAO, local_query_block

__all__ = [
    "band_count",
    "causal_tile_count",
    "attention_costs",
    "computed_pairs",
    "longest_path",
    "layer_comparison",
]



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
