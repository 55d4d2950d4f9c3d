"""Figuras (matplotlib) dos notebooks. Nenhuma conta de atenção mora aqui: ela vem de
:mod:`helpers.attention`; aqui só se desenha.

Cada figura que um painel interativo (:mod:`helpers.widgets`) atualiza é uma pequena classe que
cria seus artistas uma vez e depois só muda os dados deles (``atualizar``), o que mantém o painel
rápido. As mesmas classes desenham as figuras estáticas dos notebooks.

Cores: a paleta de Okabe–Ito (segura para daltonismo) para categorias e ``viridis``/``cividis``
para mapas de calor.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

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
            painel = widgets.painel_softmax()   # este painel fica com letras e linhas grandes
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

    É o que mais pesa numa atualização de painel, então é feito para ser rápido: a figura ganha um
    canvas Agg que fica com ela (``savefig`` criaria um canvas e um renderizador novos a cada chamada,
    e perderia o cache de medidas de texto do matplotlib), e o PNG sai com compressão zlib nível 1 —
    a mesma imagem, sem perdas, um pouco maior e bem mais rápida de codificar que o nível padrão 6.
    """
    buf = io.BytesIO()
    if dpi is not None and dpi != fig.dpi:
        fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
        return buf.getvalue()
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.print_png(buf, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# 02 e 00: produto escalar em 2-D
# ---------------------------------------------------------------------------------------------


def _seta(ax: Axes, cor: str, rotulo: str):
    """Uma seta a partir da origem, atualizável com ``set_positions``."""
    seta = ax.annotate(
        "", xy=(1, 0), xytext=(0, 0),
        arrowprops=dict(arrowstyle="-|>", color=cor, lw=mpl.rcParams["lines.linewidth"] + 0.5, mutation_scale=20),
    )
    texto = ax.text(1, 0, rotulo, color=cor, fontsize=mpl.rcParams["font.size"] + 3, fontweight="bold",
                    ha="left", va="bottom")
    return seta, texto


class FiguraProdutoEscalar:
    """Duas setas ``q`` e ``k`` no plano, o arco do ângulo entre elas e a projeção de ``k`` sobre ``q``.

    ``atualizar(q, k)`` recebe vetores ``(2,)``. O painel escreve os números ao lado; a figura mostra
    a geometria: ``q·k = |q| |k| cos θ`` é o comprimento de ``q`` vezes a sombra de ``k`` sobre ele.
    """

    def __init__(self, ax: Axes, limite: float = 3.0):
        self.ax = ax
        ax.set_xlim(-limite, limite)
        ax.set_ylim(-limite, limite)
        ax.set_aspect("equal")
        ax.axhline(0, color=CORES["neutro"], lw=0.8)
        ax.axvline(0, color=CORES["neutro"], lw=0.8)
        self.sombra, = ax.plot([], [], color=CORES["k"], ls=":", lw=1.5)
        self.projecao, = ax.plot([], [], color=CORES["destaque"], lw=6, alpha=0.6, solid_capstyle="butt",
                                 label="projeção de k sobre a direção de q")
        self.arco, = ax.plot([], [], color=CORES["neutro"], lw=1.5)
        self.texto_angulo = ax.text(0, 0, "", color=CORES["neutro"], ha="center", va="center")
        self.seta_q, self.rotulo_q = _seta(ax, CORES["q"], "q")
        self.seta_k, self.rotulo_k = _seta(ax, CORES["k"], "k")
        ax.legend(loc="lower left", frameon=False)
        self.titulo = ax.set_title("")

    def atualizar(self, q: ArrayLike, k: ArrayLike) -> None:
        q = np.asarray(q, dtype=float)
        k = np.asarray(k, dtype=float)
        for seta, rot, vet in ((self.seta_q, self.rotulo_q, q), (self.seta_k, self.rotulo_k, k)):
            seta.xy = tuple(vet)
            rot.set_position(tuple(vet * 1.08))
        nq, nk = float(np.linalg.norm(q)), float(np.linalg.norm(k))
        if nq > 0 and nk > 0:
            a_q, a_k = math.atan2(q[1], q[0]), math.atan2(k[1], k[0])
            delta = (a_k - a_q + math.pi) % (2 * math.pi) - math.pi  # menor ângulo com sinal
            ts = np.linspace(a_q, a_q + delta, 30)
            r = 0.35 * min(nq, nk, 1.5)
            self.arco.set_data(r * np.cos(ts), r * np.sin(ts))
            meio = a_q + delta / 2
            self.texto_angulo.set_position((1.8 * r * math.cos(meio), 1.8 * r * math.sin(meio)))
            self.texto_angulo.set_text(f"θ={abs(math.degrees(delta)):.0f}°")
            u = q / nq
            p = float(k @ u) * u  # projeção de k na direção de q
            self.projecao.set_data([0, p[0]], [0, p[1]])
            self.sombra.set_data([k[0], p[0]], [k[1], p[1]])
        else:
            for linha in (self.arco, self.projecao, self.sombra):
                linha.set_data([], [])
            self.texto_angulo.set_text("")
        self.titulo.set_text(f"q·k = {float(q @ k):.2f}")


def figura_produto_escalar(q: Sequence[float], k: Sequence[float], limite: float = 3.0) -> Figure:
    """Figura estática de :class:`FiguraProdutoEscalar` (devolve a ``Figure`` do pyplot)."""
    fig, axes = nova_figura(5, 5, pyplot=True)
    FiguraProdutoEscalar(axes[0, 0], limite).atualizar(q, k)
    return fig


# === 01 · gargalo recorrente ===================================================================
# As acurácias vêm de helpers.recurrent.memory_grid (um MemoryGrid); aqui só se desenha.

#: cor de cada leitor no notebook 01
CORES_GARGALO = {"rnn": CORES["q"], "porta": CORES["destaque"], "atencao": CORES["saida"], "acaso": CORES["neutro"]}


def _eixo_acuracia(ax: Axes, acaso: float, rotulo: bool = True) -> None:
    ax.set_ylim(0, 1.08)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_ylabel("acurácia ao ler o 1º token")
    ax.axhline(acaso, color=CORES_GARGALO["acaso"], ls="--", lw=1.5,
               label=f"acaso (1/{round(1 / acaso)})" if rotulo else None)


class FiguraGargalo:
    """Painel do notebook 01: acurácia × comprimento ``T`` para um tamanho de estado ``n`` — RNN tanh,
    RNN com porta, atenção e o acaso — com o comprimento escolhido marcado; a legenda traz os valores.

    ``atualizar(rnn, porta, atencao, comprimento, tamanho)`` recebe as curvas ``(L,)`` já medidas
    para esse ``n`` (``L = comprimento_max``). Poucos textos de propósito: desenhar texto é o que
    mais custa num redesenho.
    """

    _ROTULOS = {"atencao": "atenção", "porta": "RNN com porta", "rnn": "RNN tanh"}

    def __init__(self, ax: Axes, comprimento_max: int, acaso: float):
        self.ax = ax
        x = np.arange(1, comprimento_max + 1)
        vazio = np.zeros(comprimento_max)
        ax.set_xlim(0.5, comprimento_max + 0.5)
        ax.set_xticks([1, *range(10, comprimento_max + 1, 10)])
        ax.set_xlabel("comprimento da sequência T (tokens)")
        _eixo_acuracia(ax, acaso)
        self.linhas = {}
        for chave, estilo in (("atencao", "-"), ("porta", "-."), ("rnn", "-")):
            self.linhas[chave], = ax.plot(x, vazio, color=CORES_GARGALO[chave], ls=estilo, label=self._ROTULOS[chave])
        self.marca = ax.axvline(1, color=CORES["neutro"], lw=1, alpha=0.7)
        self.pontos, = ax.plot([], [], "o", color="black", ms=6, zorder=5)
        legenda = ax.legend(loc="upper right", bbox_to_anchor=(1.0, 0.9), framealpha=0.9, edgecolor="none")
        # a ordem da legenda é a ordem dos plots: acaso, atenção, porta, tanh
        self.textos_legenda = dict(zip(("acaso", "atencao", "porta", "rnn"), legenda.get_texts()))
        self.textos_legenda["acaso"].set_text(f"acaso (1/{round(1 / acaso)}): {acaso:.3f}")
        self.titulo = ax.set_title("")

    def atualizar(self, rnn: ArrayLike, porta: ArrayLike, atencao: ArrayLike, comprimento: int, tamanho: int) -> None:
        curvas = {"atencao": np.asarray(atencao, dtype=float), "porta": np.asarray(porta, dtype=float),
                  "rnn": np.asarray(rnn, dtype=float)}
        T = int(comprimento)
        for chave, y in curvas.items():
            self.linhas[chave].set_ydata(y)
            self.textos_legenda[chave].set_text(f"{self._ROTULOS[chave]}: {y[T - 1]:.2f}")
        self.marca.set_xdata([T, T])
        self.pontos.set_data([T] * 3, [float(y[T - 1]) for y in curvas.values()])
        self.titulo.set_text(f"acurácia depois de T = {T} tokens, com um estado de n = {tamanho} números")


def desenhar_gargalo_comprimento(
    ax: Axes, grade, tamanhos: Sequence[int] = (8, 32, 128), *, tanh: bool = True, porta: bool = False,
    atencao: bool = False,
) -> None:
    """Acurácia × comprimento ``T`` para alguns tamanhos de estado ``n``: RNN tanh (azuis, linha
    cheia; mais escuro = maior), RNN com porta (laranjas, traço-ponto), atenção (rosa) e o acaso.

    ``grade``: um :class:`helpers.recurrent.MemoryGrid`; ``tanh``, ``porta``, ``atencao`` escolhem as
    curvas. Uso: ``fig, ax = plt.subplots(figsize=(8.5, 4.2))``, esta função, ``plt.show()``.
    """
    _eixo_acuracia(ax, grade.chance)
    familias = []
    if tanh:
        familias.append(("tanh", grade.tanh, "Blues", "-"))
    if porta:
        familias.append(("com porta", grade.gated, "Oranges", "-."))
    for nome, curvas, mapa, estilo in familias:
        tons = mpl.colormaps[mapa](np.linspace(0.5, 1.0, len(tamanhos)))
        for cor, n in zip(tons, tamanhos):
            i, _ = grade.index(1, n)
            ax.plot(grade.lengths, curvas[i], color=cor, ls=estilo, marker="o", ms=3.5, label=f"RNN {nome}, n = {n}")
    if atencao:
        ax.plot(grade.lengths, grade.attention, color=CORES_GARGALO["atencao"], lw=3, label="atenção (lê a posição 0)")
    ax.set_xlim(0.5, len(grade.lengths) + 0.5)
    ax.set_xlabel("comprimento da sequência T (tokens)")
    ax.set_title("Quanto do 1º token ainda se lê depois de T tokens")
    ax.legend(loc="center right", frameon=False, fontsize=10)


def desenhar_gargalo_tamanho(ax: Axes, grade, comprimentos: Sequence[int] = (3, 6, 12, 24)) -> None:
    """Acurácia da RNN tanh × tamanho do estado ``n`` (eixo em escala log₂), uma curva por comprimento ``T``."""
    tons = mpl.colormaps[MAPA](np.linspace(0.0, 0.85, len(comprimentos)))
    for cor, T in zip(tons, comprimentos):
        _, j = grade.index(T, int(grade.sizes[0]))
        ax.plot(grade.sizes, grade.tanh[:, j], color=cor, marker="o", label=f"T = {T}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(grade.sizes, [str(n) for n in grade.sizes])
    ax.minorticks_off()
    _eixo_acuracia(ax, grade.chance)
    ax.set_xlabel("tamanho do estado oculto n (números)")
    ax.set_title("RNN tanh: um estado maior ajuda, mas só adia o esquecimento")
    ax.legend(loc="upper left", frameon=False, fontsize=10)


# === 02 · produto escalar: ranking de keys ====================================================

_SUBSCRITOS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def nomes_keys(n: int) -> list[str]:
    """``["k₁", "k₂", …]``: os nomes das keys nas figuras."""
    return [f"k{str(i + 1).translate(_SUBSCRITOS)}" for i in range(n)]


class FiguraRankingKeys:
    """Uma query contra várias keys: as setas no plano (à esquerda) e os escores ``q·kᵢ`` em barras
    ordenadas do maior para o menor (à direita).

    As keys ficam fixas; ``atualizar(q)`` move a query, recalcula ``K @ q`` e reordena as barras
    (a barra de cima é sempre o 1º lugar, destacada em amarelo-alaranjado, como a seta da key
    vencedora; as outras ficam em vermelho). A reta tracejada passa pela origem perpendicular a
    ``q``: as keys do lado de ``q`` têm escore positivo, as do outro lado, negativo. Devolve
    ``(escores, ordem)`` (``ordem[0]`` = índice da key vencedora).

    Os rótulos das keys ficam a uma distância fixa além da ponta da seta (não em cima dela) e são
    empurrados para longe da reta tracejada, do lado da própria key, com um fundo branco por baixo.
    """

    _AFASTAMENTO_RADIAL = 0.32  # distância (em unidades do plano) entre a ponta da seta e o rótulo
    _AFASTAMENTO_RETA = 0.22  # quanto o rótulo se afasta da reta q·k = 0, do lado da key

    def __init__(self, ax_setas: Axes, ax_barras: Axes, keys: ArrayLike, nomes: Sequence[str] | None = None,
                 limite: float = 3.0, escore_max: float | None = None):
        self.K = np.asarray(keys, dtype=float)
        if self.K.ndim != 2 or self.K.shape[1] != 2:
            raise ValueError(f"as keys precisam ter forma (n, 2) para caber no plano; recebi {self.K.shape}.")
        n = len(self.K)
        self.nomes = list(nomes) if nomes is not None else nomes_keys(n)
        self.ax_setas, self.ax_barras = ax_setas, ax_barras
        ax = ax_setas
        ax.set_xlim(-limite, limite)
        ax.set_ylim(-limite, limite)
        ax.set_aspect("equal")
        marcas = [-math.floor(limite * 2 / 3), 0, math.floor(limite * 2 / 3)]  # poucos rótulos: desenho rápido
        ax.set_xticks(marcas)
        ax.set_yticks(marcas)
        ax.axhline(0, color=CORES["neutro"], lw=0.8)
        ax.axvline(0, color=CORES["neutro"], lw=0.8)
        self.fronteira, = ax.plot([], [], color=CORES["neutro"], ls="--", lw=1.2, label="q·k = 0")
        self.setas_k = [_seta(ax, CORES["k"], nome) for nome in self.nomes]
        normas = np.linalg.norm(self.K, axis=1, keepdims=True)
        direcoes = np.divide(self.K, normas, out=np.zeros_like(self.K), where=normas > 0)
        self._pontas_rotulos = self.K + self._AFASTAMENTO_RADIAL * direcoes  # além da ponta da seta
        for (seta, rotulo), vet, ponta in zip(self.setas_k, self.K, self._pontas_rotulos):
            seta.xy = tuple(vet)
            rotulo.set_position(tuple(ponta))
            rotulo.set_ha("center")
            rotulo.set_va("center")
            rotulo.set_bbox(dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.85))
        self.seta_q, self.rotulo_q = _seta(ax, CORES["q"], "q")
        ax.legend(loc="lower left", frameon=False)
        ax.set_title("uma query, várias keys", y=1.02)  # y fixo: sem reposicionar a cada desenho

        self._limite = limite
        if escore_max is None:
            escore_max = limite * float(np.max(np.linalg.norm(self.K, axis=1)))
        axb = ax_barras
        self.barras = axb.barh(np.arange(n), np.zeros(n), color=CORES["k"], height=0.7)
        self.textos = [axb.text(0, i, "", va="center", fontsize=mpl.rcParams["font.size"] + 1) for i in range(n)]
        axb.set_xlim(-escore_max * 1.6, escore_max * 1.6)
        axb.set_ylim(n - 0.5, -0.5)  # 1º lugar em cima
        axb.set_yticks(np.arange(n), [f"{i + 1}º" for i in range(n)])
        axb.axvline(0, color=CORES["neutro"], lw=1)
        axb.set_xticks([0])  # os valores já estão escritos nas barras (e menos rótulos = desenho mais rápido)
        axb.set_xlabel("escore q·kᵢ")
        axb.grid(axis="y", visible=False)
        self.titulo_barras = axb.set_title("", y=1.02)

    def atualizar(self, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        q = np.asarray(q, dtype=float)
        self.seta_q.xy = tuple(q)
        self.rotulo_q.set_position(tuple(q * 1.1))
        nq = float(np.linalg.norm(q))
        escores = self.K @ q
        if nq > 0:
            perp = np.array([-q[1], q[0]]) / nq * self._limite * 1.5
            self.fronteira.set_data([-perp[0], perp[0]], [-perp[1], perp[1]])
            # cada rótulo de key se afasta da reta tracejada, para o lado em que a key está
            empurrao = np.where(escores >= 0, 1.0, -1.0)[:, None] * (q / nq) * self._AFASTAMENTO_RETA
        else:
            self.fronteira.set_data([], [])
            empurrao = np.zeros_like(self.K)
        for (_, rotulo), pos in zip(self.setas_k, self._pontas_rotulos + empurrao):
            rotulo.set_position((pos[0], pos[1]))
        ordem = np.argsort(-escores, kind="stable")
        folga = 0.03 * (self.ax_barras.get_xlim()[1] - self.ax_barras.get_xlim()[0])
        for pos, i in enumerate(ordem):
            cor = CORES["destaque"] if pos == 0 else CORES["k"]
            self.barras[pos].set_width(escores[i])
            self.barras[pos].set_color(cor)
            texto = self.textos[pos]
            texto.set_text(f"{self.nomes[i]}  {escores[i]:.2f}" if escores[i] >= 0 else f"{escores[i]:.2f}  {self.nomes[i]}")
            texto.set_position((escores[i] + (folga if escores[i] >= 0 else -folga), pos))
            texto.set_ha("left" if escores[i] >= 0 else "right")
        for j, (seta, rotulo) in enumerate(self.setas_k):
            cor = CORES["destaque"] if j == ordem[0] else CORES["k"]
            seta.arrow_patch.set_color(cor)
            rotulo.set_color(cor)
        self.titulo_barras.set_text(f"ranking: {self.nomes[ordem[0]]} vence com q·k = {escores[ordem[0]]:.2f}")
        return escores, ordem


def figura_ranking_keys(q: Sequence[float], keys: ArrayLike, nomes: Sequence[str] | None = None,
                        limite: float = 3.0) -> Figure:
    """Figura estática de :class:`FiguraRankingKeys` (devolve a ``Figure`` do pyplot)."""
    fig, axes = nova_figura(9, 4.2, ncols=2, pyplot=True)
    fig.subplots_adjust(left=0.04, right=0.97, bottom=0.13, top=0.9, wspace=0.25)
    k = np.asarray(keys, dtype=float)
    escore_max = float(np.linalg.norm(q)) * float(np.max(np.linalg.norm(k, axis=-1)))
    FiguraRankingKeys(axes[0, 0], axes[0, 1], k, nomes, limite, escore_max or None).atualizar(q)
    return fig



# === 03 · escala √d ============================================================================


_SOBRESCRITOS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class FiguraEscala:
    """Três painéis sobre a escala √d, para uma dimensão ``d`` e com ou sem a divisão por √d.

    1. o histograma dos escores de muitos pares query–key aleatórios (eixo x fixo, para ver a
       largura mudar), com tracinhos marcando os escores da query fixa contra as suas keys;
    2. os pesos da softmax dessa query sobre as keys (eixo y de 0 a 1) e a linha do peso uniforme;
       o maior peso em amarelo-alaranjado, os outros em vermelho;
    3. a norma do gradiente da softmax (jacobiano) em função de ``d``, com e sem escala (curvas
       calculadas antes — por exemplo a mediana de muitas queries —, em escala log), e um círculo
       no valor da query fixa no estado atual.

    ``atualizar(...)`` recebe números já calculados (a conta mora em :mod:`helpers.widgets`).
    """

    def __init__(self, ax_hist: Axes, ax_pesos: Axes, ax_grad: Axes, n_keys: int, dims: Sequence[int],
                 grad_sem: Sequence[float], grad_com: Sequence[float], limite_x: float = 80.0, n_bins: int = 80,
                 minimo_grad: float | None = None):
        self.bordas = np.linspace(-limite_x, limite_x, n_bins + 1)
        self.ax_hist = ax_hist
        self.hist = ax_hist.stairs(np.zeros(n_bins), self.bordas, fill=True, color=CORES["q"], alpha=0.55)
        self.rug, = ax_hist.plot([], [], ls="none", marker="|", markersize=14, mew=2, color=CORES["k"],
                                 label="a query fixa")
        ax_hist.set_xlim(-limite_x, limite_x)
        ax_hist.set_xticks([-limite_x / 2, 0, limite_x / 2])
        ax_hist.set_yticks([])  # só a largura importa aqui (e menos rótulos = desenho mais rápido)
        ax_hist.set_xlabel("escore")
        ax_hist.set_ylabel("frequência")
        ax_hist.legend(loc="upper left", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)
        self.titulo_hist = ax_hist.set_title("", y=1.02)

        x = np.arange(1, n_keys + 1)
        self.barras = ax_pesos.bar(x, np.zeros(n_keys), color=CORES["k"], width=0.8)
        ax_pesos.axhline(1 / n_keys, color=CORES["neutro"], ls="--", lw=1.2, label=f"uniforme (1/{n_keys})")
        ax_pesos.legend(loc="upper center", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)
        ax_pesos.set_yticks([0, 0.5, 1])
        ax_pesos.set_ylim(0, 1.2)  # a faixa acima de 1 fica livre para a legenda
        ax_pesos.set_xlim(0.4, n_keys + 0.6)
        ax_pesos.set_xticks([])
        ax_pesos.set_xlabel(f"as {n_keys} keys da query fixa")
        ax_pesos.set_ylabel("peso (softmax)")
        ax_pesos.grid(axis="x", visible=False)
        self.titulo_pesos = ax_pesos.set_title("", y=1.02)

        # eixos lineares com log2(d) e log10(‖J‖) nos dados (mais rápidos de desenhar que eixos log)
        piso = 1e-12
        x = np.log2(np.asarray(dims, dtype=float))
        ax_grad.plot(x, np.log10(np.maximum(grad_sem, piso)), color=CORES["k"], marker="o", ms=4,
                     label="mediana, sem escala")
        ax_grad.plot(x, np.log10(np.maximum(grad_com, piso)), color=CORES["v"], marker="s", ms=4, label="mediana, ÷ √d")
        self.ponto, = ax_grad.plot([], [], ls="none", marker="o", ms=11, mfc="none", mew=2.5, color=CORES["neutro"])
        marcas_x = [x[0], (x[0] + x[-1]) // 2, x[-1]]
        ax_grad.set_xticks(marcas_x, [f"{2 ** m:.0f}" for m in marcas_x])
        # o eixo y desce até o menor valor a mostrar (curvas e, se dado, ``minimo_grad``)
        menor = min(float(np.min(grad_sem)), float(np.min(grad_com)), minimo_grad if minimo_grad is not None else 1.0)
        e_min = int(math.floor(math.log10(max(piso, menor))))
        passo = 2 if e_min >= -8 else 4
        expoentes = list(range(0, e_min - passo, -passo))
        # rótulos em texto simples (10⁻⁴), sem mathtext
        ax_grad.set_yticks(expoentes, ["1" if e == 0 else "10" + str(e).translate(_SOBRESCRITOS) for e in expoentes])
        ax_grad.set_ylim(e_min - 0.3, 0.3)
        ax_grad.set_xlim(x[0] - 0.5, x[-1] + 0.5)
        ax_grad.set_xlabel("d (escala log)")
        ax_grad.set_ylabel("‖J‖ (gradiente)")
        ax_grad.legend(loc="lower left", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)
        self._piso = piso
        self.titulo_grad = ax_grad.set_title("", y=1.02)

    def atualizar(self, escores_pares: np.ndarray, escores_query: np.ndarray, pesos: np.ndarray, d: int,
                  norma_grad: float, escalar: bool) -> None:
        contagem, _ = np.histogram(escores_pares, self.bordas)
        fracao = contagem / max(1, len(escores_pares))
        self.hist.set_data(fracao)
        self.ax_hist.set_ylim(0, max(float(fracao.max()), 1e-3) * 1.25)
        self.rug.set_data(escores_query, np.zeros_like(escores_query))
        rotulo = "q·k/√d" if escalar else "q·k"
        self.titulo_hist.set_text(f"{rotulo}: desvio-padrão {float(np.std(escores_pares)):.2f}")
        topo = int(np.argmax(pesos))
        for i, (barra, p) in enumerate(zip(self.barras, pesos)):
            barra.set_height(p)
            barra.set_color(CORES["destaque"] if i == topo else CORES["k"])
        self.titulo_pesos.set_text(f"peso máximo = {float(pesos[topo]):.3f}")
        self.ponto.set_data([math.log2(d)], [math.log10(max(norma_grad, self._piso))])
        self.titulo_grad.set_text(f"○ query fixa: ‖J‖ = {norma_grad:.1e}")



# === 04 · softmax ==============================================================================


class FiguraSoftmax:
    """Barras dos pesos ``s = softmax(z / T)`` e, opcionalmente, o mapa de calor do jacobiano.

    ``ax_pesos`` recebe ``n`` barras (uma por escore), o valor de cada peso escrito em cima e uma
    linha tracejada no peso uniforme ``1/n``. ``ax_jacobiano`` (ou ``None``) recebe a matriz
    ``J[i, j] = ∂sᵢ/∂zⱼ`` com escala de cor fixa em ``[-0.25, 0.25]`` (os valores possíveis), para
    que cores iguais signifiquem números iguais enquanto os sliders se movem; o valor vai escrito
    em cada célula (sem barra de cores, que custaria tempo a cada redesenho do painel).
    ``atualizar(pesos, jacobiano)`` só muda os dados dos artistas, nada é recriado.
    """

    def __init__(self, ax_pesos: Axes, n: int, ax_jacobiano: Axes | None = None):
        self.n = n
        idx = np.arange(n)
        self.ax = ax_pesos
        self.barras = ax_pesos.bar(idx, np.full(n, 1.0 / n), color=CORES["q"], width=0.65)
        self.rotulos = [ax_pesos.text(i, 0, "", ha="center", va="bottom", fontsize=mpl.rcParams["font.size"] + 1)
                        for i in idx]
        ax_pesos.axhline(1.0 / n, color=CORES["neutro"], ls="--", lw=1.2, label=f"uniforme (1/{n})")
        grande = mpl.rcParams["font.size"] + 2
        ax_pesos.set_xticks(idx, [f"s{subscrito(i + 1)}" for i in idx], fontsize=grande)
        ax_pesos.set_ylim(0, 1.3)  # a faixa acima de 1.1 fica para a legenda, longe dos rótulos das barras
        ax_pesos.set_yticks(np.linspace(0, 1, 6))
        ax_pesos.set_ylabel("peso")
        ax_pesos.legend(loc="upper right", frameon=False)
        self.titulo = ax_pesos.set_title("")
        self.ax_jacobiano = ax_jacobiano
        self.imagem = None
        self.textos_j: list = []
        if ax_jacobiano is not None:
            mapa = "cividis" if mpl.rcParams["image.cmap"] == "cividis" else MAPA
            self.imagem = ax_jacobiano.imshow(np.zeros((n, n)), cmap=mapa, vmin=-0.25, vmax=0.25)
            ax_jacobiano.set_xticks(idx, [f"z{subscrito(j + 1)}" for j in idx], fontsize=grande)
            ax_jacobiano.set_yticks(idx, [f"s{subscrito(i + 1)}" for i in idx], fontsize=grande)
            ax_jacobiano.grid(False)
            ax_jacobiano.set_title("jacobiano sᵢ(δᵢⱼ − sⱼ)")
            self.textos_j = [[ax_jacobiano.text(j, i, "", ha="center", va="center") for j in idx] for i in idx]

    def atualizar(self, pesos: ArrayLike, jacobiano: ArrayLike | None = None, titulo: str | None = None) -> None:
        pesos = np.asarray(pesos, dtype=float)
        i_max = int(np.argmax(pesos))
        for i, (barra, rotulo, p) in enumerate(zip(self.barras, self.rotulos, pesos, strict=True)):
            barra.set_height(p)
            barra.set_color(CORES["destaque"] if i == i_max else CORES["q"])
            rotulo.set_position((i, altura_do_rotulo(self.ax, p, 1.0 / self.n, 0.015, rotulo.get_fontsize())))
            rotulo.set_text(f"{p:.3f}")
        self.titulo.set_text(titulo if titulo is not None else f"pesos (soma = {pesos.sum():.3f})")
        if self.imagem is not None and jacobiano is not None:
            jac = np.asarray(jacobiano, dtype=float)
            self.imagem.set_data(jac)
            for i in range(self.n):
                for j in range(self.n):
                    valor = jac[i, j]
                    texto = self.textos_j[i][j]
                    texto.set_text(f"{valor:+.3f}".replace("+0.000", "0.000").replace("-0.000", "0.000"))
                    texto.set_color("black" if valor > 0.05 else "white")


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


_TABELA_SUBSCRITO = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def subscrito(i: int) -> str:
    """``12`` → ``"₁₂"``: índices em rótulos de figuras e sliders."""
    return str(i).translate(_TABELA_SUBSCRITO)



# === 05 · soma ponderada =======================================================================

_SUB = "₁₂₃₄₅₆₇₈₉"


def _rotular_ponta(rotulo, vetor: ArrayLike, pad: float, lado: int = 0) -> None:
    """Põe o texto ``rotulo`` logo além da ponta de uma seta que sai da origem até ``vetor``.

    ``pad`` é a folga em unidades de dados; ``lado=+1``/``-1`` desloca o rótulo para a
    esquerda/direita da seta (centrado), senão o alinhamento segue a direção da seta.
    """
    x, y = float(vetor[0]), float(vetor[1])
    norma = math.hypot(x, y)
    ux, uy = (x / norma, y / norma) if norma > 1e-9 else (1.0, 0.0)
    if lado:
        rotulo.set_position((x + 1.3 * pad * ux - lado * pad * uy, y + 1.3 * pad * uy + lado * pad * ux))
        rotulo.set_horizontalalignment("center")
        rotulo.set_verticalalignment("center")
    else:
        rotulo.set_position((x + pad * ux, y + pad * uy))
        rotulo.set_horizontalalignment("left" if ux > 0.4 else "right" if ux < -0.4 else "center")
        rotulo.set_verticalalignment("bottom" if uy > 0.4 else "top" if uy < -0.4 else "center")


def _caixa_px(rotulo) -> tuple[float, float, float, float]:
    """Caixa ``(x0, y0, x1, y1)`` aproximada de um texto, em pixels, sem desenhar a figura.

    A largura é estimada pelo número de caracteres (0.65 em por caractere, folgado para negrito) e a
    altura pela fonte; a posição e o alinhamento vêm do próprio texto.
    """
    ax = rotulo.axes
    x, y = ax.transData.transform(rotulo.get_position())
    em = rotulo.get_fontsize() * ax.figure.dpi / 72
    largura, altura = 0.65 * em * len(rotulo.get_text()), 1.25 * em
    x0 = {"left": x, "right": x - largura}.get(rotulo.get_horizontalalignment(), x - largura / 2)
    y0 = {"bottom": y, "top": y - altura}.get(rotulo.get_verticalalignment(), y - altura / 2)
    return x0, y0, x0 + largura, y0 + altura


def _sobreposicao(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Área (px²) da interseção de duas caixas ``(x0, y0, x1, y1)``."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _desviar_rotulo(rotulo, vetor: np.ndarray, pad: float, outros: Sequence) -> None:
    """Se o rótulo da ponta de ``vetor`` cobre algum dos ``outros`` rótulos, tenta os dois lados da seta.

    Candidatos, nesta ordem: além da ponta (onde :func:`_rotular_ponta` já o pôs), além da ponta mas
    centrado na altura dela, ao lado direito e ao lado esquerdo da ponta (alinhado para longe da
    seta). Fica o primeiro que não cobre nenhum dos
    outros; se todos cobrem, o que cobre menos. Ex.: a saída (6.15, 3.85) fica perto de v₃ = (5, 5).
    """
    x, y = float(vetor[0]), float(vetor[1])
    norma = math.hypot(x, y)
    ux, uy = (x / norma, y / norma) if norma > 1e-9 else (1.0, 0.0)
    caixas = [_caixa_px(o) for o in outros]

    def custo() -> float:
        minha = _caixa_px(rotulo)
        return sum(_sobreposicao(minha, c) for c in caixas)

    candidatos = [(rotulo.get_position(), rotulo.get_horizontalalignment(), rotulo.get_verticalalignment())]
    if abs(ux) >= abs(uy):  # além da ponta, mas centrado na altura dela
        candidatos.append(((x + math.copysign(pad, ux), y), "left" if ux > 0 else "right", "center"))
    else:
        candidatos.append(((x, y + math.copysign(pad, uy)), "center", "bottom" if uy > 0 else "top"))
    for nx, ny in ((uy, -ux), (-uy, ux)):  # perpendicular à direita e à esquerda da seta
        ha = "left" if nx > 0.3 else "right" if nx < -0.3 else "center"
        va = "bottom" if ny > 0.3 else "top" if ny < -0.3 else "center"
        candidatos.append(((x + pad * nx, y + pad * ny), ha, va))
    melhor, menor = candidatos[0], math.inf
    for posicao, ha, va in candidatos:
        rotulo.set_position(posicao)
        rotulo.set_horizontalalignment(ha)
        rotulo.set_verticalalignment(va)
        c = custo()
        if c == 0:
            return
        if c < menor:
            melhor, menor = (posicao, ha, va), c
    posicao, ha, va = melhor
    rotulo.set_position(posicao)
    rotulo.set_horizontalalignment(ha)
    rotulo.set_verticalalignment(va)


class FiguraSomaPonderada:
    """A atenção de uma query em três painéis lado a lado.

    1. ``ax_keys``: a query ``q`` e as keys ``kᵢ`` (onde olhar);
    2. ``ax_values``: os values ``vᵢ``, o triângulo que eles formam e a saída (o que se recupera),
       com o caminho ``w₁v₁ → + w₂v₂ → + w₃v₃`` que leva da origem até ela;
    3. ``ax_pesos``: os pesos em barras (somam 1), com o escore escalado ``q·kᵢ/√d`` de cada key.

    A espessura de ``kᵢ`` e de ``vᵢ`` cresce com o peso ``wᵢ``. ``atualizar`` recebe os números já
    calculados (por :func:`helpers.attention.scaled_dot_product_attention`); aqui só se desenha.
    """

    def __init__(self, ax_keys: Axes, ax_values: Axes, ax_pesos: Axes, n: int = 3,
                 limite_keys: float = 2.3, limites_values: tuple[float, float] = (-2.0, 13.0)):
        from matplotlib.patches import Polygon

        self.n = n
        fonte = mpl.rcParams["font.size"]
        for ax, (lo, hi) in ((ax_keys, (-limite_keys, limite_keys)), (ax_values, limites_values)):
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
            ax.set_aspect("equal")
            ax.axhline(0, color=CORES["neutro"], lw=0.8)
            ax.axvline(0, color=CORES["neutro"], lw=0.8)
        # títulos com y fixo e poucos ticks: o desenho de textos é o que mais pesa a cada atualização
        ax_keys.set_title("onde olhar: q e as keys", y=1.02)
        ax_keys.set_xticks([-2, -1, 0, 1, 2] if limite_keys > 2 else [-1, 0, 1])
        ax_keys.set_yticks(ax_keys.get_xticks())
        passo = 5.0 if limites_values[1] - limites_values[0] <= 15 else 10.0
        ticks_v = np.arange(math.ceil(limites_values[0] / passo), math.floor(limites_values[1] / passo) + 1) * passo
        ax_values.set_xticks(ticks_v)
        ax_values.set_yticks(ticks_v)
        self.setas_k = [_seta(ax_keys, CORES["k"], f"k{_SUB[i]}") for i in range(n)]
        self.seta_q = _seta(ax_keys, CORES["q"], "q")
        self.pad_keys = 0.06 * 2 * limite_keys  # folga entre a ponta da seta e o rótulo (unid. de dados)
        self.pad_values = 0.045 * (limites_values[1] - limites_values[0])
        self.triangulo = Polygon(np.zeros((n, 2)), closed=True, facecolor=mpl.colors.to_rgba(CORES["v"], 0.12),
                                 edgecolor=CORES["v"], lw=1, ls=":")
        ax_values.add_patch(self.triangulo)
        self.setas_v = [_seta(ax_values, CORES["v"], f"v{_SUB[i]}") for i in range(n)]
        self.caminho, = ax_values.plot([], [], color=CORES["neutro"], ls="--", lw=1.5, marker="o", ms=4,
                                       label="w₁v₁ + w₂v₂ + w₃v₃" if n == 3 else "Σ wᵢvᵢ")
        self.seta_saida = _seta(ax_values, CORES["saida"], "saída")
        self.titulo_values = ax_values.set_title("", y=1.02)

        x = np.arange(n)
        self.ax_pesos = ax_pesos
        self.barras = ax_pesos.bar(x, np.zeros(n), width=0.6, color=CORES["k"], alpha=0.85)
        ax_pesos.axhline(1 / n, color=CORES["neutro"], ls="--", lw=1.2)  # a média simples: todos iguais
        ax_pesos.set_xlim(-0.6, n - 0.4)
        ax_pesos.set_ylim(0, 1.05)
        ax_pesos.set_xticks(x, [f"k{_SUB[i]}/v{_SUB[i]}" for i in range(n)])
        ax_pesos.set_yticks([0, 1 / n, 1], ["0", f"1/{n}", "1"])
        ax_pesos.grid(axis="x", visible=False)
        ax_pesos.set_title("pesos wᵢ (somam 1)", y=1.02)
        self.textos_peso = [ax_pesos.text(i, 0, "", ha="center", va="bottom", fontweight="bold") for i in range(n)]
        trans = ax_pesos.get_xaxis_transform()  # x em dados, y em fração do eixo
        self.textos_escore = [ax_pesos.text(i, -0.13, "", ha="center", va="top", transform=trans, clip_on=False,
                                            color=CORES["neutro"], fontsize=fonte) for i in range(n)]
        ax_pesos.text(-0.6, -0.13, "q·k/√d:", ha="right", va="top", transform=trans, clip_on=False,
                      color=CORES["neutro"], fontsize=fonte)

    @staticmethod
    def _mover(seta_rotulo, vetor: np.ndarray, pad: float, largura: float | None = None, lado: int = 0) -> None:
        """Leva a seta até ``vetor`` e o rótulo para logo além da ponta.

        ``lado=+1``/``-1`` desloca o rótulo para a esquerda/direita da seta: as keys vão para um lado
        e a query para o outro, e os rótulos não se cobrem quando q coincide com uma key.
        """
        seta, rotulo = seta_rotulo
        seta.xy = (float(vetor[0]), float(vetor[1]))
        _rotular_ponta(rotulo, vetor, pad, lado)
        if largura is not None:
            seta.arrow_patch.set_linewidth(largura)

    def atualizar(self, q: ArrayLike, K: ArrayLike, V: ArrayLike, escalados: ArrayLike, pesos: ArrayLike,
                  saida: ArrayLike) -> None:
        q, K, V = (np.asarray(a, dtype=float) for a in (q, K, V))
        escalados, pesos, saida = (np.asarray(a, dtype=float) for a in (escalados, pesos, saida))
        self._mover(self.seta_q, q, self.pad_keys, lado=-1)
        for i in range(self.n):
            largura = 1.0 + 6.0 * float(pesos[i])
            self._mover(self.setas_k[i], K[i], self.pad_keys, largura, lado=1)
            self._mover(self.setas_v[i], V[i], self.pad_values, largura)
            self.barras[i].set_height(pesos[i])
            self.textos_peso[i].set_position((i, altura_do_rotulo(self.ax_pesos, float(pesos[i]), 1 / self.n, 0.01,
                                                                  self.textos_peso[i].get_fontsize())))
            self.textos_peso[i].set_text(f"{pesos[i]:.3f}")
            self.textos_escore[i].set_text(f"{escalados[i]:.2f}")
        self.triangulo.set_xy(V)
        passos = np.vstack([np.zeros(2), np.cumsum(pesos[:, None] * V, axis=0)])
        self.caminho.set_data(passos[:, 0], passos[:, 1])
        self._mover(self.seta_saida, saida, self.pad_values)
        _desviar_rotulo(self.seta_saida[1], saida, self.pad_values, [rotulo for _, rotulo in self.setas_v])
        self.titulo_values.set_text(f"saída = ({saida[0]:.2f}, {saida[1]:.2f})")


def figura_caminho_da_saida(K: ArrayLike, V: ArrayLike, comprimentos: Sequence[float] = (1.0, 3.0),
                            limites: tuple[float, float] = (-1.5, 11.5), ax: Axes | None = None) -> Figure:
    """Gira uma query de comprimento fixo por todas as direções e desenha por onde a saída passa.

    Uma curva por comprimento de ``q``; os values e o triângulo deles ao fundo. A conta vem de
    :func:`helpers.attention.scaled_dot_product_attention` (todas as direções de uma vez).
    Com ``ax`` (por exemplo, de ``plt.subplots``) desenha nele; senão cria uma ``Figure`` própria.
    Devolve a ``Figure``.
    """
    from matplotlib.patches import Polygon
    from matplotlib.ticker import MultipleLocator

    from .attention import scaled_dot_product_attention

    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    if ax is None:
        fig, axes = nova_figura(7.5, 5.0)
        fig.subplots_adjust(left=0.08, right=0.62, bottom=0.1, top=0.9)
        ax = axes[0, 0]
    ax.set_xlim(*limites)
    ax.set_ylim(*limites)
    ax.set_aspect("equal")
    ax.xaxis.set_major_locator(MultipleLocator(5))
    ax.yaxis.set_major_locator(MultipleLocator(5))
    ax.add_patch(Polygon(V, closed=True, facecolor=CORES["v"], alpha=0.12, edgecolor=CORES["v"],
                         label="triângulo dos values"))
    for i, v in enumerate(V):
        ax.annotate("", xy=tuple(v), xytext=(0, 0),
                    arrowprops=dict(arrowstyle="-|>", color=CORES["v"], lw=2.5, mutation_scale=20))
        rotulo = ax.text(0, 0, f"v{_SUB[i]}", color=CORES["v"], fontweight="bold",
                         fontsize=mpl.rcParams["font.size"] + 3)
        _rotular_ponta(rotulo, v, 0.04 * (limites[1] - limites[0]))
    angulos = np.linspace(0, 2 * np.pi, 361)
    direcoes = np.stack([np.cos(angulos), np.sin(angulos)], axis=1)
    estilos = ["-", "--", ":", "-."]
    for j, comp in enumerate(comprimentos):
        saidas, _ = scaled_dot_product_attention(comp * direcoes, K, V)
        ax.plot(saidas[:, 0], saidas[:, 1], color=CORES["saida"], ls=estilos[j % 4], lw=2.5,
                label=f"saídas com |q| = {comp:g}")
    media = V.mean(axis=0)
    ax.plot(*media, "o", color=CORES["neutro"], ms=8, label="média simples\ndos values")
    ax.set_title("q gira 360°: por onde passa a saída")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    return ax.figure


# === 06 · projeções Q, K, V ============================================================================


# === 07 · máscaras e atenção cruzada ============================================================================


# === 08 · várias cabeças ============================================================================


# === 09 · custo quadrático ============================================================================


# === 10 · revisão ============================================================================


modo_padrao()
