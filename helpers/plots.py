"""O estilo das figuras da coleção: paleta, modo de apresentação e PNG.

Toda figura da coleção (as estáticas dos notebooks e as dos painéis) usa o que está aqui: a paleta de
Okabe–Ito (segura para daltonismo) para categorias, ``viridis``/``cividis`` para mapas de calor, um
estilo padrão e um estilo de apresentação (fontes e linhas grandes, para o projetor) e a conversão
de uma figura em PNG (pelo Pillow). As figuras de cada notebook moram na lição dele (:mod:`helpers.licoes`).
"""

from __future__ import annotations

import io

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

#: Okabe–Ito: distinguíveis por quem tem daltonismo e legíveis num projetor.
CORES = {
    "q": "#0072B2",  # azul: a query
    "k": "#D55E00",  # vermelhão: as keys
    "v": "#009E73",  # verde-azulado: os values
    "saida": "#CC79A7",  # rosa: a saída
    "neutro": "#555555",
    "destaque": "#E69F00",  # laranja
    "extra": "#56B4E9",  # azul-céu
}


#: mapa de cores padrão para matrizes de pesos
MAPA = "viridis"


_ESTILO_PADRAO = {
    "figure.dpi": 100,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "lines.linewidth": 2.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "image.cmap": MAPA,
    # texto sem "hinting" (o ajuste das letras à grade de pixels): desenhar texto é o que mais custa
    # numa atualização de painel, e sem hinting ele sai ~20% mais rápido, tão legível quanto
    "text.hinting": "no_hinting",
}


_ESTILO_APRESENTACAO = {
    "font.size": 16,
    "axes.titlesize": 18,
    "axes.labelsize": 16,
    "xtick.labelsize": 14,
    "ytick.labelsize": 14,
    "legend.fontsize": 14,
    "lines.linewidth": 3.5,
    "lines.markersize": 10,
    "axes.linewidth": 1.6,
    "grid.alpha": 0.45,
    "image.cmap": "cividis",
}


#: o que estava em vigor antes de importarmos: ``modo_padrao`` volta a isso mais o estilo da coleção
_ORIGINAL = {chave: mpl.rcParams[chave] for chave in {**_ESTILO_PADRAO, **_ESTILO_APRESENTACAO}}


def modo_padrao() -> None:
    """Volta ao estilo padrão da coleção (o que os notebooks usam ao abrir)."""
    mpl.rcParams.update(_ORIGINAL)
    mpl.rcParams.update(_ESTILO_PADRAO)


def modo_apresentacao() -> None:
    """Deixa figuras e painéis legíveis num projetor: fontes e linhas maiores, alto contraste.

    Vale para as figuras criadas **depois** da chamada (rode de novo as células de figura).
    Desfaça com :func:`modo_padrao`.
    """
    modo_padrao()
    mpl.rcParams.update(_ESTILO_APRESENTACAO)


def escala_da_fonte() -> float:
    """Quanto a fonte atual é maior que a padrão da coleção (1 no padrão, ~1.45 no modo de apresentação):
    a figura de um painel cresce junto, para os textos continuarem cabendo."""
    return max(1.0, mpl.rcParams["font.size"] / 11.0)


class _Apresentacao:
    """O estilo de apresentação só dentro de um bloco ``with`` (veja :func:`apresentacao`)."""

    def __enter__(self) -> None:
        self._antes = {chave: mpl.rcParams[chave] for chave in _ORIGINAL}
        modo_apresentacao()

    def __exit__(self, *_erro: object) -> None:
        mpl.rcParams.update(self._antes)


def apresentacao() -> _Apresentacao:
    """Estilo de apresentação só para o que for criado dentro do bloco; depois volta ao que estava::

        with plots.apresentacao():
            painel = licao.painel_softmax()   # este painel fica com letras e linhas grandes
        painel
    """
    return _Apresentacao()


def nova_figura(largura: float = 8.0, altura: float = 4.0, ncols: int = 1, nrows: int = 1,
                *, pyplot: bool = False) -> tuple[Figure, np.ndarray]:
    """Uma ``Figure`` e seus eixos ``(nrows, ncols)``.

    Por padrão fica fora do pyplot (é o que os painéis usam: não aparece sozinha nem acumula na
    memória do pyplot). Com ``pyplot=True`` é uma figura do pyplot, que o notebook mostra como
    qualquer outra (``plt.show()`` ou como última expressão da célula) — é o que as figuras
    estáticas ``figura_*`` usam.
    """
    if pyplot:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(largura, altura))
    else:
        fig = Figure(figsize=(largura, altura))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def png(fig: Figure, dpi: float | None = None) -> bytes:
    """Os bytes PNG da figura inteira, desenhada de novo (o que uma figura estática exibe).

    A figura ganha um canvas Agg que fica com ela (o matplotlib guarda nele o que já mediu); com outro
    ``dpi``, vale o ``savefig`` de sempre.
    """
    if dpi is not None and dpi != fig.dpi:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
        return buf.getvalue()
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return png_do_canvas(canvas)


def png_do_canvas(canvas: FigureCanvasAgg) -> bytes:
    """Os bytes PNG do que está desenhado agora em ``canvas`` (sem desenhar de novo)."""
    return png_dos_pixels(np.asarray(canvas.buffer_rgba()))


def png_dos_pixels(rgba: np.ndarray) -> bytes:
    """Os bytes PNG de pixels ``(altura, largura, 4)`` em uint8 — a mesma imagem, sem perdas (Pillow).

    Sem o canal alfa quando a imagem é toda opaca (o normal: fundo branco): um quarto a menos de dados
    para comprimir, enviar e decodificar; e compressão de nível 1, bem mais rápida que a padrão, com um
    arquivo pouco maior.
    """
    rgba = np.asarray(rgba)
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise ValueError(f"png_dos_pixels espera pixels (altura, largura, 4) em uint8; recebi {rgba.shape} {rgba.dtype}.")
    imagem = Image.fromarray(np.ascontiguousarray(rgba))  # 4 canais uint8: RGBA
    if rgba[..., 3].min() == 255:
        imagem = imagem.convert("RGB")
    buf = io.BytesIO()
    imagem.save(buf, format="png", compress_level=1)
    return buf.getvalue()


def altura_do_rotulo(ax: Axes, topo: float, linha: float, folga: float, tamanho_pt: float) -> float:
    """Onde pôr (``va="bottom"``) o número escrito em cima de uma barra de altura ``topo``.

    Normalmente logo acima da barra (``topo + folga``). Se a linha horizontal ``y = linha`` (o peso
    uniforme, tracejado) fosse cortar o texto, o número sobe para logo acima dela. A altura do texto
    em unidades de dados sai do tamanho da fonte e da altura do eixo em pixels (sem desenhar nada).
    """
    y = topo + folga
    if topo >= linha:
        return y
    altura_px = ax.bbox.height  # (``get_position`` refaria o aspecto do eixo e o marcaria como mudado)
    inferior, superior = ax.get_ylim()
    texto = 1.25 * tamanho_pt * ax.figure.dpi / 72 * (superior - inferior) / altura_px
    if linha < y + texto:  # a linha passaria pelo texto (ou logo abaixo dele, colada na barra)
        return max(y, linha + folga)
    return y


def seta(ax: Axes, cor: str, rotulo: str):
    """Uma seta a partir da origem com o seu rótulo: ``(seta, texto)``; mova com ``seta.xy = ponta``."""
    seta = ax.annotate(
        "", xy=(1, 0), xytext=(0, 0),
        arrowprops=dict(arrowstyle="-|>", color=cor, lw=mpl.rcParams["lines.linewidth"] + 0.5, mutation_scale=20),
    )
    texto = ax.text(1, 0, rotulo, color=cor, fontsize=mpl.rcParams["font.size"] + 3, fontweight="bold",
                    ha="left", va="bottom")
    return seta, texto
