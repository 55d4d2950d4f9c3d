"""Notebook ``projecoes_qkv``: a caixa da previsão (prever, depois conferir) — o escore de salário → banco sem
projeções (``Q = K = X``), igual ao de banco → salário, porque o produto escalar é simétrico.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...attention import softmax
from ...corretor import Erro, Previsao, corretor_de
from ...previsao import CaixaDePrevisao, caixa
from ...respostas import NumeroAproximado
from .banco import EMBEDDINGS_BANCO, FRASE_DINHEIRO, matrizes_banco

__all__ = ["PREVISAO_SIMETRIA", "prever_simetria"]

# --- prever, depois conferir -----------------------------------------------------------------------


def _escores_identidade(frase: Sequence[str] = FRASE_DINHEIRO) -> np.ndarray:
    """``X Xᵀ / √d_model`` da frase: os escores com ``Q = K = X`` (sem projeções)."""
    X = np.array([EMBEDDINGS_BANCO[t] for t in frase])
    return X @ X.T / math.sqrt(X.shape[1])


def _b_s() -> tuple[int, int]:
    return FRASE_DINHEIRO.index("banco"), FRASE_DINHEIRO.index("salário")


def _escore_projetado(de: str, para: str) -> float:
    W_q, W_k, _ = matrizes_banco()
    X = np.array([EMBEDDINGS_BANCO[t] for t in FRASE_DINHEIRO])
    z = (X @ W_q) @ (X @ W_k).T / math.sqrt(W_k.shape[1])
    return float(z[FRASE_DINHEIRO.index(de), FRASE_DINHEIRO.index(para)])


PREVISAO_SIMETRIA = Previsao(
    nome="escore de volta sem projeções",
    certo=lambda: round(float(_escores_identidade()[_b_s()[1], _b_s()[0]]), 3),
    revelar="Sem projeções, a query e a key de cada token são o próprio embedding, e o escore de A olhando para B é "
            "x_A·x_B / √d — o mesmo número que o de B olhando para A, porque o produto escalar é simétrico: a matriz "
            "de escores X Xᵀ é simétrica (na matriz impressa abaixo, a linha i é igual à coluna i). Por isso "
            "salário → banco vale os mesmos 0,250 de banco → salário: com um vetor só, \"quanto eu procuro você\" e "
            "\"quanto você me procura\" não podem ser diferentes. Com W_q e W_k separadas, os dois sentidos se "
            "descolam: banco → salário vale 1,768 e salário → banco, 0 — e é isso que o exemplo pede, porque "
            "\"banco\" precisa de \"salário\" para decidir o seu sentido, e \"salário\" não precisa de \"banco\". "
            "(Os pesos, depois da softmax, não ficam exatamente simétricos, porque cada linha é normalizada por conta "
            "própria; mas o escore, a \"vontade\" de olhar, é o mesmo nos dois sentidos.)",
    formato=NumeroAproximado(3),
    erros=[
        Erro("assimetria sem projeções",
             "0 é o escore de salário → banco **com** as projeções W_q e W_k. Sem elas (Q = K = X), a query de "
             "salário é o próprio embedding dele, igual à key dele: o escore de volta é x_salário·x_banco / √d, o "
             "mesmo produto escalar de ida.",
             resposta=lambda: _escore_projetado("salário", "banco")),
        Erro("escore com as projeções",
             "1,768 é o escore de banco → salário **com** W_q e W_k. A pergunta é sem projeções, onde o escore de ida "
             "é 0,250; e o de volta?",
             resposta=lambda: _escore_projetado("banco", "salário")),
        Erro("peso no lugar do escore",
             "0,192 é o **peso** (depois da softmax) que banco dá a salário sem projeções, não o escore. Os pesos "
             "nem são simétricos — cada linha é normalizada por conta própria —; a pergunta é sobre o escore, "
             "x_salário·x_banco / √d.",
             resposta=lambda: float(softmax(_escores_identidade(), axis=-1)[_b_s()[0], _b_s()[1]])),
        Erro("sem dividir por √d",
             "0,5 é o produto escalar x_salário·x_banco antes da escala. O escore divide por √d = √4 = 2, como o "
             "de ida.",
             resposta=lambda: float(np.dot(EMBEDDINGS_BANCO["salário"], EMBEDDINGS_BANCO["banco"]))),
    ],
    # a resposta é igual ao escore de ida, que o enunciado dá (0,250): o que a entregaria é o escore de volta escrito
    pistas=("salário → banco: 0.250", "salário → banco: 0,250", "salário → banco vale os mesmos 0,250",
            "salário → banco = 0,25", "X Xᵀ é simétrica", "escores é simétrica"),
    exemplo="1,2",
)


@corretor_de(PREVISAO_SIMETRIA)
def prever_simetria() -> CaixaDePrevisao:
    """A caixa da previsão do escore salário → banco com ``Q = K = X`` (a resposta: 0.250, igual ao de
    banco → salário; as previsões erradas típicas: 0, 1.768, 0.192 e 0.5)."""
    return caixa(PREVISAO_SIMETRIA)
