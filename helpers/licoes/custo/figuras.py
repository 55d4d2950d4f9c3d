"""Notebook ``custo_quadratico``: as figuras — o tempo medido da atenção exata contra a reta de inclinação 2,
os pesos de uma query na softmax e na atenção linear, e a figura do painel de custo (o padrão de pares
``(query, key)`` que cada método calcula e as curvas log-log de operações e de memória).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from ...formato import decimal, subscrito
from ...plots import CORES, MAPA
from .medidas import marcas_em_ms

__all__ = ["ESTILO_METODOS", "NOMES_METODOS", "FiguraCusto", "desenhar_pesos", "desenhar_tempos"]


def desenhar_tempos(ax: Axes, ns: ArrayLike, tempos: ArrayLike, inclinacao: float) -> None:
    """Os ``tempos`` medidos (em segundos) da atenção exata para cada ``n`` de ``ns``, em milissegundos, num
    log-log de base 2, com a reta de inclinação 2 que passa pelo último ponto e marcas de ×4 no eixo y; o título
    traz a ``inclinacao`` ajustada, com vírgula decimal.
    Uso: ``fig, ax = plt.subplots(figsize=(7, 4))``, esta função, ``plt.show()``."""
    ns = np.asarray(ns, dtype=float)
    ms = 1000 * np.asarray(tempos, dtype=float)
    referencia = ms[-1] * (ns / ns[-1]) ** 2.0
    ax.loglog(ns, ms, "o-", base=2, color=CORES["k"], label="atenção exata (medida)")
    ax.loglog(ns, referencia, "--", base=2, color=CORES["neutro"], label="inclinação 2 (referência)")
    ax.set_xticks(ns, [f"{n:g}" for n in ns])
    marcas_em_ms(ax, ms, referencia)  # 0,25, 1, 4, 16… ms: cada marca, × 4
    ax.set_xlabel("n (tokens)")
    ax.set_ylabel("tempo (ms)")
    ax.set_title(f"tempo medido: inclinação ≈ {decimal(inclinacao)}")
    ax.legend()


def desenhar_pesos(ax: Axes, pesos_softmax: ArrayLike, pesos_linear: ArrayLike) -> None:
    """Os pesos de uma query contra ``n`` keys, em barras lado a lado: a softmax (exata) e a atenção linear
    (``φ = elu + 1``), com a linha do peso uniforme ``1/n``.
    Uso: ``fig, ax = plt.subplots(figsize=(8, 3.6))``, esta função, ``plt.show()``."""
    pesos_softmax, pesos_linear = np.asarray(pesos_softmax), np.asarray(pesos_linear)
    n = pesos_softmax.shape[-1]
    x = np.arange(n)
    ax.bar(x - 0.2, pesos_softmax, width=0.4, color=CORES["k"], label="softmax (exata)")
    ax.bar(x + 0.2, pesos_linear, width=0.4, color=CORES["v"], label="linear, φ = elu + 1")
    ax.axhline(1 / n, color=CORES["neutro"], ls="--", lw=1.2, label=f"uniforme (1/{n})")
    ax.set_xticks(x, [f"k{subscrito(j)}" for j in x])
    ax.set_ylabel("peso")
    ax.set_title("os pesos da query 0: a linear espalha mais")
    ax.legend()


#: cor e estilo de linha de cada método nas curvas de custo. Nas operações, a curva "por blocos" cai
#: exatamente em cima da "exata" (as contas são as mesmas): por isso a exata é mais grossa e fica
#: embaixo, e a por blocos, de outra cor e tracejada, por cima dela — as duas continuam visíveis.
ESTILO_METODOS = {
    "exata": (CORES["k"], "-"),
    "local": (CORES["q"], "-"),
    "linear": (CORES["v"], "-"),
    "blocos": (CORES["saida"], "--"),
}

#: espessura de cada curva e marcador/tamanho do ponto no n atual, relativos ao estilo em vigor
_TRACO_METODOS = {"exata": (2.0, "o", 1.3), "local": (1.0, "o", 1.0), "linear": (1.0, "o", 1.0),
                  "blocos": (1.0, "D", 0.8)}

NOMES_METODOS = {"exata": "exata", "local": "local (janela)", "linear": "linear", "blocos": "por blocos"}

class FiguraCusto:
    """O custo de cada método de atenção: o padrão de pares ``(query, key)`` e duas curvas log-log.

    - ``ax_padrao``: a matriz ``n × n`` de pares, resumida numa imagem de até 128 × 128 células; a cor
      de cada célula é a fração dos seus pares que o método calcula (1 = calculado e usado,
      0.5 = calculado e descartado pela máscara, 0 = nem calculado). Para a atenção por blocos, a
      grade dos blocos e, em laranja, o único bloco de escores que está na memória num instante.
    - ``ax_flops`` e ``ax_memoria``: operações e bytes de memória de trabalho em função de ``n``
      (eixos log-log), uma curva por método, com um ponto no ``n`` atual.

    ``atualizar(...)`` só muda os dados dos artistas (imagem, linhas, pontos, textos).
    """

    def __init__(self, ax_padrao: Axes, ax_flops: Axes, ax_memoria: Axes, ns: Sequence[int]):
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Rectangle

        self.ns = np.asarray(ns, dtype=float)
        self.ax_padrao = ax_padrao
        mapa = "cividis" if mpl.rcParams["image.cmap"] == "cividis" else MAPA
        # o padrão ocupa sempre o quadrado [0, 1] × [0, 1] (as posições chegam divididas por n): os limites
        # do eixo não mudam com n, e o painel redesenha só o que muda
        self.imagem = ax_padrao.imshow(np.zeros((2, 2)), cmap=mapa, vmin=0.0, vmax=1.0,
                                       interpolation="nearest", extent=(0, 1, 1, 0))
        ax_padrao.set_xlim(0, 1)
        ax_padrao.set_ylim(1, 0)
        ax_padrao.grid(False)
        ax_padrao.set_xticks([])
        ax_padrao.set_yticks([])
        ax_padrao.set_xlabel("key j", labelpad=20)
        ax_padrao.set_ylabel("query i", labelpad=34)
        # as marcas 0, n/2, n são textos próprios (e não os ticks do eixo): um texto que muda é
        # redesenhado sozinho; um eixo cujos ticks mudam seria redesenhado inteiro a cada movimento
        self.marcas = [ax_padrao.text(f, -0.03, "", transform=ax_padrao.transAxes, ha="center", va="top")
                       for f in (0.0, 0.5, 1.0)]
        self.marcas += [ax_padrao.text(-0.03, 1 - f, "", transform=ax_padrao.transAxes, ha="right", va="center")
                        for f in (0.0, 0.5, 1.0)]
        self.grade = LineCollection([], colors="white", linewidths=0.6, alpha=0.7)
        ax_padrao.add_collection(self.grade)
        self.bloco = Rectangle((0, 0), 1, 1, fill=False, edgecolor=CORES["destaque"], lw=2.5, visible=False)
        ax_padrao.add_patch(self.bloco)
        self.aviso = ax_padrao.text(0.5, 0.5, "", transform=ax_padrao.transAxes, ha="center", va="center",
                                    color="white", fontsize=mpl.rcParams["font.size"])
        self.titulo_padrao = ax_padrao.set_title("")

        self.linhas: dict[str, dict[str, object]] = {"flops": {}, "bytes": {}}
        self.pontos: dict[str, dict[str, object]] = {"flops": {}, "bytes": {}}
        self.verticais = []
        for chave, ax, ylim in (("flops", ax_flops, (1e3, 1e13)), ("bytes", ax_memoria, (1e2, 2e11))):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlim(self.ns[0] / 1.3, self.ns[-1] * 1.3)
            ax.set_ylim(*ylim)
            ax.set_xlabel("n (tokens)")
            ax.set_xticks([16, 256, 4096, 65536], ["16", "256", "4096", "65536"])
            ax.minorticks_off()
            for metodo, (cor, estilo) in ESTILO_METODOS.items():
                espessura, marcador, tamanho = _TRACO_METODOS[metodo]
                linha, = ax.plot(self.ns, np.ones_like(self.ns), color=cor, ls=estilo, label=NOMES_METODOS[metodo],
                                 lw=espessura * mpl.rcParams["lines.linewidth"])
                ponto, = ax.plot([1.0], [1.0], marker=marcador, ls="none", color=cor, zorder=5,
                                 ms=tamanho * 1.2 * mpl.rcParams["lines.markersize"],
                                 mec="white" if metodo == "blocos" else cor, mew=1.0)
                self.linhas[chave][metodo] = linha
                self.pontos[chave][metodo] = ponto
            self.verticais.append(ax.axvline(1.0, color=CORES["neutro"], lw=1, ls=":"))
        ax_flops.set_title("operações (FLOPs)")
        ax_memoria.set_title("memória (float32)")
        # unidades binárias, como no resto do notebook (1 KiB = 2¹⁰ bytes, 1 MiB = 2²⁰, 1 GiB = 2³⁰)
        ax_memoria.set_yticks([2.0**10, 2.0**20, 2.0**30], ["1 KiB", "1 MiB", "1 GiB"])
        ax_flops.set_yticks([1e3, 1e6, 1e9, 1e12], ["10³", "10⁶", "10⁹", "10¹²"])
        ax_memoria.legend(loc="upper left", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)

    def atualizar(self, n: int, padrao: ArrayLike, curvas: dict[str, dict[str, ArrayLike]],
                  atuais: dict[str, dict[str, float]], *, bloco: int | None = None, titulo: str = "",
                  aviso: str = "") -> None:
        """``padrao``: imagem ``(R, R)`` em [0, 1]; ``curvas[metodo]["flops" | "bytes"]``: um valor por
        ``n`` de ``ns``; ``atuais[metodo]["flops" | "bytes"]``: os valores no ``n`` atual; ``bloco``:
        o tamanho do bloco para desenhar a grade (``None`` = sem grade)."""
        self.imagem.set_data(np.asarray(padrao, dtype=float))
        for texto, m in zip(self.marcas, [0, n // 2, n] * 2, strict=True):
            texto.set_text(f"{m // 1024}k" if m >= 2048 else str(m))
        if bloco is not None:
            nb = -(-n // bloco)
            if nb <= 64:
                cortes = np.arange(1, nb) * bloco / n
                self.grade.set_segments([((c, 0), (c, 1)) for c in cortes] + [((0, c), (1, c)) for c in cortes])
            else:
                self.grade.set_segments([])
            linha = min(2, nb - 1)
            coluna = min(1, linha)
            lado = min(bloco, n) / n
            self.bloco.set_bounds(coluna * bloco / n, linha * bloco / n, lado, lado)
            self.bloco.set_visible(True)
        else:
            self.grade.set_segments([])
            self.bloco.set_visible(False)
        self.aviso.set_text(aviso)
        self.titulo_padrao.set_text(titulo)
        for chave in ("flops", "bytes"):
            for metodo, linha in self.linhas[chave].items():
                linha.set_ydata(np.maximum(np.asarray(curvas[metodo][chave], dtype=float), 1e-300))
                y = max(float(atuais[metodo][chave]), 1e-300)
                self.pontos[chave][metodo].set_data([n], [y])
        for vertical in self.verticais:
            vertical.set_xdata([n, n])

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda: um painel redesenha só eles a cada movimento."""
        curvas = [a for chave in ("flops", "bytes") for a in (*self.linhas[chave].values(), *self.pontos[chave].values())]
        return [self.imagem, *self.marcas, self.grade, self.bloco, self.aviso, self.titulo_padrao, *curvas,
                *self.verticais]
