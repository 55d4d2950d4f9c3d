"""O estilo das figuras da coleção: paleta, modo de apresentação e PNG.

Toda figura da coleção (as estáticas dos notebooks e as dos painéis) usa o que está aqui: a paleta de
Okabe–Ito (segura para daltonismo) para categorias, ``viridis``/``cividis`` para mapas de calor, um
estilo padrão e um estilo de apresentação (fontes e linhas grandes, para o projetor) e a conversão
rápida de uma figura em PNG. As figuras de cada notebook moram na lição dele (:mod:`helpers.licoes`).
"""

from __future__ import annotations

import io
import struct
import zlib

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ._agg_rapido import CanvasRapido

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
    """Os bytes PNG da figura (o que um painel mostra e o que a figura estática exibe).

    A figura ganha um canvas Agg que fica com ela (``savefig`` criaria um canvas e um renderizador
    novos a cada chamada, e perderia o cache de medidas de texto do matplotlib) — um que lembra os
    textos já desenhados (:mod:`helpers._agg_rapido`: os mesmos pixels, bem mais rápido) —, e os
    pixels viram PNG por :func:`png_dos_pixels`.
    """
    if dpi is not None and dpi != fig.dpi:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
        return buf.getvalue()
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else CanvasRapido(fig)
    canvas.draw()
    return png_dos_pixels(np.asarray(canvas.buffer_rgba()))


def png_dos_pixels(rgba: np.ndarray) -> bytes:
    """Os bytes PNG de pixels ``(altura, largura, 4)`` em uint8 — a mesma imagem, sem perdas.

    Depois do desenho, é o que mais pesa numa atualização de painel, e no navegador é a imagem que
    chega e é decodificada; então é feito para ser rápido, com o PNG montado aqui mesmo (três blocos):

    - sem o canal alfa quando a figura é toda opaca (o normal: fundo branco) — um quarto a menos
      de dados para comprimir, enviar e decodificar;
    - cada linha guardada como a diferença para a de cima (o filtro "Up" do PNG, uma subtração do
      numpy): numa figura, quase tudo vira zero e comprime bem, sem a escolha de filtro linha a
      linha que o Pillow faz (que custa mais que a compressão);
    - zlib nível 1: bem mais rápido que o nível padrão 6, com um arquivo pouco maior.

    Ao todo, cerca de 3× mais rápido que ``savefig`` ou o Pillow, com arquivos do mesmo tamanho.
    """
    filtrado, cabecalho = _filtrar(rgba)
    return _montar_png(cabecalho, zlib.compress(filtrado, 1))


def _filtrar(rgba: np.ndarray) -> tuple[np.ndarray, bytes]:
    """As linhas com o filtro "Up" do PNG, ``(altura, 1 + largura · canais)`` uint8, e o cabeçalho ``IHDR``."""
    altura, largura = rgba.shape[:2]
    if rgba[..., 3].min() == 255:
        canais = 3
        linhas = np.empty((altura, largura * 3), dtype=np.uint8)
        for c in range(3):  # canal a canal: copiar de 3 em 3 bytes direto é 6× mais lento
            linhas[:, c::3] = rgba[:, :, c]
    else:
        canais = 4
        linhas = np.ascontiguousarray(rgba).reshape(altura, largura * 4)
    filtrado = np.empty((altura, largura * canais + 1), dtype=np.uint8)
    filtrado[:, 0] = 2  # filtro "Up" (a linha de cima da primeira conta como zeros)
    filtrado[0, 1:] = linhas[0]
    np.subtract(linhas[1:], linhas[:-1], out=filtrado[1:, 1:])  # uint8: a diferença módulo 256, como o PNG quer
    return filtrado, struct.pack(">IIBBBBB", largura, altura, 8, 2 if canais == 3 else 6, 0, 0, 0)


def _montar_png(cabecalho: bytes, idat: bytes) -> bytes:
    return b"".join((b"\x89PNG\r\n\x1a\n", _bloco_png(b"IHDR", cabecalho), _bloco_png(b"IDAT", idat),
                     _bloco_png(b"IEND", b"")))


class CodificadorPng:
    """PNGs de imagens seguidas do mesmo tamanho (os quadros de um painel), sem comprimir de novo o que não mudou.

    Um movimento de painel muda uma parte da figura; o resto dos pixels é o do quadro anterior. Os
    dados do PNG (as linhas filtradas, como em :func:`png_dos_pixels`) são comprimidos em *faixas* de
    ``linhas_por_faixa`` linhas, cada uma um pedaço independente do fluxo *deflate* (terminado por um
    *full flush*, que zera a memória do compressor): uma faixa igual à do quadro anterior reaproveita
    os bytes comprimidos dela. O PNG é o mesmo, pixel a pixel, que o de :func:`png_dos_pixels` (um
    pouco maior: cada faixa começa sem memória).
    """

    def __init__(self, linhas_por_faixa: int = 24):
        if linhas_por_faixa < 1:
            raise ValueError(f"linhas_por_faixa precisa ser ≥ 1; recebi {linhas_por_faixa}.")
        self.linhas_por_faixa = linhas_por_faixa
        self._cabecalho = b""
        self._faixas: list[tuple[bytes, bytes]] = []  # (linhas filtradas, os mesmos bytes comprimidos)
        self.comprimidas = 0  # quantas faixas o último PNG comprimiu (as outras foram reaproveitadas)

    def png(self, rgba: np.ndarray) -> bytes:
        """Os bytes PNG de ``rgba`` ``(altura, largura, 4)`` uint8."""
        filtrado, cabecalho = _filtrar(rgba)
        if cabecalho != self._cabecalho:  # outro tamanho ou outros canais: nada a reaproveitar
            self._cabecalho, self._faixas = cabecalho, []
        partes = [b"\x78\x01"]  # o cabeçalho zlib (deflate, janela de 32 KiB, nível rápido)
        faixas = []
        self.comprimidas = 0
        for k, inicio in enumerate(range(0, filtrado.shape[0], self.linhas_por_faixa)):
            cru = filtrado[inicio:inicio + self.linhas_por_faixa].tobytes()
            if k < len(self._faixas) and self._faixas[k][0] == cru:
                comprimido = self._faixas[k][1]
            else:
                compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
                comprimido = compressor.compress(cru) + compressor.flush(zlib.Z_FULL_FLUSH)
                self.comprimidas += 1
            faixas.append((cru, comprimido))
            partes.append(comprimido)
        self._faixas = faixas
        partes.append(b"\x03\x00")  # o último bloco deflate (vazio, marcado como final)
        partes.append(struct.pack(">I", zlib.adler32(filtrado)))
        return _montar_png(cabecalho, b"".join(partes))


def _bloco_png(tipo: bytes, dados: bytes) -> bytes:
    return struct.pack(">I", len(dados)) + tipo + dados + struct.pack(">I", zlib.crc32(tipo + dados))


def altura_do_rotulo(ax: Axes, topo: float, linha: float, folga: float, tamanho_pt: float) -> float:
    """Onde pôr (``va="bottom"``) o número escrito em cima de uma barra de altura ``topo``.

    Normalmente logo acima da barra (``topo + folga``). Se a linha horizontal ``y = linha`` (o peso
    uniforme, tracejado) fosse cortar o texto, o número sobe para logo acima dela. A altura do texto
    em unidades de dados sai do tamanho da fonte e da altura do eixo em pixels (sem desenhar nada).
    """
    y = topo + folga
    if topo >= linha:
        return y
    altura_px = ax.get_position().height * ax.figure.get_figheight() * ax.figure.dpi
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
