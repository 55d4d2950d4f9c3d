"""Redesenho parcial de uma figura do matplotlib, com o mesmo resultado, pixel a pixel, do desenho completo.

Um painel muda poucos artistas por movimento (uma seta, umas barras, uns números), mas redesenhar a
figura inteira refaz também o que não muda: eixos, marcas, rótulos, legendas — e texto é o que mais
custa. A técnica clássica (*blitting*: guardar o fundo e desenhar por cima só o que muda) erra a ordem
de desenho: uma barra que muda fica por cima da grade que deveria cobri-la. Aqui a ordem é respeitada.

Como funciona (:class:`Redesenho`):

1. **quem muda** — depois das contas de um movimento, um artista que o matplotlib marcou como
   ``stale`` (todo ``set_*`` marca; uma anotação que só trocou ``xy`` é comparada à parte) é
   *dinâmico*: ele é redesenhado a cada movimento dali em diante;
2. **a ordem** — a figura vira uma sequência de *unidades* na ordem exata do desenho completo (o
   fundo da figura; para cada eixo, o fundo dele e os filhos por ``zorder``; cada eixo ``Axis`` aberto
   em grade, marcas e rótulos de cada tick). Cada unidade dinâmica tem um *território*: a caixa onde
   ela pode pintar (a área do eixo, se ela é recortada por ele; senão a própria caixa, com folga);
3. **fundo e frente** — percorrendo as unidades na ordem, uma unidade vai para a *frente* se é
   dinâmica ou se pinta onde alguma unidade anterior da frente pode pintar (a grade por cima de uma
   barra que muda, um rótulo fixo por cima de uma seta que anda); as outras formam o *fundo*,
   desenhado uma vez e guardado;
4. **só onde mudou** — a cada movimento, um dinâmico mudou se a *impressão* do seu estado mudou
   (atributo por atributo, :func:`helpers._caixas._impressao`: a marca ``stale`` não basta, porque
   ``set_color`` com a mesma cor também marca). Onde ele mudou fica *danificado*: o território; para
   um texto solto, a caixa de antes e a de agora; para uma imagem de ``imshow`` em que só os dados
   mudaram, as células diferentes. Só nas regiões danificadas o fundo é restaurado e a frente que as
   cruza é redesenhada, na ordem; fora delas, a imagem mostrada é a do movimento anterior, que
   continua certa ali (nada que mudou pinta fora da região);
5. **as garantias** — se algo estrutural muda (limites ou posição de um eixo, artistas criados ou
   removidos, tamanho da figura), se um artista fixo muda (ele passa a dinâmico) ou se um dinâmico
   sai do seu território (que cresce), o movimento é desenhado por inteiro e o fundo é refeito no
   movimento seguinte.

Cada pixel recebe as mesmas unidades, na mesma ordem, que no desenho completo: a imagem é idêntica
(os testes conferem isso para todo painel da coleção). Requisito para quem escreve uma figura: mude
os artistas pelos métodos ``set_*`` (ou ``xy`` de uma anotação), não mexendo em arrays por dentro.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

from ._agg_rapido import CanvasRapido
from ._caixas import (
    _FOLGA_PX,
    _caixa,
    _caixa_das_celulas,
    _contem,
    _cruzam,
    _descendentes,
    _fatia,
    _folga_da_seta,
    _impressao,
    _juntar,
    _posicao_anotacao,
    _recorte,
)


class _XyQueMarca:
    """``xy`` de uma anotação que, ao ser atribuído, marca a anotação como mudada (só durante o aprendizado)."""

    def __get__(self, obj: Any, tipo: Any = None) -> Any:
        if obj is None:
            return self
        return obj.__dict__["xy"]

    def __set__(self, obj: Any, valor: Any) -> None:
        obj.__dict__["xy"] = valor
        obj.stale = True


@contextlib.contextmanager
def _refeito_conta_como_mudado() -> Iterator[None]:
    """Durante o bloco, refazer um texto ou a ponta de uma anotação marca o artista, mesmo sem mudança.

    Ao aprender quem as contas mudam (rodando-as de novo com os mesmos valores), um título refeito
    igual também é dinâmico. O matplotlib só marca um texto quando o conteúdo muda, e não marca uma
    anotação quando só o seu ``xy`` é trocado (é um atributo simples): os dois ganham uma marca aqui.
    """
    from matplotlib.text import _AnnotationBase

    original = Text.set_text

    def set_text(self: Text, s: Any) -> None:
        original(self, s)
        self.stale = True

    Text.set_text = set_text
    _AnnotationBase.xy = _XyQueMarca()
    try:
        yield
    finally:
        Text.set_text = original
        del _AnnotationBase.xy


class _NaoSuportado(Exception):
    """Uma figura que o redesenho parcial não sabe decompor (subfiguras, rasterização por zorder)."""


class _Refazer(Exception):
    """O fundo precisa ser refeito depois de um desenho completo (um estático virou dinâmico)."""


class _Unidade:
    """Um artista desenhado sozinho, na ordem do desenho completo.

    ``dono``: o artista de primeiro nível (filho direto de um eixo ou da figura) a que ele pertence —
    ele mesmo, ou o ``Axis`` de um tick. ``caixa``: onde ele pinta (px), ou ``None`` para "em
    qualquer lugar". ``frente``: redesenhado a cada movimento.
    """

    __slots__ = ("artista", "dono", "caixa", "frente")

    def __init__(self, artista: Artist, dono: Artist):
        self.artista = artista
        self.dono = dono
        self.caixa: Bbox | None = None
        self.frente = False


def _filhos_do_eixo(ax: Axes) -> list[Artist]:
    """Os filhos que ``Axes.draw`` desenha, na ordem dele (sem o fundo do eixo)."""
    filhos = ax.get_children()
    filhos.remove(ax.patch)
    if not (ax.axison and ax.get_frame_on()):
        for spine in ax.spines.values():
            filhos.remove(spine)
    if not ax.axison:
        for eixo in (ax.xaxis, ax.yaxis):
            if eixo in filhos:
                filhos.remove(eixo)
    filhos = sorted((a for a in filhos if not a.get_animated()), key=lambda a: a.get_zorder())
    if ax.get_rasterization_zorder() is not None and filhos and filhos[0].get_zorder() < ax.get_rasterization_zorder():
        raise _NaoSuportado("rasterização por zorder")
    return filhos


def _filhos_da_figura(fig: Figure) -> list[Artist]:
    if fig.subfigs:
        raise _NaoSuportado("subfiguras")
    filhos = fig.get_children()
    filhos.remove(fig.patch)
    return sorted((a for a in filhos if not a.get_animated()), key=lambda a: a.get_zorder())


class Redesenho:
    """Desenha ``fig`` num canvas Agg, por inteiro ou só a frente, e diz quem mudou.

    Uso (o que :class:`helpers.paineis.Painel` faz)::

        r = Redesenho(fig)
        r.desenhar()                 # o primeiro: completo
        r.aprender(refazer_contas)   # as contas de novo: quem elas mudam é dinâmico
        ...                          # a cada movimento: contas, depois
        r.desenhar()                 # completo ou parcial, o que for exato
        rgba = r.pixels()

    ``completos`` e ``parciais`` contam os desenhos de cada tipo e ``motivo`` diz por que o último
    completo foi completo (para testes, benchmarks e para quem escreve uma figura nova).
    """

    def __init__(self, fig: Figure):
        self.fig = fig
        self.canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else CanvasRapido(fig)
        self._dinamicos: set[int] = set()  # os ``id`` dos donos dinâmicos
        self._territorios: dict[int, Bbox] = {}
        self._deslocamentos: dict[Any, np.ndarray] = {}  # caixa de um texto relativa à sua âncora
        self._assinatura: Any = None
        self._fundo: Any = None
        self._frente: list[_Unidade] = []
        self._caixas_frente = np.zeros((0, 4))
        self._livres: list[Artist] = []  # dinâmicos sem recorte: território conferido a cada movimento
        self._estaticos: list[tuple[Artist, list[Artist], Any]] = []
        self._estaticos_na_frente: list[Artist] = []
        # os dinâmicos da frente: (posição na frente, unidade, o que ela desenha, a impressão do estado que
        # está na imagem e, para um texto solto, a caixa onde ele pintou; para os outros, ``None``: o território)
        self._vivos: list[tuple[int, _Unidade, list[Artist], tuple, Bbox | None]] = []
        self._saida: np.ndarray | None = None  # a imagem mostrada (a frente só é certa onde foi redesenhada)
        self._conferir_tudo = False  # depois de um desenho de fora, que apaga as marcas
        self._suportado = True
        self.completos = 0
        self.parciais = 0
        self.motivo = ""  # por que o último desenho completo foi completo
        self.regioes: list[Bbox] = []  # onde o último desenho parcial redesenhou (vazio: nada mudou)

    # --- o que mudou --------------------------------------------------------------------------

    def _assinatura_atual(self) -> Any:
        """Tamanho da figura, limites e posição de cada eixo e quem são os filhos (e seus zorders)."""
        fig = self.fig
        partes: list[Any] = [tuple(fig.bbox.bounds), fig.dpi]

        def eixo(ax: Axes) -> None:
            partes.append((id(ax), ax.get_visible(), ax.axison, ax.get_frame_on(),
                           tuple(ax.get_position(original=True).bounds), tuple(ax.viewLim.bounds),
                           ax.get_xscale(), ax.get_yscale()))
            for a in ax.get_children():
                partes.append((id(a), a.get_zorder(), a.get_animated()))
                if isinstance(a, Axes):
                    eixo(a)

        for a in fig.get_children():
            partes.append((id(a), a.get_zorder(), a.get_animated()))
            if isinstance(a, Axes):
                eixo(a)
        return tuple(partes)

    def _limpar_marcas(self, artistas: list[Artist]) -> None:
        for a in artistas:
            a.stale = False

    def aprender(self, refazer: Callable[[], Any]) -> None:
        """Roda ``refazer`` (as contas de novo, com os mesmos valores) e marca como dinâmico o que ela muda.

        Assim o primeiro movimento de verdade já é parcial. Chame logo depois de um :meth:`desenhar`.
        """
        self._limpar_marcas(_descendentes(self.fig))
        with _refeito_conta_como_mudado():
            refazer()
        for dono in self._donos():
            if any(a.stale for a in _descendentes(dono)):
                self._dinamicos.add(id(dono))
        self._fundo = None

    def _donos(self) -> list[Artist]:
        """Os artistas de primeiro nível: filhos diretos de cada eixo e da figura (sem os eixos)."""
        donos: list[Artist] = []

        def eixo(ax: Axes) -> None:
            for a in ax.get_children():
                if isinstance(a, Axes):
                    eixo(a)
                else:
                    donos.append(a)

        for a in self.fig.get_children():
            if isinstance(a, Axes):
                eixo(a)
            elif a is not self.fig.patch:
                donos.append(a)
        return donos

    # --- as unidades, na ordem do desenho completo ----------------------------------------------

    def _unidades(self) -> list[_Unidade]:
        unidades: list[_Unidade] = []

        def eixo(ax: Axes) -> None:
            if not ax.get_visible():
                return
            filhos = _filhos_do_eixo(ax)
            if ax.axison and ax.get_frame_on():
                unidades.append(_Unidade(ax.patch, ax.patch))
            for a in filhos:
                if isinstance(a, Axes):
                    eixo(a)
                elif isinstance(a, Axis) and id(a) not in self._dinamicos:
                    if not a.get_visible():
                        continue
                    for tick in a._update_ticks():
                        if tick.get_visible():
                            for parte in (tick.gridline, tick.tick1line, tick.tick2line, tick.label1, tick.label2):
                                unidades.append(_Unidade(parte, a))
                    unidades.append(_Unidade(a.label, a))
                    unidades.append(_Unidade(a.offsetText, a))
                else:
                    unidades.append(_Unidade(a, a))

        for a in _filhos_da_figura(self.fig):
            if isinstance(a, Axes):
                eixo(a)
            else:
                unidades.append(_Unidade(a, a))
        return unidades

    def _caixa_livre(self, artista: Artist, renderer: Any, figura: Bbox) -> Bbox | None:
        """A caixa de um dinâmico sem recorte, barata o bastante para conferir a cada movimento.

        Um texto pinta sempre a mesma caixa em volta da sua âncora enquanto o conteúdo, a fonte, o
        alinhamento e a rotação não mudam: a caixa relativa fica guardada. A seta de uma anotação fica
        entre as duas pontas (posições já calculadas pelo desenho), com a largura da cabeça de folga.
        """
        if not artista.get_visible():
            return None
        if not isinstance(artista, Text):
            return _caixa(artista, renderer, figura)
        ancora = np.asarray(artista.get_transform().transform(artista.get_unitless_position()), dtype=float)
        caixa_fundo = artista.get_bbox_patch()
        chave = (type(artista), artista.get_text(), artista.get_fontproperties(), artista.get_horizontalalignment(),
                 artista.get_verticalalignment(), artista.get_rotation(), artista.get_rotation_mode(),
                 getattr(artista, "_linespacing", None), None if caixa_fundo is None else id(caixa_fundo.get_boxstyle()))
        deslocamento = self._deslocamentos.get(chave)
        if deslocamento is None:
            try:
                caixa = Text.get_window_extent(artista, renderer)
                if caixa_fundo is not None:
                    artista.update_bbox_position_size(renderer)
                    caixa = Bbox.union([caixa, caixa_fundo.get_window_extent(renderer)])
            except Exception:
                return figura
            deslocamento = caixa.get_points() - ancora
            self._deslocamentos[chave] = deslocamento
        pontos = [ancora + deslocamento]
        seta = artista.arrow_patch if isinstance(artista, Annotation) else None
        if seta is not None:
            pontas = getattr(seta, "_posA_posB", None)
            if pontas is None:
                return _caixa(artista, renderer, figura)
            folga = _folga_da_seta(artista, renderer.dpi)
            p = np.asarray(pontas, dtype=float)
            pontos.append(np.array([p.min(axis=0) - folga, p.max(axis=0) + folga]))
        todos = np.vstack(pontos)
        if not np.all(np.isfinite(todos)):
            return figura
        return Bbox([todos.min(axis=0) - _FOLGA_PX, todos.max(axis=0) + _FOLGA_PX])

    def _territorio(self, artista: Artist, renderer: Any, figura: Bbox) -> Bbox:
        """Onde um dinâmico pode pintar: a área de recorte; ou a caixa atual com folga (que cresce se ele sair)."""
        recorte = _recorte(artista)
        if recorte is not None and not isinstance(artista, (Legend, Axis)):
            return recorte.padded(1.0)
        if isinstance(artista, Axis):  # rótulos de tick que mudam: a grade do eixo e os rótulos, com folga
            caixa = _caixa(artista, renderer, figura)
            return caixa.padded(24.0 + 0.2 * max(caixa.width, caixa.height))
        caixa = _caixa(artista, renderer, figura) if isinstance(artista, Legend) else \
            self._caixa_livre(artista, renderer, figura)
        if caixa is None:
            caixa = Bbox([[0, 0], [0, 0]])
        # folga para o texto mudar um pouco de tamanho sem sair do território (um número com mais casas)
        largura = caixa.width if isinstance(artista, Text) and not isinstance(artista, Annotation) else 0.0
        margem_x, margem_y = 4.0 + 0.3 * largura, 3.0
        caixas = [Bbox([[caixa.x0 - margem_x, caixa.y0 - margem_y], [caixa.x1 + margem_x, caixa.y1 + margem_y]])]
        antigo = self._territorios.get(id(artista))
        if antigo is not None:
            caixas.append(antigo)
        # o que mora dentro de um eixo (uma seta, o número de uma célula) anda por dentro dele; o que
        # mora fora (um título, um rótulo embaixo do eixo) fica onde está
        # (um rótulo que anda com a ponta de uma seta passa um pouco da borda: a folga é do tamanho dele)
        ax = getattr(artista, "axes", None)
        if ax is not None and ax.bbox.contains(*caixa.get_points().mean(axis=0)):
            caixas.append(ax.bbox.padded(4.0 + max(largura, caixa.height if largura else 0.0)
                                         + _folga_da_seta(artista, renderer.dpi)))
        return Bbox.union(caixas)

    def _montar_fundo(self) -> None:
        """Divide as unidades em fundo e frente, desenha o fundo e guarda uma cópia dele."""
        renderer = self.canvas.get_renderer()
        figura = Bbox(self.fig.bbox.get_points().copy())
        unidades = self._unidades()
        sujos: list[Bbox | None] = []
        self._livres = []
        for u in unidades:
            dinamica = id(u.dono) in self._dinamicos
            if dinamica:
                if u.dono is u.artista:
                    territorio = self._territorio(u.artista, renderer, figura)
                    self._territorios[id(u.artista)] = territorio
                    if (_recorte(u.artista) is None or isinstance(u.artista, Legend)) and \
                            not isinstance(u.artista, Axis):
                        self._livres.append(u.artista)
                    u.caixa = territorio
                else:  # um pedaço de Axis dinâmico não acontece: o Axis dinâmico não é aberto
                    u.caixa = None
                u.frente = True
            else:
                u.caixa = _caixa(u.artista, renderer, figura)
                u.frente = any(_cruzam(u.caixa, s) for s in sujos)
            if u.frente:
                sujos.append(u.caixa)
        # os estáticos e o que conferir neles a cada movimento (marcas stale e a posição das anotações)
        donos_estaticos: dict[int, Artist] = {}
        for u in unidades:
            if id(u.dono) not in self._dinamicos:
                donos_estaticos[id(u.dono)] = u.dono
        self._estaticos = []
        donos_estaticos[id(self.fig.patch)] = self.fig.patch
        for dono in donos_estaticos.values():
            if isinstance(dono, Legend) and getattr(dono, "_loc", None) == 0:  # loc="best": muda de lugar com os dados
                self._dinamicos.add(id(dono))
                raise _Refazer("uma legenda com loc='best' passou a ser dinâmica")
            self._estaticos.append((dono, _descendentes(dono), _posicao_anotacao(dono)))
        # o fundo: a figura só com o que não está na frente
        renderer.clear()
        self.fig.patch.draw(renderer)
        for u in unidades:
            if not u.frente:
                u.artista.draw(renderer)
        self._fundo = self._buffer().copy()
        self._frente = [u for u in unidades if u.frente]
        # as caixas da frente num array (x0, y0, x1, y1), para saber de uma vez quem cruza uma região
        self._caixas_frente = np.array([(-np.inf, -np.inf, np.inf, np.inf) if u.caixa is None else
                                        (u.caixa.x0, u.caixa.y0, u.caixa.x1, u.caixa.y1) for u in self._frente],
                                       dtype=float).reshape(-1, 4)
        for _dono, descendentes, _pos in self._estaticos:
            self._limpar_marcas(descendentes)
        # desenhar uma legenda (ou um texto com caixa) marca partes dela: os estáticos da frente são
        # limpos depois de cada desenho, para que a marca queira dizer "as contas mudaram isto"
        na_frente = {id(u.dono) for u in self._frente}
        self._estaticos_na_frente = [a for dono, descendentes, _pos in self._estaticos if id(dono) in na_frente
                                     for a in descendentes]

    # --- desenhar -------------------------------------------------------------------------------

    def _buffer(self) -> np.ndarray:
        """Os pixels RGBA do canvas, ``(altura, largura, 4)``: uma visão que se pode escrever."""
        return np.asarray(self.canvas.buffer_rgba())

    def _completo(self, motivo: str) -> None:
        self.motivo = motivo
        self.canvas.draw()
        self._saida = self._buffer().copy()
        self._assinatura = self._assinatura_atual()
        self._fundo = None
        # o desenho completo mostra o estado atual: nada está "mudado desde o último desenho" (e o
        # próprio desenho marca alguns artistas, como a posição dos títulos, sem mudar nada)
        self._limpar_marcas(_descendentes(self.fig))
        self.completos += 1

    def desenhar(self) -> None:
        """Desenha o estado atual da figura no canvas: só a frente quando isso dá a mesma imagem."""
        if not self._suportado:
            self._completo("figura que o redesenho parcial não decompõe")
            return
        if self._assinatura is None:
            self._completo("primeiro desenho")
            return
        if self._assinatura_atual() != self._assinatura:
            self._completo("limites, posição ou filhos de um eixo mudaram")
            return
        if self._fundo is None:
            # o fundo vai ser refeito com o estado atual; o que as contas mudaram desde o último
            # desenho completo (que limpou as marcas) passa a ser dinâmico e fica fora dele
            for dono in self._donos():
                if id(dono) not in self._dinamicos and any(a.stale for a in _descendentes(dono)):
                    self._dinamicos.add(id(dono))
        else:
            mudaram = [dono for dono, descendentes, pos in self._estaticos
                       if any(a.stale for a in descendentes) or _posicao_anotacao(dono) != pos]
            if mudaram:
                for dono in mudaram:
                    self._dinamicos.add(id(dono))
                self._completo(f"artistas que eram fixos mudaram: {', '.join(map(str, mudaram[:3]))}")
                return
        renderer = self.canvas.get_renderer()
        figura = Bbox(self.fig.bbox.get_points().copy())
        if self._fundo is None:
            try:
                self._montar_fundo()
            except _Refazer as e:
                self._completo(str(e))
                return
            except _NaoSuportado as e:
                self._suportado = False
                self._completo(str(e))
                return
            for u in self._frente:  # o fundo acabou de ser desenhado no canvas: a frente inteira por cima
                u.artista.draw(renderer)
            self._limpar_marcas(self._estaticos_na_frente)
            self._vivos = []
            for n, u in enumerate(self._frente):
                if id(u.dono) in self._dinamicos and u.dono is u.artista:
                    descendentes = _descendentes(u.artista)
                    pintou = self._pintura(u, renderer, figura)
                    self._vivos.append((n, u, descendentes, _impressao(descendentes), pintou))
                    self._onde_pinta(n, pintou)
                    self._limpar_marcas(descendentes)
            pinturas = {id(u.artista): pintou for _n, u, _d, _i, pintou in self._vivos}
            if self._saiu_do_territorio([(a, pinturas.get(id(a))) for a in self._livres], renderer, figura):
                return
            self._saida = self._buffer().copy()
            self.regioes = [figura]
            self.parciais += 1
            return
        danos, mudados = self._danos(renderer, figura)
        buffer = self._buffer()
        altura, largura = buffer.shape[:2]
        fatias = [f for f in (_fatia(r, altura, largura) for r in _juntar(danos)) if f is not None]
        # a região em px inteiros (arredondada para fora): quem cruza ela é redesenhado
        self.regioes = [Bbox([[cs.start, altura - ls.stop], [cs.stop, altura - ls.start]]) for ls, cs in fatias]
        for linhas, colunas in fatias:
            buffer[linhas, colunas] = self._fundo[linhas, colunas]
        c = self._caixas_frente
        cruza = np.zeros(len(self._frente), dtype=bool)
        for r in self.regioes:  # o mesmo teste de _cruzam, para todas as unidades de uma vez
            cruza |= (c[:, 0] < r.x1) & (r.x0 < c[:, 2]) & (c[:, 1] < r.y1) & (r.y0 < c[:, 3])
        for u in (self._frente[i] for i in np.flatnonzero(cruza)):
            u.artista.draw(renderer)
        self._limpar_marcas(self._estaticos_na_frente)
        if self._saiu_do_territorio([(a, mudados[id(a)]) for a in self._livres if id(a) in mudados], renderer, figura):
            return
        # fora das regiões, o canvas pode ter restos (uma unidade redesenhada pinta além da região): a
        # imagem mostrada só copia as regiões, e fora delas continua a do movimento anterior
        assert self._saida is not None
        for linhas, colunas in fatias:
            self._saida[linhas, colunas] = buffer[linhas, colunas]
        self.parciais += 1

    def _danos(self, renderer: Any, figura: Bbox) -> tuple[list[Bbox], dict[int, Bbox | None]]:
        """As regiões danificadas desde a imagem mostrada (onde algum dinâmico mudou) e, para cada ``id`` de quem
        mudou, onde ele pinta agora (:meth:`_pintura`; ``None`` se não é um texto solto).

        Um dinâmico mudou se a impressão dele mudou; quem não foi marcado (``stale``) desde a imagem mostrada
        nem é conferido — menos as anotações, cujo ``xy`` muda sem marca, e tudo depois de um desenho de
        fora (que apaga marcas). A região é o território dele; para um texto solto, a
        caixa onde ele estava e a onde vai estar; para uma imagem em que só os dados mudaram, as células
        diferentes."""
        danos: list[Bbox] = []
        mudados: dict[int, Bbox | None] = {}
        conferir_tudo, self._conferir_tudo = self._conferir_tudo, False
        for k, (n, u, descendentes, antes, pintou) in enumerate(self._vivos):
            if not (conferir_tudo or isinstance(u.artista, Annotation) or any(a.stale for a in descendentes)):
                continue
            agora = _impressao(descendentes)
            self._limpar_marcas(descendentes)
            if agora == antes:
                continue
            vai_pintar = self._pintura(u, renderer, figura)
            mudados[id(u.artista)] = vai_pintar
            self._vivos[k] = (n, u, descendentes, agora, vai_pintar)
            self._onde_pinta(n, vai_pintar)
            celulas = (_caixa_das_celulas(u.artista, antes[0], agora[0])
                       if isinstance(u.artista, AxesImage) and len(descendentes) == 1 else None)
            if celulas is not None:
                dentro = Bbox.intersection(celulas, u.caixa) if u.caixa is not None else celulas
                danos += [dentro] if dentro is not None and dentro.width > 0 else []
            elif pintou is None or vai_pintar is None:
                danos.append(u.caixa if u.caixa is not None else figura)
            else:
                danos += [c for c in (pintou, vai_pintar) if c.width > 0 and c.height > 0]
        return danos, mudados

    def _onde_pinta(self, n: int, caixa: Bbox | None) -> None:
        """A caixa da unidade ``n`` da frente no teste "quem cruza a região": onde um texto solto pinta agora
        (nenhum lugar, se ele está escondido); para os outros dinâmicos, o território (fica o que está)."""
        if caixa is not None:
            vazia = caixa.width <= 0 or caixa.height <= 0
            self._caixas_frente[n] = (np.inf, np.inf, -np.inf, -np.inf) if vazia else \
                (caixa.x0, caixa.y0, caixa.x1, caixa.y1)

    def _pintura(self, u: _Unidade, renderer: Any, figura: Bbox) -> Bbox | None:
        """Onde um texto solto (sem recorte, sem seta) pinta no estado atual, sem desenhá-lo (uma caixa vazia se
        ele está escondido); ``None`` para os outros dinâmicos, cuja região é o território inteiro."""
        a = u.artista
        if not isinstance(a, Text) or isinstance(a, Annotation) or _recorte(a) is not None:
            return None
        caixa = self._caixa_livre(a, renderer, figura)
        return Bbox([[0, 0], [0, 0]]) if caixa is None else caixa

    def _saiu_do_territorio(self, livres: list[tuple[Artist, Bbox | None]], renderer: Any, figura: Bbox) -> bool:
        """Um dinâmico sem recorte saiu do seu território? Então ele pode ter pintado por cima de um estático
        que deveria cobri-lo: o território cresce, e este movimento é desenhado por inteiro.

        ``livres``: cada artista com a caixa que :meth:`_pintura` já achou para ele (vazia: escondido), ou
        ``None`` para calcular aqui (uma anotação, uma legenda)."""
        for artista, pintura in livres:
            if pintura is None:
                caixa = self._caixa_livre(artista, renderer, figura)
            else:
                caixa = pintura if pintura.width > 0 and pintura.height > 0 else None
            if caixa is not None and not _contem(self._territorios[id(artista)], caixa):
                # quem sai uma vez costuma andar pelo eixo inteiro (e um pouco além dele, como o rótulo na
                # ponta de uma seta): o território passa a cobrir o eixo com uma folga do tamanho do artista
                caixas = [self._territorios[id(artista)], self._territorio(artista, renderer, figura), caixa.padded(12.0)]
                if getattr(artista, "axes", None) is not None:
                    caixas.append(artista.axes.bbox.padded(8.0 + max(caixa.width, caixa.height)))
                self._territorios[id(artista)] = Bbox.union(caixas)
                self._completo(f"{artista} saiu do seu território")
                return True
        return False

    @contextlib.contextmanager
    def desenho_de_fora(self) -> Iterator[None]:
        """Para desenhar a figura por inteiro fora daqui (uma figura estática) sem estragar o redesenho parcial.

        Um desenho completo marca artistas que não mudaram (a posição de um título, os ticks refeitos), e
        um fixo marcado vira dinâmico — redesenhado a cada movimento dali em diante. As marcas que o bloco
        deixa são apagadas; as que já existiam antes dele (uma mudança de verdade) ficam. Quem usa o bloco
        deixa a figura como a encontrou (o que ele esconde, ele mostra de novo no fim)."""
        artistas = _descendentes(self.fig)
        marcados = {id(a) for a in artistas if a.stale}
        try:
            yield
        finally:
            self._limpar_marcas([a for a in _descendentes(self.fig) if id(a) not in marcados])
            self._conferir_tudo = True

    def pixels(self) -> np.ndarray:
        """Os pixels RGBA da imagem mostrada, ``(altura, largura, 4)`` (não copie se não for guardar)."""
        return self._saida if self._saida is not None else self._buffer()

