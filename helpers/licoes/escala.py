"""Lição "A escala √d" (notebook ``escala_raiz_d``): o painel da escala √d (escores, pesos e gradiente) e o corretor dos escores escalados.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes

from .. import plots
from ..attention import (
    softmax,
    softmax_jacobian,
)
from ..corretor import Caso, Erro, Exercicio, conferir, corretor_de
from ..formato import sobrescrito
from ..paineis import Painel, tabela
from ..plots import CORES
from .produto_escalar import ERROS_ESCORES, explica_forma_q_k

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


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
        # o eixo y vai de 0 a 1 e as alturas chegam já divididas pelo topo da vez: a mesma figura que
        # mudar o limite do eixo, sem mudar o eixo a cada movimento (o painel redesenha só o que muda)
        ax_hist.set_ylim(0, 1)
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
        ax_grad.set_yticks(expoentes, ["1" if e == 0 else "10" + sobrescrito(e) for e in expoentes])
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
        self.hist.set_data(fracao / (max(float(fracao.max()), 1e-3) * 1.25))
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

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: as dimensões do painel da escala: potências de 2, de 2 a 1024
DIMS_ESCALA = [2**i for i in range(1, 11)]


def _norma_do_jacobiano(p: np.ndarray) -> np.ndarray | float:
    """‖J‖ (Frobenius) do jacobiano da softmax para pesos ``p`` ``(..., n)``: perto de 0 quando ela satura."""
    norma = np.linalg.norm(softmax_jacobian(p), axis=(-2, -1))
    return float(norma) if norma.ndim == 0 else norma

def painel_escala(d: int = 256, escalar: bool = False, n_keys: int = 16, n_queries: int = 125,
                  semente: int = 5) -> Painel:
    """Escores de vetores aleatórios (entradas com variância 1) numa dimensão ``d`` escolhida.

    Controles: ``d`` (potências de 2, de 2 a 1024) e ``escalar`` (dividir os escores por √d).
    Sorteia uma vez só ``n_queries`` queries e, para cada uma, ``n_keys`` keys, em 1024 dimensões; a
    dimensão ``d`` usa as ``d`` primeiras coordenadas (as somas acumuladas ficam guardadas, então
    mover o slider não refaz conta pesada). Mostra o histograma de todos os ``n_queries × n_keys``
    escores, os pesos da softmax (:func:`helpers.attention.softmax`) da primeira query (a "query
    fixa") sobre as suas keys, o peso máximo e a norma do jacobiano da softmax
    (:func:`norma_jacobiano_softmax`); as curvas do terceiro gráfico são a mediana sobre as queries.

    Estado: ``d``, ``escalar``, ``q`` ``(d,)`` e ``K`` ``(n_keys, d)`` (a query fixa e as suas keys),
    ``escores`` ``(n_keys,)`` (o que entra na softmax), ``pesos``, ``peso_max``, ``norma_grad``,
    ``desvio_pares`` (desvio-padrão de todos os escores do histograma).
    """

    d_max = DIMS_ESCALA[-1]
    rng = np.random.default_rng(semente)
    Q = rng.standard_normal((n_queries, 1, d_max))
    KK = rng.standard_normal((n_queries, n_keys, d_max))
    acum = np.cumsum(KK * Q, axis=-1)  # acum[m, j, d-1] = K_m[j, :d] @ q_m[:d]
    q, K = Q[0, 0], KK[0]

    def todos_escores(dim: int, com_escala: bool) -> np.ndarray:
        return acum[:, :, dim - 1] / (math.sqrt(dim) if com_escala else 1.0)

    grad_sem = [float(np.median(_norma_do_jacobiano(softmax(todos_escores(x, False))))) for x in DIMS_ESCALA]
    grad_com = [float(np.median(_norma_do_jacobiano(softmax(todos_escores(x, True))))) for x in DIMS_ESCALA]
    grad_fixa = min(_norma_do_jacobiano(softmax(todos_escores(x, e)[0])) for x in DIMS_ESCALA for e in (False, True))

    fig, axes = plots.nova_figura(9.0, 3.6, ncols=3)
    fig.subplots_adjust(left=0.08, right=0.985, bottom=0.16, top=0.88, wspace=0.45)
    figura = FiguraEscala(axes[0, 0], axes[0, 1], axes[0, 2], n_keys, DIMS_ESCALA, grad_sem, grad_com,
                                minimo_grad=grad_fixa)
    controles: dict[str, W.ValueWidget] = {
        "d": W.SelectionSlider(options=DIMS_ESCALA, value=d, description="dimensão d", continuous_update=True,
                               style={"description_width": "initial"}, layout=W.Layout(width="320px")),
        "escalar": W.Checkbox(value=escalar, description="dividir os escores por √d", indent=False),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        dim, com_escala = int(v["d"]), bool(v["escalar"])
        fator = math.sqrt(dim) if com_escala else 1.0
        tudo = todos_escores(dim, com_escala)
        pares = tudo.ravel()
        escores = tudo[0]
        pesos = softmax(escores)
        norma = _norma_do_jacobiano(pesos)
        peso_max = float(pesos.max())
        desvio = float(np.std(pares))
        figura.atualizar(pares, escores, pesos, dim, norma, com_escala)
        divisao = f"q·k / √{dim} (÷ {fator:.3g})" if com_escala else "q·k (sem escala)"
        html = tabela([
            ("escores", divisao),
            ("desvio-padrão de todos os escores do histograma",
             f"{desvio:.2f}" + ("" if com_escala else f"   (√d = {math.sqrt(dim):.2f})")),
            (f"maior peso da softmax (query fixa, {n_keys} keys)", f"{peso_max:.3f}   (uniforme seria {1 / n_keys:.4g})"),
            ("norma do gradiente da softmax ‖J‖ (query fixa, ○)", f"{norma:.2e}"),
        ])
        return {"d": dim, "escalar": com_escala, "q": q[:dim], "K": K[:, :dim], "escores": escores, "pesos": pesos,
                "peso_max": peso_max, "norma_grad": norma, "desvio_pares": desvio, "html": html}

    return Painel(fig, controles, calcular, titulo="Por que dividir por √d: escores, pesos e gradiente")

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------


def _com_escala(erro: Erro) -> Erro:
    """Um erro dos escores do 02, agora com a divisão por √d certa por cima."""
    return Erro(f"{erro.nome} (com a escala)",
                "A divisão por √d está lá, mas os escores antes dela não estão certos. " + erro.texto(Caso("", {})),
                resposta=lambda q, K: np.asarray(erro.resposta(q=q, K=K), dtype=float) / math.sqrt(K.shape[1]))


ESCORES_ESCALADOS = Exercicio(
    nome="escores escalados",
    casos=lambda: (lambda rng: [
        Caso("com d = 16 (q (16,), K (3, 16))", {"q": rng.normal(size=16).round(1), "K": rng.normal(size=(3, 16)).round(1)}),
        Caso("no exemplo do notebook 02 (d = 2: q = (1, 0), keys (1, 0), (0, 1) e (0.5, 0.5))",
             {"q": np.array([1.0, 0.0]), "K": np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])}),
    ])(np.random.default_rng(16)),
    certo=lambda q, K: K @ q / math.sqrt(K.shape[1]),
    acerto="Correto! Escores escalados = K @ q / √d. No exemplo do notebook 02 (d = 2, √2 ≈ 1.414) eles dão "
           "(0.707, 0, 0.354): os números que vão para a softmax (os do Exemplo 1).",
    erros=[
        Erro("sem escala",
             lambda q, K: f"Faltou a escala: você devolveu os escores q·kᵢ crus. Divida por √d (aqui √{K.shape[1]} ≈ "
                          f"{math.sqrt(K.shape[1]):.3g}), senão a variância dos escores cresce com d e a softmax satura.",
             resposta=lambda q, K: K @ q),
        Erro("÷d em vez de ÷√d",
             lambda q, K: f"Você dividiu por d = {K.shape[1]} em vez de √d = √{K.shape[1]} ≈ {math.sqrt(K.shape[1]):.3g}. "
                          "Dividir por d encolhe demais: a variância vira 1/d e, com d grande, todos os escores ficam "
                          "perto de 0 (pesos quase uniformes).",
             resposta=lambda q, K: K @ q / K.shape[1]),
        Erro("×√d em vez de ÷√d",
             lambda q, K: f"Você multiplicou por √d em vez de dividir: os escores ficaram {K.shape[1]} vezes maiores "
                          "que o certo.",
             resposta=lambda q, K: K @ q * math.sqrt(K.shape[1])),
        Erro("÷(d/2): a precedência de d ** 1/2",
             lambda q, K: f"Você dividiu por d/2 = {K.shape[1] / 2:g}. Cuidado com a precedência: d ** 1/2 é "
                          "(d ** 1) / 2, não a raiz. Use np.sqrt(d) ou d ** 0.5.",
             resposta=lambda q, K: K @ q / (K.shape[1] / 2)),
        Erro("÷2d: a precedência de / d ** 1/2",
             lambda q, K: f"Você dividiu por 2d = {2 * K.shape[1]}. Cuidado com a precedência: em K @ q / d ** 1/2 o "
                          "Python calcula d ** 1 primeiro e depois divide da esquerda para a direita, ((K @ q) / d) / 2. "
                          "A raiz é np.sqrt(d) ou d ** 0.5 (com parênteses: K @ q / d ** 0.5).",
             resposta=lambda q, K: K @ q / (2 * K.shape[1])),
        Erro("raiz do número de keys",
             lambda q, K: f"Você dividiu pela raiz do **número de keys** (n = {K.shape[0]}), não da dimensão. O d da "
                          f"escala é o tamanho de cada vetor: K.shape[1] (ou len(q)) = {K.shape[1]}.",
             resposta=lambda q, K: K @ q / math.sqrt(K.shape[0])),
        Erro("softmax já aplicada",
             "Você já aplicou a softmax. Aqui queremos só os escores escalados, K @ q / √d; a softmax é o passo "
             "seguinte (notebook 04).",
             resposta=lambda q, K: softmax(K @ q / math.sqrt(K.shape[1]))),
        *[_com_escala(e) for e in ERROS_ESCORES],
    ],
    explica_forma=explica_forma_q_k,
    dica_de_forma="Os escores escalados são um vetor (n,): um escore por key.",
)


@corretor_de(ESCORES_ESCALADOS)
def check_escores_escalados(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, K)`` = ``K @ q / √d``: os escores de uma query ``(d,)`` contra as keys ``K`` ``(n, d)``,
    divididos pela raiz da dimensão ``d`` (o comprimento de cada vetor).

    Reconhece cada erro de :data:`ESCORES_ESCALADOS`: sem escala, dividir por ``d``, multiplicar por ``√d``,
    a precedência de ``d ** 1/2``, a raiz do **número de keys**, a softmax já aplicada e, com a escala certa,
    os erros do produto escalar do notebook 02.
    """
    return conferir(ESCORES_ESCALADOS, fn)
