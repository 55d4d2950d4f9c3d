"""Notebook ``atencao_aprendida``: as figuras — frases com os sintagmas marcados, a curva da perda, o peso de
cada cabeça no sujeito e no atrator, e a vista das cabeças no estilo do BertViz (linhas entre duas colunas
de palavras e as miniaturas de todas as cabeças).

As classes :class:`VistaCabeca` e :class:`Miniaturas` criam os artistas uma vez e só mudam os dados em
``atualizar``: servem ao painel (:mod:`.paineis`) e às figuras estáticas.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ... import plots
from ...formato import decimal
from ...plots import CORES
from .analise import AnaliseCabecas
from .frases import ARTIGOS, LACUNA, PREPOSICOES, PREPOSICOES_ABERTURA, SUBSTANTIVOS, Frase

__all__ = [
    "COR_PAPEL", "CORES_CABECAS", "Miniaturas", "VistaCabeca", "desenhar_sujeito_atrator",
    "figura_duas_vistas",
    "figura_frases", "figura_sujeito_atrator", "figura_vista_cabecas", "papeis_da_frase",
]

#: a cor de cada papel de uma palavra (Okabe–Ito). O atrator (vermelhão) e o distrator ficam longe um do outro
#: também para quem tem daltonismo: o distrator é rosa-arroxeado, não laranja (laranja e vermelhão se confundem
#: na deuteranopia); nas barras, o distrator ainda leva hachura
COR_PAPEL = {"sujeito": CORES["q"], "atrator": CORES["k"], "distrator": CORES["saida"], "lacuna": "black",
             "outra": CORES["neutro"]}

#: a cor das linhas de cada cabeça ``(camada, cabeça)`` na vista e da moldura da sua miniatura
CORES_CABECAS = {(0, 0): CORES["v"], (0, 1): CORES["saida"], (1, 0): CORES["extra"], (1, 1): CORES["q"]}

_SUBSTANTIVOS = frozenset(sum(SUBSTANTIVOS, ()))


# ---------------------------------------------------------------------------------------------
# Os papéis das palavras
# ---------------------------------------------------------------------------------------------


def papeis_da_frase(tokens: Sequence[str], frase: Frase | None = None) -> dict[str, list[int]]:
    """As posições do sujeito, do atrator e do distrator (``{"sujeito": [...], ...}``).

    De uma :class:`Frase` gerada, vêm do gerador. De uma frase digitada, são deduzidas pela ordem das
    palavras, como o gerador as monta: um sintagma é artigo + substantivo; o **sujeito** é o único sem
    preposição antes; um sintagma com preposição antes do sujeito é o distrator ("segundo as vizinhas ,"),
    e depois dele é o atrator. Se não houver exatamente um candidato a sujeito, nada é marcado.
    """
    if frase is not None:
        return {"sujeito": list(frase.posicoes_sujeito), "atrator": list(frase.posicoes_atrator),
                "distrator": list(frase.posicoes_distrator)}
    toks = list(tokens)
    sintagmas = [i for i in range(len(toks) - 1) if toks[i] in ARTIGOS and toks[i + 1] in _SUBSTANTIVOS]
    preposicoes = set(PREPOSICOES) | set(PREPOSICOES_ABERTURA)
    livres = [i for i in sintagmas if i == 0 or toks[i - 1] not in preposicoes]
    papeis: dict[str, list[int]] = {"sujeito": [], "atrator": [], "distrator": []}
    if len(livres) != 1:
        return papeis
    s = livres[0]
    papeis["sujeito"] = [s, s + 1]
    depois = [i for i in sintagmas if i > s]
    antes = [i for i in sintagmas if i < s]
    if depois:
        papeis["atrator"] = [depois[0], depois[0] + 1]
    if antes:
        papeis["distrator"] = [antes[0], antes[0] + 1]
    return papeis


def _papel(j: int, tokens: Sequence[str], papeis: dict[str, list[int]]) -> str:
    if tokens[j] == LACUNA:
        return "lacuna"
    return next((nome for nome, pos in papeis.items() if j in pos), "outra")


# ---------------------------------------------------------------------------------------------
# Figuras estáticas
# ---------------------------------------------------------------------------------------------


def figura_frases(frases: Sequence[Frase], largura: float = 12.0) -> Figure:
    """Uma frase por linha, cada palavra numa caixa com a cor do seu papel (sujeito, atrator, distrator,
    lacuna) e, à direita, a forma certa do predicado. Figura do pyplot."""
    tamanho = mpl.rcParams["font.size"] + 1
    altura_linha = tamanho * 2.1 / 72  # polegadas por frase
    fig, axes = plots.nova_figura(largura, altura_linha * (len(frases) + 1.6), pyplot=True)
    ax = axes[0, 0]
    ax.set_axis_off()
    ax.set_position((0.01, 0.0, 0.98, 1.0))
    ax.set_xlim(0, 1)
    ax.set_ylim(len(frases) + 0.9, -0.2)
    renderer = fig.canvas.get_renderer()
    largura_px = ax.get_window_extent(renderer).width
    espaco = 0.006
    for linha, f in enumerate(frases):
        papeis = papeis_da_frase(f.tokens, f)
        trechos: list[tuple[str, list[str]]] = []  # palavras seguidas com o mesmo papel viram um texto só
        for j, palavra in enumerate(f.tokens):
            papel = _papel(j, f.tokens, papeis)
            if trechos and trechos[-1][0] == papel and papel == "outra":
                trechos[-1][1].append(palavra)
            else:
                trechos.append((papel, [palavra]))
        x = 0.0
        for papel, palavras in trechos:
            destaque = papel in ("sujeito", "atrator", "distrator")
            texto = ax.text(x, linha + 1, " ".join(palavras), fontsize=tamanho, va="center", ha="left",
                            color="white" if destaque else COR_PAPEL[papel],
                            fontweight="normal" if papel == "outra" else "bold",
                            bbox=dict(boxstyle="round,pad=0.25", fc=COR_PAPEL[papel], ec="none") if destaque else None)
            x += texto.get_window_extent(renderer).width / largura_px + espaco
        ax.text(x + 0.01, linha + 1, f"→  {f.alvo}", fontsize=tamanho, va="center", ha="left", color="black")
    legenda = [("sujeito", "sujeito (artigo + substantivo)"), ("atrator", "atrator"),
               ("distrator", "distrator"), ("lacuna", f"{LACUNA} a lacuna")]
    x = 0.0
    for papel, rotulo in legenda:
        t = ax.text(x, 0, rotulo, fontsize=tamanho - 1, va="center", ha="left",
                    color="white" if papel != "lacuna" else "black", fontweight="bold",
                    bbox=dict(boxstyle="round,pad=0.25", fc=COR_PAPEL[papel] if papel != "lacuna" else "none",
                              ec="none"))
        x += t.get_window_extent(renderer).width / largura_px + 0.02
    return fig


def desenhar_sujeito_atrator(ax: Axes, analise: AnaliseCabecas, titulo: str = "") -> None:
    """Barras agrupadas, uma trinca por cabeça: o peso médio da lacuna no sujeito, no atrator e na
    distrator, com o valor escrito em cima e um traço no valor da atenção uniforme."""
    ax.clear()
    m, u = analise.medidas, analise.uniforme
    n_camadas, n_cabecas = m["sujeito"].shape
    cabecas = [(c, h) for c in range(n_camadas) for h in range(n_cabecas)]
    series = [("sujeito", "sujeito", COR_PAPEL["sujeito"], ""), ("atrator", "atrator", COR_PAPEL["atrator"], ""),
              ("distrator", "distrator", COR_PAPEL["distrator"], "//")]
    largura = 0.26
    x = np.arange(len(cabecas))
    tamanho = mpl.rcParams["font.size"] - 1
    ax.set_ylim(0, 1.32)
    for k, (nome, rotulo, cor, hachura) in enumerate(series):
        pos = x + (k - 1) * largura
        valores = [m[nome][c, h] for c, h in cabecas]
        ax.bar(pos, valores, width=largura * 0.92, color=cor, label=rotulo, hatch=hachura, edgecolor="white", lw=0)
        for p, val_, (c, h) in zip(pos, valores, cabecas, strict=True):
            y = plots.altura_do_rotulo(ax, val_, u[nome][c, h], 0.015, tamanho)
            ax.text(p, y, decimal(val_), ha="center", va="bottom", fontsize=tamanho)
            ax.plot([p - largura / 2, p + largura / 2], [u[nome][c, h]] * 2, color="black", lw=1.4, ls=":")
    ax.plot([], [], color="black", lw=1.4, ls=":", label="atenção uniforme")
    ax.set_xticks(x, [f"camada {c}\ncabeça {h}" for c, h in cabecas])
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("peso médio vindo da lacuna")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", frameon=False, ncols=2, fontsize=tamanho)
    if titulo:
        ax.set_title(titulo)


def figura_sujeito_atrator(analise: AnaliseCabecas, titulo: str = "") -> Figure:
    """:func:`desenhar_sujeito_atrator` numa figura do pyplot."""
    k = plots.escala_da_fonte()
    fig, axes = plots.nova_figura(min(9.0 * k, 12.0), 4.2 * k, pyplot=True)
    fig.subplots_adjust(left=0.09, right=0.99, bottom=0.15, top=0.9 if titulo else 0.96)
    desenhar_sujeito_atrator(axes[0, 0], analise, titulo)
    return fig


# ---------------------------------------------------------------------------------------------
# A vista das cabeças (BertViz)
# ---------------------------------------------------------------------------------------------


class VistaCabeca:
    """Uma cabeça como no BertViz: as palavras em duas colunas (à esquerda quem olha — as queries —, à
    direita para quem se olha — as keys) ligadas por linhas cuja opacidade e espessura são o peso.

    Com uma palavra escolhida (``linha`` = o índice dela), só as linhas dela aparecem, a palavra ganha um
    destaque na cor da cabeça e o peso vai escrito ao lado de cada key. As palavras levam a cor do seu papel
    (sujeito, atrator, distrator). ``atualizar`` só muda os dados dos artistas, criados uma vez para até
    ``n_max`` palavras, e só mexe nas palavras quando a frase muda (:meth:`lentos`; :meth:`animados`: o que
    muda a cada movimento de cabeça ou de palavra). Os limites do eixo são os de ``n_max`` palavras; uma frase
    mais curta se espalha pela mesma altura, com as palavras mais afastadas (:meth:`y`).
    """

    X_ESQ, X_DIR = 0.30, 0.66

    def __init__(self, ax: Axes, n_max: int):
        self.ax = ax
        self.n_max = n_max
        ax.set_axis_off()
        ax.set_xlim(0, 1)
        ax.set_ylim(-(n_max - 1) - 0.7, 1.5)
        tamanho = mpl.rcParams["font.size"] + 1
        self.esquerda = [ax.text(self.X_ESQ - 0.02, -i, "", ha="right", va="center", fontsize=tamanho)
                         for i in range(n_max)]
        self.direita = [ax.text(self.X_DIR + 0.02, -j, "", ha="left", va="center", fontsize=tamanho)
                        for j in range(n_max)]
        # a palavra escolhida, por cima da dela na coluna da esquerda, em negrito e numa caixa da cor da cabeça
        self.destaque = ax.text(self.X_ESQ - 0.02, 0, "", ha="right", va="center", fontsize=tamanho,
                                fontweight="bold", zorder=4, visible=False)
        # o peso de cada key fica colado nela, na ponta da linha (por cima, num fundo branco)
        self.pesos = [ax.text(self.X_DIR - 0.012, -j, "", ha="right", va="center", fontsize=tamanho - 2,
                              color=CORES["neutro"], zorder=3,
                              bbox=dict(boxstyle="round,pad=0.12", fc="white", ec="none", alpha=0.85))
                      for j in range(n_max)]
        self.linhas = LineCollection([], capstyle="round")
        ax.add_collection(self.linhas)
        self.titulo = ax.text(0.02, 1.0, "", ha="left", va="bottom", transform=ax.transAxes,
                              fontsize=mpl.rcParams["font.size"] + 1, fontweight="bold")
        self._n = n_max  # quantas palavras a frase desenhada tem (a escala de :meth:`y`)
        self.cabecalhos = [ax.text(self.X_ESQ - 0.02, 0.75, "quem olha", ha="right", va="bottom",
                                   fontsize=tamanho - 2, color=CORES["neutro"], style="italic"),
                           ax.text(self.X_DIR + 0.02, 0.75, "para quem olha", ha="left", va="bottom",
                                   fontsize=tamanho - 2, color=CORES["neutro"], style="italic")]
        self._frase_desenhada: tuple | None = None

    def y(self, i: float) -> float:
        """A altura da palavra ``i`` (e, com ``i = -0.75``, a dos cabeçalhos): numa frase de ``n`` palavras, a
        que ela teria num eixo de limites ``(-(n - 1) - 0.7, 1.5)``, levada para os limites de ``n_max``."""
        escala = (self.n_max + 1.2) / (self._n + 1.2)
        return 1.5 + escala * (-i - 1.5)

    def atualizar(self, pesos: np.ndarray, tokens: Sequence[str], papeis: dict[str, list[int]], cor: str,
                  linha: int | None = None, titulo: str = "") -> None:
        """``pesos`` ``(n, n)`` de uma cabeça; ``linha`` = a palavra escolhida (``None``: todas)."""
        w = np.asarray(pesos, dtype=float)
        n = len(tokens)
        frase = (tuple(tokens), tuple((k, tuple(v)) for k, v in sorted(papeis.items())))
        if frase != self._frase_desenhada:  # só quando a frase muda (mexer nelas as marca)
            self._frase_desenhada = frase
            self._n = n
            for cabecalho in self.cabecalhos:
                cabecalho.set_y(self.y(-0.75))
            for i in range(self.n_max):
                for lado in (self.esquerda, self.direita):
                    papel = _papel(i, tokens, papeis) if i < n else "outra"
                    lado[i].set_y(self.y(i))
                    lado[i].set_text(tokens[i] if i < n else "")
                    lado[i].set_color(COR_PAPEL[papel])
                    lado[i].set_fontweight("normal" if papel == "outra" else "bold")
        if linha is not None:
            self.destaque.set_text(tokens[linha])
            self.destaque.set_y(self.y(linha))
            self.destaque.set_color(COR_PAPEL[_papel(linha, tokens, papeis)])
            # a caixa é opaca (a cor da cabeça clareada sobre o branco): cobre a palavra de baixo, mais fina
            clara = 0.25 * np.array(to_rgba(cor)) + 0.75 * np.ones(4)
            self.destaque.set_bbox(dict(boxstyle="round,pad=0.2", fc=tuple(clara), ec=cor))
        self.destaque.set_visible(linha is not None)
        for i in range(self.n_max):
            # os pesos que arredondam para 0.00 ficam em branco: menos texto para ler e para desenhar
            mostra = linha is not None and i < n and w[linha, i] >= 0.005
            self.pesos[i].set_text(decimal(w[linha, i]) if mostra else "")
            self.pesos[i].set_y(self.y(i))
            self.pesos[i].set_visible(mostra)
        queries = range(n) if linha is None else [linha]
        segmentos, cores, larguras = [], [], []
        rgba = np.array(to_rgba(cor))
        for i in queries:
            for j in range(n):
                if w[i, j] < 0.01:
                    continue
                segmentos.append([(self.X_ESQ, self.y(i)), (self.X_DIR, self.y(j))])
                cores.append((*rgba[:3], min(1.0, 0.15 + 0.85 * w[i, j])))
                larguras.append(0.6 + 5.5 * w[i, j])
        self.linhas.set_segments(segmentos)
        self.linhas.set_colors(cores)
        self.linhas.set_linewidths(larguras)
        self.titulo.set_text(titulo)

    def animados(self) -> list:
        """O que muda com a cabeça e a palavra escolhidas: as linhas, os pesos, o destaque e o título."""
        return [self.linhas, *self.pesos, self.destaque, self.titulo]

    def lentos(self) -> list:
        """O que muda só com a frase: as palavras das duas colunas e os cabeçalhos delas."""
        return [*self.esquerda, *self.direita, *self.cabecalhos]


class Miniaturas:
    """Todas as cabeças de uma vez, uma miniatura por cabeça (linhas = quem olha, colunas = para quem
    olha, cor = peso, escala fixa em [0, 1]); a cabeça escolhida ganha uma moldura grossa na cor dela e,
    com uma palavra escolhida, a linha dessa palavra fica contornada em todas. Cada mapa ocupa o quadrado
    ``[0, 1] × [0, 1]`` do seu eixo, qualquer que seja o tamanho da frase: trocar de frase muda só as imagens
    (:meth:`lentos`), sem mexer nos eixos; a moldura e os contornos (:meth:`animados`) mudam com a cabeça e a
    palavra."""

    def __init__(self, axes: np.ndarray):
        self.axes = axes  # (n_camadas, n_cabecas)
        mapa = "cividis" if mpl.rcParams["image.cmap"] == "cividis" else plots.MAPA
        self.imagens = {}
        self.contornos = {}
        for (c, h), ax in np.ndenumerate(axes):
            self.imagens[(c, h)] = ax.imshow(np.zeros((2, 2)), cmap=mapa, vmin=0.0, vmax=1.0, aspect="auto",
                                             interpolation="nearest", extent=(0, 1, 1, 0))
            ax.set_xlim(0, 1)
            ax.set_ylim(1, 0)  # a primeira palavra em cima
            ax.set_xticks([])
            ax.set_yticks([])
            ax.grid(False)
            ax.set_title(f"{c}·{h}", fontsize=mpl.rcParams["font.size"])
            self.contornos[(c, h)] = ax.add_patch(Rectangle((0, 0), 1, 1, fill=False, ec=CORES["destaque"], lw=2.2))
            for lado in ax.spines.values():
                lado.set_visible(True)
                lado.set_edgecolor(CORES["neutro"])
                lado.set_linewidth(0.8)
        # a moldura da cabeça escolhida: um retângulo da figura, levado para cima da miniatura escolhida
        fig = axes.flat[0].figure
        self.moldura = fig.add_artist(Rectangle((0, 0), 0, 0, transform=fig.transFigure, fill=False, lw=4.0))
        self._frase_desenhada: tuple | None = None

    def atualizar(self, pesos: np.ndarray, escolhida: tuple[int, int], linha: int | None = None) -> None:
        """``pesos`` ``(n_camadas, n_cabecas, n, n)``; ``escolhida`` = ``(camada, cabeça)`` da vista grande;
        ``linha``, a palavra escolhida (``None``: nenhuma)."""
        n = pesos.shape[-1]
        frase = (pesos.shape, pesos.tobytes())
        if frase != self._frase_desenhada:  # os mapas: só quando a frase muda
            self._frase_desenhada = frase
            for (c, h), img in self.imagens.items():
                img.set_data(pesos[c, h])
        caixa = self.axes[escolhida].get_position(original=True)  # (sem original, o eixo seria marcado)
        self.moldura.set_bounds(caixa.x0, caixa.y0, caixa.width, caixa.height)
        self.moldura.set_edgecolor(CORES_CABECAS.get(escolhida, "black"))
        for contorno in self.contornos.values():
            contorno.set_visible(linha is not None)
            if linha is not None:
                contorno.set_xy((0, linha / n))
                contorno.set_height(1 / n)

    def animados(self) -> list:
        """A moldura da cabeça escolhida e os contornos da palavra escolhida."""
        return [self.moldura, *self.contornos.values()]

    def lentos(self) -> list:
        """Os mapas, que só mudam com a frase."""
        return list(self.imagens.values())


def layout_vista(fig: Figure, n_camadas: int, n_cabecas: int) -> tuple[Axes, np.ndarray]:
    """Os eixos da vista grande (à esquerda) e das miniaturas ``(n_camadas, n_cabecas)`` (à direita)."""
    ax_vista = fig.add_axes((0.0, 0.03, 0.56, 0.88))
    grade = fig.add_gridspec(n_camadas, n_cabecas, left=0.6, right=0.98, bottom=0.05, top=0.84,
                             wspace=0.12, hspace=0.22)
    miniaturas = np.array([[fig.add_subplot(grade[c, h]) for h in range(n_cabecas)] for c in range(n_camadas)])
    fig.text(0.79, 0.985, "todas as cabeças (camada·cabeça)\nlinhas: quem olha; colunas: para quem\n(na ordem da frase: a lacuna é a última)", ha="center",
             va="top", fontsize=mpl.rcParams["font.size"] - 1, color=CORES["neutro"])
    return ax_vista, miniaturas


def altura_da_vista(n_max: int) -> float:
    """A altura (polegadas) que cabe ``n_max`` palavras por coluna com a fonte atual (padrão ou projetor)."""
    return max(5.2, (n_max + 2.5) * (mpl.rcParams["font.size"] + 1) * 1.45 / 72)


def titulo_da_vista(camada: int, cabeca: int, tokens: Sequence[str], linha: int | None) -> str:
    if linha is None:
        return f"cabeça {camada}·{cabeca}: todas as palavras"
    return f"cabeça {camada}·{cabeca}: para onde olha «{tokens[linha]}»"


def figura_vista_cabecas(pesos: np.ndarray, tokens: Sequence[str], camada: int, cabeca: int,
                         linha: int | None = None, frase: Frase | None = None) -> Figure:
    """A vista de uma cabeça e as miniaturas de todas, numa figura do pyplot (a figura do painel
    :func:`~.paineis.painel_vista_cabecas`, sem os controles). ``pesos`` ``(n_camadas, n_cabecas, n, n)``
    de :meth:`ModeloConcordancia.atencao`."""
    pesos = np.asarray(pesos, dtype=float)
    n_camadas, n_cabecas, n, _ = pesos.shape
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(10.0, altura_da_vista(n)))
    ax_vista, eixos = layout_vista(fig, n_camadas, n_cabecas)
    vista, miniaturas = VistaCabeca(ax_vista, n), Miniaturas(eixos)
    papeis = papeis_da_frase(tokens, frase)
    vista.atualizar(pesos[camada, cabeca], tokens, papeis, CORES_CABECAS.get((camada, cabeca), CORES["q"]), linha,
                    titulo_da_vista(camada, cabeca, tokens, linha))
    miniaturas.atualizar(pesos, (camada, cabeca), linha)
    return fig


def figura_duas_vistas(pesos: np.ndarray, tokens: Sequence[str], vistas: Sequence[tuple[int, int, int]],
                       frase: Frase | None = None) -> Figure:
    """Várias cabeças lado a lado, cada uma mostrando as linhas de uma palavra: ``vistas`` é uma lista de
    ``(camada, cabeça, palavra)``. Para seguir a informação de uma camada à seguinte. Figura do pyplot."""
    import matplotlib.pyplot as plt

    pesos = np.asarray(pesos, dtype=float)
    n = len(tokens)
    fig = plt.figure(figsize=(5.0 * len(vistas), altura_da_vista(n) * 0.9))
    papeis = papeis_da_frase(tokens, frase)
    for k, (c, h, i) in enumerate(vistas):
        ax = fig.add_axes((k / len(vistas), 0.02, 1 / len(vistas) - 0.07, 0.86))  # sobra lugar para os pesos
        vista = VistaCabeca(ax, n)
        vista.atualizar(pesos[c, h], tokens, papeis, CORES_CABECAS.get((c, h), CORES["q"]), i,
                        f"camada {c} · cabeça {h}: «{tokens[i]}» olha para…")
    return fig
