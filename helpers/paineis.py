"""A base dos painéis interativos (ipywidgets): :class:`Painel` e os controles.

Todo painel é um :class:`Painel`: controles (sliders, caixas) à esquerda, a figura à direita e,
embaixo, um texto com os números do momento. Mover um controle chama ``atualizar``, que refaz as
contas (com o núcleo, :mod:`helpers.attention`), muda os artistas da figura no lugar e renderiza um
PNG para um widget ``Image``. Isso funciona igual no JupyterLab, no Voilà e em testes sem navegador:
``painel.controles["angulo_q"].value = 90`` atualiza ``painel.estado`` e ``painel.texto.value``.

A figura é redesenhada só no que muda (:mod:`helpers._redesenho`): o painel descobre sozinho quais
artistas as contas mudam e, a cada movimento, redesenha esses e o que fica por cima deles sobre um
fundo guardado — a mesma imagem, pixel a pixel, do desenho completo, em uma fração do tempo. Quem
escreve um painel só precisa mudar os artistas pelos métodos ``set_*`` (ou ``xy`` de uma anotação).

Cada painel também deixa uma figura estática do seu estado inicial (``painel.figura_estatica()``),
para que o notebook se leia bem no GitHub, num PDF e no nbval. Os painéis de cada notebook moram na
lição dele (:mod:`helpers.licoes`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as W
from IPython.display import Image
from matplotlib.figure import Figure

from . import plots
from ._redesenho import Redesenho


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
    ):
        self.fig = fig
        self.controles = dict(controles)
        self._calcular = calcular
        self._redesenho = Redesenho(fig)
        self._png = plots.CodificadorPng()  # só comprime de novo as faixas da imagem que mudaram
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
        # as contas de novo, com os mesmos valores: o que elas mudam é o que se redesenha a cada
        # movimento; o fundo (o resto) fica pronto já, e o primeiro movimento é tão rápido quanto os outros
        self._redesenho.aprender(lambda: self._calcular(self.valores()))
        self._redesenho.desenhar()

    def valores(self) -> dict[str, Any]:
        """O valor atual de cada controle."""
        return {nome: c.value for nome, c in self.controles.items()}

    def _ao_mudar(self, _mudanca: Any) -> None:
        self.atualizar()

    def atualizar(self) -> dict[str, Any]:
        """Recalcula, redesenha e devolve o novo estado (também guardado em ``self.estado``)."""
        inicio = time.perf_counter()
        estado = self._calcular(self.valores())
        self.texto.value = estado.get("html", "")
        self._redesenho.desenhar()
        self.imagem.value = self._png.png(self._redesenho.pixels())
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

    def figura_estatica(self) -> Image:
        """A figura do estado atual como imagem estática (para o GitHub, PDF e nbval)."""
        return Image(data=self.imagem.value, format="png")


def tabela(linhas: list[tuple[str, str]]) -> str:
    corpo = "".join(f"<tr><td style='padding-right:1em'>{a}</td><td><b>{b}</b></td></tr>" for a, b in linhas)
    return f"<table style='font-size:1.15em'>{corpo}</table>"

