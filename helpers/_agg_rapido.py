"""Um canvas Agg que lembra o texto já desenhado: os mesmos pixels, com menos trabalho por texto.

Desenhar texto é o que mais custa numa figura de painel, e um painel desenha os mesmos textos
(rótulos, números parecidos) movimento após movimento. Para cada texto, o Agg do matplotlib (3.11)
faz duas coisas caras: a *diagramação* (que glifos, em que posições: ``FT2Font._layout``) e a
*rasterização* de cada glifo pelo FreeType (``FT2Font._render_glyph``), numa posição com frações de
pixel. As duas só dependem de dados que cabem numa chave:

- diagramação: a fonte, o tamanho, o dpi, o texto, a dica (*hinting*), os recursos e a língua;
- glifo: a fonte, o tamanho, o dpi, o glifo, a dica, o modo, a rotação e a **fração** de pixel da
  posição. Deslocar um contorno por um número inteiro de pixels desloca o bitmap do FreeType pelo
  mesmo número, sem mudar nada dentro dele: o bitmap guardado serve em qualquer posição com a mesma
  fração.

:class:`CanvasRapido` usa um renderizador com essas duas memórias (limitadas). Ele só liga a memória
se esta versão do matplotlib desenha texto do jeito acima e se, num teste na primeira vez, o texto
desenhado com a memória sai idêntico, pixel a pixel, ao desenhado sem ela; senão, é o Agg de sempre.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.backends import backend_agg
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

#: quantas diagramações e quantos glifos guardar (os mais antigos saem primeiro)
MAX_DIAGRAMACOES = 4096
MAX_GLIFOS = 16384


class _Memoria(OrderedDict):
    """Um dicionário que esquece os itens mais antigos quando passa de ``maximo``."""

    def __init__(self, maximo: int):
        super().__init__()
        self.maximo = maximo

    def guardar(self, chave: Any, valor: Any) -> Any:
        self[chave] = valor
        if len(self) > self.maximo:
            self.popitem(last=False)
        return valor


_DIAGRAMACOES = _Memoria(MAX_DIAGRAMACOES)
_GLIFOS = _Memoria(MAX_GLIFOS)


def _suportado() -> bool:
    """Esta versão do matplotlib desenha texto com ``_layout`` + ``_render_glyph`` glifo a glifo?"""
    from matplotlib.ft2font import FT2Font

    return (all(hasattr(FT2Font, nome) for nome in ("_layout", "_render_glyph", "_set_transform"))
            and hasattr(RendererAgg, "_draw_text_glyphs_and_boxes") and hasattr(backend_agg, "get_hinting_flag"))


class RendererRapido(RendererAgg):
    """O ``RendererAgg`` com memória de diagramações e de glifos (veja o módulo)."""

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath or not _ligado():
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        font = self._prepare_font(prop)
        recursos = getattr(mtext, "get_fontfeatures", lambda: None)() if mtext is not None else None
        lingua = getattr(mtext, "get_language", lambda: None)() if mtext is not None else None
        size = prop.get_size_in_points()
        dica = backend_agg.get_hinting_flag()
        chave = (font.fname, getattr(font, "face_index", 0), mpl.rcParams["text.hinting_factor"], size, self.dpi,
                 s, dica, None if recursos is None else tuple(recursos), lingua)
        itens = _DIAGRAMACOES.get(chave)
        if itens is None:
            itens = _DIAGRAMACOES.guardar(chave, tuple(
                (item.ft_object, item.glyph_index, item.x, item.y)
                for item in font._layout(s, flags=dica, features=recursos, language=lingua)))
        self._draw_text_glyphs_and_boxes(
            gc, x, y, angle, ((ft, size, glifo, 0, 1, dx, dy) for ft, glifo, dx, dy in itens), [])

    def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
        if boxes or not _ligado():
            return super()._draw_text_glyphs_and_boxes(gc, x, y, angle, glyphs, boxes)
        cos = math.cos(math.radians(angle))
        sin = math.sin(math.radians(angle))
        dica = backend_agg.get_hinting_flag()
        suave = gc.get_antialiased()
        modo = backend_agg.RenderMode.NORMAL if suave else backend_agg.RenderMode.MONO
        rotacao = np.array([[cos, -sin], [sin, cos]])
        altura = int(self.height)
        fator = mpl.rcParams["text.hinting_factor"]
        for font, size, glyph_index, slant, extend, dx, dy in glyphs:
            matriz = (0x10000 * rotacao @ [[extend, extend * slant], [0, 1]]).round().astype(int)
            px = round(0x40 * (x + dx * cos - dy * sin))
            py = round(0x40 * (self.height - y + dx * sin + dy * cos))
            chave = (font.fname, getattr(font, "face_index", 0), fator, size, self.dpi, glyph_index, dica, suave,
                     matriz.tobytes(), px & 63, py & 63)
            glifo = _GLIFOS.get(chave)
            if glifo is None:
                font.set_size(size, self.dpi)
                font._set_transform(matriz, [px & 63, py & 63])
                bitmap = font._render_glyph(glyph_index, dica, modo)
                buffer = np.array(bitmap.buffer, copy=True)
                if not suave:
                    buffer *= 0xff
                glifo = _GLIFOS.guardar(chave, (buffer, bitmap.left, bitmap.top))
            buffer, esquerda, topo = glifo
            topo += py >> 6
            self._renderer.draw_text_image(buffer, esquerda + (px >> 6), altura - topo + buffer.shape[0], 0, gc)


_ESTADO = {"ligado": None}


def _ligado() -> bool:
    """A memória está ligada? (decidido na primeira vez, com o teste de pixels)."""
    if _ESTADO["ligado"] is None:
        _ESTADO["ligado"] = False  # durante o teste, os dois desenhos são sem memória…
        _ESTADO["ligado"] = _suportado() and _confere()
    return bool(_ESTADO["ligado"])


def _confere() -> bool:
    """Desenha os mesmos textos com e sem a memória (duas vezes, em posições com frações diferentes)."""
    from matplotlib.figure import Figure

    def desenhar(com_memoria: bool) -> np.ndarray:
        fig = Figure(figsize=(3, 1.5), dpi=100)
        for i, (x, y, angulo) in enumerate([(0.1, 0.2, 0), (0.3137, 0.5521, 0), (0.52, 0.31, 33), (0.1, 0.8, 90)]):
            fig.text(x, y, f"Ág q·k/√d {i}.5 ≥ 0,1 — wᵢ", rotation=angulo, fontsize=9 + i, color=("k", "C1")[i % 2])
            fig.text(x + 0.0031, y + 0.0047, "mesmo texto de novo", fontsize=9 + i)
        canvas = (CanvasRapido if com_memoria else FigureCanvasAgg)(fig)
        canvas.draw()
        if com_memoria:  # a segunda vez usa o que ficou guardado
            canvas.draw()
        return np.asarray(canvas.buffer_rgba()).copy()

    try:
        sem = desenhar(False)
        _ESTADO["ligado"] = True
        com = desenhar(True)
    except Exception:
        return False
    finally:
        _ESTADO["ligado"] = False
    return bool(sem.shape == com.shape and (sem == com).all())


class CanvasRapido(FigureCanvasAgg):
    """``FigureCanvasAgg`` com :class:`RendererRapido` (os mesmos pixels, texto mais barato)."""

    def get_renderer(self):
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key or not isinstance(getattr(self, "renderer", None), RendererRapido):
            self.renderer = RendererRapido(w, h, self.figure.dpi)
            self._lastKey = key
        return self.renderer
