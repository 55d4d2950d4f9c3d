"""A base dos painéis interativos (ipywidgets): :class:`Painel` e os controles.

Todo painel é um :class:`Painel`: controles (sliders, caixas) à esquerda, a figura à direita e,
embaixo, os números do momento em HTML (uma tabela que se pode copiar e que um leitor de tela lê).
Mover um controle chama ``atualizar``, que refaz as contas (com o núcleo, :mod:`helpers.attention`),
muda os artistas da figura no lugar e renderiza um PNG para um widget ``Image``. Isso funciona igual
no JupyterLab, no Voilà e em testes sem navegador: ``painel.controles["angulo_q"].value = 90``
atualiza ``painel.estado`` e ``painel.texto.value``.

A figura carrega os gráficos; os números que o estudante lê vão para o HTML (``"html"`` no estado),
que custa quase nada para atualizar. Para desenhar, o painel usa o *blitting* do matplotlib, só com
a API pública (o mesmo idioma do guia de animação dele): os artistas que mudam a cada movimento,
passados em ``animados``, ficam ``set_animated(True)``; o resto da figura é desenhado uma vez e
guardado (``canvas.copy_from_bbox``); a cada movimento, o fundo volta (``restore_region``) e só os
animados são desenhados por cima (``fig.draw_artist``), na ordem de ``zorder``. Se algo fora dos
animados muda (limites de um eixo, um título, um artista novo), o matplotlib marca a figura como
``stale`` e o painel a desenha inteira de novo, refazendo o fundo. Sem ``animados``, todo movimento
é um desenho completo. Os animados ficam por cima do resto (da grade, de textos fixos).

Alguns artistas mudam só com alguns controles (um mapa de pesos com ~50 números, que muda com as máscaras
mas não com a query em destaque). Passados em ``lentos``, eles também são animados, desenhados antes dos
``animados`` e guardados numa segunda cópia: enquanto nenhum deles muda (o matplotlib marca um artista
como ``stale`` quando um ``set_*`` o altera), o movimento restaura essa cópia e desenha só os ``animados``.

Cada painel também deixa uma versão estática do seu estado inicial (``painel.figura_estatica()``): a
figura e, embaixo dela, as mesmas tabelas de números, para que o notebook se leia bem no GitHub, num PDF
e no nbval (que confere os números). Os painéis de cada notebook moram na lição dele (:mod:`helpers.licoes`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import ipywidgets as W
import numpy as np
from IPython.display import HTML, Image, display
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import plots


def casas_do_passo(passo: float) -> int:
    """Quantas casas decimais um valor de passo ``passo`` precisa (5 → 0, 0.1 → 1, 0.25 → 2; no máximo 6)."""
    for casas in range(7):
        if abs(round(passo, casas) - passo) <= 1e-9 * max(1.0, abs(passo)):
            return casas
    return 6


def slider(descricao: str, valor: float, minimo: float, maximo: float, passo: float = 0.1, **kw: Any) -> W.FloatSlider:
    """Um ``FloatSlider`` com a descrição inteira visível, atualização contínua e o valor mostrado com as casas
    do passo (um ângulo de 5 em 5 graus mostra ``165``, não ``165.00``)."""
    opcoes = dict(
        value=valor, min=minimo, max=maximo, step=passo, description=descricao, continuous_update=True,
        style={"description_width": "initial"}, layout=W.Layout(width="320px"),
        readout_format=f".{casas_do_passo(passo)}f",
    )
    opcoes.update(kw)
    return W.FloatSlider(**opcoes)


#: a largura mínima da coluna de controles (px) e quanto ela pode crescer no espaço que sobra na linha
COLUNA_MINIMA_PX = 330
COLUNA_CRESCE_PX = 160
_SLIDERS = (W.FloatSlider, W.IntSlider, W.FloatLogSlider, W.SelectionSlider)


def _largura_px(controle: W.Widget) -> float | None:
    largura = getattr(controle.layout, "width", None) or ""
    return float(largura[:-2]) if largura.endswith("px") else None


def _layout_da_coluna(controles: Any) -> W.Layout:
    """A coluna de controles: tão larga quanto o controle mais largo; na quebra de linha, a figura vai para o
    lado ou para baixo como se ela tivesse essa largura, e depois ela cresce (até ``COLUNA_CRESCE_PX``) no espaço
    que sobra na linha — e os sliders de largura fixa crescem com ela: o trilho fica mais longo, mais fácil de
    arrastar, sem que a figura mude de lugar na quebra.
    """
    controles = list(controles)
    base = max([COLUNA_MINIMA_PX] + [largura + 10 for c in controles if (largura := _largura_px(c)) is not None])
    for c in controles:
        if isinstance(c, _SLIDERS) and _largura_px(c) is not None:
            c.layout = W.Layout(width="100%")
    return W.Layout(flex=f"1 1 {base:.0f}px", min_width=f"{base:.0f}px", max_width=f"{base + COLUNA_CRESCE_PX:.0f}px")


class Painel(W.VBox):
    """Controles + figura (PNG) + números, ligados por uma função de atualização.

    Parâmetros
    ----------
    fig : a ``Figure`` que o painel mostra (criada fora do pyplot).
    controles : nome → widget com ``.value`` (a ordem é a ordem na tela).
    calcular : recebe ``{nome: valor}`` dos controles, atualiza a figura e devolve o estado:
        um dicionário de números que o painel mostra. A chave ``"html"``, se houver, é o texto
        mostrado embaixo da figura.
    titulo : uma linha em negrito acima do painel.
    animados : os artistas que ``calcular`` muda a cada movimento (linhas, barras, setas, imagens): só eles
        são redesenhados, sobre o fundo guardado. Mude-os pelos métodos ``set_*`` do matplotlib.
    lentos : artistas que só alguns movimentos mudam (desenhados sob os ``animados`` e guardados até um deles
        mudar). Mude-os só quando o valor muda: ``set_data`` e ``set_color`` marcam o artista mesmo com o
        mesmo valor (``set_text`` com o mesmo texto, não).

    ``completos`` e ``blits`` contam os desenhos de cada tipo (para testes e benchmarks).
    """

    def __repr__(self) -> str:
        # o texto que uma página sem kernel (GitHub, PDF, o arquivo aberto antes de rodar) mostra no lugar do painel
        return "[painel interativo: rode a célula para mexer nele; sem rodar, veja a figura estática logo abaixo]"

    def __init__(
        self,
        fig: Figure,
        controles: Mapping[str, W.ValueWidget],
        calcular: Callable[[dict[str, Any]], dict[str, Any]],
        titulo: str = "",
        animados: Iterable[Artist] = (),
        lentos: Iterable[Artist] = (),
    ):
        self.fig = fig
        self.canvas = FigureCanvasAgg(fig)  # o canvas fica com a figura: o matplotlib guarda nele o que já mediu
        self.lentos = sorted(lentos, key=lambda a: a.get_zorder())  # a ordem do desenho completo
        self.animados = sorted(animados, key=lambda a: a.get_zorder())
        for artista in self.lentos + self.animados:
            artista.set_animated(True)
        self._fundo: Any = None  # a figura sem os animados, guardada depois de um desenho completo
        self._com_lentos: Any = None  # o fundo com os lentos por cima
        self.completos = 0
        self.blits = 0
        self.controles = dict(controles)
        self._calcular = calcular
        self.imagem = W.Image(format="png", layout=W.Layout(max_width="100%"))
        self.texto = W.HTML()
        self.estado: dict[str, Any] = {}
        self.ultimo_tempo_ms = 0.0
        cabecalho = [W.HTML(f"<b>{titulo}</b>")] if titulo else []
        coluna = W.VBox(list(self.controles.values()), layout=_layout_da_coluna(self.controles.values()))
        super().__init__(cabecalho + [W.HBox([coluna, self.imagem], layout=W.Layout(flex_flow="row wrap")), self.texto])
        for controle in self.controles.values():
            controle.observe(self._ao_mudar, names="value")
        self.atualizar()

    def valores(self) -> dict[str, Any]:
        """O valor atual de cada controle."""
        return {nome: c.value for nome, c in self.controles.items()}

    def _ao_mudar(self, _mudanca: Any) -> None:
        self.atualizar()

    def desenhar(self) -> None:
        """Desenha a figura no canvas: só os animados sobre o fundo guardado (*blit*) quando nada mais mudou;
        senão, a figura inteira (o matplotlib pula os animados), guarda o fundo e põe os animados por cima.
        Os ``lentos`` são redesenhados sobre o fundo só quando um deles mudou."""
        if self._fundo is not None and not self.fig.stale:
            mudou_lento = self._com_lentos is None or any(a.stale for a in self.lentos)
            self.canvas.restore_region(self._fundo if mudou_lento else self._com_lentos)
            if self.lentos and mudou_lento:
                self._desenhar_lentos()
            self.blits += 1
        else:
            self.canvas.draw()
            self._fundo = self.canvas.copy_from_bbox(self.fig.bbox) if self.animados or self.lentos else None
            if self.lentos:
                self._desenhar_lentos()
            self.completos += 1
        self._desenhar_por_cima(self.animados)

    def _desenhar_lentos(self) -> None:
        """Os lentos sobre o fundo já restaurado, e a cópia do resultado. Depois, todos ficam marcados como em
        dia: um artista que não se desenha (um texto vazio, um invisível) não desmarca a si mesmo."""
        self._desenhar_por_cima(self.lentos)
        self._com_lentos = self.canvas.copy_from_bbox(self.fig.bbox)
        for artista in self.lentos:
            artista.stale = False

    def _desenhar_por_cima(self, artistas: list[Artist]) -> None:
        for artista in artistas:
            if artista.get_visible() and (artista.axes is None or artista.axes.get_visible()):
                self.fig.draw_artist(artista)

    def atualizar(self) -> dict[str, Any]:
        """Recalcula, redesenha e devolve o novo estado (também guardado em ``self.estado``)."""
        inicio = time.perf_counter()
        estado = self._calcular(self.valores())
        self.texto.value = estado.get("html", "")
        self.desenhar()
        self.imagem.value = plots.png_do_canvas(self.canvas)
        self.estado = estado
        self.ultimo_tempo_ms = (time.perf_counter() - inicio) * 1000
        return estado

    def definir(self, **valores: Any) -> dict[str, Any]:
        """Muda vários controles de uma vez (uma única atualização) e devolve o estado."""
        for c in self.controles.values():
            c.unobserve(self._ao_mudar, names="value")
        try:
            for nome, valor in valores.items():
                if nome not in self.controles:
                    raise ValueError(f"o painel não tem o controle {nome!r}; os controles são {list(self.controles)}.")
                self.controles[nome].value = valor
        finally:
            for c in self.controles.values():
                c.observe(self._ao_mudar, names="value")
        return self.atualizar()

    def png_estatico(self) -> bytes:
        """O PNG da figura no estado atual, para a versão estática (um painel pode ajustar a figura para ela)."""
        return bytes(self.imagem.value)

    def figura_estatica(self) -> FiguraEstatica:
        """O estado atual sem kernel: a figura e, embaixo, os números do painel (para o GitHub, PDF e nbval)."""
        return FiguraEstatica(self.png_estatico(), self.texto.value)


class FiguraEstatica:
    """A versão estática de um painel: ``data``, o PNG da figura, e ``html``, as tabelas de números que o painel
    mostra embaixo dela. Numa célula, aparece como duas saídas, a imagem e depois o HTML."""

    def __init__(self, data: bytes, html: str = ""):
        self.data = data
        self.html = html

    def _ipython_display_(self) -> None:
        display(Image(data=self.data, format="png"))
        if self.html:
            display(HTML(self.html))


def polar(angulo_graus: float, comprimento: float) -> np.ndarray:
    """O vetor ``(2,)`` de ``comprimento`` que faz ``angulo_graus`` com o eixo x."""
    a = math.radians(angulo_graus)
    return np.array([comprimento * math.cos(a), comprimento * math.sin(a)])


def sliders_polares(angulo_q: float, comprimento_q: float, angulo_k: float, comprimento_k: float,
                    mover_k: bool = True) -> dict[str, W.ValueWidget]:
    """Os sliders de ângulo (graus) e comprimento de ``q`` (e de ``k``, com ``mover_k``) dos painéis de setas no plano."""
    controles: dict[str, W.ValueWidget] = {
        "angulo_q": slider("ângulo de q (graus)", angulo_q, -180, 180, 5),
        "comprimento_q": slider("comprimento |q|", comprimento_q, 0, 2.8, 0.1),
    }
    if mover_k:
        controles["angulo_k"] = slider("ângulo de k (graus)", angulo_k, -180, 180, 5)
        controles["comprimento_k"] = slider("comprimento |k|", comprimento_k, 0, 2.8, 0.1)
    return controles


def tabela(linhas: list[tuple[str, str]]) -> str:
    """Pares ``(rótulo, valor)`` como uma tabela HTML de duas colunas (o valor em negrito)."""
    corpo = "".join(f"<tr><td style='padding-right:1em'>{a}</td><td><b>{b}</b></td></tr>" for a, b in linhas)
    return f"<table style='font-size:1.15em'>{corpo}</table>"


def tabela_matriz(titulo: str, M: Any, linhas: list[str], colunas: list[str], casas: int = 2, cor: str = "",
                  proibidas: Any = None, destaque: int | None = None) -> str:
    """A matriz ``M`` ``(len(linhas), len(colunas))`` como uma tabela HTML pequena, com ``titulo`` em cima.
    ``proibidas`` (booleana, da forma de ``M``), se dada, troca o número das células ``True`` por ``×``;
    ``destaque``, o índice de uma linha, a pinta de laranja-claro (a linha que a figura destaca)."""
    estilo = "style='padding:0 0.45em;text-align:right'"
    cab = "<tr><th></th>" + "".join(f"<th {estilo}>{c}</th>" for c in colunas) + "</tr>"
    M = np.asarray(M, dtype=float)
    riscar = np.zeros(M.shape, dtype=bool) if proibidas is None else np.broadcast_to(proibidas, M.shape)

    def numero(x: float, riscada: bool) -> str:
        if riscada:
            return "×"
        texto = f"{x:.{casas}f}"
        return texto[1:] if texto.startswith("-") and float(texto) == 0 else texto  # sem "-0.00"

    def fundo(i: int) -> str:
        return " style='background:rgba(230,159,0,0.25)'" if i == destaque else ""

    corpo = "".join(f"<tr{fundo(i)}><th {estilo}>{nome}</th>"
                    + "".join(f"<td {estilo}>{numero(x, r)}</td>" for x, r in zip(linha, riscada, strict=True)) + "</tr>"
                    for i, (nome, linha, riscada) in enumerate(zip(linhas, M, riscar, strict=True)))
    titulo = f"<b style='color:{cor}'>{titulo}</b>" if cor else f"<b>{titulo}</b>"
    return f"<div style='margin:0 1.2em 0.6em 0'>{titulo}<table>{cab}{corpo}</table></div>"
