"""Lição "A soma ponderada dos values" (notebook ``soma_ponderada``): os painéis da soma ponderada (keys e values), a figura do caminho da saída, o corretor da atenção e a caixa da previsão do notebook (trocar v₃).

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .. import plots
from ..attention import (
    scaled_dot_product_attention,
    softmax,
)
from ..corretor import Caso, Erro, Exercicio, Previsao, Regra, bate_com_alguma, conferir, corretor_de, usa_nomes
from ..estabilidade import EXPLICA_KEEPDIMS, erros_de_estabilidade, sem_keepdims
from ..formato import decimal, par, subscrito
from ..paineis import Painel, slider
from ..plots import CORES
from ..previsao import CaixaDePrevisao, caixa
from ..respostas import NumeroAproximado, SaidaOuPar, leitura_para

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


def _rotular_ponta(rotulo, vetor: ArrayLike, pad: float, lado: int = 0) -> None:
    """Põe o texto ``rotulo`` logo além da ponta de uma seta que sai da origem até ``vetor``.

    ``pad`` é a folga em unidades de dados; ``lado=+1``/``-1`` desloca o rótulo para a
    esquerda/direita da seta (centrado), senão o alinhamento segue a direção da seta.
    """
    x, y = float(vetor[0]), float(vetor[1])
    norma = math.hypot(x, y)
    ux, uy = (x / norma, y / norma) if norma > 1e-9 else (1.0, 0.0)
    if lado:
        rotulo.set_position((x + 1.3 * pad * ux - lado * pad * uy, y + 1.3 * pad * uy + lado * pad * ux))
        rotulo.set_horizontalalignment("center")
        rotulo.set_verticalalignment("center")
    else:
        rotulo.set_position((x + pad * ux, y + pad * uy))
        rotulo.set_horizontalalignment("left" if ux > 0.4 else "right" if ux < -0.4 else "center")
        rotulo.set_verticalalignment("bottom" if uy > 0.4 else "top" if uy < -0.4 else "center")

def _caixa_px(rotulo) -> tuple[float, float, float, float]:
    """Caixa ``(x0, y0, x1, y1)`` aproximada de um texto, em pixels, sem desenhar a figura.

    A largura é estimada pelo número de caracteres (0.65 em por caractere, folgado para negrito) e a
    altura pela fonte; a posição e o alinhamento vêm do próprio texto.
    """
    ax = rotulo.axes
    x, y = ax.transData.transform(rotulo.get_position())
    em = rotulo.get_fontsize() * ax.figure.dpi / 72
    largura, altura = 0.65 * em * len(rotulo.get_text()), 1.25 * em
    x0 = {"left": x, "right": x - largura}.get(rotulo.get_horizontalalignment(), x - largura / 2)
    y0 = {"bottom": y, "top": y - altura}.get(rotulo.get_verticalalignment(), y - altura / 2)
    return x0, y0, x0 + largura, y0 + altura

def _sobreposicao(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Área (px²) da interseção de duas caixas ``(x0, y0, x1, y1)``."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))

def _desviar_rotulo(rotulo, vetor: np.ndarray, pad: float, outros: Sequence) -> None:
    """Se o rótulo da ponta de ``vetor`` cobre algum dos ``outros`` rótulos, tenta os dois lados da seta.

    Candidatos, nesta ordem: além da ponta (onde :func:`_rotular_ponta` já o pôs), além da ponta mas
    centrado na altura dela, ao lado direito e ao lado esquerdo da ponta (alinhado para longe da
    seta). Fica o primeiro que não cobre nenhum dos
    outros; se todos cobrem, o que cobre menos. Ex.: a saída (6.15, 3.85) fica perto de v₃ = (5, 5).
    """
    x, y = float(vetor[0]), float(vetor[1])
    norma = math.hypot(x, y)
    ux, uy = (x / norma, y / norma) if norma > 1e-9 else (1.0, 0.0)
    caixas = [_caixa_px(o) for o in outros]

    def custo() -> float:
        minha = _caixa_px(rotulo)
        return sum(_sobreposicao(minha, c) for c in caixas)

    candidatos = [(rotulo.get_position(), rotulo.get_horizontalalignment(), rotulo.get_verticalalignment())]
    if abs(ux) >= abs(uy):  # além da ponta, mas centrado na altura dela
        candidatos.append(((x + math.copysign(pad, ux), y), "left" if ux > 0 else "right", "center"))
    else:
        candidatos.append(((x, y + math.copysign(pad, uy)), "center", "bottom" if uy > 0 else "top"))
    for nx, ny in ((uy, -ux), (-uy, ux)):  # perpendicular à direita e à esquerda da seta
        ha = "left" if nx > 0.3 else "right" if nx < -0.3 else "center"
        va = "bottom" if ny > 0.3 else "top" if ny < -0.3 else "center"
        candidatos.append(((x + pad * nx, y + pad * ny), ha, va))
    melhor, menor = candidatos[0], math.inf
    for posicao, ha, va in candidatos:
        rotulo.set_position(posicao)
        rotulo.set_horizontalalignment(ha)
        rotulo.set_verticalalignment(va)
        c = custo()
        if c == 0:
            return
        if c < menor:
            melhor, menor = (posicao, ha, va), c
    posicao, ha, va = melhor
    rotulo.set_position(posicao)
    rotulo.set_horizontalalignment(ha)
    rotulo.set_verticalalignment(va)

class FiguraSomaPonderada:
    """A atenção de uma query em três painéis lado a lado.

    1. ``ax_keys``: a query ``q`` e as keys ``kᵢ`` (onde olhar);
    2. ``ax_values``: os values ``vᵢ``, o triângulo que eles formam e a saída (o que se recupera),
       com o caminho ``w₁v₁ → + w₂v₂ → + w₃v₃`` que leva da origem até ela;
    3. ``ax_pesos``: os pesos em barras (somam 1), com o escore escalado ``q·kᵢ/√d`` de cada key.

    A espessura de ``kᵢ`` e de ``vᵢ`` cresce com o peso ``wᵢ``. ``atualizar`` recebe os números já
    calculados (por :func:`helpers.attention.scaled_dot_product_attention`); aqui só se desenha.
    """

    def __init__(self, ax_keys: Axes, ax_values: Axes, ax_pesos: Axes, n: int = 3,
                 limite_keys: float = 2.3, limites_values: tuple[float, float] = (-2.0, 13.0)):
        from matplotlib.patches import Polygon

        self.n = n
        fonte = mpl.rcParams["font.size"]
        for ax, (lo, hi) in ((ax_keys, (-limite_keys, limite_keys)), (ax_values, limites_values)):
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
            ax.set_aspect("equal")
            ax.axhline(0, color=CORES["neutro"], lw=0.8)
            ax.axvline(0, color=CORES["neutro"], lw=0.8)
        # títulos com y fixo e poucos ticks: o desenho de textos é o que mais pesa a cada atualização
        ax_keys.set_title("onde olhar: q e as keys", y=1.02)
        ax_keys.set_xticks([-2, -1, 0, 1, 2] if limite_keys > 2 else [-1, 0, 1])
        ax_keys.set_yticks(ax_keys.get_xticks())
        passo = 5.0 if limites_values[1] - limites_values[0] <= 15 else 10.0
        ticks_v = np.arange(math.ceil(limites_values[0] / passo), math.floor(limites_values[1] / passo) + 1) * passo
        ax_values.set_xticks(ticks_v)
        ax_values.set_yticks(ticks_v)
        self.setas_k = [plots.seta(ax_keys, CORES["k"], f"k{subscrito(i + 1)}") for i in range(n)]
        self.seta_q = plots.seta(ax_keys, CORES["q"], "q")
        self.pad_keys = 0.06 * 2 * limite_keys  # folga entre a ponta da seta e o rótulo (unid. de dados)
        self.pad_values = 0.045 * (limites_values[1] - limites_values[0])
        self.triangulo = Polygon(np.zeros((n, 2)), closed=True, facecolor=mpl.colors.to_rgba(CORES["v"], 0.12),
                                 edgecolor=CORES["v"], lw=1, ls=":")
        ax_values.add_patch(self.triangulo)
        self.setas_v = [plots.seta(ax_values, CORES["v"], f"v{subscrito(i + 1)}") for i in range(n)]
        self.caminho, = ax_values.plot([], [], color=CORES["neutro"], ls="--", lw=1.5, marker="o", ms=4,
                                       label="w₁v₁ + w₂v₂ + w₃v₃" if n == 3 else "Σ wᵢvᵢ")
        self.seta_saida = plots.seta(ax_values, CORES["saida"], "saída")
        self.titulo_values = ax_values.set_title("", y=1.02)

        x = np.arange(n)
        self.ax_pesos = ax_pesos
        self.barras = ax_pesos.bar(x, np.zeros(n), width=0.6, color=CORES["k"], alpha=0.85)
        self.uniforme = ax_pesos.axhline(1 / n, color=CORES["neutro"], ls="--", lw=1.2)  # a média simples
        ax_pesos.set_xlim(-0.6, n - 0.4)
        ax_pesos.set_ylim(0, 1.05)
        ax_pesos.set_xticks(x, [f"k{subscrito(i + 1)}/v{subscrito(i + 1)}" for i in range(n)])
        ax_pesos.set_yticks([0, 1 / n, 1], ["0", f"1/{n}", "1"])
        ax_pesos.grid(axis="x", visible=False)
        ax_pesos.set_title("pesos wᵢ (somam 1)", y=1.02)
        self.textos_peso = [ax_pesos.text(i, 0, "", ha="center", va="bottom", fontweight="bold") for i in range(n)]
        trans = ax_pesos.get_xaxis_transform()  # x em dados, y em fração do eixo
        self.textos_escore = [ax_pesos.text(i, -0.13, "", ha="center", va="top", transform=trans, clip_on=False,
                                            color=CORES["neutro"], fontsize=fonte) for i in range(n)]
        ax_pesos.text(-0.6, -0.13, "q·k/√d:", ha="right", va="top", transform=trans, clip_on=False,
                      color=CORES["neutro"], fontsize=fonte)

    @staticmethod
    def _mover(seta_rotulo, vetor: np.ndarray, pad: float, largura: float | None = None, lado: int = 0) -> None:
        """Leva a seta até ``vetor`` e o rótulo para logo além da ponta.

        ``lado=+1``/``-1`` desloca o rótulo para a esquerda/direita da seta: as keys vão para um lado
        e a query para o outro, e os rótulos não se cobrem quando q coincide com uma key.
        """
        seta, rotulo = seta_rotulo
        seta.xy = (float(vetor[0]), float(vetor[1]))
        _rotular_ponta(rotulo, vetor, pad, lado)
        if largura is not None:
            seta.arrow_patch.set_linewidth(largura)

    def atualizar(self, q: ArrayLike, K: ArrayLike, V: ArrayLike, escalados: ArrayLike, pesos: ArrayLike,
                  saida: ArrayLike) -> None:
        q, K, V = (np.asarray(a, dtype=float) for a in (q, K, V))
        escalados, pesos, saida = (np.asarray(a, dtype=float) for a in (escalados, pesos, saida))
        self._mover(self.seta_q, q, self.pad_keys, lado=-1)
        for i in range(self.n):
            largura = 1.0 + 6.0 * float(pesos[i])
            self._mover(self.setas_k[i], K[i], self.pad_keys, largura, lado=1)
            self._mover(self.setas_v[i], V[i], self.pad_values, largura)
            self.barras[i].set_height(pesos[i])
            self.textos_peso[i].set_position((i, plots.altura_do_rotulo(self.ax_pesos, float(pesos[i]), 1 / self.n, 0.01,
                                                                  self.textos_peso[i].get_fontsize())))
            self.textos_peso[i].set_text(f"{pesos[i]:.3f}")
            self.textos_escore[i].set_text(f"{escalados[i]:.2f}")
        self.triangulo.set_xy(V)
        passos = np.vstack([np.zeros(2), np.cumsum(pesos[:, None] * V, axis=0)])
        self.caminho.set_data(passos[:, 0], passos[:, 1])
        self._mover(self.seta_saida, saida, self.pad_values)
        _desviar_rotulo(self.seta_saida[1], saida, self.pad_values, [rotulo for _, rotulo in self.setas_v])
        self.titulo_values.set_text(f"saída = ({saida[0]:.2f}, {saida[1]:.2f})")

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda (e a linha da média simples, por cima das barras): um painel
        redesenha só eles a cada movimento."""
        setas = [a for par in (self.seta_q, *self.setas_k, *self.setas_v, self.seta_saida) for a in par]
        return [*setas, self.triangulo, self.caminho, self.titulo_values, *self.barras, self.uniforme,
                *self.textos_peso, *self.textos_escore]

def figura_caminho_da_saida(K: ArrayLike, V: ArrayLike, comprimentos: Sequence[float] = (1.0, 3.0),
                            limites: tuple[float, float] = (-1.5, 11.5), ax: Axes | None = None,
                            mostrar_keys: bool = True) -> Figure:
    """Gira uma query de comprimento fixo por todas as direções e desenha por onde a saída passa.

    Uma curva por comprimento de ``q``; os values e o triângulo deles ao fundo. A conta vem de
    :func:`helpers.attention.scaled_dot_product_attention` (todas as direções de uma vez).
    Com ``mostrar_keys``, um quadro menor, à direita, desenha as keys que decidem os pesos (e o
    círculo das direções de ``q``). Com ``ax`` (por exemplo, de ``plt.subplots``) desenha nele; senão
    cria uma ``Figure`` própria. Devolve a ``Figure``.
    """
    from matplotlib.patches import Polygon
    from matplotlib.ticker import MultipleLocator


    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    if ax is None:
        fig, axes = plots.nova_figura(7.5, 5.0)
        fig.subplots_adjust(left=0.08, right=0.62, bottom=0.1, top=0.9)
        ax = axes[0, 0]
    ax.set_xlim(*limites)
    ax.set_ylim(*limites)
    ax.set_aspect("equal")
    ax.xaxis.set_major_locator(MultipleLocator(5))
    ax.yaxis.set_major_locator(MultipleLocator(5))
    ax.add_patch(Polygon(V, closed=True, facecolor=CORES["v"], alpha=0.12, edgecolor=CORES["v"],
                         label="triângulo dos values"))
    for i, v in enumerate(V):
        ax.annotate("", xy=tuple(v), xytext=(0, 0),
                    arrowprops=dict(arrowstyle="-|>", color=CORES["v"], lw=2.5, mutation_scale=20))
        rotulo = ax.text(0, 0, f"v{subscrito(i + 1)}", color=CORES["v"], fontweight="bold",
                         fontsize=mpl.rcParams["font.size"] + 3)
        _rotular_ponta(rotulo, v, 0.04 * (limites[1] - limites[0]))
    angulos = np.linspace(0, 2 * np.pi, 361)
    direcoes = np.stack([np.cos(angulos), np.sin(angulos)], axis=1)
    estilos = ["-", "--", ":", "-."]
    for j, comp in enumerate(comprimentos):
        saidas, _ = scaled_dot_product_attention(comp * direcoes, K, V)
        ax.plot(saidas[:, 0], saidas[:, 1], color=CORES["saida"], ls=estilos[j % 4], lw=2.5,
                label=f"saídas com |q| = {comp:g}")
    media = V.mean(axis=0)
    ax.plot(*media, "o", color=CORES["neutro"], ms=8, label="média simples\ndos values")
    ax.set_title("q gira 360°: por onde passa a saída")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    if mostrar_keys:
        _quadro_das_keys(ax.inset_axes((1.06, 0.0, 0.4, 0.4)), K)
    return ax.figure

def _quadro_das_keys(ax: Axes, K: np.ndarray) -> None:
    """As keys como setas a partir da origem e, pontilhado, o círculo das direções de q."""
    alcance = 1.35 * max(1.0, float(np.abs(K).max()))
    ax.set_xlim(-alcance, alcance)
    ax.set_ylim(-alcance, alcance)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    angulos = np.linspace(0, 2 * np.pi, 181)
    ax.plot(np.cos(angulos), np.sin(angulos), color=CORES["q"], ls=":", lw=1.5)
    for i, k in enumerate(K):
        ax.annotate("", xy=tuple(k), xytext=(0, 0),
                    arrowprops=dict(arrowstyle="-|>", color=CORES["k"], lw=2.0, mutation_scale=14))
        rotulo = ax.text(0, 0, f"k{subscrito(i + 1)}", color=CORES["k"], fontweight="bold")
        _rotular_ponta(rotulo, k, 0.08 * alcance)
    ax.set_title("as keys (e as direções de q)", fontsize=mpl.rcParams["font.size"] - 1)

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: os Exemplos 1 e 2 da trilha (q, keys e values do exemplo resolvido)
_Q05 = (1.0, 0.0)

_K05 = ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5))

_V05 = ((10.0, 0.0), (0.0, 10.0), (5.0, 5.0))


def _html_soma_ponderada(q: np.ndarray, K: np.ndarray, V: np.ndarray, escores: np.ndarray,
                         escalados: np.ndarray, pesos: np.ndarray, saida: np.ndarray) -> str:
    """A tabela passo a passo (escore → ÷√d → exp → peso → peso·value) e a saída."""
    d = K.shape[1]
    expo = np.exp(escalados)  # só para mostrar; os pesos vêm de helpers.attention
    cab = ["", "kᵢ", "q·kᵢ", f"÷√{d}", "e^(…)", "peso wᵢ", "vᵢ", "wᵢ·vᵢ"]
    estilo = "style='padding:0 0.7em;text-align:right'"
    linhas = ["<tr>" + "".join(f"<th {estilo}>{c}</th>" for c in cab) + "</tr>"]
    for i in range(len(K)):
        celulas = [f"<b>{i + 1}</b>", par(K[i]), f"{escores[i]:.3f}", f"{escalados[i]:.3f}", f"{expo[i]:.3f}",
                   f"<b>{pesos[i]:.4f}</b>", par(V[i]), par(pesos[i] * V[i])]
        linhas.append("<tr>" + "".join(f"<td {estilo}>{c}</td>" for c in celulas) + "</tr>")
    total = ["<b>soma</b>", "", "", "", f"{expo.sum():.3f}", f"{pesos.sum():.4f}", "",
             f"<b style='color:{plots.CORES['saida']}'>{par(saida)}</b>"]
    linhas.append("<tr style='border-top:1px solid #888'>" + "".join(f"<td {estilo}>{c}</td>" for c in total) + "</tr>")
    return (f"<div style='font-size:1.1em'>q = {par(q)} · d = {d} · √d ≈ {math.sqrt(d):.3f}"
            f"<table>{''.join(linhas)}</table>"
            f"saída = Σ wᵢ·vᵢ = <b>{par(saida)}</b>"
            "<div style='color:#555;font-size:0.9em'>Na figura: setas mais grossas = peso maior; no meio, a área "
            "verde (contorno pontilhado) é onde a saída pode cair e o tracejado cinza é o caminho "
            "w₁v₁ → + w₂v₂ → + w₃v₃ até ela; à direita, a linha tracejada marca 1/3 (a média simples).</div></div>")

def _painel_soma(q: Any, K: Any, V: Any, mover: str) -> Painel:

    q0 = np.asarray(q, dtype=float)
    K0 = np.asarray(K, dtype=float)
    V0 = np.asarray(V, dtype=float)
    if q0.shape != (2,) or K0.shape != (3, 2) or V0.shape != (3, 2):
        raise ValueError(f"o painel usa q (2,), K (3, 2) e V (3, 2); recebi q {q0.shape}, K {K0.shape} e V {V0.shape}.")
    fig, axes = plots.nova_figura(9.0, 3.6, ncols=3)
    fig.subplots_adjust(left=0.04, right=0.98, bottom=0.2, top=0.9, wspace=0.3)
    limites = (-2.0, 13.0) if mover == "keys" else (-13.0, 15.0)  # folga para os rótulos
    figura = FiguraSomaPonderada(*axes[0], limites_values=limites)
    controles: dict[str, W.ValueWidget] = {}
    if mover == "keys":
        controles["q_x"] = slider("q: x", q0[0], -2, 2, 0.1)
        controles["q_y"] = slider("q: y", q0[1], -2, 2, 0.1)
        for i in range(3):
            controles[f"k{i + 1}_x"] = slider(f"k{subscrito(i + 1)}: x", K0[i, 0], -2, 2, 0.1)
            controles[f"k{i + 1}_y"] = slider(f"k{subscrito(i + 1)}: y", K0[i, 1], -2, 2, 0.1)
    else:
        for i in range(3):
            controles[f"v{i + 1}_x"] = slider(f"v{subscrito(i + 1)}: x", V0[i, 0], -10, 10, 0.5)
            controles[f"v{i + 1}_y"] = slider(f"v{subscrito(i + 1)}: y", V0[i, 1], -10, 10, 0.5)

    def calcular(val: dict[str, Any]) -> dict[str, Any]:
        qv, Kv, Vv = q0.copy(), K0.copy(), V0.copy()
        if mover == "keys":
            qv = np.array([val["q_x"], val["q_y"]], dtype=float)
            Kv = np.array([[val[f"k{i}_x"], val[f"k{i}_y"]] for i in (1, 2, 3)], dtype=float)
        else:
            Vv = np.array([[val[f"v{i}_x"], val[f"v{i}_y"]] for i in (1, 2, 3)], dtype=float)
        saida, pesos = scaled_dot_product_attention(qv, Kv, Vv)
        escores = Kv @ qv
        escalados = escores / math.sqrt(Kv.shape[1])
        figura.atualizar(qv, Kv, Vv, escalados, pesos, saida)
        html = _html_soma_ponderada(qv, Kv, Vv, escores, escalados, pesos, saida)
        return {"q": qv, "K": Kv, "V": Vv, "escores": escores, "escalados": escalados, "pesos": pesos,
                "contribuicoes": pesos[:, None] * Vv, "saida": saida, "html": html}

    titulo = ("Mova q e as keys: os pesos mudam e a saída passeia entre os values" if mover == "keys"
              else "Mova os values: a saída muda, os pesos não")
    return Painel(fig, controles, calcular, titulo=titulo, animados=figura.animados())

def painel_soma_ponderada(q: Any = _Q05, keys: Any = _K05, values: Any = _V05) -> Painel:
    """A atenção de uma query contra três keys, com sliders para ``q`` e cada ``kᵢ`` (x e y).

    Padrão: o exemplo resolvido (q = (1, 0); k₁ = (1, 0), k₂ = (0, 1), k₃ = (0.5, 0.5);
    v₁ = (10, 0), v₂ = (0, 10), v₃ = (5, 5)). Os values ficam fixos. Mostra q e as keys, os values
    com a saída, as barras dos pesos e a tabela passo a passo.
    Estado: ``q`` (2,), ``K`` (3, 2), ``V`` (3, 2), ``escores`` (q·kᵢ), ``escalados`` (÷√d),
    ``pesos`` (3,), ``contribuicoes`` (3, 2) = wᵢ·vᵢ, ``saida`` (2,).
    """
    return _painel_soma(q, keys, values, "keys")

def painel_soma_ponderada_values(q: Any = _Q05, keys: Any = _K05, values: Any = _V05) -> Painel:
    """O mesmo exemplo, mas com sliders para os **values** (q e as keys ficam fixos).

    Mostra que as keys decidem onde olhar (os pesos não mudam quando um value muda) e os values
    decidem o que é recuperado (a saída muda). Estado igual ao de :func:`painel_soma_ponderada`.
    """
    return _painel_soma(q, keys, values, "values")

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------


def _atencao_com(trocar: Callable[[np.ndarray], np.ndarray], q: np.ndarray, K: np.ndarray, V: np.ndarray,
                 escala: float | None = None, eixo: int = -1) -> np.ndarray:
    """``trocar(escores escalados) @ V``: a atenção com uma softmax (ou um erro) no meio."""
    d = q.shape[-1]
    z = q @ K.T * (1 / math.sqrt(d) if escala is None else escala)
    return (trocar(z) if eixo == -1 else softmax(z, axis=eixo)) @ V


def _softmax_estavel(z: np.ndarray) -> np.ndarray:
    return softmax(z, axis=-1)


def _sem_dividir_pela_soma(z: np.ndarray) -> np.ndarray:
    return np.exp(z - z.max(axis=-1, keepdims=True))


def _explica_forma_atencao(q: np.ndarray, K: np.ndarray, V: np.ndarray) -> str:
    """O que dizer quando a atenção do estudante nem roda com estas formas: as formas de cada passo, o eixo das keys
    e o keepdims (o erro pode estar num produto de matrizes, numa redução sem keepdims ou num axis=1 num vetor: o
    texto separa os casos pela mensagem do numpy, que o estudante acabou de ler)."""
    lote = tuple(q.shape[:-1])
    texto = (f"Aqui q tem forma {q.shape}, K {K.shape} e V {V.shape}. Os escores q·Kᵀ têm forma "
             f"{(*lote, K.shape[0])} — um por key — e a saída, os pesos vezes V, forma "
             f"{(*lote, V.shape[-1])}. Se o numpy reclamou de matmul (ou de shapes not aligned), o problema está "
             "num produto de matrizes (@, np.dot, np.matmul): confira a ordem dos fatores e o K transposto. Se "
             "reclamou de broadcast, está numa conta elemento a elemento (−, /) entre formas que não se alinham. ")
    if q.ndim == 1:
        return texto + ("Com uma query só os escores são um vetor, de um eixo só: nas reduções da softmax use axis=-1 "
                        "(axis=1 não existe num vetor).")
    return texto + (f"Na softmax, o máximo e a soma de cada linha precisam de keepdims=True (forma {(*lote, 1)}) para "
                    "se alinhar com as linhas; e o eixo das keys é o último, axis=-1.")


def _saida_de(y: Any, forma: tuple) -> np.ndarray:
    return np.asarray(leitura_para(SaidaOuPar().normalizar(y), forma), dtype=float)


def _sem_keepdims_na_atencao(y: Any, certo: Any, caso: Caso) -> bool:
    """A saída é ``w @ V`` com ``w`` uma softmax escrita sem keepdims (veja :func:`~helpers.estabilidade.sem_keepdims`;
    só roda calada quando os escores são uma matriz quadrada)."""
    q, K, V = (np.asarray(caso.entradas[k], dtype=float) for k in ("q", "K", "V"))
    forma = np.shape(certo.primeira if hasattr(certo, "primeira") else certo)
    v = _saida_de(y, forma)
    return any(v.shape == (w @ V).shape and bool(np.allclose(v, w @ V, rtol=1e-6, atol=1e-9))
               for w in sem_keepdims(q @ K.T / math.sqrt(q.shape[-1])))


def _divisores_errados(q: np.ndarray, K: np.ndarray) -> list[float]:
    """Divisores que aparecem no lugar de √d: o √2 e o 2 do exemplo (fixos), a raiz do número de keys e a de K.size."""
    d = q.shape[-1]
    return [c for c in (math.sqrt(2), 2.0, math.sqrt(K.shape[0]), math.sqrt(K.size), float(K.shape[0]))
            if not math.isclose(c, math.sqrt(d)) and not math.isclose(c, d) and c != 1.0]


def _outro_divisor(y: Any, certo: Any, caso: Caso) -> bool:
    q, K, V = (np.asarray(caso.entradas[k], dtype=float) for k in ("q", "K", "V"))
    forma = np.shape(certo.primeira if hasattr(certo, "primeira") else certo)
    v = _saida_de(y, forma)
    for c in _divisores_errados(q, K):
        errada = _atencao_com(_softmax_estavel, q, K, V, escala=1 / c)
        if v.shape == errada.shape and np.allclose(v, errada, rtol=1e-6, atol=1e-9):
            return True
    return False


def _par_trocado(y: Any, _certo: Any, caso: Caso) -> bool:
    """``(pesos, saída)`` no lugar de ``(saída, pesos)``."""
    if not isinstance(y, (tuple, list)) or len(y) != 2:
        return False
    q, K, V = (np.asarray(caso.entradas[k], dtype=float) for k in ("q", "K", "V"))
    pesos = softmax(q @ K.T / math.sqrt(q.shape[-1]), axis=-1)
    try:
        a, b = (np.asarray(p, dtype=float) for p in y)
    except (TypeError, ValueError):
        return False
    return (a.shape == pesos.shape and b.shape == (pesos @ V).shape and bool(np.allclose(a, pesos, atol=1e-6))
            and bool(np.allclose(b, pesos @ V, atol=1e-6)) and a.shape != b.shape)


def _formas_da_mensagem(exc: BaseException) -> list[tuple[int, ...]]:
    """As formas que o numpy cita numa mensagem de broadcasting ("… with shapes (3,) (3,2)")."""
    return [tuple(int(n) for n in grupo.replace(" ", "").split(",") if n)
            for grupo in re.findall(r"\(([\d,\s]*)\)", str(exc))]


def _pesos_vezes_v_quebrou(exc: BaseException, caso: Caso) -> bool:
    """O numpy recusou um produto elemento a elemento entre os pesos ``(…, n_k)`` e V ``(n_k, d_v)`` (``pesos * V``)."""
    q, K, V = (np.asarray(caso.entradas[k]) for k in ("q", "K", "V"))
    pesos = (*q.shape[:-1], K.shape[0])
    formas = _formas_da_mensagem(exc)
    return ("broadcast" in str(exc) and len(formas) >= 2 and {formas[0], formas[1]} == {pesos, V.shape}
            and pesos != V.shape)


def _pesos_da_atencao(q: np.ndarray, K: np.ndarray, eixo: int = -1) -> np.ndarray:
    return softmax(q @ K.T / math.sqrt(q.shape[-1]), axis=eixo)


def _trio(y: Any, _certo: Any, caso: Caso) -> bool:
    """Três coisas devolvidas, a primeira a saída certa: ``(saída, pesos, escores)`` e afins."""
    if not isinstance(y, (tuple, list)) or len(y) != 3:
        return False
    q, K, V = (np.asarray(caso.entradas[k], dtype=float) for k in ("q", "K", "V"))
    saida = _pesos_da_atencao(q, K) @ V
    try:
        primeira = np.asarray(y[0], dtype=float)
    except (TypeError, ValueError):
        return False
    return primeira.shape == saida.shape and bool(np.allclose(primeira, saida, rtol=1e-6, atol=1e-9))


def erros_da_atencao() -> list[Erro]:
    """Os erros clássicos da atenção por produto escalar escalado, sem máscara (a do 07 tem os seus)."""
    return [
        *erros_de_estabilidade(lambda trocar, q, K, V: _atencao_com(trocar, q, K, V)),
        Erro("sem escala",
             "Você esqueceu de escalar: os escores q·k devem ser divididos por √d antes da softmax.",
             resposta=lambda q, K, V: _atencao_com(_softmax_estavel, q, K, V, escala=1.0)),
        Erro("÷d em vez de ÷√d",
             lambda q, **_: f"Você dividiu por d = {q.shape[-1]} em vez de √d = √{q.shape[-1]} ≈ "
                            f"{decimal(math.sqrt(q.shape[-1]), 2)}: a escala é 1/√d.",
             resposta=lambda q, K, V: _atencao_com(_softmax_estavel, q, K, V, escala=1 / q.shape[-1])),
        Erro("×√d em vez de ÷√d", "Você multiplicou por √d em vez de dividir.",
             resposta=lambda q, K, V: _atencao_com(_softmax_estavel, q, K, V, escala=math.sqrt(q.shape[-1]))),
        Erro("outro divisor no lugar de √d",
             lambda q, **_: f"Você dividiu os escores por outro número, não por √d = √{q.shape[-1]} ≈ "
                            f"{decimal(math.sqrt(q.shape[-1]), 2)}. Um número fixo (como o √2 do exemplo, que só vale "
                            "com d = 2) não acompanha a dimensão, e nem o número de keys nem K.size são o d. O d é o "
                            "tamanho de cada vetor, lido da entrada: q.shape[-1] ou K.shape[1].",
             quando=_outro_divisor),
        Erro("soma das keys",
             "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values** (V).",
             resposta=lambda q, K, V: _atencao_com(_softmax_estavel, q, K, K)),
        Erro("sem softmax",
             "Faltou a softmax: os escores escalados precisam virar pesos positivos que somam 1.",
             resposta=lambda q, K, V: _atencao_com(lambda z: z, q, K, V)),
        Erro("pesos sem dividir pela soma",
             "Você exponenciou os escores (e subtraiu o máximo), mas não dividiu pela soma: os \"pesos\" não somam 1, "
             "e a saída sai do lugar — deixa de ser uma média dos values. Divida cada e^(…) pela soma da sua linha.",
             resposta=lambda q, K, V: _atencao_com(_sem_dividir_pela_soma, q, K, V)),
        Erro("sem keepdims", EXPLICA_KEEPDIMS, quando=_sem_keepdims_na_atencao),
        Erro("softmax no eixo errado",
             "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha de q Kᵀ) devem somar 1, então "
             "a softmax age sobre o último eixo (as keys), não sobre as queries.",
             resposta=lambda q, K, V: _atencao_com(_softmax_estavel, q, K, V, eixo=0)
             if q.ndim == 2 and q.shape[0] > 1 else None),
        Erro("q @ K sem transpor",
             "Você multiplicou q @ K sem transpor K. Os escores são q @ Kᵀ: cada query com cada key.",
             resposta=lambda q, K, V: softmax(q @ K / math.sqrt(q.shape[-1])) @ V
             if K.shape[0] == q.shape[-1] else None),
        Erro("par na ordem trocada",
             "Você devolveu (pesos, saída): o par é (saída, pesos), com a saída primeiro.",
             quando=_par_trocado),
        Erro("devolveu os pesos, não a saída",
             "Você devolveu os **pesos** (a softmax dos escores), mas a atenção devolve a **saída**: a soma dos values "
             "ponderada por esses pesos, pesos @ V. (Para devolver os dois, o par é (saída, pesos).)",
             resposta=lambda q, K, V: _atencao_com(_softmax_estavel, q, K, np.eye(K.shape[0]))),
        Erro("parcelas sem a soma",
             "Você multiplicou cada value pelo seu peso, mas não somou as parcelas: veio uma linha wᵢvᵢ por key. A "
             "saída é a **soma** delas, Σ wᵢvᵢ — pesos @ V faz o produto e a soma de uma vez.",
             resposta=lambda q, K, V: softmax(q @ K.T / math.sqrt(q.shape[-1]))[..., :, None] * V),
        Erro("pesos * V (elemento a elemento, sem a soma)",
             lambda q, K, V: f"Você multiplicou os pesos por V elemento a elemento (pesos * V). Os pesos têm forma "
                             f"{(*q.shape[:-1], K.shape[0])} — um por key — e V tem forma {V.shape} — um value por "
                             "linha —: o * alinha os eixos pela direita, o das keys com as **colunas** de V, e ou não "
                             "roda ou multiplica as coisas erradas. Cada peso wᵢ multiplica a **linha** vᵢ inteira, e "
                             "as parcelas são somadas: pesos @ V faz as duas coisas de uma vez.",
             quando=bate_com_alguma(SaidaOuPar(), lambda q, K, V: _pesos_da_atencao(q, K) * V.T),
             levanta=_pesos_vezes_v_quebrou),
        Erro("saída transposta",
             "A saída está certa, mas transposta: veio uma **coluna** por query. Cada query é uma linha da saída, "
             "pesos @ V, de forma (n_q, d_v) — não transponha no fim (nem troque para V.T @ pesos.T).",
             resposta=lambda q, K, V: (_pesos_da_atencao(q, K) @ V).T if q.ndim == 2 else None),
        Erro("saída transposta e softmax no eixo errado",
             "Dois erros que se somam: a softmax foi feita no eixo das queries (na sua conta, cada **coluna** dos "
             "pesos soma 1) e a saída veio transposta (uma coluna por query). Os pesos de cada query — uma linha de "
             "q Kᵀ — é que somam 1: softmax no último eixo, axis=-1. E a saída é pesos @ V, uma linha por query, sem "
             "transpor.",
             resposta=lambda q, K, V: (_pesos_da_atencao(q, K, eixo=0) @ V).T
             if q.ndim == 2 and q.shape[0] > 1 else None),
        Erro("devolveu três coisas",
             "A primeira coisa que você devolveu é a saída certa, mas veio um trio. A função devolve só a saída, ou o "
             "par (saída, pesos): tire do return o que sobrou (os escores? a soma dos pesos?).",
             quando=_trio),
        Erro("axis=1 num vetor",
             "Você usou axis=1 na softmax, como numa matriz — mas com uma query só os escores são um vetor, de um "
             "eixo só (axis=0), e o numpy reclama que o eixo 1 não existe. Use axis=-1, o último eixo: é o das keys "
             "num vetor, numa matriz de queries ou com mais eixos.",
             levanta=lambda exc, caso: "axis 1 is out of bounds for array of dimension 1" in str(exc)),
    ]


def _casos_atencao(varias_queries: bool) -> list[Caso]:
    rng = np.random.default_rng(7)
    q, K, V = np.array([1.0, 0.0]), np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    casos = [
        Caso("no exemplo resolvido (q (2,), K (3, 2), V (3, 2))", {"q": q, "K": K, "V": V}),
        Caso("com uma query de d = 4 (q (4,), K (3, 4), V (3, 2))",
             {"q": rng.normal(size=4), "K": rng.normal(size=(3, 4)) * 2.0, "V": rng.normal(size=(3, 2))}),
        Caso("com K quadrada (q (3,), K (3, 3): três keys de d = 3)",
             {"q": np.array([1.0, -1.0, 2.0]), "K": np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [2.0, 1.0, 0.0]]),
              "V": np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])}),
        Caso("com escores enormes (a query do exemplo multiplicada por 2000)", {"q": 2000 * q, "K": K, "V": V}),
        Caso("com escores muito negativos (q = (−1414, −1430): escores ≈ (−1000, −1011, −1006))",
             {"q": np.array([-1414.0, -1430.0]), "K": K, "V": V}),
        Caso("com uma linha muito espalhada (a query do exemplo multiplicada por −2000: escores de −1414 a 0)",
             {"q": -2000 * q, "K": K, "V": V}),
        Caso("com tudo em float32 e escores perto de 200 (q = (20, 0, 0, 0))",
             {"q": np.array([20.0, 0, 0, 0], dtype=np.float32),
              "K": np.array([[20.0, 0, 0, 0], [0, 20.0, 0, 0], [10.0, 10.0, 0, 0]], dtype=np.float32),
              "V": np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], dtype=np.float32)}),
    ]
    if varias_queries:
        casos.append(Caso("com duas queries (q (2, 4), K (3, 4), V (3, 2))",
                          {"q": rng.normal(size=(2, 4)), "K": rng.normal(size=(3, 4)) * 2.0, "V": rng.normal(size=(3, 2))}))
        casos.append(Caso("com duas queries cujos escores diferem em milhares (a segunda query × 3000)",
                          {"q": np.array([[1.0, 0, 0, 0], [0, 3000.0, 0, 0]]), "K": rng.normal(size=(3, 4)),
                           "V": rng.normal(size=(3, 2))}))
        casos.append(Caso("com três queries e três keys (q (3, 4), K (3, 4), V (3, 2): escores numa matriz quadrada)",
                          {"q": rng.normal(size=(3, 4)), "K": rng.normal(size=(3, 4)) * 2.0, "V": rng.normal(size=(3, 2))}))
    return casos


#: os nomes da atenção pronta da biblioteca (o exercício é escrevê-la)
NOMES_DA_ATENCAO_PRONTA = {"scaled_dot_product_attention", "multi_head_attention"}


def exercicio_atencao(varias_queries: bool = False) -> Exercicio:
    """O exercício "atenção por produto escalar escalado" (uma query, ou várias de uma vez)."""
    partes = ["Escores q·Kᵀ, escala 1/√d, softmax estável sobre as keys (aguenta escores de ±1000 e float32) e soma "
              "ponderada dos values, escrita por você."]
    if varias_queries:
        partes.append("Funciona para várias queries de uma vez (q de forma (n_q, d)), cada linha com a sua softmax.")

    def certo(q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
        return scaled_dot_product_attention(q.astype(float), K.astype(float), V.astype(float))[0]

    return Exercicio(
        nome="atenção por produto escalar escalado",
        casos=lambda: _casos_atencao(varias_queries),
        certo=certo,
        formato=SaidaOuPar(),
        acerto="Correto! " + " ".join(partes),
        erros=erros_da_atencao(),
        explica_forma=_explica_forma_atencao,
        dica_de_forma="A saída tem uma linha por query, com d_v colunas: os pesos (n_q, n_k) multiplicam V (n_k, d_v).",
        regras=[
            Regra("usou a atenção pronta",
                  "o exercício é **escrever** a atenção — escores, escala, softmax e soma ponderada —, e não chamar a "
                  "pronta (attention.scaled_dot_product_attention). Troque a chamada pelos quatro passos.",
                  lambda fn: usa_nomes(fn, NOMES_DA_ATENCAO_PRONTA)),
        ],
    )


#: a versão mais completa do exercício (várias queries): a que o guia do instrutor descreve
ATENCAO = exercicio_atencao(varias_queries=True)

#: o exercício 1 do notebook: uma query só
ATENCAO_UMA_QUERY = exercicio_atencao(varias_queries=False)


@corretor_de(ATENCAO)
def check_attention(fn: Callable[..., Any], *, varias_queries: bool = False) -> bool:
    """Confere uma atenção por produto escalar escalado ``fn(q, K, V)``, escrita pelo estudante: a query ``q``
    ``(d,)`` — ou, com ``varias_queries=True``, também uma matriz de queries ``(n_q, d)`` —, as keys ``K`` ``(n_k, d)``
    e os values ``V`` ``(n_k, d_v)``. A resposta é a saída, ``(d_v,)`` ou ``(n_q, d_v)``, sozinha ou no par
    ``(saída, pesos)``.

    Sem ``varias_queries=True``, só os casos de uma query 1-D (:data:`ATENCAO_UMA_QUERY`); os erros são os mesmos.
    (A atenção com máscara tem o seu corretor no notebook 07.)
    """
    return conferir(ATENCAO if varias_queries else ATENCAO_UMA_QUERY, fn)


# --- prever, depois conferir -----------------------------------------------------------------------

#: os pesos do Exemplo 1, arredondados como no exemplo
PESOS_EXEMPLO = (0.455, 0.225, 0.320)

PREVISAO_V3 = Previsao(
    nome="trocar v₃ por (5, −5)",
    certo=lambda: round(PESOS_EXEMPLO[1] * 10.0 + PESOS_EXEMPLO[2] * -5.0, 2),
    revelar="Os pesos **não mudam**: eles dependem só de q e das keys, e v₃ não é uma key. Só a parcela de v₃ muda, "
            "de 0,320·(5, 5) = (1.60, 1.60) para 0,320·(5, −5) = (1.60, −1.60); a segunda coordenada da saída vai de "
            "2,25 + 1,60 = 3,85 para 2,25 − 1,60 = 0,65. A saída inteira: (6.15, 0.65) (com os pesos exatos, "
            "(6.1546, 0.6467)).",
    formato=NumeroAproximado(2),
    erros=[
        Erro("a saída não muda",
             "3,85 é a saída de antes. Os **pesos** não mudam (dependem só de q e das keys), mas a saída é a soma "
             "ponderada dos **values**: mudar um value muda a saída, na proporção do peso dele.",
             resposta=lambda: 3.85),
        Erro("jogou fora a parcela de v₃",
             "2,25 é só a parcela de v₂. v₃ continua com peso 0,320, e a parcela dele na segunda coordenada agora é "
             "0,320·(−5) = −1,60: some as duas.",
             resposta=lambda: 2.25),
        Erro("só a parcela de v₃",
             "−1,60 é só a parcela de v₃. A saída soma as três parcelas: 0,455·0 + 0,225·10 + 0,320·(−5).",
             resposta=lambda: -1.60),
        Erro("trocou o sinal da saída inteira",
             "Só a segunda coordenada de v₃ trocou de sinal; as parcelas de v₁ e v₂ continuam as mesmas. A segunda "
             "coordenada da saída é 2,25 − 1,60, não −3,85.",
             resposta=lambda: -3.85),
        Erro("respondeu a primeira coordenada",
             "6,15 é a **primeira** coordenada (que não muda: a primeira coordenada de v₃ continua 5). A pergunta é "
             "a segunda.",
             resposta=lambda: 6.15),
    ],
    exemplo="1,5",
    # a resposta com os pesos arredondados e com os exatos, e a conta que leva a ela
    pistas=("0,65", "0.65", "0,647", "0.647", "0,6467", "0.6467", "2,25 − 1,60", "2.25 − 1.60", "2,25 - 1,60",
            "2.25 - 1.60"),
)


@corretor_de(PREVISAO_V3)
def prever_v3() -> CaixaDePrevisao:
    """A caixa da previsão da segunda coordenada da saída do Exemplo 2 com ``v₃ = (5, −5)`` (a resposta: 0,65, com
    os pesos arredondados do Exemplo 1; os pesos não mudam).
    """
    return caixa(PREVISAO_V3)
