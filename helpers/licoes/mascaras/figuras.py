"""Notebook ``mascaras_e_atencao_cruzada``: as figuras — o mapa de pesos com os tokens nos eixos, as
células mascaradas em cinza (×) e a soma de cada linha (:class:`MapaDePesos`, :func:`figura_pesos`), e a
figura do painel das máscaras (:class:`FiguraMascaras`: o mapa e a saída de uma query, com e sem máscara).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.transforms import offset_copy
from numpy.typing import ArrayLike

from ... import plots
from ...plots import CORES, MAPA

__all__ = ["COR_MASCARADA", "FiguraMascaras", "MapaDePesos", "figura_pesos"]

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


#: cor das células mascaradas (proibidas) nos mapas de pesos
COR_MASCARADA = "#d9d9d9"

class MapaDePesos:
    """Mapa de calor de uma matriz de pesos ``(n_q, n_k)`` com os tokens nos eixos.

    Linhas = queries (quem olha), colunas = keys (para quem se olha). Cada célula traz o peso
    escrito; as células mascaradas (``permitido[i, j] == False``) ficam cinza-claro com um ``×``.
    Com ``somas=True`` a soma de cada linha aparece à direita da matriz. A escala de cor é fixa em
    ``[0, 1]``, para que cores iguais signifiquem pesos iguais em figuras diferentes. Com ``numeros=False``
    as células ficam sem o peso escrito (o painel do notebook 07 mostra os números numa tabela HTML).
    ``atualizar`` só muda os dados dos artistas (o painel usa isso).
    """

    def __init__(self, ax: Axes, n_q: int, n_k: int, *, somas: bool = True, numeros: bool = True, casas: int = 2):
        self.ax, self.n_q, self.n_k, self.casas = ax, n_q, n_k, casas
        self._tokens_q: list[str] | None = None
        self._tokens_k: list[str] | None = None
        self._mostrado: tuple[np.ndarray, np.ndarray] | None = None  # os pesos e a máscara desenhados
        mapa = mpl.colormaps["cividis" if mpl.rcParams["image.cmap"] == "cividis" else MAPA].with_extremes(
            bad=COR_MASCARADA)
        self.imagem = ax.imshow(np.zeros((n_q, n_k)), cmap=mapa, vmin=0.0, vmax=1.0, aspect="auto")
        ax.grid(False)
        ax.set_xticks(np.arange(n_k))
        ax.set_yticks(np.arange(n_q))
        ax.tick_params(length=0)
        fonte = mpl.rcParams["font.size"]
        tamanho = fonte if max(n_q, n_k) <= 6 else fonte - 2
        self.textos = [[ax.text(j, i, "", ha="center", va="center", fontsize=tamanho) for j in range(n_k)]
                       for i in range(n_q)] if numeros else []
        # o × das células mascaradas: um marcador por célula, num artista só (um texto por célula custaria
        # um desenho de texto cada; o painel redesenha o mapa a cada mudança de máscara)
        self.xis = ax.scatter([], [], marker="x", s=(0.55 * tamanho) ** 2, linewidths=1.0, color=CORES["neutro"],
                              zorder=3)
        self.textos_soma = []
        if somas:
            ax.text(n_k - 0.5 + 0.15, -0.5, "soma", ha="left", va="bottom", color=CORES["neutro"],
                    fontsize=fonte - 1, clip_on=False)
            self.textos_soma = [ax.text(n_k - 0.5 + 0.15, i, "", ha="left", va="center", fontsize=fonte - 1,
                                        clip_on=False) for i in range(n_q)]

    def atualizar(self, pesos: ArrayLike, permitido: ArrayLike | None = None,
                  tokens_q: Sequence[str] | None = None, tokens_k: Sequence[str] | None = None) -> None:
        pesos = np.asarray(pesos, dtype=float)
        if pesos.shape != (self.n_q, self.n_k):
            raise ValueError(f"os pesos deveriam ter forma ({self.n_q}, {self.n_k}); recebi {pesos.shape}.")
        livre = np.ones(pesos.shape, dtype=bool) if permitido is None else np.broadcast_to(permitido, pesos.shape)
        if self._mostrado is None or not (np.array_equal(pesos, self._mostrado[0]) and np.array_equal(livre, self._mostrado[1])):
            # só quando os pesos mudam: mexer num artista que não é animado faz o painel redesenhar tudo
            self._mostrado = (pesos.copy(), livre.copy())
            self.imagem.set_data(np.ma.masked_array(pesos, mask=~livre))
            for i, linha in enumerate(self.textos):
                for j, texto in enumerate(linha):
                    if livre[i, j]:
                        texto.set_text(f"{pesos[i, j]:.{self.casas}f}")
                        texto.set_color("black" if pesos[i, j] > 0.55 else "white")
                    else:
                        texto.set_text("")
            mascaradas = np.argwhere(~livre)  # (k, 2): (linha, coluna) de cada célula mascarada
            self.xis.set_offsets(mascaradas[:, ::-1] if len(mascaradas) else np.empty((0, 2)))
            for i, texto in enumerate(self.textos_soma):
                soma = float(pesos[i].sum())
                texto.set_text(f"{soma:.{self.casas}f}")
                texto.set_color("black" if abs(soma - 1.0) < 1e-9 else CORES["k"])
        # rótulos só quando mudam: refazê-los cria textos novos, e texto é o que mais custa desenhar
        if tokens_q is not None and list(tokens_q) != self._tokens_q:
            self._tokens_q = list(tokens_q)
            self.ax.set_yticks(np.arange(self.n_q), self._tokens_q)
        if tokens_k is not None and list(tokens_k) != self._tokens_k:
            self._tokens_k = list(tokens_k)
            self.ax.set_xticks(np.arange(self.n_k), self._tokens_k, rotation=40, ha="right",
                               rotation_mode="anchor")


def figura_pesos(pesos: ArrayLike, tokens_q: Sequence[str], tokens_k: Sequence[str] | None = None,
                 permitido: ArrayLike | None = None, titulo: str = "", *, somas: bool = True,
                 ax: Axes | None = None) -> Figure:
    """Mapa de calor dos pesos de atenção com os tokens nos eixos (queries nas linhas, keys nas colunas).

    ``permitido`` (booleana, ``True`` = pode olhar) marca as células mascaradas com ``×``. Com ``ax``
    desenha nele (por exemplo, um eixo de ``plt.subplots``); senão cria uma figura do pyplot.
    Devolve a ``Figure``.
    """
    pesos = np.asarray(pesos, dtype=float)
    tokens_k = tokens_q if tokens_k is None else tokens_k
    if ax is None:
        fig, axes = plots.nova_figura(5.0, 4.2, pyplot=True)
        fig.subplots_adjust(left=0.2, right=0.86, bottom=0.2, top=0.9)
        ax = axes[0, 0]
    mapa = MapaDePesos(ax, pesos.shape[0], pesos.shape[1], somas=somas)
    mapa.atualizar(pesos, permitido, tokens_q, tokens_k)
    ax.set_xlabel("keys (para quem se olha)")
    ax.set_ylabel("queries (quem olha)")
    if titulo:
        ax.set_title(titulo)
    return ax.figure

class FiguraMascaras:
    """O painel das máscaras: o mapa de pesos e a saída de uma query.

    ``ax_mapa`` recebe um :class:`MapaDePesos` ``(n, n)`` só de cores (os números vão para a tabela HTML do
    painel) e um retângulo laranja em volta da linha da query em destaque. Os tokens dos eixos são textos
    próprios, e não marcas do eixo: trocar o comprimento troca só esses textos, sem redesenhar a figura
    inteira. ``ax_saida`` mostra, em barras, as ``d_v`` coordenadas da saída dessa query com as máscaras
    escolhidas e, em contorno tracejado, a saída que ela teria sem máscara nenhuma.
    """

    def __init__(self, ax_mapa: Axes, ax_saida: Axes, n: int, d_v: int, limites_saida: tuple[float, float],
                 tokens_possiveis: Sequence[str] = ("<pad>",)):
        self.n, self.d_v = n, d_v
        self.mapa = MapaDePesos(ax_mapa, n, n, somas=False, numeros=False)
        ax_mapa.tick_params(labelbottom=False, labelleft=False)  # os tokens são textos próprios (abaixo)
        ax_mapa.set_xlabel("keys (para quem se olha)")
        ax_mapa.set_ylabel("queries (quem olha)")
        fig = ax_mapa.figure
        embaixo = offset_copy(ax_mapa.get_xaxis_transform(), fig=fig, y=-4, units="points")
        ao_lado = offset_copy(ax_mapa.get_yaxis_transform(), fig=fig, x=-4, units="points")
        self.tokens_x = [ax_mapa.text(j, 0, "", transform=embaixo, rotation=40, ha="right", va="top",
                                      rotation_mode="anchor") for j in range(n)]
        self.tokens_y = [ax_mapa.text(0, i, "", transform=ao_lado, ha="right", va="center") for i in range(n)]
        self._afastar_rotulos(ax_mapa, tokens_possiveis)
        self.titulo_mapa = ax_mapa.set_title("")
        self.destaque = Rectangle((-0.5, -0.5), n, 1, fill=False, edgecolor=CORES["destaque"], lw=3.5,
                                  clip_on=False)
        ax_mapa.add_patch(self.destaque)
        x = np.arange(d_v)
        self.ax_saida = ax_saida
        self.barras = ax_saida.bar(x, np.zeros(d_v), width=0.6, color=CORES["saida"], label="com as máscaras escolhidas")
        self.fantasmas = ax_saida.bar(x, np.zeros(d_v), width=0.6, fill=False, edgecolor=CORES["neutro"],
                                      ls="--", lw=1.5, label="sem máscara nenhuma")
        ax_saida.axhline(0, color=CORES["neutro"], lw=0.8)
        ax_saida.set_xticks(x, [f"coord. {c}" for c in x])  # contadas a partir de 0, como as queries
        ax_saida.set_ylim(*limites_saida)
        ax_saida.grid(axis="x", visible=False)
        ax_saida.legend(loc="upper left", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)
        self.titulo_saida = ax_saida.set_title("")

    def _afastar_rotulos(self, ax: Axes, tokens_possiveis: Sequence[str]) -> None:
        """Os rótulos dos eixos ficam a uma distância fixa, a que o token mais longo pede (medido com a fonte
        atual, padrão ou de projetor): assim não dependem dos tokens mostrados."""
        renderer = FigureCanvasAgg(ax.figure).get_renderer()
        alto = largo = 0.0
        for token in tokens_possiveis:
            self.tokens_x[0].set_text(token)
            self.tokens_y[0].set_text(token)
            alto = max(alto, self.tokens_x[0].get_window_extent(renderer).height)
            largo = max(largo, self.tokens_y[0].get_window_extent(renderer).width)
        self.tokens_x[0].set_text("")
        self.tokens_y[0].set_text("")
        pt = 72 / ax.figure.dpi  # pixels → pontos
        embaixo = offset_copy(ax.transAxes, fig=ax.figure, y=-(alto * pt + 8), units="points")
        ao_lado = offset_copy(ax.transAxes, fig=ax.figure, x=-(largo * pt + 8), units="points")
        ax.xaxis.set_label_coords(0.5, 0, transform=embaixo)
        ax.yaxis.set_label_coords(0, 0.5, transform=ao_lado)

    def atualizar(self, pesos: ArrayLike, permitido: ArrayLike, tokens: Sequence[str], query: int,
                  saida: ArrayLike, saida_sem_mascara: ArrayLike, titulo: str) -> None:
        self.mapa.atualizar(pesos, permitido)
        for textos in (self.tokens_x, self.tokens_y):
            for texto, token in zip(textos, tokens, strict=True):
                texto.set_text(token)  # o mesmo texto não marca o artista: só o comprimento os redesenha
        self.destaque.set_y(query - 0.5)
        self.titulo_mapa.set_text(titulo)
        for barra, fantasma, a, b in zip(self.barras, self.fantasmas, saida, saida_sem_mascara, strict=True):
            barra.set_height(float(a))
            fantasma.set_height(float(b))
        self.titulo_saida.set_text(f"saída da query {query} («{tokens[query]}»)")

    def animados(self) -> list[Artist]:
        """Os artistas que mover a query muda — o destaque, as barras e o título da saída: um painel redesenha só
        eles a cada movimento."""
        return [self.destaque, *self.barras, *self.fantasmas, self.titulo_saida]

    def lentos(self) -> list[Artist]:
        """O mapa (a imagem e os ×), os tokens e o título do mapa: mudam só com as máscaras e o comprimento (o
        painel os guarda desenhados enquanto isso não acontece)."""
        return [self.mapa.imagem, self.mapa.xis, *self.tokens_x, *self.tokens_y, self.titulo_mapa]
