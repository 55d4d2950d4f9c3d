"""Notebook ``mascaras_e_atencao_cruzada``: o painel das máscaras — a máscara causal e a de preenchimento,
ao vivo, numa frase de seis tokens (o que passa do comprimento real vira ``<pad>``).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as W
import numpy as np

from ... import plots
from ...attention import causal_mask, padding_mask, scaled_dot_product_attention
from ...paineis import Painel, tabela, tabela_matriz
from .figuras import FiguraMascaras

__all__ = ["FRASE_MASCARAS", "PAD", "painel_mascaras"]

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: a frase do painel das máscaras (seis tokens; o que passa do comprimento real vira <pad>)
FRASE_MASCARAS = ("a", "menina", "leu", "o", "livro", "ontem")

PAD = "<pad>"

def _dados_mascaras(palavras: tuple[str, ...], d: int, d_v: int, semente: int) -> dict[str, Any]:
    """Embeddings (um vetor por palavra e um para o <pad>) e as projeções já aplicadas a cada um."""
    rng = np.random.default_rng(semente)
    vocab = list(palavras) + [PAD]
    X = rng.normal(size=(len(vocab), d))
    W_q, W_k = rng.normal(size=(d, d)) * 0.7, rng.normal(size=(d, d)) * 0.7  # pesos nem uniformes nem 0/1
    W_v = rng.normal(size=(d, d_v))
    return {"vocab": vocab, "Q": X @ W_q, "K": X @ W_k, "V": X @ W_v}

def painel_mascaras(causal: bool = True, padding: bool = True, comprimento: int = 4, query: int = 2,
                    palavras: tuple[str, ...] = FRASE_MASCARAS, semente: int = 0) -> Painel:
    """Máscara causal e de padding, ao vivo, numa frase de ``n = len(palavras)`` posições.

    Controles: ``causal`` e ``padding`` (caixas), ``comprimento`` (quantos tokens são de verdade; o
    resto da sequência é ``<pad>``) e ``query`` (a linha em destaque). Os vetores de cada palavra e do
    ``<pad>`` são sorteados uma vez (``semente``) e projetados em q, k (``d = 4``) e v (``d_v = 3``); a
    conta é a de :func:`helpers.attention.scaled_dot_product_attention`, com a máscara
    ``causal_mask(n) & padding_mask([comprimento], n)[0]`` (só as partes ligadas).

    Mostra o mapa de pesos ``(n, n)`` com as células mascaradas em cinza (×) e a soma de cada linha; à
    direita, a saída da query em destaque e (tracejada) a que ela teria sem máscara nenhuma.

    Estado: ``tokens``, ``permitido`` ``(n, n)``, ``pesos`` ``(n, n)``, ``somas`` ``(n,)``, ``query``,
    ``pesos_query`` ``(n,)``, ``saida`` ``(d_v,)``, ``saida_sem_mascara`` ``(d_v,)``, ``peso_no_pad`` e
    ``peso_no_futuro`` (quanto a query em destaque dá a posições ``<pad>`` e a posições ``j > query``).
    """
    from html import escape


    palavras = tuple(palavras)
    n, d_v = len(palavras), 3
    if n < 2:
        raise ValueError(f"o painel precisa de pelo menos 2 palavras; recebi {n}.")
    dados = _dados_mascaras(palavras, 4, d_v, semente)
    causal_nn = causal_mask(n)

    def conta(L: int, com_causal: bool, com_padding: bool) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray,
                                                                      np.ndarray, np.ndarray]:
        ids = list(range(L)) + [n] * (n - L)  # n é o índice do <pad> no vocabulário
        tokens = [dados["vocab"][t] for t in ids]
        Q, K, V = dados["Q"][ids], dados["K"][ids], dados["V"][ids]
        permitido = np.ones((n, n), dtype=bool)
        if com_causal:
            permitido &= causal_nn
        if com_padding:
            permitido &= padding_mask(np.array([L]), n)[0]
        saidas, pesos = scaled_dot_product_attention(Q, K, V, permitido)
        saidas_livres, _ = scaled_dot_product_attention(Q, K, V)
        return tokens, permitido, pesos, saidas, saidas_livres, V

    # eixo da saída fixo: o maior |coordenada| entre todas as combinações dos controles
    limite = 1.15 * max(float(np.abs(r).max()) for L in range(1, n + 1) for c in (False, True)
                        for pd in (False, True) for r in conta(L, c, pd)[3:5])
    k = plots.escala_da_fonte()  # no modo de apresentação, a figura cresce com a fonte
    fig, axes = plots.nova_figura(9.0 * k, 4.0 * k, ncols=2)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.22, top=0.9, wspace=0.42)
    ax_mapa, ax_saida = axes[0]
    ax_mapa.set_position([0.1, 0.22, 0.42, 0.68])
    ax_saida.set_position([0.68, 0.22, 0.29, 0.68])
    figura = FiguraMascaras(ax_mapa, ax_saida, n, d_v, (-limite, 1.5 * limite),  # folga para a legenda
                            tokens_possiveis=dados["vocab"])
    # a escala das cores (fixa em [0, 1]): os números de cada célula estão na tabela embaixo da figura
    fig.colorbar(figura.mapa.imagem, cax=fig.add_axes((0.535, 0.22, 0.012, 0.68)), ticks=[0, 0.5, 1], label="peso")
    estilo = {"description_width": "initial"}
    controles: dict[str, W.ValueWidget] = {
        "causal": W.Checkbox(value=causal, description="máscara causal (não olhar o futuro)", indent=False),
        "padding": W.Checkbox(value=padding, description="máscara de preenchimento (ignorar <pad>)", indent=False),
        "comprimento": W.IntSlider(value=comprimento, min=1, max=n, step=1, description="comprimento real (tokens)",
                                   continuous_update=True, style=estilo, layout=W.Layout(width="400px")),
        "query": W.IntSlider(value=query, min=0, max=n - 1, step=1, description="query em destaque (posição)",
                             continuous_update=True, style=estilo, layout=W.Layout(width="400px")),
    }
    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        L, i = int(v["comprimento"]), int(v["query"])
        com_causal, com_padding = bool(v["causal"]), bool(v["padding"])
        tokens, permitido, pesos, saidas, saidas_livres, _ = conta(L, com_causal, com_padding)
        somas = pesos.sum(axis=-1)
        no_pad = float(pesos[i, L:].sum())
        no_futuro = float(pesos[i, i + 1:].sum())
        ativas = " + ".join(nome for nome, ligada in (("causal", com_causal), ("padding", com_padding)) if ligada)
        figura.atualizar(pesos, permitido, tokens, i, saidas[i], saidas_livres[i],
                         titulo=f"pesos — máscara: {ativas or 'nenhuma'}")
        esc = [escape(t) for t in tokens]  # "<pad>" viraria uma tag no HTML
        # os pesos de todas as queries, com a soma de cada linha: os números que o mapa mostra em cores
        matriz = tabela_matriz("pesos (linhas: queries; ×: proibido)", np.column_stack([pesos, somas]),
                               [f"{q} · {t}" for q, t in enumerate(esc)], [*esc, "<i>soma</i>"], 3,
                               proibidas=np.column_stack([~permitido, np.zeros(n, dtype=bool)]), destaque=i)
        pares = tabela([
            ("sequência", " ".join(esc) + f"   ({L} de {n} tokens são reais)"),
            ("máscaras ligadas", ativas or "nenhuma"),
            (f"soma da linha da query {i} («{esc[i]}»)", f"{somas[i]:.3f}"),
            (f"peso que a query dá ao {escape(PAD)}", f"{no_pad:.3f}"),
            (f"peso que a query dá ao futuro (posições > {i})", f"{no_futuro:.3f}"),
            ("saída da query (com as máscaras)", "(" + ", ".join(f"{x:.2f}" for x in saidas[i]) + ")"),
            ("saída sem máscara nenhuma", "(" + ", ".join(f"{x:.2f}" for x in saidas_livres[i]) + ")"),
        ])
        html = (f"<div style='display:flex;flex-wrap:wrap;gap:0.5em 2.5em;align-items:flex-start'>"
                f"<div>{pares}</div>{matriz}</div>")
        return {"tokens": tokens, "permitido": permitido, "pesos": pesos, "somas": somas, "query": i,
                "pesos_query": pesos[i], "saida": saidas[i], "saida_sem_mascara": saidas_livres[i],
                "peso_no_pad": no_pad, "peso_no_futuro": no_futuro, "causal": com_causal, "padding": com_padding,
                "comprimento": L, "html": html}

    return Painel(fig, controles, calcular, titulo="Máscaras: quem pode olhar para quem", animados=figura.animados(),
                  lentos=figura.lentos())
