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


def _mapa_atual() -> str:
    """``cividis`` no modo de apresentação, ``viridis`` (:data:`MAPA`) no resto."""
    return "cividis" if mpl.rcParams["image.cmap"] == "cividis" else MAPA


def _cor_do_texto(peso: float) -> str:
    """Texto legível sobre a célula: branco nas cores escuras (pesos baixos), preto nas claras."""
    return "black" if peso > 0.55 else "white"


def desenhar_pesos(ax: Axes, pesos: ArrayLike, rotulos: Sequence[str], rotulos_colunas: Sequence[str] | None = None,
                   *, titulo: str = "pesos de atenção", anotar: bool = True) -> None:
    """Mapa de calor de uma matriz de pesos ``(n_q, n_k)``: linha ``i`` = quanto a query ``i`` olha
    para cada key. Escala de cor fixa de 0 a 1 (cores iguais = pesos iguais em figuras diferentes), em
    raiz quadrada (``PowerNorm(0.5)``) para separar bem os pesos pequenos; com ``anotar`` o peso vai
    escrito em cada célula. Uso: ``fig, ax = plt.subplots()``, esta função, ``plt.show()``.
    """
    from matplotlib.colors import PowerNorm

    w = np.asarray(pesos, dtype=float)
    colunas = list(rotulos if rotulos_colunas is None else rotulos_colunas)
    if w.ndim != 2 or w.shape != (len(rotulos), len(colunas)):
        raise ValueError(f"os pesos têm forma {w.shape}, mas há {len(rotulos)} rótulos de linha e "
                         f"{len(colunas)} de coluna.")
    ax.imshow(w, cmap=_mapa_atual(), norm=PowerNorm(0.5, 0.0, 1.0))
    ax.set_xticks(np.arange(w.shape[1]), colunas, rotation=40, ha="right", rotation_mode="anchor")
    ax.set_yticks(np.arange(w.shape[0]), list(rotulos))
    ax.set_xlabel("key de … (para quem se olha)")
    ax.set_ylabel("query de … (quem olha)")
    ax.tick_params(length=0)
    ax.grid(False)
    ax.set_title(titulo)
    if anotar:
        for i in range(w.shape[0]):
            for j in range(w.shape[1]):
                ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center",
                        color=_cor_do_texto(math.sqrt(max(float(w[i, j]), 0.0))))


class FiguraBanco:
    """O exemplo "banco" do notebook 06: duas frases, as mesmas matrizes ``W_q``, ``W_k``, ``W_v``.

    1. ``ax_frase1`` e ``ax_frase2``: os mapas de calor dos pesos de atenção de cada frase (linha =
       quem olha, coluna = para quem), com a linha de "banco" contornada e os pesos dela escritos;
    2. ``ax_sentidos``: o plano dos dois sentidos (coordenadas "finanças" e "lugar" (assento) dos
       values) com a saída de "banco" em cada frase e, tracejado, o value de "banco" sozinho.

    As cores dos mapas vão de 0 a 1 em escala de raiz quadrada (``PowerNorm(0.5)``), para que pesos
    pequenos como 0.07 e 0.4 não fiquem os dois quase pretos; os números estão escritos.
    ``atualizar(pesos1, pesos2, saida1, saida2)`` recebe os números já calculados (por
    :func:`helpers.attention.scaled_dot_product_attention`); aqui só se desenha, e nada é recriado.
    As saídas entram com as duas primeiras coordenadas (finanças, lugar).
    """

    COR_FRASE1 = CORES["destaque"]
    COR_FRASE2 = CORES["extra"]

    def __init__(self, ax_frase1: Axes, ax_frase2: Axes, ax_sentidos: Axes, tokens1: Sequence[str],
                 tokens2: Sequence[str], proprio: ArrayLike = (0.5, 0.5), palavra: str = "banco"):
        from matplotlib.colors import PowerNorm
        from matplotlib.patches import Rectangle

        self.tokens = (list(tokens1), list(tokens2))
        self.linha = tuple(t.index(palavra) for t in self.tokens)
        self.imagens, self.textos = [], []
        fonte = mpl.rcParams["font.size"]
        for n_frase, (ax, toks, i, cor) in enumerate(zip((ax_frase1, ax_frase2), self.tokens, self.linha,
                                                         (self.COR_FRASE1, self.COR_FRASE2)), 1):
            n = len(toks)
            self.imagens.append(ax.imshow(np.zeros((n, n)), cmap=_mapa_atual(), norm=PowerNorm(0.5, 0.0, 1.0)))
            # os nomes dos tokens como textos simples, sem o mecanismo de ticks: o painel redesenha mais rápido
            ax.set_xticks([])
            ax.set_yticks([])
            for j, t in enumerate(toks):
                ax.text(j, n - 0.35, t, rotation=40, ha="right", va="top", rotation_mode="anchor", clip_on=False)
                ax.text(-0.65, j, t, ha="right", va="center", clip_on=False)
            ax.grid(False)
            ax.add_patch(Rectangle((-0.5, i - 0.5), n, 1, fill=False, edgecolor=cor, lw=3, clip_on=False))
            ax.set_title(f"frase {n_frase}: pesos", y=1.02)
            self.textos.append([ax.text(j, i, "", ha="center", va="center", fontsize=fonte) for j in range(n)])

        ax = ax_sentidos
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, 1.05)
        ax.set_aspect("equal")
        ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
        ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"])
        ax.set_xlabel("finanças")
        ax.set_ylabel("lugar", labelpad=2)  # curto: "assento/lugar" encostava no mapa do meio
        ax.plot([0, 1], [0, 1], color=CORES["neutro"], ls=":", lw=1.2)  # onde os dois sentidos empatam
        estilo = dict(arrowstyle="-|>", lw=mpl.rcParams["lines.linewidth"] + 0.5, mutation_scale=18)
        p = np.asarray(proprio, dtype=float)
        ax.annotate("", xy=(float(p[0]), float(p[1])), xytext=(0, 0),
                    arrowprops=dict(color=CORES["neutro"], ls="--", **estilo))
        # à direita e um pouco abaixo da ponta: longe da diagonal pontilhada
        ax.text(float(p[0]) + 0.06, float(p[1]) - 0.04, "sozinho", color=CORES["neutro"], fontsize=fonte,
                ha="left", va="top")
        self.setas = []
        for n_frase, cor in ((1, self.COR_FRASE1), (2, self.COR_FRASE2)):
            seta = ax.annotate("", xy=(0.5, 0.5), xytext=(0, 0), arrowprops=dict(color=cor, **estilo))
            texto = ax.text(0, 0, f"frase {n_frase}", color=cor, fontsize=fonte, fontweight="bold")
            self.setas.append((seta, texto))
        ax.set_title(f"saída de '{palavra}'", y=1.02)

    def atualizar(self, pesos1: ArrayLike, pesos2: ArrayLike, saida1: ArrayLike, saida2: ArrayLike) -> None:
        for imagem, textos, i, pesos in zip(self.imagens, self.textos, self.linha, (pesos1, pesos2)):
            w = np.asarray(pesos, dtype=float)
            imagem.set_data(w)
            for j, texto in enumerate(textos):
                texto.set_text(f"{w[i, j]:.2f}")
                texto.set_color(_cor_do_texto(math.sqrt(max(float(w[i, j]), 0.0))))
        for (seta, texto), saida in zip(self.setas, (saida1, saida2)):
            s = np.asarray(saida, dtype=float)[:2]
            seta.xy = (float(s[0]), float(s[1]))
            # o rótulo vai logo acima da ponta (longe da seta tracejada); perto do topo, à direita da ponta
            if s[1] <= s[0] or s[1] < 0.8:
                texto.set_position((min(max(float(s[0]), 0.2), 0.7), float(s[1]) + 0.1))
                texto.set_horizontalalignment("center")
                texto.set_verticalalignment("bottom")
            else:
                texto.set_position((float(s[0]) + 0.08, min(float(s[1]), 0.95)))
                texto.set_horizontalalignment("left")
                texto.set_verticalalignment("center")


def eixos_banco(pyplot: bool) -> tuple[Figure, list[Axes]]:
    """A figura 9 × 4.2 do exemplo "banco": dois mapas de calor e o plano dos sentidos."""
    fig, axes = nova_figura(9.0, 4.2, ncols=3, pyplot=pyplot)
    largura, altura = fig.get_size_inches()
    # [esquerda, baixo, largura, altura] em polegadas: os mapas são quadrados, o plano é menor
    caixas = [(0.85, 1.0, 2.5, 2.75), (4.0, 1.0, 2.5, 2.75), (7.15, 1.45, 1.75, 1.9)]
    for ax, (x, y, w, h) in zip(axes[0], caixas):
        ax.set_position([x / largura, y / altura, w / largura, h / altura])
    return fig, list(axes[0])


def figura_banco(tokens1: Sequence[str], tokens2: Sequence[str], pesos1: ArrayLike, pesos2: ArrayLike,
                 saida1: ArrayLike, saida2: ArrayLike, proprio: ArrayLike = (0.5, 0.5)) -> Figure:
    """Figura estática de :class:`FiguraBanco` (devolve a ``Figure`` do pyplot)."""
    fig, axes = eixos_banco(pyplot=True)
    FiguraBanco(*axes, tokens1, tokens2, proprio).atualizar(pesos1, pesos2, saida1, saida2)
    return fig


# === 07 · máscaras e atenção cruzada ============================================================================

#: cor das células mascaradas (proibidas) nos mapas de pesos
COR_MASCARADA = "#d9d9d9"


class MapaDePesos:
    """Mapa de calor de uma matriz de pesos ``(n_q, n_k)`` com os tokens nos eixos.

    Linhas = queries (quem olha), colunas = keys (para quem se olha). Cada célula traz o peso
    escrito; as células mascaradas (``permitido[i, j] == False``) ficam cinza-claro com um ``×``.
    Com ``somas=True`` a soma de cada linha aparece à direita da matriz. A escala de cor é fixa em
    ``[0, 1]``, para que cores iguais signifiquem pesos iguais em figuras diferentes.
    ``atualizar`` só muda os dados dos artistas (o painel do notebook 07 usa isso).
    """

    def __init__(self, ax: Axes, n_q: int, n_k: int, *, somas: bool = True, casas: int = 2):
        self.ax, self.n_q, self.n_k, self.casas = ax, n_q, n_k, casas
        self._tokens_q: list[str] | None = None
        self._tokens_k: list[str] | None = None
        mapa = mpl.colormaps["cividis" if mpl.rcParams["image.cmap"] == "cividis" else MAPA].with_extremes(
            bad=COR_MASCARADA)
        self.imagem = ax.imshow(np.zeros((n_q, n_k)), cmap=mapa, vmin=0.0, vmax=1.0, aspect="auto")
        ax.grid(False)
        ax.set_xticks(np.arange(n_k))
        ax.set_yticks(np.arange(n_q))
        ax.tick_params(length=0)
        fonte = mpl.rcParams["font.size"]
        tamanho = fonte if max(n_q, n_k) <= 6 else fonte - 2
        self.textos = [[ax.text(j, i, "", ha="center", va="center", fontsize=tamanho) for j in range(n_k)]
                       for i in range(n_q)]
        self.textos_soma = []
        if somas:
            ax.text(n_k - 0.5 + 0.15, -0.5, "soma", ha="left", va="bottom", color=CORES["neutro"],
                    fontsize=fonte - 1, clip_on=False)
            self.textos_soma = [ax.text(n_k - 0.5 + 0.15, i, "", ha="left", va="center", fontsize=fonte - 1,
                                        clip_on=False) for i in range(n_q)]

    def atualizar(self, pesos: ArrayLike, permitido: ArrayLike | None = None,
                  tokens_q: Sequence[str] | None = None, tokens_k: Sequence[str] | None = None) -> None:
        pesos = np.asarray(pesos, dtype=float)
        if pesos.shape != (self.n_q, self.n_k):
            raise ValueError(f"os pesos deveriam ter forma ({self.n_q}, {self.n_k}); recebi {pesos.shape}.")
        livre = np.ones(pesos.shape, dtype=bool) if permitido is None else np.broadcast_to(permitido, pesos.shape)
        self.imagem.set_data(np.ma.masked_array(pesos, mask=~livre))
        for i in range(self.n_q):
            for j in range(self.n_k):
                texto = self.textos[i][j]
                if livre[i, j]:
                    texto.set_text(f"{pesos[i, j]:.{self.casas}f}")
                    texto.set_color("black" if pesos[i, j] > 0.55 else "white")
                else:
                    texto.set_text("×")
                    texto.set_color(CORES["neutro"])
        for i, texto in enumerate(self.textos_soma):
            soma = float(pesos[i].sum())
            texto.set_text(f"{soma:.{self.casas}f}")
            texto.set_color("black" if abs(soma - 1.0) < 1e-9 else CORES["k"])
        # rótulos só quando mudam: refazê-los cria textos novos, e texto é o que mais custa desenhar
        if tokens_q is not None and list(tokens_q) != self._tokens_q:
            self._tokens_q = list(tokens_q)
            self.ax.set_yticks(np.arange(self.n_q), self._tokens_q)
        if tokens_k is not None and list(tokens_k) != self._tokens_k:
            self._tokens_k = list(tokens_k)
            self.ax.set_xticks(np.arange(self.n_k), self._tokens_k, rotation=40, ha="right",
                               rotation_mode="anchor")


def figura_pesos(pesos: ArrayLike, tokens_q: Sequence[str], tokens_k: Sequence[str] | None = None,
                 permitido: ArrayLike | None = None, titulo: str = "", *, somas: bool = True,
                 ax: Axes | None = None) -> Figure:
    """Mapa de calor dos pesos de atenção com os tokens nos eixos (queries nas linhas, keys nas colunas).

    ``permitido`` (booleana, ``True`` = pode olhar) marca as células mascaradas com ``×``. Com ``ax``
    desenha nele (por exemplo, um eixo de ``plt.subplots``); senão cria uma figura do pyplot.
    Devolve a ``Figure``.
    """
    pesos = np.asarray(pesos, dtype=float)
    tokens_k = tokens_q if tokens_k is None else tokens_k
    if ax is None:
        fig, axes = nova_figura(5.0, 4.2, pyplot=True)
        fig.subplots_adjust(left=0.2, right=0.86, bottom=0.2, top=0.9)
        ax = axes[0, 0]
    mapa = MapaDePesos(ax, pesos.shape[0], pesos.shape[1], somas=somas)
    mapa.atualizar(pesos, permitido, tokens_q, tokens_k)
    ax.set_xlabel("keys (para quem se olha)")
    ax.set_ylabel("queries (quem olha)")
    if titulo:
        ax.set_title(titulo)
    return ax.figure


class FiguraMascaras:
    """O painel das máscaras: o mapa de pesos (com as somas das linhas) e a saída de uma query.

    ``ax_mapa`` recebe um :class:`MapaDePesos` ``(n, n)`` e um retângulo laranja em volta da linha da
    query em destaque. ``ax_saida`` mostra, em barras, as ``d_v`` coordenadas da saída dessa query
    com as máscaras escolhidas e, em contorno tracejado, a saída que ela teria sem máscara nenhuma.
    """

    def __init__(self, ax_mapa: Axes, ax_saida: Axes, n: int, d_v: int, limites_saida: tuple[float, float]):
        from matplotlib.patches import Rectangle

        self.n, self.d_v = n, d_v
        self.mapa = MapaDePesos(ax_mapa, n, n)
        ax_mapa.set_xlabel("keys (para quem se olha)")
        ax_mapa.set_ylabel("queries (quem olha)")
        self.titulo_mapa = ax_mapa.set_title("")
        self.destaque = Rectangle((-0.5, -0.5), n, 1, fill=False, edgecolor=CORES["destaque"], lw=3.5,
                                  clip_on=False)
        ax_mapa.add_patch(self.destaque)
        x = np.arange(d_v)
        self.ax_saida = ax_saida
        self.barras = ax_saida.bar(x, np.zeros(d_v), width=0.6, color=CORES["saida"], label="com as máscaras escolhidas")
        self.fantasmas = ax_saida.bar(x, np.zeros(d_v), width=0.6, fill=False, edgecolor=CORES["neutro"],
                                      ls="--", lw=1.5, label="sem máscara nenhuma")
        ax_saida.axhline(0, color=CORES["neutro"], lw=0.8)
        ax_saida.set_xticks(x, [f"coord. {c}" for c in x])  # contadas a partir de 0, como as queries
        ax_saida.set_ylim(*limites_saida)
        ax_saida.grid(axis="x", visible=False)
        ax_saida.legend(loc="upper left", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)
        self.titulo_saida = ax_saida.set_title("")

    def atualizar(self, pesos: ArrayLike, permitido: ArrayLike, tokens: Sequence[str], query: int,
                  saida: ArrayLike, saida_sem_mascara: ArrayLike, titulo: str) -> None:
        self.mapa.atualizar(pesos, permitido, tokens, tokens)
        self.destaque.set_y(query - 0.5)
        self.titulo_mapa.set_text(titulo)
        for barra, fantasma, a, b in zip(self.barras, self.fantasmas, saida, saida_sem_mascara, strict=True):
            barra.set_height(float(a))
            fantasma.set_height(float(b))
        self.titulo_saida.set_text(f"saída da query {query} («{tokens[query]}»)")


# === 08 · várias cabeças ============================================================================

#: cores dos grupos de cabeças (Okabe–Ito, em ciclo): grupo g usa CORES_GRUPOS[g % 8]
CORES_GRUPOS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#555555")


def formatar_bytes(n_bytes: float) -> str:
    """``2147483648`` → ``"2.00 GiB"``; usa GiB (2³⁰), MiB (2²⁰) ou KiB (2¹⁰), com 3 algarismos."""
    n_bytes = float(n_bytes)
    for unidade, tamanho in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= tamanho:
            x = n_bytes / tamanho
            return f"{x:.3g} {unidade}" if x >= 100 else f"{x:.2f} {unidade}" if x < 10 else f"{x:.1f} {unidade}"
    return f"{n_bytes:.0f} bytes"


def desenhar_mapa_cabeca(ax: Axes, pesos: ArrayLike, tokens: Sequence[str], titulo: str = "",
                         rotulos_y: bool = True) -> None:
    """Um mapa de calor de pesos ``(n, n)`` de uma cabeça: linhas = queries, colunas = keys.

    Escala de cor fixa em ``[0, 1]`` (cores iguais = pesos iguais entre cabeças) e o peso escrito em
    cada célula que passa de 0.05.
    """
    w = np.asarray(pesos, dtype=float)
    n = w.shape[0]
    ax.imshow(w, cmap=MAPA, vmin=0.0, vmax=1.0)
    ax.set_xticks(range(n), tokens, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n), tokens if rotulos_y else [""] * n)
    ax.tick_params(length=0)
    ax.grid(False)
    ax.set_xlabel("keys (para quem se olha)")
    if rotulos_y:
        ax.set_ylabel("queries (quem olha)")
    if titulo:
        ax.set_title(titulo)
    for i in range(n):
        for j in range(n):
            if w[i, j] >= 0.05:
                ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center",
                        fontsize=mpl.rcParams["font.size"], color="black" if w[i, j] > 0.6 else "white")


def figura_mapas_cabecas(pesos: Sequence[ArrayLike], tokens: Sequence[str], titulos: Sequence[str],
                         largura: float = 13.0, altura: float = 4.8) -> Figure:
    """Vários mapas de pesos lado a lado (um por cabeça), na mesma escala de cor. Figura do pyplot."""
    fig, axes = nova_figura(largura, altura, ncols=len(pesos), pyplot=True)
    fig.subplots_adjust(left=0.07, right=0.99, bottom=0.2, top=0.9, wspace=0.12)
    for j, (w, titulo) in enumerate(zip(pesos, titulos, strict=True)):
        desenhar_mapa_cabeca(axes[0, j], w, tokens, titulo, rotulos_y=j == 0)
    return fig


def figura_kv_cache(contextos: Sequence[int], memorias: dict[str, Sequence[float]], titulo: str = "") -> Figure:
    """Barras agrupadas da memória do KV cache (em GiB) por comprimento de contexto, uma cor por variante.

    ``memorias``: nome da variante → bytes para cada contexto. O valor vai escrito em cima de cada barra.
    """
    fig, axes = nova_figura(10.0, 4.6, pyplot=True)
    fig.subplots_adjust(left=0.08, right=0.99, bottom=0.14, top=0.9)
    ax = axes[0, 0]
    x = np.arange(len(contextos))
    largura = 0.8 / len(memorias)
    cores = (CORES["k"], CORES["q"], CORES["v"], CORES["destaque"])
    topo = max(max(v) for v in memorias.values()) / 2**30
    for j, (nome, valores) in enumerate(memorias.items()):
        gib = np.asarray(valores, dtype=float) / 2**30
        pos = x + (j - (len(memorias) - 1) / 2) * largura
        ax.bar(pos, gib, width=largura * 0.95, color=cores[j % len(cores)], label=nome)
        for p, g, b in zip(pos, gib, valores, strict=True):
            ax.text(p, g + 0.01 * topo, formatar_bytes(b).replace(" ", "\n"), ha="center", va="bottom")
    ax.set_xticks(x, [f"{c} tokens" for c in contextos])
    ax.set_ylabel("KV cache (GiB)")
    ax.set_ylim(0, topo * 1.25)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", frameon=False)
    if titulo:
        ax.set_title(titulo)
    return fig


def _largura_texto_pt(texto: str, tamanho_pt: float) -> float:
    """Uma estimativa (por cima) da largura de ``texto`` em pontos: ~0.65 em por caractere (DejaVu Sans)."""
    return 0.65 * tamanho_pt * len(texto)


class FiguraCabecas:
    """O painel das várias cabeças: quem compartilha keys/values com quem, e quanto o KV cache ocupa.

    1. ``ax_grupos``: as cabeças de query numa fileira de barras altas (em cima) e as cabeças de
       key/value numa fileira de losangos (embaixo); cada query liga-se à cabeça de key/value que ela
       usa, e cada grupo tem uma cor. Com até 8 grupos, cada grupo leva em cima os índices das suas
       queries (``0–3``, ``4–7``…);
    2. ``ax_memoria``: três barras horizontais — MHA (uma key/value por query), a escolha atual e
       MQA (uma key/value só) —, com o tamanho escrito ao lado.

    Os artistas são criados uma vez; ``atualizar`` só muda os dados (posições, cores, tamanhos, textos).
    """

    #: no máximo quantos grupos levam rótulo com os índices das queries
    MAX_ROTULOS_GRUPOS = 8

    def __init__(self, ax_grupos: Axes, ax_memoria: Axes):
        from matplotlib.collections import LineCollection, PolyCollection

        self.ax_grupos = ax_grupos
        ax_grupos.set_xlim(0, 1)
        ax_grupos.set_ylim(-0.45, 1.52)
        ax_grupos.set_xticks([])
        ax_grupos.set_yticks([0, 1], ["keys/\nvalues", "queries"])
        ax_grupos.tick_params(length=0)
        ax_grupos.grid(False)
        for lado in ("left", "bottom"):
            ax_grupos.spines[lado].set_visible(False)
        self.linhas = LineCollection([], linewidths=1.2, alpha=0.7)
        ax_grupos.add_collection(self.linhas)
        # as queries são barras altas (e não marcadores quadrados): com 32 ou 64 cabeças a largura de cada
        # uma é pequena, e a altura é o que as deixa visíveis num projetor
        self.barras_q = PolyCollection([], zorder=3, edgecolors="none")
        ax_grupos.add_collection(self.barras_q)
        self.rotulos_grupos = [ax_grupos.text(0.0, 1.17, "", ha="center", va="bottom",
                                              fontsize=mpl.rcParams["font.size"] - 1)
                               for _ in range(self.MAX_ROTULOS_GRUPOS)]
        self.pontos_kv = ax_grupos.scatter([], [], marker="D", zorder=3, edgecolors="black", linewidths=0.8)
        self.texto_q = ax_grupos.text(0.0, 1.42, "", ha="left", va="center")
        self.texto_kv = ax_grupos.text(0.0, -0.3, "", ha="left", va="center")
        self.titulo_grupos = ax_grupos.set_title("", y=1.0)

        self.ax_memoria = ax_memoria
        self.barras = ax_memoria.barh([2, 1, 0], [1, 1, 1], height=0.6,
                                      color=[CORES["k"], CORES["q"], CORES["v"]])
        self.rotulos_barras = [ax_memoria.text(0, y, "", va="center", ha="left") for y in (2, 1, 0)]
        ax_memoria.set_yticks([2, 1, 0], ["MHA", "escolha", "MQA"])
        ax_memoria.set_xticks([])
        ax_memoria.set_ylim(-0.6, 2.6)
        ax_memoria.grid(False)
        ax_memoria.spines["bottom"].set_visible(False)
        self.titulo_memoria = ax_memoria.set_title("", y=1.0, loc="right")  # à direita: não sai da figura

    def atualizar(self, mapa: Sequence[int], n_kv: int, bytes_mha: float, bytes_escolha: float, bytes_mqa: float,
                  titulo_grupos: str = "", titulo_memoria: str = "", d_head: int | None = None) -> None:
        """``mapa[h]`` = a cabeça de key/value da query ``h``; os três tamanhos em bytes; ``d_head``, se
        dado, vai escrito junto do número de cabeças de query."""
        mapa = np.asarray(mapa, dtype=int)
        n_q = len(mapa)
        xq = (np.arange(n_q) + 0.5) / n_q
        xkv = np.array([xq[mapa == g].mean() for g in range(n_kv)])
        cores_q = [CORES_GRUPOS[g % len(CORES_GRUPOS)] for g in mapa]
        cores_kv = [CORES_GRUPOS[g % len(CORES_GRUPOS)] for g in range(n_kv)]
        largura_pt = self.ax_grupos.get_position().width * self.ax_grupos.figure.get_figwidth() * 72
        # cada barra ocupa 80% do espaço de uma cabeça, sem passar de 20 pt de largura
        meia = min(0.8 / n_q, 20.0 / largura_pt) / 2
        self.barras_q.set_verts([[(x - meia, 0.87), (x + meia, 0.87), (x + meia, 1.13), (x - meia, 1.13)]
                                 for x in xq])
        self.barras_q.set_facecolors(cores_q)
        grupo = n_q // n_kv
        textos = [f"{g * grupo}–{(g + 1) * grupo - 1}" if grupo > 1 else str(g) for g in range(n_kv)]
        # com fontes grandes (modo de apresentação) os rótulos podem não caber: mostra um a cada `passo`
        maior_pt = max(_largura_texto_pt(t, self.rotulos_grupos[0].get_fontsize()) for t in textos)
        passo = max(1, math.ceil(maior_pt / (0.9 * largura_pt * grupo / n_q)))
        for g, rotulo in enumerate(self.rotulos_grupos):
            if g < n_kv <= self.MAX_ROTULOS_GRUPOS and g % passo == 0:
                rotulo.set_position((xkv[g], 1.17))
                rotulo.set_text(textos[g])
            else:
                rotulo.set_text("")
        self.pontos_kv.set_offsets(np.column_stack([xkv, np.zeros(n_kv)]))
        self.pontos_kv.set_facecolors(cores_kv)
        self.pontos_kv.set_sizes([min(0.6 * largura_pt / n_kv, 18.0) ** 2])
        self.linhas.set_segments([[(xq[h], 1.0), (xkv[mapa[h]], 0.0)] for h in range(n_q)])
        self.linhas.set_colors(cores_q)
        self.texto_q.set_text(f"{n_q} cabeça{'s' if n_q > 1 else ''} de query"
                              + (f", d_head = {d_head}" if d_head is not None else ""))
        self.texto_kv.set_text(f"{n_kv} cabeça{'s' if n_kv > 1 else ''} de key/value")
        self.titulo_grupos.set_text(titulo_grupos)

        valores = (bytes_mha, bytes_escolha, bytes_mqa)
        maximo = max(valores)
        largura_mem_pt = self.ax_memoria.get_position().width * self.ax_memoria.figure.get_figwidth() * 72
        limite = 1.15 * maximo
        for barra, rotulo, b in zip(self.barras, self.rotulos_barras, valores, strict=True):
            barra.set_width(b)
            rotulo.set_position((b + 0.015 * maximo, rotulo.get_position()[1]))
            fator = bytes_mha / b
            rotulo.set_text(formatar_bytes(b) + (f"  (÷{fator:.3g} da MHA)" if fator > 1 else ""))
            # o eixo vai até onde o texto ao lado da barra cabe inteiro
            fracao_texto = _largura_texto_pt(rotulo.get_text(), rotulo.get_fontsize()) / largura_mem_pt
            limite = max(limite, (b + 0.015 * maximo) / max(0.98 - fracao_texto, 0.15))
        self.ax_memoria.set_xlim(0, limite)
        self.titulo_memoria.set_text(titulo_memoria)


# === 09 · custo quadrático ============================================================================
# As contas (escores, FLOPs, memória, o padrão de pares calculados) vêm de helpers.efficient e do
# painel_custo; aqui só se desenha.

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
        self.imagem = ax_padrao.imshow(np.zeros((2, 2)), cmap=mapa, vmin=0.0, vmax=1.0,
                                       interpolation="nearest", extent=(0, 1, 1, 0))
        ax_padrao.grid(False)
        ax_padrao.set_xticks([])
        ax_padrao.set_yticks([])
        ax_padrao.set_xlabel("key j", labelpad=20)
        ax_padrao.set_ylabel("query i", labelpad=34)
        # as marcas 0, n/2, n são textos próprios (e não os ticks do eixo) para que um painel possa
        # redesenhar só o que muda (veja artistas_dinamicos)
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

    def artistas_dinamicos(self) -> list:
        """Os artistas que ``atualizar`` muda; o resto da figura (eixos, legendas, grades) é fixo."""
        fixos = [self.imagem, *self.ax_padrao.spines.values(), self.grade, self.bloco, self.aviso, self.titulo_padrao,
                 *self.marcas, *self.verticais]  # as bordas do padrão vão por cima da imagem
        return fixos + [a for chave in ("flops", "bytes") for d in (self.linhas[chave], self.pontos[chave])
                        for a in d.values()]

    def atualizar(self, n: int, padrao: ArrayLike, curvas: dict[str, dict[str, ArrayLike]],
                  atuais: dict[str, dict[str, float]], *, bloco: int | None = None, titulo: str = "",
                  aviso: str = "") -> None:
        """``padrao``: imagem ``(R, R)`` em [0, 1]; ``curvas[metodo]["flops" | "bytes"]``: um valor por
        ``n`` de ``ns``; ``atuais[metodo]["flops" | "bytes"]``: os valores no ``n`` atual; ``bloco``:
        o tamanho do bloco para desenhar a grade (``None`` = sem grade)."""
        self.imagem.set_data(np.asarray(padrao, dtype=float))
        self.imagem.set_extent((0, n, n, 0))
        self.ax_padrao.set_xlim(0, n)
        self.ax_padrao.set_ylim(n, 0)
        for texto, m in zip(self.marcas, [0, n // 2, n] * 2, strict=True):
            texto.set_text(f"{m // 1024}k" if m >= 2048 else str(m))
        if bloco is not None:
            nb = -(-n // bloco)
            if nb <= 64:
                cortes = np.arange(1, nb) * bloco
                self.grade.set_segments([((c, 0), (c, n)) for c in cortes] + [((0, c), (n, c)) for c in cortes])
            else:
                self.grade.set_segments([])
            linha = min(2, nb - 1)
            coluna = min(1, linha)
            self.bloco.set_bounds(coluna * bloco, linha * bloco, min(bloco, n), min(bloco, n))
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


# === 10 · revisão ============================================================================


def _caixa(ax: Axes, x: float, y: float, texto: str, cor: str, largura: float = 2.0, altura: float = 1.05,
           tracejada: bool = False) -> None:
    """Uma caixa de cantos arredondados centrada em ``(x, y)``, com ``texto`` no meio."""
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x - largura / 2, y - altura / 2), largura, altura,
                                boxstyle="round,pad=0.02,rounding_size=0.15", facecolor=mpl.colors.to_rgba(cor, 0.13),
                                edgecolor=cor, lw=2.0, ls="--" if tracejada else "-"))
    ax.text(x, y, texto, ha="center", va="center", fontsize=12, color="black", linespacing=1.35)


def _flecha(ax: Axes, de: tuple[float, float], para: tuple[float, float], rotulo: str = "",
            deslocamento: tuple[float, float] = (0.0, 0.18), cor: str = CORES["neutro"], curva: float = 0.0) -> None:
    ax.annotate("", xy=para, xytext=de, arrowprops=dict(arrowstyle="-|>", color=cor, lw=1.8, mutation_scale=16,
                                                        shrinkA=0, shrinkB=0,
                                                        connectionstyle=f"arc3,rad={curva}"))
    if rotulo:
        meio = ((de[0] + para[0]) / 2 + deslocamento[0], (de[1] + para[1]) / 2 + deslocamento[1])
        ax.text(*meio, rotulo, ha="center", va="bottom", fontsize=11, color=CORES["neutro"])


def figura_mecanismo(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike,
                     n_heads: int, cabeca: int = 0) -> Figure:
    """O mecanismo inteiro numa figura: ``X`` → ``Q, K, V`` → escores → softmax → pesos → saída de cada
    cabeça → juntar e ``W_o``, com as formas de verdade de cada passo e, embaixo, o mapa de pesos da
    ``cabeca`` escolhida (as contas vêm de :mod:`helpers.attention`).

    ``X`` ``(n, d_model)``; ``W_q``, ``W_k``, ``W_v`` ``(d_model, n_heads·d_head)``; ``W_o``
    ``(n_heads·d_head, d_out)``. Devolve a ``Figure`` do pyplot.
    """
    from .attention import merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads

    X = np.asarray(X, dtype=float)
    W_q, W_k, W_v, W_o = (np.asarray(w, dtype=float) for w in (W_q, W_k, W_v, W_o))
    n, d_model = X.shape
    Qh, Kh, Vh = (split_heads(X @ w, n_heads) for w in (W_q, W_k, W_v))
    saida_h, pesos = scaled_dot_product_attention(Qh, Kh, Vh)
    saida = merge_heads(saida_h) @ W_o
    referencia, _ = multi_head_attention(X, X, W_q, W_k, W_v, W_o, n_heads)
    if not np.allclose(saida, referencia):  # pragma: no cover - as duas contas são a mesma
        raise ValueError("a figura e attention.multi_head_attention discordam; confira as formas de W_q, W_k, W_v, W_o.")
    d_k, d_v, d_out = Qh.shape[-1], Vh.shape[-1], saida.shape[-1]

    fig, axes = nova_figura(11.5, 5.6, pyplot=True)
    ax = axes[0, 0]
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.9)
    ax.set_xlim(0, 16)
    ax.set_ylim(0, 7)
    ax.axis("off")
    ax.set_title("O mecanismo inteiro, em cada cabeça: softmax(Q Kᵀ / √d_k) V", fontsize=14)

    y_q, y_k, y_v, y_z = 5.9, 4.4, 2.9, 5.15
    _caixa(ax, 1.1, y_k, f"X\n(n, d_model)\n= ({n}, {d_model})", CORES["neutro"], largura=1.9, altura=1.45)
    ax.text(1.1, 3.2, f"{n_heads} cabeças:\nd_k = d_model / {n_heads}", ha="center", va="top", fontsize=11,
            color=CORES["neutro"])
    for y, nome, cor, d in ((y_q, "Q = X W_q", CORES["q"], d_k), (y_k, "K = X W_k", CORES["k"], d_k),
                            (y_v, "V = X W_v", CORES["v"], d_v)):
        rotulo = "d_k" if nome[0] in "QK" else "d_v"
        _caixa(ax, 3.9, y, f"{nome}\n(n, {rotulo}) = ({n}, {d})", cor, largura=2.2)
        _flecha(ax, (2.05, y_k), (2.8, y), deslocamento=(0, 0))

    _caixa(ax, 6.85, y_z, f"escores\nz = Q Kᵀ / √d_k\n(n, n) = ({n}, {n})", CORES["destaque"], largura=2.4,
           altura=1.45)
    _flecha(ax, (5.0, y_q), (5.65, y_z + 0.3))
    _flecha(ax, (5.0, y_k), (5.65, y_z - 0.3))
    _caixa(ax, 10.8, y_z, "pesos = softmax(z)\npor linha (n, n):\ncada linha soma 1", CORES["extra"], largura=2.5,
           altura=1.45)
    _flecha(ax, (8.05, y_z), (9.55, y_z), rotulo="máscara:\n-inf antes", deslocamento=(0, 0.08))

    _caixa(ax, 10.8, 2.2, f"saída da cabeça\npesos @ V\n(n, d_v) = ({n}, {d_v})", CORES["saida"], largura=2.5,
           altura=1.45)
    _flecha(ax, (10.8, y_z - 0.73), (10.8, 2.93))
    _flecha(ax, (5.0, y_v), (9.55, 2.2), curva=0.12)
    _caixa(ax, 14.4, 2.2, f"juntar as cabeças\ne aplicar W_o\n(n, d_out) = ({n}, {d_out})",
           CORES["saida"], largura=2.7, altura=1.45)
    _flecha(ax, (12.05, 2.2), (12.95, 2.2))

    custos = ("custo para n tokens:  projeções ∝ n · d_model²  (linear em n)   ·   escores, softmax e pesos @ V "
              "∝ n² · d  (quadrático)\nmemória: os pesos têm n × n números por cabeça;  na geração, o KV cache guarda "
              "2 · camadas · n_kv_heads · tokens · d_head números")
    ax.text(0.2, 0.35, custos, ha="left", va="center", fontsize=11, color=CORES["neutro"], linespacing=1.5)

    # o mapa de pesos de verdade, ao lado da caixa de pesos; linhas e colunas numeradas pelo token, a
    # partir de 0 (como no código): a linha 0 é a query do token 0
    mapa = fig.add_axes((0.77, 0.465, 0.19, 0.4))
    w = pesos[cabeca]
    mapa.imshow(w, cmap=MAPA, vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            mapa.text(j, i, f"{w[i, j]:.3f}", ha="center", va="center", fontsize=13,
                      color="white" if w[i, j] < 0.5 else "black")
    mapa.set_xticks(range(n), [str(j) for j in range(n)])
    mapa.set_yticks(range(n), [str(i) for i in range(n)])
    mapa.tick_params(length=0, labelsize=12, pad=3)
    mapa.set_xlabel("key do token", fontsize=12, labelpad=2)
    mapa.yaxis.set_label_position("right")
    mapa.set_ylabel("query do token", fontsize=12, labelpad=16, rotation=270)
    mapa.grid(False)
    mapa.set_title(f"pesos da cabeça {cabeca}", fontsize=12)
    return fig


modo_padrao()
