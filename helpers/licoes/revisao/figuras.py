"""A figura do mecanismo inteiro (o resumo do notebook ``revisao``): ``X`` → ``Q, K, V`` → escores →
softmax → pesos → saída de cada cabeça → juntar e ``W_o``, com as formas de verdade de cada passo."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ... import plots
from ...attention import merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads
from ...plots import CORES, MAPA


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

    fig, axes = plots.nova_figura(11.5, 5.6, pyplot=True)
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
        # a forma inteira é a que o código imprime, (n, n_heads·d); cada cabeça fica com (n, d)
        _caixa(ax, 3.9, y, f"{nome}: ({n}, {n_heads * d})\npor cabeça: ({n}, {d})", cor, largura=2.7)
        _flecha(ax, (2.05, y_k), (2.55, y), deslocamento=(0, 0))

    _caixa(ax, 6.85, y_z, f"escores\nz = Q Kᵀ / √d_k\n(n, n) = ({n}, {n})", CORES["destaque"], largura=2.4,
           altura=1.45)
    _flecha(ax, (5.25, y_q), (5.65, y_z + 0.3))
    _flecha(ax, (5.25, y_k), (5.65, y_z - 0.3))
    _caixa(ax, 10.8, y_z, "pesos = softmax(z)\npor linha (n, n):\ncada linha soma 1", CORES["extra"], largura=2.5,
           altura=1.45)
    _flecha(ax, (8.05, y_z), (9.55, y_z), rotulo="máscara:\n-inf antes", deslocamento=(0, 0.08))

    _caixa(ax, 10.8, 2.2, f"saída da cabeça\npesos @ V\n(n, d_v) = ({n}, {d_v})", CORES["saida"], largura=2.5,
           altura=1.45)
    _flecha(ax, (10.8, y_z - 0.73), (10.8, 2.93))
    _flecha(ax, (5.25, y_v), (9.55, 2.2), curva=0.12)
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
