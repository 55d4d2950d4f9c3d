"""Notebook ``projecoes_qkv``: as figuras — o mapa de calor de uma matriz de pesos (:func:`desenhar_pesos`) e
a figura do exemplo "banco" (:class:`FiguraBanco`: os pesos das duas frases e a saída de "banco" no plano
dos dois sentidos), que serve ao painel (:mod:`.paineis`) e à figura estática (:func:`figura_banco`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ... import plots
from ...plots import CORES, MAPA

__all__ = ["FiguraBanco", "desenhar_pesos", "eixos_banco", "figura_banco"]

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


def _mapa_atual() -> str:
    """``cividis`` no modo de apresentação, ``viridis`` (:data:`MAPA`) no resto."""
    return "cividis" if mpl.rcParams["image.cmap"] == "cividis" else MAPA

def _cor_do_texto(peso: float) -> str:
    """Texto legível sobre a célula: branco nas cores escuras (pesos baixos), preto nas claras."""
    return "black" if peso > 0.55 else "white"

def desenhar_pesos(ax: Axes, pesos: ArrayLike, rotulos: Sequence[str], rotulos_colunas: Sequence[str] | None = None,
                   *, titulo: str = "pesos de atenção", anotar: bool = True) -> None:
    """Mapa de calor de uma matriz de pesos ``(n_q, n_k)``: linha ``i`` = quanto a query ``i`` olha
    para cada key. Escala de cor fixa de 0 a 1 (cores iguais = pesos iguais em figuras diferentes), em
    raiz quadrada (``PowerNorm(0.5)``) para separar bem os pesos pequenos; com ``anotar`` o peso vai
    escrito em cada célula. Uso: ``fig, ax = plt.subplots()``, esta função, ``plt.show()``.
    """
    from matplotlib.colors import PowerNorm

    w = np.asarray(pesos, dtype=float)
    colunas = list(rotulos if rotulos_colunas is None else rotulos_colunas)
    if w.ndim != 2 or w.shape != (len(rotulos), len(colunas)):
        raise ValueError(f"os pesos têm forma {w.shape}, mas há {len(rotulos)} rótulos de linha e "
                         f"{len(colunas)} de coluna.")
    ax.imshow(w, cmap=_mapa_atual(), norm=PowerNorm(0.5, 0.0, 1.0))
    ax.set_xticks(np.arange(w.shape[1]), colunas, rotation=40, ha="right", rotation_mode="anchor")
    ax.set_yticks(np.arange(w.shape[0]), list(rotulos))
    ax.set_xlabel("key de … (para quem se olha)")
    ax.set_ylabel("query de … (quem olha)")
    ax.tick_params(length=0)
    ax.grid(False)
    ax.set_title(titulo)
    if anotar:
        for i in range(w.shape[0]):
            for j in range(w.shape[1]):
                ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center",
                        color=_cor_do_texto(math.sqrt(max(float(w[i, j]), 0.0))))

class FiguraBanco:
    """O exemplo "banco" do notebook 06: duas frases, as mesmas matrizes ``W_q``, ``W_k``, ``W_v``.

    1. ``ax_frase1`` e ``ax_frase2``: os mapas de calor dos pesos de atenção de cada frase (linha =
       quem olha, coluna = para quem), a linha de "banco" contornada e com os pesos escritos (as outras
       linhas só em cores: a lição lê a linha de "banco"), e uma barra de cores à direita do segundo mapa;
    2. ``ax_sentidos``: o plano dos dois sentidos (coordenadas "finanças" e "lugar" (assento) dos
       values) com a saída de "banco" em cada frase e, tracejado, o value de "banco" sozinho. É a
       projeção nas duas primeiras coordenadas: a terceira (gramática) não aparece, e o ângulo no
       plano não é o do cosseno calculado com as três.

    As cores dos mapas vão de 0 a 1 em escala de raiz quadrada (``PowerNorm(0.5)``), para que pesos
    pequenos como 0.07 e 0.4 não fiquem os dois quase pretos; os números de "banco" estão escritos.
    ``atualizar(pesos1, pesos2, saida1, saida2)`` recebe os números já calculados (por
    :func:`helpers.attention.scaled_dot_product_attention`); aqui só se desenha, e nada é recriado.
    As saídas entram com as duas primeiras coordenadas (finanças, lugar).
    """

    COR_FRASE1 = CORES["destaque"]
    COR_FRASE2 = CORES["extra"]

    def __init__(self, ax_frase1: Axes, ax_frase2: Axes, ax_sentidos: Axes, tokens1: Sequence[str],
                 tokens2: Sequence[str], proprio: ArrayLike = (0.5, 0.5), palavra: str = "banco"):
        from matplotlib.colors import PowerNorm
        from matplotlib.patches import Rectangle

        self.tokens = (list(tokens1), list(tokens2))
        self.linha = tuple(t.index(palavra) for t in self.tokens)
        self.imagens, self.textos = [], []
        fonte = mpl.rcParams["font.size"]
        for n_frase, (ax, toks, i, cor) in enumerate(zip((ax_frase1, ax_frase2), self.tokens, self.linha,
                                                         (self.COR_FRASE1, self.COR_FRASE2)), 1):
            n = len(toks)
            self.imagens.append(ax.imshow(np.zeros((n, n)), cmap=_mapa_atual(), norm=PowerNorm(0.5, 0.0, 1.0)))
            # os nomes dos tokens como textos simples, sem o mecanismo de ticks: o painel redesenha mais rápido
            ax.set_xticks([])
            ax.set_yticks([])
            for j, t in enumerate(toks):
                ax.text(j, n - 0.35, t, rotation=40, ha="right", va="top", rotation_mode="anchor", clip_on=False)
                ax.text(-0.65, j, t, ha="right", va="center", clip_on=False)
            ax.grid(False)
            ax.add_patch(Rectangle((-0.5, i - 0.5), n, 1, fill=False, edgecolor=cor, lw=3, clip_on=False))
            ax.set_title(f"frase {n_frase}: pesos", y=1.02)
            self.textos.append([ax.text(j, i, "", ha="center", va="center", fontsize=fonte) for j in range(n)])
        # a barra de cores, colada à direita do segundo mapa (as duas frases usam a mesma escala)
        fig = ax_frase2.figure
        caixa = ax_frase2.get_position()
        barra = fig.add_axes((caixa.x1 + 0.012, caixa.y0, 0.012, caixa.height))
        fig.colorbar(self.imagens[1], cax=barra, ticks=[0, 0.1, 0.25, 0.5, 1])
        barra.set_yticklabels(["0", "0.1", "0.25", "0.5", "1"])

        ax = ax_sentidos
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, 1.05)
        ax.set_aspect("equal")
        ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
        ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"])
        ax.set_xlabel("finanças")
        ax.set_ylabel("lugar", labelpad=2)  # curto: "assento/lugar" encostava no mapa do meio
        ax.plot([0, 1], [0, 1], color=CORES["neutro"], ls=":", lw=1.2)  # onde os dois sentidos empatam
        estilo = dict(arrowstyle="-|>", lw=mpl.rcParams["lines.linewidth"] + 0.5, mutation_scale=18)
        p = np.asarray(proprio, dtype=float)
        ax.annotate("", xy=(float(p[0]), float(p[1])), xytext=(0, 0),
                    arrowprops=dict(color=CORES["neutro"], ls="--", **estilo))
        # à direita e um pouco abaixo da ponta: longe da diagonal pontilhada
        ax.text(float(p[0]) + 0.06, float(p[1]) - 0.04, "sozinho", color=CORES["neutro"], fontsize=fonte,
                ha="left", va="top")
        self.setas = []
        for n_frase, cor in ((1, self.COR_FRASE1), (2, self.COR_FRASE2)):
            seta = ax.annotate("", xy=(0.5, 0.5), xytext=(0, 0), arrowprops=dict(color=cor, **estilo))
            texto = ax.text(0, 0, f"frase {n_frase}", color=cor, fontsize=fonte, fontweight="bold")
            self.setas.append((seta, texto))
        ax.set_title(f"saída de '{palavra}'", y=1.02)
        ax.text(0.5, -0.42, "só finanças e lugar: a 3ª\ncoordenada (gramática)\nfica de fora do plano",
                transform=ax.transAxes, ha="center", va="top", fontsize=fonte - 1, color=CORES["neutro"])

    def atualizar(self, pesos1: ArrayLike, pesos2: ArrayLike, saida1: ArrayLike, saida2: ArrayLike) -> None:
        for imagem, textos, i, pesos in zip(self.imagens, self.textos, self.linha, (pesos1, pesos2)):
            w = np.asarray(pesos, dtype=float)
            imagem.set_data(w)
            for j, texto in enumerate(textos):
                texto.set_text(f"{w[i, j]:.2f}")
                texto.set_color(_cor_do_texto(math.sqrt(max(float(w[i, j]), 0.0))))
        for (seta, texto), saida in zip(self.setas, (saida1, saida2)):
            s = np.asarray(saida, dtype=float)[:2]
            seta.xy = (float(s[0]), float(s[1]))
            # o rótulo vai logo acima da ponta (longe da seta tracejada); perto do topo, à direita da ponta
            if s[1] <= s[0] or s[1] < 0.8:
                texto.set_position((min(max(float(s[0]), 0.2), 0.7), float(s[1]) + 0.1))
                texto.set_horizontalalignment("center")
                texto.set_verticalalignment("bottom")
            else:
                texto.set_position((float(s[0]) + 0.08, min(float(s[1]), 0.95)))
                texto.set_horizontalalignment("left")
                texto.set_verticalalignment("center")

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda: um painel redesenha só eles a cada movimento."""
        textos = [t for textos in self.textos for t in textos]
        return [*self.imagens, *textos, *(a for par in self.setas for a in par)]

def eixos_banco(pyplot: bool) -> tuple[Figure, list[Axes]]:
    """A figura 9.8 × 4.2 do exemplo "banco": dois mapas de calor (com a barra de cores) e o plano dos sentidos."""
    fig, axes = plots.nova_figura(9.8, 4.2, ncols=3, pyplot=pyplot)
    largura, altura = fig.get_size_inches()
    # [esquerda, baixo, largura, altura] em polegadas: os mapas são quadrados, o plano é menor
    caixas = [(0.85, 1.0, 2.5, 2.75), (4.0, 1.0, 2.5, 2.75), (7.9, 1.45, 1.75, 1.9)]
    for ax, (x, y, w, h) in zip(axes[0], caixas):
        ax.set_position([x / largura, y / altura, w / largura, h / altura])
    return fig, list(axes[0])

def figura_banco(tokens1: Sequence[str], tokens2: Sequence[str], pesos1: ArrayLike, pesos2: ArrayLike,
                 saida1: ArrayLike, saida2: ArrayLike, proprio: ArrayLike = (0.5, 0.5)) -> Figure:
    """Figura estática de :class:`FiguraBanco` (devolve a ``Figure`` do pyplot)."""
    fig, axes = eixos_banco(pyplot=True)
    FiguraBanco(*axes, tokens1, tokens2, proprio).atualizar(pesos1, pesos2, saida1, saida2)
    return fig
