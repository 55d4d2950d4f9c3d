"""Onde um artista do matplotlib pinta e o que mudou nele: as caixas e as impressões do redesenho parcial.

O :mod:`helpers._redesenho` decide o que redesenhar a cada movimento de um painel; este módulo responde
às perguntas de geometria e de estado que essa decisão faz:

- **onde pinta** — :func:`_caixa` dá uma caixa (px) que contém todo pixel que um artista pinta, com
  folga para o antisserrilhado; :func:`_recorte`, :func:`_cruzam` e :func:`_contem` são as contas de caixas;
- **o que mudou** — :func:`_impressao` tira uma impressão do estado de um artista (atributo por
  atributo); duas impressões iguais querem dizer o mesmo desenho. Ela existe porque a marca ``stale``
  do matplotlib diz "alguém chamou um ``set_*``", não "a imagem mudou" (``set_color`` com a mesma cor marca);
- **onde mudou** — :func:`_caixa_das_celulas` acha, numa imagem (``imshow``) em que só os dados
  mudaram, as células diferentes; :func:`_juntar` tira as regiões que cabem em outras e :func:`_fatia`
  as vira em fatias do buffer de pixels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axis import Axis
from matplotlib.collections import Collection
from matplotlib.colors import Normalize
from matplotlib.font_manager import FontProperties
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.path import Path
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Affine2D, Bbox

#: folga (px) em volta das caixas: o antisserrilhado pinta um pixel além do contorno (mais meia espessura de linha)
_FOLGA_PX = 1.5


def _espessura_px(artista: Artist, dpi: float) -> float:
    try:
        lw = artista.get_linewidth()
    except AttributeError:
        return 0.0
    lw = float(np.max(lw)) if np.size(lw) else 0.0
    return lw * dpi / 72.0


def _recorte(artista: Artist) -> Bbox | None:
    """A caixa (px) a que o artista está recortado, ou ``None``."""
    if not artista.get_clip_on():
        return None
    caixa = artista.get_clip_box()
    return None if caixa is None else Bbox(caixa.get_points().copy())


def _caixa(artista: Artist, renderer: Any, figura: Bbox) -> Bbox:
    """Uma caixa (px) que contém todo pixel que ``artista`` pinta (com folga); na dúvida, a figura."""
    recorte = _recorte(artista)
    if isinstance(artista, Collection):  # a extensão das coleções não é confiável: usa o recorte
        caixa = recorte if recorte is not None else figura
        return caixa.padded(_FOLGA_PX)
    if isinstance(artista, Axis):  # marcas, rótulos e a grade, que cobre o eixo inteiro
        caixa = artista.get_tightbbox(renderer)
        caixas = [artista.axes.bbox] + ([caixa] if caixa is not None else [])
        return Bbox.union(caixas).padded(_FOLGA_PX + 2.0)
    if type(artista).get_window_extent is Artist.get_window_extent:  # não sabe a própria caixa
        return figura
    try:
        caixa = artista.get_window_extent(renderer)
        if isinstance(artista, Text) and artista.get_bbox_patch() is not None:
            artista.update_bbox_position_size(renderer)
            caixa = Bbox.union([caixa, artista.get_bbox_patch().get_window_extent(renderer)])
        if isinstance(artista, Annotation) and artista.arrow_patch is not None:
            caixa = Bbox.union([caixa, artista.arrow_patch.get_window_extent(renderer)])
    except Exception:
        return figura
    pontos = caixa.get_points()
    if not np.all(np.isfinite(pontos)):
        return figura
    folga = _FOLGA_PX + _espessura_px(artista, renderer.dpi) / 2
    if isinstance(artista, Annotation) and artista.arrow_patch is not None:
        folga += _espessura_px(artista.arrow_patch, renderer.dpi) / 2
    caixa = Bbox(pontos.copy()).padded(folga)
    if recorte is not None:
        dentro = Bbox.intersection(caixa, recorte.padded(1.0))
        caixa = dentro if dentro is not None else Bbox([[0, 0], [0, 0]])
    return caixa


def _folga_da_seta(artista: Artist, dpi: float) -> float:
    """Quanto a seta de uma anotação pinta além da reta entre as pontas (a cabeça se abre para os lados)."""
    seta = artista.arrow_patch if isinstance(artista, Annotation) else None
    if seta is None:
        return 0.0
    return 0.6 * seta.get_mutation_scale() * dpi / 72.0 + _espessura_px(seta, dpi) / 2


def _cruzam(a: Bbox | None, b: Bbox | None) -> bool:
    if a is None or b is None:
        return True
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _contem(fora: Bbox, dentro: Bbox) -> bool:
    return (fora.x0 <= dentro.x0 and fora.y0 <= dentro.y0 and fora.x1 >= dentro.x1 and fora.y1 >= dentro.y1)


def _descendentes(artista: Artist) -> list[Artist]:
    """O artista e tudo o que ele desenha (inclusive a seta de uma anotação e a caixa de um texto)."""
    todos = artista.findobj(include_self=True)
    for a in list(todos):
        if isinstance(a, Annotation) and a.arrow_patch is not None:
            todos.append(a.arrow_patch)
        if isinstance(a, Text) and a.get_bbox_patch() is not None:
            todos.append(a.get_bbox_patch())
    return todos


def _posicao_anotacao(a: Artist) -> Any:
    if isinstance(a, Annotation):
        return (tuple(np.ravel(a.xy)), tuple(np.ravel(a.xyann)))
    return None


class _Mesmo:
    """Um objeto guardado numa impressão: igual só a ele mesmo (e mantido vivo, para que o seu ``id`` não
    seja reaproveitado por um objeto novo enquanto a impressão existe)."""

    __slots__ = ("objeto",)

    def __init__(self, objeto: Any):
        self.objeto = objeto

    def __eq__(self, outro: object) -> bool:
        return isinstance(outro, _Mesmo) and outro.objeto is self.objeto

    __hash__ = None  # type: ignore[assignment]


#: atributos que o próprio desenho reescreve (memórias de imagem): ficam fora da impressão
_VOLATEIS = frozenset({"_stale", "stale_callback", "_imcache", "_rgbacache", "_callbacks", "_renderer"})
#: numa linha, o caminho é refeito a partir de ``_xorig`` e ``_yorig`` (que ficam na impressão)
_VOLATEIS_DA_LINHA = _VOLATEIS | {"_invalidx", "_invalidy", "_xy", "_x", "_y", "_path", "_transformed_path",
                                  "_subslice", "_x_filled"}


#: tipos que entram na impressão como estão
_SIMPLES = frozenset({type(None), bool, int, float, str})


def _impressao_valor(v: Any, profundidade: int = 0) -> Any:
    """Um valor comparável que muda quando ``v`` muda: números e textos por valor, arrays pelos bytes,
    listas, tuplas e dicionários por dentro; a fonte e a normalização pelo que elas valem agora (o
    matplotlib as muda no lugar); o resto pela identidade."""
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
        return v
    if isinstance(v, np.ndarray):
        if isinstance(v, np.ma.MaskedArray):
            return ("ma", v.shape, v.dtype.str, np.ma.getdata(v).tobytes(), np.ma.getmaskarray(v).tobytes())
        if v.dtype == object:
            return ("obj", tuple(_impressao_valor(x, profundidade + 1) for x in v.ravel()))
        return ("nd", v.shape, v.dtype.str, v.tobytes())
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, FontProperties):
        return ("fonte", hash(v))
    if isinstance(v, Normalize):
        return ("norma", type(v), _impressao_valor(v.vmin), _impressao_valor(v.vmax), v.clip)
    if isinstance(v, Path):
        return ("path", _impressao_valor(v.vertices), _impressao_valor(v.codes))
    if profundidade < 3 and isinstance(v, (tuple, list)):
        return (type(v), tuple(_impressao_valor(x, profundidade + 1) for x in v))
    if profundidade < 3 and isinstance(v, dict):
        return (dict, tuple((k, _impressao_valor(x, profundidade + 1)) for k, x in v.items()))
    return _Mesmo(v)


def _impressao(artistas: list[Artist]) -> tuple:
    """O estado de ``artistas`` (um dono e o que ele desenha), atributo por atributo.

    Duas impressões iguais querem dizer o mesmo desenho: um ``set_*`` grava o novo valor num atributo
    (e a marca ``stale`` sozinha não basta, porque ``set_color`` marca mesmo com a cor de antes).
    Um atributo que o desenho reescreve só pode dar uma diferença a mais — um redesenho a mais, nunca
    um a menos."""
    impressoes = []
    for a in artistas:
        volateis = _VOLATEIS_DA_LINHA if isinstance(a, Line2D) else _VOLATEIS
        atributos = [(k, v) for k, v in a.__dict__.items() if k not in volateis]
        impressoes.append((tuple(k for k, _v in atributos),) + tuple(
            v if type(v) in _SIMPLES else _impressao_valor(v) for _k, v in atributos))
    return tuple(impressoes)


def _imagem_com_vizinhos_independentes(img: AxesImage, transformacao: Any, linhas: int, colunas: int) -> bool:
    """Cada pixel da imagem na tela vem de uma célula só (o vizinho mais próximo, sem filtro que misture
    células vizinhas)? É a regra do próprio matplotlib (``image._resample``) para a interpolação padrão."""
    interpolacao = img.get_interpolation()
    if interpolacao in ("nearest", "none"):
        return True
    if interpolacao not in ("antialiased", "auto"):
        return False
    tela = np.abs(np.diff(transformacao.transform(np.array([[0.0, 0.0], [colunas, linhas]])), axis=0))[0]
    largura, altura = tela
    return ((largura > 3 * colunas or largura in (colunas, 2 * colunas))
            and (altura > 3 * linhas or altura in (linhas, 2 * linhas)))


def _caixa_das_celulas(img: AxesImage, antes: tuple, agora: tuple) -> Bbox | None:
    """Onde uma imagem (``imshow``) muda, se só os dados mudaram: a caixa (px) das células diferentes.

    ``antes``/``agora``: as impressões da imagem. ``None`` quando não dá para saber por células (outra
    coisa mudou, a forma mudou, a transformação gira, a interpolação mistura vizinhas): aí vale o
    território inteiro. Cada célula cobre um retângulo do ``extent``; com vizinho mais próximo, um pixel
    só muda se a célula dele mudou (mais o arredondamento da borda: folga de 2 px)."""
    chaves = antes[0]
    if chaves != agora[0] or "_A" not in chaves:
        return None
    i = chaves.index("_A") + 1
    if antes[:i] + antes[i + 1:] != agora[:i] + agora[i + 1:]:
        return None
    velho, novo = antes[i], agora[i]
    if not (isinstance(velho, tuple) and isinstance(novo, tuple) and velho[0] == novo[0] and velho[0] in ("nd", "ma")
            and velho[1:3] == novo[1:3] and len(velho[1]) in (2, 3)):
        return None
    forma, tipo = novo[1], np.dtype(novo[2])
    a, b = (np.frombuffer(x[3], dtype=tipo).reshape(forma) for x in (velho, novo))
    diferentes = ~((a == b) | (np.isnan(a) & np.isnan(b))) if tipo.kind == "f" else (a != b)
    if velho[0] == "ma":  # a máscara (os valores inválidos) também decide o pixel
        diferentes |= np.frombuffer(velho[4], dtype=bool).reshape(forma) != np.frombuffer(novo[4], dtype=bool).reshape(forma)
    if diferentes.ndim == 3:
        diferentes = diferentes.any(axis=2)
    if not diferentes.any():
        return Bbox([[0, 0], [0, 0]])
    linhas, colunas = forma[0], forma[1]
    transformacao = img.get_transform()
    if not transformacao.is_affine:
        return None
    matriz = transformacao.get_matrix()
    if matriz[0, 1] != 0 or matriz[1, 0] != 0:
        return None
    esquerda, direita, baixo, topo = img.get_extent()
    # de (coluna, linha) do array para coordenadas de dados
    y0, dy = (topo, (baixo - topo) / linhas) if img.origin == "upper" else (baixo, (topo - baixo) / linhas)
    x0, dx = esquerda, (direita - esquerda) / colunas
    celula_na_tela = Affine2D().scale(dx, dy).translate(x0, y0) + transformacao
    if not _imagem_com_vizinhos_independentes(img, celula_na_tela, linhas, colunas):
        return None
    onde_l, onde_c = np.nonzero(diferentes)
    cantos = celula_na_tela.transform(np.array([[onde_c.min(), onde_l.min()], [onde_c.max() + 1, onde_l.max() + 1]],
                                               dtype=float))
    caixa = Bbox([cantos.min(axis=0), cantos.max(axis=0)]).padded(2.0)
    return caixa if np.all(np.isfinite(caixa.get_points())) else None


def _juntar(caixas: list[Bbox]) -> list[Bbox]:
    """As regiões danificadas sem as que cabem inteiras dentro de outra (as que só se cruzam ficam as duas:
    juntá-las na caixa que contém as duas danificaria também o canto vazio entre elas)."""
    if len(caixas) < 2:
        return list(caixas)
    c = np.array([(b.x0, b.y0, b.x1, b.y1) for b in caixas], dtype=float)
    dentro = ((c[None, :, 0] <= c[:, None, 0]) & (c[None, :, 1] <= c[:, None, 1])
              & (c[None, :, 2] >= c[:, None, 2]) & (c[None, :, 3] >= c[:, None, 3]))  # [i, j]: i cabe em j
    iguais = (c[None, :, :] == c[:, None, :]).all(axis=2)
    np.fill_diagonal(dentro, False)
    # de duas caixas iguais, fica a primeira; uma caixa dentro de outra maior sai
    sai = (dentro & ~iguais).any(axis=1) | (np.triu(iguais, 1).T).any(axis=1)
    return [b for b, s in zip(caixas, sai, strict=True) if not s]


def _fatia(caixa: Bbox, altura: int, largura: int) -> tuple[slice, slice] | None:
    """As linhas e colunas do buffer (a linha 0 em cima) que cobrem ``caixa`` (px, y para cima), arredondadas para fora."""
    x0, x1 = max(0, int(np.floor(caixa.x0))), min(largura, int(np.ceil(caixa.x1)))
    l0, l1 = max(0, altura - int(np.ceil(caixa.y1))), min(altura, altura - int(np.floor(caixa.y0)))
    if x0 >= x1 or l0 >= l1:
        return None
    return slice(l0, l1), slice(x0, x1)
