"""O corretor do exercício de código do notebook ``revisao``: o mecanismo inteiro, de ``X`` à saída, com
cada erro clássico construído por :func:`_mecanismo` (o mecanismo com um "defeito" escolhido)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...attention import multi_head_attention, softmax
from ...corretor import Caso, Erro, Exercicio, SaidaOuPar, conferir, corretor_de


def _mecanismo(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, W_o: np.ndarray | None, h: int, *,
               escala: str = "d_head", eixo: int = -1, dividir: str = "certo", juntar: str = "certo",
               values: str = "V", uma_cabeca: bool = False) -> np.ndarray:
    """O mecanismo inteiro com um "defeito" escolhido (para construir os erros clássicos)."""
    n, d_model = X.shape
    d = W_q.shape[1] // h
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    if uma_cabeca:
        out = softmax(Q @ K.T / math.sqrt(d_model)) @ V
        return out @ W_o
    fator = {"d_head": 1 / math.sqrt(d), "d_model": 1 / math.sqrt(d_model), "nenhuma": 1.0, "d": 1 / d}[escala]

    def separar(M: np.ndarray) -> np.ndarray:
        return M.reshape(n, h, d).transpose(1, 0, 2) if dividir == "certo" else M.reshape(h, n, d)

    Qh, Kh, Vh = separar(Q), separar(K), separar(V)
    saidas = softmax(Qh @ np.swapaxes(Kh, -1, -2) * fator, axis=eixo) @ (Kh if values == "K" else Vh)
    junto = saidas.transpose(1, 0, 2).reshape(n, h * d) if juntar == "certo" else saidas.reshape(n, h * d)
    return junto if W_o is None else junto @ W_o


def _casos_mecanismo() -> list[Caso]:
    rng = np.random.default_rng(10)
    casos = []
    for n, d_model, h, d_out in ((3, 6, 2, 6), (5, 8, 4, 3)):
        X = rng.normal(size=(n, d_model))
        W_q, W_k, W_v = (rng.normal(size=(d_model, d_model)) / math.sqrt(d_model) for _ in range(3))  # sem saturar
        W_o = rng.normal(size=(d_model, d_out))
        casos.append(Caso(f"com X ({n}, {d_model}), n_heads = {h} e W_o ({d_model}, {d_out})",
                          {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o, "n_heads": h}))
    return casos


def _d_head(W_q: np.ndarray, n_heads: int, **_: Any) -> int:
    return W_q.shape[1] // n_heads


MECANISMO = Exercicio(
    nome="o mecanismo inteiro",
    casos=_casos_mecanismo,
    certo=lambda X, W_q, W_k, W_v, W_o, n_heads: multi_head_attention(X, X, W_q, W_k, W_v, W_o, n_heads)[0],
    formato=SaidaOuPar(),
    acerto="Correto! X → Q, K, V → cabeças (n_heads, n, d_head) → softmax(Q Kᵀ/√d_head) V em cada uma → juntar "
           "(n, n_heads·d_head) → W_o. É o mecanismo inteiro, igual a attention.multi_head_attention.",
    erros=[
        Erro("sem W_o",
             "Faltou a projeção de saída: depois de juntar as cabeças, multiplique por W_o. É ela que mistura o que cada "
             "cabeça encontrou e leva o resultado para a largura d_out.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, None, n_heads)),
        Erro("uma cabeça só",
             lambda X, W_q, n_heads, **_: f"Você fez uma cabeça só, com todas as {X.shape[1]} colunas. Com n_heads = "
                                          f"{n_heads}, divida Q, K e V em {n_heads} cabeças de d_head = "
                                          f"{_d_head(W_q, n_heads)} colunas, faça a atenção em cada uma e junte as "
                                          "saídas antes de W_o.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, uma_cabeca=True)),
        Erro("escala com d_model",
             lambda X, W_q, n_heads, **_: f"A escala de cada cabeça é 1/√d_head = 1/√{_d_head(W_q, n_heads)}, não "
                                          f"1/√d_model = 1/√{X.shape[1]}: os escores de uma cabeça são produtos "
                                          f"escalares de vetores com d_head = {_d_head(W_q, n_heads)} coordenadas.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, escala="d_model")),
        Erro("sem escala",
             "Faltou a escala: divida os escores de cada cabeça por √d_head antes da softmax.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, escala="nenhuma")),
        Erro("÷d_head em vez de ÷√d_head",
             lambda W_q, n_heads, **_: f"Você dividiu por d_head = {_d_head(W_q, n_heads)} em vez de √d_head = "
                                       f"√{_d_head(W_q, n_heads)}.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, escala="d")),
        Erro("softmax no eixo errado",
             "Softmax no eixo errado: em cada cabeça, os pesos de cada **query** (cada linha de Q Kᵀ, forma "
             "(n_heads, n, n)) devem somar 1. Use axis=-1, não axis=-2 (que, com três eixos, é o mesmo que axis=1): "
             "assim cada coluna somaria 1.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, eixo=-2)),
        Erro("softmax entre as cabeças",
             "Softmax no eixo das cabeças (axis=0): assim, cada escore foi normalizado contra o mesmo escore das outras "
             "cabeças, e os pesos de uma cabeça passaram a depender das outras. A softmax é por **query**, dentro de "
             "cada cabeça: o último eixo, axis=-1.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, eixo=0)),
        Erro("dividir e juntar sem transpor",
             "Você dividiu em cabeças com M.reshape(n_heads, n, d_head), sem transpor, e juntou com o reshape inverso. O "
             "reshape lê os números linha por linha, então cada 'cabeça' ficou com pedaços de tokens diferentes. Faça "
             "M.reshape(n, n_heads, d_head).transpose(1, 0, 2) e, para juntar, O.transpose(1, 0, 2).reshape(n, "
             "n_heads·d_head) (notebook de várias cabeças).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, dividir="errado",
                                                                       juntar="errado")),
        Erro("dividir sem transpor",
             "A divisão em cabeças está errada: M.reshape(n_heads, n, d_head) direto mistura tokens. Separe as colunas "
             "de cada token primeiro, M.reshape(n, n_heads, d_head), e depois troque os eixos: .transpose(1, 0, 2) "
             "(notebook de várias cabeças).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, dividir="errado")),
        Erro("juntar sem transpor",
             "A divisão em cabeças está certa, mas a junção não: a saída das cabeças tem forma (n_heads, n, d_head), e "
             "O.reshape(n, n_heads·d_head) mistura tokens. Troque os eixos de volta antes: "
             "O.transpose(1, 0, 2).reshape(n, n_heads·d_head).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, juntar="errado")),
        Erro("soma das keys",
             "Você somou as **keys** ponderadas; a saída de cada cabeça é a soma ponderada dos **values** (V = X @ W_v).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, values="K")),
    ],
    dica_de_forma="A saída tem uma linha por token, com as colunas de W_o: forma (n, d_out).",
)


@corretor_de(MECANISMO)
def check_mecanismo(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v, W_o, n_heads)``: a atenção de várias cabeças inteira, de ``X``
    ``(n, d_model)`` à saída ``(n, d_out)`` — projeções, divisão em cabeças, ``softmax(Q Kᵀ/√d_head) V``
    em cada cabeça, junção e ``W_o`` (a referência é :func:`helpers.attention.multi_head_attention`).

    A função pode devolver só a saída ou ``(saída, pesos)``. Casos: ``n = 3``, ``d_model = 6``, duas
    cabeças (``W_o`` quadrada, para que quase todo erro rode e se reconheça pelo valor) e ``n = 5``,
    ``d_model = 8``, quatro cabeças, ``W_o`` ``(8, 3)``. Reconhece cada erro de :data:`MECANISMO`.
    """
    return conferir(MECANISMO, fn)
