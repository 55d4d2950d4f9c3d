"""Notebook ``projecoes_qkv``: o painel do exemplo "banco" — as duas frases com as **mesmas** ``W_q``,
``W_k``, ``W_v``, e sliders que mexem em três números dessas matrizes.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as W
import numpy as np

from ...attention import scaled_dot_product_attention
from ...formato import par
from ...paineis import Painel, slider, tabela
from .banco import EMBEDDINGS_BANCO, FRASE_DINHEIRO, FRASE_PRACA, matrizes_banco
from .figuras import FiguraBanco, eixos_banco

__all__ = ["painel_projecoes"]

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na > 0 and nb > 0 else 0.0

def painel_projecoes(forca_query: float = 2.0, financas_key: float = 1.0, lugar_key: float = 1.0) -> Painel:
    """As duas frases com "banco" e as **mesmas** ``W_q``, ``W_k``, ``W_v``; sliders mexem em três
    números dessas matrizes (:func:`matrizes_banco`).

    Sliders: ``forca_query`` (o peso da ambiguidade na query, ``W_q[ambiguidade, 0]``),
    ``financas_key`` e ``lugar_key`` (o peso de finanças e de lugar na key, ``W_k[·, 0]``). Para cada
    frase: ``Q = X W_q``, ``K = X W_k``, ``V = X W_v`` e
    :func:`helpers.attention.scaled_dot_product_attention`. Mostra os mapas de calor dos pesos, a
    saída de "banco" no plano dos dois sentidos e, embaixo, os pesos de "banco" e o cosseno da saída
    com cada sentido (as direções dos values de finanças e de lugar: as linhas 0 e 1 de ``W_v``).

    Estado: ``W_q``, ``W_k``, ``W_v``; ``q_banco`` (a query de "banco", igual nas duas frases);
    ``Q_1``, ``K_1``, ``V_1``, ``pesos_1`` ``(5, 5)``, ``saida_1`` ``(3,)`` (a saída de "banco"),
    ``cos_financas_1``, ``cos_lugar_1`` e o mesmo com ``_2`` para a frase da praça.
    """

    frases = (FRASE_DINHEIRO, FRASE_PRACA)
    Xs = [np.array([EMBEDDINGS_BANCO[t] for t in frase]) for frase in frases]
    linhas = [frase.index("banco") for frase in frases]
    x_banco = np.array(EMBEDDINGS_BANCO["banco"])
    fig, axes = eixos_banco(pyplot=False)
    _, _, W_v0 = matrizes_banco()
    figura = FiguraBanco(*axes, frases[0], frases[1], proprio=(x_banco @ W_v0)[:2])
    controles: dict[str, W.ValueWidget] = {
        "forca_query": slider("W_q[ambiguidade, 0]", forca_query, 0.0, 4.0, 0.25),
        "financas_key": slider("W_k[finanças, 0]", financas_key, -1.0, 2.0, 0.25),
        "lugar_key": slider("W_k[lugar, 0]", lugar_key, -1.0, 2.0, 0.25),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        W_q, W_k, W_v = matrizes_banco(float(v["forca_query"]), float(v["financas_key"]), float(v["lugar_key"]))
        u_fin, u_lugar = W_v[0], W_v[1]  # o que uma palavra só de finanças (ou só de lugar) entrega
        estado: dict[str, Any] = {"W_q": W_q, "W_k": W_k, "W_v": W_v, "q_banco": x_banco @ W_q}
        linhas_html = [("query de 'banco' = x_banco W_q", par(estado["q_banco"]))]
        saidas = []
        for n, (frase, X, i) in enumerate(zip(frases, Xs, linhas), 1):
            Q, K, V = X @ W_q, X @ W_k, X @ W_v
            saida, pesos = scaled_dot_product_attention(Q, K, V)
            o = saida[i]
            cf, cl = _cos(o, u_fin), _cos(o, u_lugar)
            estado.update({f"Q_{n}": Q, f"K_{n}": K, f"V_{n}": V, f"pesos_{n}": pesos, f"saida_{n}": o,
                           f"cos_financas_{n}": cf, f"cos_lugar_{n}": cl})
            saidas.append(o)
            cor = FiguraBanco.COR_FRASE1 if n == 1 else FiguraBanco.COR_FRASE2
            linhas_html += [
                (f"<span style='color:{cor}'>■</span> frase {n}: pesos de 'banco'",
                 " · ".join(f"{t} {p:.3f}" for t, p in zip(frase, pesos[i]))),
                ("&nbsp;&nbsp;&nbsp;saída de 'banco' (finanças, lugar, gramática)",
                 f"({o[0]:.3f}, {o[1]:.3f}, {o[2]:.3f})"),
                ("&nbsp;&nbsp;&nbsp;cosseno com finanças · com lugar", f"{cf:.3f} · {cl:.3f}"),
            ]
        figura.atualizar(estado["pesos_1"], estado["pesos_2"], saidas[0], saidas[1])
        estado["html"] = tabela(linhas_html) + (
            "<div style='color:#555'>'banco' sozinho entrega (0.5, 0.5, 0): cosseno 0,707 com os dois sentidos.</div>")
        return estado

    return Painel(fig, controles, calcular, titulo="As mesmas W_q, W_k, W_v em duas frases: para onde vai 'banco'?",
                  animados=figura.animados())
