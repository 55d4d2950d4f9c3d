"""Notebook ``custo_quadratico``: o painel do custo de cada atenção (exata, local, linear e por blocos).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as W
from matplotlib.figure import Figure

from ...efficient import attention_costs, computed_pairs
from ...formato import decimal, milhares, numero_legivel
from ...paineis import Painel
from .figuras import FiguraCusto
from .medidas import bytes_na_prosa

__all__ = ["painel_custo"]


#: os n do painel de custo: potências de dois de 16 a 131072 (128k tokens)
_NS_CUSTO = tuple(2**e for e in range(4, 18))

_BLOCOS_CUSTO = (16, 32, 64, 128, 256, 512)

_METODOS_CUSTO = (("exata", "exata"), ("local", "local"), ("linear", "linear"), ("por blocos", "blocos"))

def painel_custo(n: int = 1024, janela: int = 16, bloco: int = 128, metodo: str = "local", *,
                 causal: bool = False, d: int = 64) -> Painel:
    """Quanto custa cada método de atenção para ``n`` tokens: o padrão de pares e as contas.

    Controles: ``n`` (potências de dois de 16 a 131072), a janela ``w`` da atenção local (cada lado),
    o tamanho ``B`` do bloco da atenção por blocos, o método mostrado no padrão e a máscara causal.
    À esquerda, os pares ``(query, key)`` que o método calcula (:func:`helpers.efficient.computed_pairs`; na
    local, os da faixa, sem o resto do retângulo que :func:`helpers.efficient.local_attention` calcula e descarta); no meio e à
    direita, operações e memória de trabalho (float32) de cada método em função de ``n``
    (de :func:`helpers.efficient.attention_costs`), com o ``n`` atual marcado.
    Estado: ``n``, ``d``, ``janela``, ``bloco``, ``metodo``, ``causal``, ``custos`` (o dicionário de
    ``attention_costs``), ``padrao`` (a imagem), ``fracao_local`` e ``fracao_blocos`` (escores
    calculados / ``n²``).
    """

    if n not in _NS_CUSTO or bloco not in _BLOCOS_CUSTO:
        raise ValueError(f"n precisa ser uma de {_NS_CUSTO} e bloco um de {_BLOCOS_CUSTO}; recebi n={n}, bloco={bloco}.")
    if metodo not in dict(_METODOS_CUSTO).values():
        raise ValueError(f"método desconhecido: {metodo!r}; use 'exata', 'local', 'linear' ou 'blocos'.")
    fig = Figure(figsize=(9.0, 3.9))
    ax_padrao = fig.add_axes((0.095, 0.17, 0.23, 0.66))
    ax_flops = fig.add_axes((0.415, 0.17, 0.25, 0.66))
    ax_memoria = fig.add_axes((0.735, 0.17, 0.255, 0.66))
    figura = FiguraCusto(ax_padrao, ax_flops, ax_memoria, _NS_CUSTO)
    estilo = {"description_width": "150px"}  # a mesma largura em todas as descrições: sliders alinhados
    largura = W.Layout(width="440px")
    controles: dict[str, W.ValueWidget] = {
        "n": W.SelectionSlider(options=list(_NS_CUSTO), value=n, description="n (tokens)", continuous_update=True,
                               style=estilo, layout=largura),
        "janela": W.IntSlider(value=janela, min=1, max=512, step=1, description="janela w (local)",
                              continuous_update=True, style=estilo, layout=largura),
        "bloco": W.SelectionSlider(options=list(_BLOCOS_CUSTO), value=bloco, description="bloco B (por blocos)",
                                   continuous_update=True, style=estilo, layout=largura),
        "metodo": W.SelectionSlider(options=list(_METODOS_CUSTO), value=metodo, description="padrão mostrado",
                                    continuous_update=True, style=estilo, layout=largura),
        "causal": W.Checkbox(value=causal, description="máscara causal", indent=False, layout=largura),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        n_, w, b, met, cau = int(v["n"]), int(v["janela"]), int(v["bloco"]), v["metodo"], bool(v["causal"])
        custos = attention_costs(n_, d, window=w, block_size=b, causal=cau)
        por_n = [attention_costs(m, d, window=w, block_size=b, causal=cau) for m in _NS_CUSTO]
        curvas = {nome: {"flops": [c[nome]["flops"] for c in por_n], "bytes": [c[nome]["bytes"] for c in por_n]}
                  for nome in custos}
        padrao = computed_pairs(n_, met, w, b, cau)
        b_ef = min(b, n_)
        titulos = {
            "exata": "exata causal: n², ½ descartada" if cau else "exata: todos os n² pares",
            "local": f"local causal: 0 ≤ i − j ≤ {w}" if cau else f"local: |i − j| ≤ {w}",
            "linear": "linear: nenhum par q·k",
            "blocos": f"por blocos: {b_ef} × {b_ef} por vez",
        }
        aviso = "nenhum escore q·k\né calculado: a conta\nguarda só φ(K)ᵀV\n(d × d)" if met == "linear" else ""
        figura.atualizar(n_, padrao, curvas, custos, bloco=b_ef if met == "blocos" else None,
                         titulo=titulos[met], aviso=aviso)
        total = n_ * n_
        linhas = [("", "<b>escores q·k calculados</b>", "<b>operações (FLOPs)</b>", "<b>memória de trabalho (float32)</b>")]
        for nome, rotulo in (("exata", "exata"), ("local", f"local (w = {w})"), ("linear", f"linear (d = {d})"),
                             ("blocos", f"por blocos (B = {b_ef})")):
            c = custos[nome]
            linhas.append((rotulo, f"{milhares(c['escores'])} ({decimal(100 * c['escores'] / total, 1)}% de n²)",
                           numero_legivel(c["flops"]).replace(".", ","), bytes_na_prosa(c["bytes"])))
        corpo = "".join("<tr>" + "".join(f"<td style='padding:0 0.8em'>{x}</td>" for x in lin) + "</tr>" for lin in linhas)
        html = (f"<div style='font-size:1.1em'>n = {n_} tokens · d = {d} · "
                f"{'com' if cau else 'sem'} máscara causal · n² = {milhares(total)} pares" +
                f"<table>{corpo}</table>"
                "<div style='color:#555;font-size:0.9em'>No padrão, cada célula resume um quadrado de pares (query, "
                "key): amarelo = calculado e usado; verde-azulado = calculado e descartado pela máscara; roxo = nem "
                "calculado. Os escores da local são os pares da faixa: efficient.local_attention calcula, para "
                "cada bloco de queries, um retângulo que contém a faixa e descarta o que sobra (alguns escores a "
                "mais, também em número linear em n). Memória de trabalho: o que a conta guarda ao mesmo tempo além "
                "de q, k, v e da saída — a matriz de pesos (exata), um bloco de queries contra a faixa de keys que "
                "ele vê (local, como efficient.local_attention faz, um bloco por vez), φ(K)ᵀV e φ(K)ᵀ1 (linear), "
                "um bloco B × B e o máximo e a soma corridos de B queries (por blocos).</div></div>")
        return {"n": n_, "d": d, "janela": w, "bloco": b, "metodo": met, "causal": cau, "custos": custos,
                "padrao": padrao, "fracao_local": custos["local"]["escores"] / total,
                "fracao_blocos": custos["blocos"]["escores"] / total, "html": html}

    return Painel(fig, controles, calcular, "O custo de cada atenção: quais pares são calculados e quanto isso pesa",
                  animados=figura.animados())
