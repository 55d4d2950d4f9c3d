"""Notebook ``projecoes_qkv``: o exemplo "banco" — os embeddings feitos à mão, as duas frases e as matrizes
``W_q``, ``W_k``, ``W_v`` escolhidas à mão. O painel (:mod:`.paineis`) e a previsão (:mod:`.previsoes`)
fazem as contas com estes números.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DIMENSOES_BANCO", "EMBEDDINGS_BANCO", "FRASE_DINHEIRO", "FRASE_PRACA", "matrizes_banco"]

#: o exemplo "banco" do notebook 06 (seção 3): o que cada coordenada dos embeddings quer dizer
DIMENSOES_BANCO = ("finanças", "assento/lugar", "ambiguidade", "gramática")

#: embeddings feitos à mão (d_model = 4), nas dimensões de :data:`DIMENSOES_BANCO`
EMBEDDINGS_BANCO = {
    "banco": (0.5, 0.5, 1.0, 0.0),
    "depositei": (0.9, 0.1, 0.0, 0.0),
    "salário": (1.0, 0.0, 0.0, 0.0),
    "sentei": (0.1, 0.9, 0.0, 0.0),
    "praça": (0.0, 1.0, 0.0, 0.0),
    "o": (0.0, 0.0, 0.0, 1.0),
    "no": (0.0, 0.0, 0.0, 1.0),
    "da": (0.0, 0.0, 0.0, 1.0),
}

FRASE_DINHEIRO = ("depositei", "o", "salário", "no", "banco")

FRASE_PRACA = ("sentei", "no", "banco", "da", "praça")

def matrizes_banco(forca_query: float = 2.0, financas_key: float = 1.0,
                   lugar_key: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W_q, W_k, W_v)`` do exemplo "banco", escolhidas à mão (num modelo, viriam do treino).

    - ``W_q`` (4 × 2): a ambiguidade vira a pergunta "quem tem sentido próprio?" (coordenada 0 da
      query) com peso ``forca_query``; finanças e lugar perguntam o mesmo, mais fraco (0.5).
    - ``W_k`` (4 × 2): a coordenada 0 da key, "tenho sentido próprio", soma ``financas_key``·finanças
      + ``lugar_key``·lugar − ambiguidade; a coordenada 1 marca as palavras gramaticais.
    - ``W_v`` (4 × 3): o value entrega (finanças, lugar, gramática); a ambiguidade não é entregue.
    """
    W_q = np.array([[0.5, 0.0], [0.5, 0.0], [forca_query, 0.0], [0.0, 0.0]])
    W_k = np.array([[financas_key, 0.0], [lugar_key, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    W_v = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return W_q, W_k, W_v
