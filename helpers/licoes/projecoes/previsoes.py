"""Notebook ``projecoes_qkv``: a previsão (prever, depois conferir) — o escore de salário → banco sem
projeções (``Q = K = X``), igual ao de banco → salário, porque o produto escalar é simétrico.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...attention import softmax
from ...corretor import Erro, NumeroAproximado, Previsao, conferir_previsao, corretor_de
from .banco import EMBEDDINGS_BANCO, FRASE_DINHEIRO, matrizes_banco

__all__ = ["PREVISAO_SIMETRIA", "check_previsao_simetria"]

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
            "x_A·x_B / √d — o mesmo número que o de B olhando para A, porque o produto escalar é simétrico. Por isso "
            "salário → banco vale os mesmos 0,250 de banco → salário. Com W_q e W_k separadas, os dois sentidos se "
            "descolam: banco → salário vale 1,768 e salário → banco, 0.",
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
    ],
)


@corretor_de(PREVISAO_SIMETRIA)
def check_previsao_simetria(previsao: Any) -> bool:
    """Confere a previsão do escore salário → banco com ``Q = K = X`` (0.250, igual ao de banco → salário)
    e diz o equívoco de cada previsão errada típica (0, 1.768, 0.192)."""
    return conferir_previsao(PREVISAO_SIMETRIA, previsao)
