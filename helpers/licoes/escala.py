"""Lição "A escala √d" (notebook ``escala_raiz_d``): o painel da escala √d (escores, pesos e o maior peso em função de d), os experimentos da saturação (o maior peso e o empurrão num escore) e da sensibilidade dos pesos à query (o aprofundamento), as suas figuras, a caixa da previsão da variância de q·k e os corretores dos escores escalados e dos pesos de atenção de um lote de queries.

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
from matplotlib.artist import Artist
from matplotlib.axes import Axes

from .. import plots
from .._fast import blas_one_thread
from ..attention import (
    softmax,
    softmax_jacobian,
)
from ..corretor import Caso, Erro, Exercicio, Previsao, conferir, corretor_de
from ..erros_de_escores import ERROS_DE_LACO_E_ORDEM, ERROS_ESCORES, explica_forma_q_k
from ..estabilidade import EXPLICA_KEEPDIMS, erros_de_estabilidade, esqueceu_keepdims, normalizou_pelo_array_inteiro
from ..formato import decimal
from ..paineis import Painel, tabela
from ..plots import CORES
from ..previsao import CaixaDePrevisao, caixa
from ..respostas import NumeroAproximado, NumeroDeCabeca

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


class FiguraEscala:
    """Três painéis sobre a escala √d, para uma dimensão ``d`` e com ou sem a divisão por √d.

    1. o histograma dos escores de muitos pares query–key aleatórios (eixo x fixo, para ver a
       largura mudar), com tracinhos marcando os escores da query fixa contra as suas keys;
    2. os pesos da softmax dessa query sobre as keys (eixo y de 0 a 1) e a linha do peso uniforme;
       o maior peso em amarelo-alaranjado, os outros em laranja-avermelhado;
    3. o maior peso em função de ``d``, com e sem escala (curvas calculadas antes — a mediana de muitas
       queries —, com ``d`` em escala log, cada uma com o seu rótulo), a linha do peso uniforme e um círculo no
       maior peso da query fixa no estado atual.

    ``atualizar(...)`` recebe números já calculados (a conta mora no painel, :func:`painel_escala`).
    """

    def __init__(self, ax_hist: Axes, ax_pesos: Axes, ax_maior: Axes, n_keys: int, dims: Sequence[int],
                 maior_sem: Sequence[float], maior_com: Sequence[float], limite_x: float = 80.0, n_bins: int = 80):
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
        self.uniforme = ax_pesos.axhline(1 / n_keys, color=CORES["neutro"], ls="--", lw=1.2,
                                         label=f"uniforme (1/{n_keys})")
        ax_pesos.legend(loc="upper center", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)
        ax_pesos.set_yticks([0, 0.5, 1])
        ax_pesos.set_ylim(0, 1.2)  # a faixa acima de 1 fica livre para a legenda
        ax_pesos.set_xlim(0.4, n_keys + 0.6)
        ax_pesos.set_xticks([])
        ax_pesos.set_xlabel(f"as {n_keys} keys da query fixa")
        ax_pesos.set_ylabel("peso (softmax)")
        ax_pesos.grid(axis="x", visible=False)
        self.titulo_pesos = ax_pesos.set_title("", y=1.02)

        # eixo x linear com log2(d) nos dados (mais rápido de desenhar que um eixo log)
        x = np.log2(np.asarray(dims, dtype=float))
        ax_maior.plot(x, maior_sem, color=CORES["k"], marker="o", ms=4)
        ax_maior.plot(x, maior_com, color=CORES["v"], marker="s", ms=4)
        # rótulos direto nas curvas (uma legenda cobriria uma delas em algum d)
        pequeno = mpl.rcParams["font.size"] - 1
        ax_maior.text(x[-1], maior_sem[-1] + 0.05, "sem escala", ha="right", va="bottom", color=CORES["k"],
                      fontsize=pequeno)
        ax_maior.text(x[-1], maior_com[-1] + 0.05, "÷ √d", ha="right", va="bottom", color=CORES["v"], fontsize=pequeno)
        ax_maior.axhline(1 / n_keys, color=CORES["neutro"], ls="--", lw=1.2)
        self.ponto, = ax_maior.plot([], [], ls="none", marker="o", ms=11, mfc="none", mew=2.5, color=CORES["neutro"])
        marcas_x = [x[0], (x[0] + x[-1]) // 2, x[-1]]
        ax_maior.set_xticks(marcas_x, [f"{2 ** m:.0f}" for m in marcas_x])
        ax_maior.set_yticks([0, 0.5, 1])
        ax_maior.set_ylim(0, 1.2)  # a faixa acima de 1 fica livre para o rótulo da curva sem escala
        ax_maior.set_xlim(x[0] - 0.5, x[-1] + 0.5)
        ax_maior.set_xlabel("d (escala log)")
        ax_maior.set_ylabel("maior peso (mediana)")
        ax_maior.set_title("○ = a query fixa", y=1.02)

    def atualizar(self, escores_pares: np.ndarray, escores_query: np.ndarray, pesos: np.ndarray, d: int,
                  escalar: bool) -> None:
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
        self.ponto.set_data([math.log2(d)], [float(pesos[topo])])

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda (e a linha do uniforme, que fica por cima das barras): um painel
        redesenha só eles a cada movimento."""
        return [self.hist, self.rug, self.titulo_hist, *self.barras, self.uniforme, self.titulo_pesos, self.ponto]

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: as dimensões do painel da escala: potências de 2, de 2 a 1024
DIMS_ESCALA = [2**i for i in range(1, 11)]


def sensibilidade_da_query(pesos: np.ndarray, K: np.ndarray, divisor: float) -> np.ndarray | float:
    """A sensibilidade dos pesos à query, ``‖∂s/∂q‖`` (norma de Frobenius do jacobiano): quanto os pesos
    ``s = softmax(K q / divisor)`` mudam quando a query muda.

    Não é o gradiente de uma perda, mas o limita: para qualquer perda ``L`` que dependa de ``q`` só pelos
    pesos, ``‖∂L/∂q‖ ≤ ‖∂s/∂q‖ · ‖∂L/∂s‖``. ``pesos`` ``(..., n)``, ``K`` ``(..., n, d)``; devolve ``(...)``
    (um número para uma query só). A conta é ``J K / divisor``, com ``J`` o jacobiano da softmax (notebook
    04); o aprofundamento do notebook 03 mede o mesmo número por diferenças finitas
    (:func:`experimento_sensibilidade`), sem a fórmula.
    """
    G = softmax_jacobian(pesos) @ K / divisor
    norma = np.linalg.norm(G, axis=(-2, -1))
    return float(norma) if norma.ndim == 0 else norma

def painel_escala(d: int = 256, escalar: bool = False, n_keys: int = 16, n_queries: int = 125,
                  semente: int = 5) -> Painel:
    """Escores de vetores aleatórios (entradas com variância 1) numa dimensão ``d`` escolhida.

    Controles: ``d`` (potências de 2, de 2 a 1024) e ``escalar`` (dividir os escores por √d).
    Sorteia uma vez só ``n_queries`` queries e, para cada uma, ``n_keys`` keys, em 1024 dimensões; a
    dimensão ``d`` usa as ``d`` primeiras coordenadas (as somas acumuladas ficam guardadas, então
    mover o slider não refaz conta pesada). Mostra o histograma de todos os ``n_queries × n_keys``
    escores, os pesos da softmax (:func:`helpers.attention.softmax`) da primeira query (a "query
    fixa") sobre as suas keys e o maior peso em função de ``d`` (a mediana sobre as queries, com e sem
    escala, e um círculo no da query fixa).

    Estado: ``d``, ``escalar``, ``q`` ``(d,)`` e ``K`` ``(n_keys, d)`` (a query fixa e as suas keys),
    ``escores`` ``(n_keys,)`` (o que entra na softmax), ``pesos``, ``peso_max`` (o da query fixa),
    ``peso_max_mediano`` (a mediana do maior peso sobre as queries), ``desvio_pares`` (desvio-padrão de
    todos os escores do histograma).
    """

    d_max = DIMS_ESCALA[-1]
    rng = np.random.default_rng(semente)
    Q = rng.standard_normal((n_queries, 1, d_max))
    KK = rng.standard_normal((n_queries, n_keys, d_max))
    acum = np.cumsum(KK * Q, axis=-1)  # acum[m, j, d-1] = K_m[j, :d] @ q_m[:d]
    q, K = Q[0, 0], KK[0]

    def todos_escores(dim: int, com_escala: bool) -> np.ndarray:
        return acum[:, :, dim - 1] / (math.sqrt(dim) if com_escala else 1.0)

    def mediana_do_maior(dim: int, com_escala: bool) -> float:
        return float(np.median(softmax(todos_escores(dim, com_escala)).max(axis=-1)))

    maior_sem = [mediana_do_maior(x, False) for x in DIMS_ESCALA]
    maior_com = [mediana_do_maior(x, True) for x in DIMS_ESCALA]

    fig, axes = plots.nova_figura(9.0, 3.6, ncols=3)
    fig.subplots_adjust(left=0.08, right=0.985, bottom=0.16, top=0.88, wspace=0.45)
    figura = FiguraEscala(axes[0, 0], axes[0, 1], axes[0, 2], n_keys, DIMS_ESCALA, maior_sem, maior_com)
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
        peso_max = float(pesos.max())
        mediano = (maior_com if com_escala else maior_sem)[DIMS_ESCALA.index(dim)]
        desvio = float(np.std(pares))
        figura.atualizar(pares, escores, pesos, dim, com_escala)
        divisao = f"q·k / √{dim} (÷ {fator:.3g})" if com_escala else "q·k (sem escala)"
        html = tabela([
            ("escores", divisao),
            ("desvio-padrão de todos os escores do histograma",
             f"{desvio:.2f}" + ("" if com_escala else f"   (√d = {math.sqrt(dim):.2f})")),
            (f"maior peso da softmax (query fixa, ○; {n_keys} keys)",
             f"{peso_max:.3f}   (uniforme seria {1 / n_keys:.4g})"),
            (f"maior peso, mediana das {n_queries} queries", f"{mediano:.3f}"),
        ])
        return {"d": dim, "escalar": com_escala, "q": q[:dim], "K": K[:, :dim], "escores": escores, "pesos": pesos,
                "peso_max": peso_max, "peso_max_mediano": mediano, "desvio_pares": desvio, "html": html}

    return Painel(fig, controles, calcular, titulo="Por que dividir por √d: escores e pesos",
                  animados=figura.animados())

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------


def _com_escala(erro: Erro) -> Erro:
    """Um erro dos escores do 02, agora com a divisão por √d certa por cima."""
    return Erro(f"{erro.nome} (com a escala)",
                lambda q, K: "A divisão por √d está lá, mas os escores antes dela não estão certos. "
                             + erro.texto(Caso("", {"q": q, "K": K})),
                resposta=lambda q, K: np.asarray(erro.resposta(q=q, K=K), dtype=float) / math.sqrt(K.shape[1]))


def _outro_divisor(y: Any, _certo: Any, caso: Caso) -> bool:
    """Os escores são proporcionais aos certos (``c · K @ q``), mas com um fator ``c`` que não é ``1/√d``: um divisor
    fixo (o √2 do exemplo), ``K.size``, ``d`` de outro caso…"""
    q, K = (np.asarray(caso.entradas[k], dtype=float) for k in ("q", "K"))
    brutos, arr = K @ q, np.asarray(y, dtype=float)
    if arr.shape != brutos.shape or not np.all(np.isfinite(arr)) or float(brutos @ brutos) < 1e-12:
        return False
    c = float(arr @ brutos) / float(brutos @ brutos)
    return (c > 0 and bool(np.allclose(arr, c * brutos, rtol=1e-6, atol=1e-9))
            and not math.isclose(c, 1 / math.sqrt(K.shape[1]), rel_tol=1e-6))


def _em_float16(y: Any, certo: Any, _caso: Caso) -> bool:
    """A resposta veio em float16 e só difere da certa pelo arredondamento dele (≈ 3 algarismos significativos)."""
    arr = np.asarray(y)
    if arr.dtype != np.float16:
        return False
    alvo = np.asarray(certo, dtype=float)
    return arr.shape == alvo.shape and bool(np.allclose(arr.astype(float), alvo, rtol=2e-3, atol=2e-3))


def _erro_float16(o_que: str) -> Erro:
    """A resposta em float16: o dtype que o estudante usou, e por que ele não basta aqui."""
    return Erro("contas em float16",
                f"Os seus {o_que} vieram com dtype float16 (meia precisão): os números estão certos só até a "
                "terceira casa, porque o float16 guarda uns 3 algarismos significativos (e o maior número que cabe "
                "nele é 65 504 — e^12 já passa disso). Faça as contas no dtype das entradas (float64 ou float32): tire "
                "o .astype(np.float16) ou o dtype=np.float16.",
                quando=_em_float16)


def _explica_outro_divisor(q: np.ndarray, K: np.ndarray) -> str:

    d = K.shape[1]
    return (f"Os escores são proporcionais aos certos, mas o divisor não é √d = √{d} ≈ {decimal(math.sqrt(d), 2)}. "
            "Um número fixo (como o √2 do exemplo, que só vale com d = 2) não acompanha a dimensão, e nem K.size "
            "(n·d) nem o número de keys são o d. O d é o tamanho de cada vetor, lido da entrada: len(q) ou K.shape[1].")


ESCORES_ESCALADOS = Exercicio(
    nome="escores escalados",
    casos=lambda: (lambda rng: [
        Caso("com d = 16 (q (16,), K (3, 16))", {"q": rng.normal(size=16).round(1), "K": rng.normal(size=(3, 16)).round(1)}),
        Caso("no exemplo do notebook 02 (d = 2: q = (1, 0), keys (1, 0), (0, 1) e (0.5, 0.5))",
             {"q": np.array([1.0, 0.0]), "K": np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])}),
        Caso("com K quadrada (q (3,), K (3, 3))", {"q": np.array([1.0, -2.0, 0.5]),
                                                  "K": np.array([[2.0, 0.0, 1.0], [1.0, 1.0, -1.0], [0.0, 3.0, 2.0]])}),
    ])(np.random.default_rng(16)),
    certo=lambda q, K: K @ q / math.sqrt(K.shape[1]),
    acerto="Correto! Escores escalados = K @ q / √d. No exemplo do notebook 02 (d = 2, √2 ≈ 1,414) eles dão "
           "(0.707, 0, 0.354): os números que vão para a softmax (os do Exemplo 1).",
    erros=[
        Erro("sem escala",
             lambda q, K: f"Faltou a escala: você devolveu os escores q·kᵢ crus. Divida por √d (aqui √{K.shape[1]} ≈ "
                          f"{decimal(math.sqrt(K.shape[1]), 2)}), senão a variância dos escores cresce com d e a softmax satura.",
             resposta=lambda q, K: K @ q),
        Erro("÷d em vez de ÷√d",
             lambda q, K: f"Você dividiu por d = {K.shape[1]} em vez de √d = √{K.shape[1]} ≈ {decimal(math.sqrt(K.shape[1]), 2)}. "
                          "Dividir por d encolhe demais: a variância vira 1/d e, com d grande, todos os escores ficam "
                          "perto de 0 (pesos quase uniformes).",
             resposta=lambda q, K: K @ q / K.shape[1]),
        Erro("×√d em vez de ÷√d",
             lambda q, K: f"Você multiplicou por √d em vez de dividir: os escores ficaram {K.shape[1]} vezes maiores "
                          "que o certo.",
             resposta=lambda q, K: K @ q * math.sqrt(K.shape[1])),
        Erro("÷(d/2): a precedência de d ** 1/2",
             lambda q, K: f"Você dividiu por d/2 = {decimal(K.shape[1] / 2, 1).removesuffix(',0')}. Cuidado com a precedência: d ** 1/2 é "
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
        # os tropeços de um laço (os que dão uma resposta construível), também com a escala certa por cima
        *[_com_escala(e) for e in ERROS_DE_LACO_E_ORDEM if e.resposta is not None],
        Erro("outro divisor no lugar de √d", _explica_outro_divisor, quando=_outro_divisor),
        _erro_float16("escores"),
    ],
    explica_forma=explica_forma_q_k,
    dica_de_forma="Os escores escalados são um vetor (n,): um escore por key.",
)


@corretor_de(ESCORES_ESCALADOS)
def check_escores_escalados(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, K)`` = ``K @ q / √d``: os escores de uma query ``(d,)`` contra as keys ``K`` ``(n, d)``,
    divididos pela raiz da dimensão ``d`` (o comprimento de cada vetor); um vetor ``(n,)``.
    """
    return conferir(ESCORES_ESCALADOS, fn)



def densidade(amostras: np.ndarray, eixo: np.ndarray) -> np.ndarray:
    """A densidade estimada de ``amostras`` nos pontos de ``eixo`` (igualmente espaçados): um histograma bem fino
    suavizado por um núcleo gaussiano de largura ``1.06 σ N^(-1/5)`` (a regra de Silverman).

    Ao contrário de um histograma comum, a altura do pico não depende da largura das barras: uma distribuição
    muito estreita (``q·k / d`` com ``d = 1024``) aparece com a altura que tem de fato, ``≈ 1 / (σ √(2π))``.
    Devolve ``(len(eixo),)``; a área sob a curva é 1 (menos o que cai fora do eixo).
    """
    amostras = np.asarray(amostras, dtype=float).ravel()
    eixo = np.asarray(eixo, dtype=float)
    passo = float(eixo[1] - eixo[0])
    bordas = np.concatenate([eixo - passo / 2, [eixo[-1] + passo / 2]])
    contagem, _ = np.histogram(amostras, bordas)
    largura = max(1.06 * float(np.std(amostras)) * len(amostras) ** -0.2, passo)
    raio = int(math.ceil(4 * largura / passo))
    nucleo = np.exp(-0.5 * (np.arange(-raio, raio + 1) * passo / largura) ** 2)
    nucleo /= nucleo.sum()
    return np.convolve(contagem, nucleo, mode="same") / (len(amostras) * passo)


# ---------------------------------------------------------------------------------------------
# O experimento da saturação e a sua figura
# ---------------------------------------------------------------------------------------------

#: os três divisores do experimento, com a cor e o marcador de cada um
DIVISORES = (("sem escala", CORES["k"], "o"), ("÷ √d", CORES["v"], "s"), ("÷ d", CORES["q"], "^"))


def _sorteio(dims: Sequence[int], n_queries: int, n_keys: int, semente: int) -> tuple[np.ndarray, np.ndarray]:
    """As keys ``(M, n, D)`` e as somas parciais ``(M, n, D)`` de ``q·k`` dos experimentos (``D = max(dims)``):
    ``somas[m, j, d-1]`` é o produto escalar da query ``m`` com a sua key ``j`` usando as ``d`` primeiras
    coordenadas. Os dois experimentos sorteiam igual: mesma semente, mesmas queries e keys."""
    rng = np.random.default_rng(semente)
    Q = rng.standard_normal((n_queries, 1, max(dims)))
    KK = rng.standard_normal((n_queries, n_keys, max(dims)))
    return KK, np.cumsum(Q * KK, axis=-1)


def experimento_saturacao(dims: Sequence[int], n_queries: int = 200, n_keys: int = 16,
                          semente: int = 4) -> np.ndarray:
    """O experimento da seção 4 do notebook 03: para cada ``d`` de ``dims`` e cada divisor de :data:`DIVISORES`
    (1, √d, d), a mediana, sobre ``n_queries`` queries aleatórias (cada uma contra ``n_keys`` keys aleatórias,
    coordenadas de média 0 e variância 1), do **maior peso** da softmax: ``1/n_keys`` são pesos uniformes, 1 é
    a softmax saturada (uma key só).

    Para não sortear tudo de novo a cada ``d``, sorteia vetores de ``max(dims)`` coordenadas e usa as ``d``
    primeiras (``np.cumsum`` guarda todas as somas parciais de ``q·k``). Devolve ``(len(dims), 3)``: uma linha
    por ``d``, uma coluna por divisor.
    """
    dims = [int(d) for d in dims]
    _KK, somas_parciais = _sorteio(dims, n_queries, n_keys, semente)
    maior_peso = np.zeros((len(dims), 3))
    for i, d in enumerate(dims):
        for j, divisor in enumerate((1.0, math.sqrt(d), float(d))):
            maior_peso[i, j] = np.median(softmax(somas_parciais[:, :, d - 1] / divisor).max(axis=-1))
    return maior_peso


def experimento_sensibilidade(dims: Sequence[int], n_queries: int = 200, n_keys: int = 16, semente: int = 4,
                              h: float = 1e-5) -> np.ndarray:
    """O experimento do aprofundamento do notebook 03, com as mesmas queries e keys de
    :func:`experimento_saturacao`: a mediana da **sensibilidade** dos pesos à query, ``‖∂s/∂q‖``, para cada
    ``d`` e cada divisor (1, √d, d).

    A sensibilidade é medida por diferenças finitas, sem fórmula nenhuma: empurra-se cada coordenada de ``q``
    por ``±h``, mede-se quanto cada um dos ``n_keys`` pesos muda (por unidade de empurrão) e toma-se a raiz da
    soma dos quadrados de todas essas derivadas (o mesmo número que :func:`sensibilidade_da_query` calcula pela
    fórmula do jacobiano). Devolve ``(len(dims), 3)``: uma linha por ``d``, uma coluna por divisor.
    """
    dims = [int(d) for d in dims]
    KK, somas_parciais = _sorteio(dims, n_queries, n_keys, semente)
    sensibilidade = np.zeros((len(dims), 3))
    with blas_one_thread():
        for i, d in enumerate(dims):
            for j, divisor in enumerate((1.0, math.sqrt(d), float(d))):
                z = somas_parciais[:, :, d - 1] / divisor  # escores (M, n)
                # empurrar a coordenada c de q por ±h muda o escore da key j por ±h·K[j, c] / divisor
                passo = h * KK[:, :, :d].transpose(0, 2, 1) / divisor  # (M, d, n)
                derivadas = (softmax(z[:, None] + passo) - softmax(z[:, None] - passo)) / (2 * h)  # (M, d, n)
                sensibilidade[i, j] = np.median(np.sqrt(np.sum(derivadas**2, axis=(1, 2))))
    return sensibilidade


def experimento_empurrao(d: int = 1024, n_queries: int = 200, n_keys: int = 16, semente: int = 4) -> np.ndarray:
    """O teste de empurrar um escore da seção 4 do notebook 03, em muitas queries: com as mesmas queries e keys de
    :func:`experimento_saturacao`, em dimensão ``d``, sobe em 1 o **segundo maior** escore de cada query e mede
    quanto os ``n_keys`` pesos da softmax mudaram, somando tudo (``Σ |Δs|``, de 0 a 2), sem escala e com ÷√d.

    Devolve ``(n_queries, 2)``: uma linha por query; coluna 0 sem escala, coluna 1 com ÷√d.
    """
    _KK, somas_parciais = _sorteio([d], n_queries, n_keys, semente)
    linhas = np.arange(n_queries)
    mudancas = np.zeros((n_queries, 2))
    for j, divisor in enumerate((1.0, math.sqrt(d))):
        escores = somas_parciais[:, :, d - 1] / divisor  # (M, n)
        empurrados = escores.copy()
        empurrados[linhas, np.argsort(escores, axis=-1)[:, -2]] += 1.0  # o segundo maior escore de cada query
        mudancas[:, j] = np.abs(softmax(empurrados) - softmax(escores)).sum(axis=-1)
    return mudancas


def _eixo_d(ax: Axes) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks([2, 8, 32, 128, 512], ["2", "8", "32", "128", "512"])
    ax.minorticks_off()
    ax.set_xlabel("d")
    ax.legend(fontsize=9.5, loc="best")


def desenhar_saturacao(ax: Axes, dims: Sequence[int], maior_peso: np.ndarray, n_keys: int) -> None:
    """O maior peso da softmax (mediana) em função de ``d`` (escala log₂), uma curva por divisor de
    :data:`DIVISORES` (1, √d, d), com a linha do peso uniforme ``1/n_keys``.

    ``maior_peso``: ``(len(dims), 3)``, como devolve :func:`experimento_saturacao`.
    Uso: ``fig, ax = plt.subplots(figsize=(7, 4))``, esta função, ``plt.show()``.
    """
    x = np.asarray(dims, dtype=float)
    for j, (rotulo, cor, marcador) in enumerate(DIVISORES):
        ax.plot(x, maior_peso[:, j], color=cor, marker=marcador, label=rotulo)
    ax.axhline(1 / n_keys, color=CORES["neutro"], ls="--", lw=1.2, label=f"uniforme (1/{n_keys})")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("maior peso (mediana)")
    ax.set_title("a softmax satura?")
    _eixo_d(ax)


def desenhar_sensibilidade(ax: Axes, dims: Sequence[int], sensibilidade: np.ndarray) -> None:
    """A sensibilidade dos pesos à query, ``‖∂s/∂q‖`` (mediana, escala log), em função de ``d`` (escala log₂),
    uma curva por divisor de :data:`DIVISORES` (1, √d, d).

    ``sensibilidade``: ``(len(dims), 3)``, como devolve :func:`experimento_sensibilidade`.
    """
    x = np.asarray(dims, dtype=float)
    for j, (rotulo, cor, marcador) in enumerate(DIVISORES):
        ax.plot(x, sensibilidade[:, j], color=cor, marker=marcador, label=rotulo)
    ax.set_yscale("log")
    ax.set_ylabel("‖∂s/∂q‖ (mediana)")
    ax.set_title("sensibilidade dos pesos à query")
    _eixo_d(ax)


# ---------------------------------------------------------------------------------------------
# Prever, depois conferir
# ---------------------------------------------------------------------------------------------

#: o formato dos erros típicos da previsão da variância: o número do erro, sem folga (só o arredondamento em duas casas;
#: arredondar para o inteiro faria 0,5 passar por 1 e 0,4 por 0, e o diagnóstico seria falso)
_INTEIRO = NumeroAproximado(casas=2)

PREVISAO_VARIANCIA = Previsao(
    nome="a variância de q·k",
    certo=64,
    # uma intuição, não uma conta: vale de 58 a 70 (a medida logo abaixo dá 65,5)
    formato=NumeroDeCabeca(casas=0, folga=6),
    revelar="Var(q·k) = d = 64 (vale como acerto qualquer previsão de 58 a 70: a própria medida oscila). Nas medidas "
            "abaixo, a média fica perto de 0 — escores positivos e negativos se equilibram —, mas o **espalhamento** "
            "cresce com d: a variância acompanha o próprio d (4,0; 65,5; 1004,2 para d = 4, 64 e 1024; as diferenças "
            "são ruído de amostragem) e o desvio-padrão acompanha √d (2, 8, 32). Com d = 1024, escores como ±30 são "
            "comuns, e ±60 aparecem. A seção 2 mostra de onde isso vem.",
    erros=[
        Erro("o desvio-padrão", "8 = √64 é o desvio-padrão, a raiz da variância. A variância de q·k é d; o espalhamento "
                                "típico (o desvio) é √d.", resposta=lambda: 8, formato=_INTEIRO),
        Erro("a variância de um termo", "1 é a variância de **um** termo qᵢkᵢ. O produto escalar soma d = 64 desses "
                                        "termos, e as variâncias de termos independentes se somam.",
             resposta=lambda: 1, formato=_INTEIRO),
        Erro("a média", "0 é a média de q·k (os termos positivos e negativos se equilibram). A variância mede o "
                        "espalhamento em torno dessa média, e ele cresce com d.", resposta=lambda: 0, formato=_INTEIRO),
        Erro("d ao quadrado", "4096 = 64². Cada termo qᵢkᵢ tem variância 1 · 1 = 1, e são 64 termos: a variância é 64, "
                              "não 64².", resposta=lambda: 4096, formato=_INTEIRO),
        Erro("a chance de q·k ser positivo",
             "0,5 parece uma probabilidade, não uma variância: é a chance de q·k sair positivo (por simetria, metade "
             "das vezes), ou um peso entre 0 e 1. A variância mede quanto q·k se **espalha** em torno da média 0, e "
             "não fica presa entre 0 e 1: q·k soma d = 64 termos qᵢkᵢ independentes, cada um de variância 1, e as "
             "variâncias se somam.",
             resposta=lambda: 0.5, formato=_INTEIRO),
        Erro("somou as variâncias de q e de k", "128 = 2 · 64 seria somar as variâncias das coordenadas de q e de k. "
                                                "Mas os termos são **produtos** qᵢkᵢ, e a variância de cada produto é "
                                                "1 · 1 = 1.", resposta=lambda: 128, formato=_INTEIRO),
    ],
    exemplo="10",
    # "64" sozinho aparece em mil lugares (d = 64): as pistas são as frases que diriam a variância, e a medida
    pistas=("Var(q·k) ≈ 64", "Var(q·k) = 64", "variância é 64", "variância = 64", "variância de 64", "variância ≈ 64",
            "variância medida =    65", "cerca de 64", "= d = 64", "65,5", "65.5"),
)


@corretor_de(PREVISAO_VARIANCIA)
def prever_variancia() -> CaixaDePrevisao:
    """A caixa da previsão da variância de ``q·k`` para ``d = 64`` coordenadas independentes de média 0 e
    variância 1 (a resposta: ``64``, e vale de 58 a 70; a medida com 4000 pares dá 65,5)."""
    return caixa(PREVISAO_VARIANCIA)


# ---------------------------------------------------------------------------------------------
# A peça de verdade: os pesos de atenção de um lote de queries
# ---------------------------------------------------------------------------------------------


def _escores_lote(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    return Q @ K.T / math.sqrt(K.shape[-1])


def _quadrado(Q: np.ndarray, K: np.ndarray) -> bool:
    return Q.shape[0] == K.shape[0]


_EXEMPLO_K = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])


def _casos_pesos() -> list[Caso]:
    rng = np.random.default_rng(3)
    return [
        Caso("no exemplo resolvido, com as queries (1, 0) e (0, 1) e as keys (1, 0), (0, 1), (0.5, 0.5)",
             {"Q": np.array([[1.0, 0.0], [0.0, 1.0]]), "K": _EXEMPLO_K.copy()}),
        Caso("com d = 16 (Q (3, 16), K (5, 16))",
             {"Q": rng.normal(size=(3, 16)).round(1), "K": rng.normal(size=(5, 16)).round(1)}),
        Caso("com Q e K quadradas (3 queries, 3 keys, d = 3)",
             {"Q": rng.normal(size=(3, 3)).round(1), "K": rng.normal(size=(3, 3)).round(1)}),
        Caso("com uma query de escores muito negativos (Q = [[-1414, -1430]], escores ≈ (−1000, −1011, −1006))",
             {"Q": np.array([[-1414.0, -1430.0]]), "K": _EXEMPLO_K.copy()}),
        Caso("com queries do mesmo lote separadas por milhares (Q = [[1, 0], [3000, 0]])",
             {"Q": np.array([[1.0, 0.0], [3000.0, 0.0]]), "K": _EXEMPLO_K.copy()}),
        Caso("com uma query de escores muito espalhados (Q = [[2000, -2000]], escores ≈ (1414, -1414, 0))",
             {"Q": np.array([[2000.0, -2000.0]]), "K": _EXEMPLO_K.copy()}),
        Caso("com Q e K em float32 (Q = [[130, 0], [0, 1]])",
             {"Q": np.array([[130.0, 0.0], [0.0, 1.0]], dtype=np.float32), "K": _EXEMPLO_K.astype(np.float32)}),
    ]


def _certo_pesos(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    Q, K = Q.astype(float), K.astype(float)
    return softmax(_escores_lote(Q, K), axis=-1)


def _pesos_com_outro_divisor(y: Any, _certo: Any, caso: Caso) -> bool:
    """Os pesos são ``softmax(c · Q Kᵀ)`` linha por linha, com um fator ``c > 0`` que não é ``1/√d`` (um divisor
    fixo, ``K.size``…): o log de cada linha, centrado, é proporcional aos escores brutos centrados."""
    Q, K = (np.asarray(caso.entradas[k], dtype=float) for k in ("Q", "K"))
    brutos, arr = Q @ K.T, np.asarray(y, dtype=float)
    if arr.shape != brutos.shape or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        return False
    if not np.allclose(arr.sum(axis=-1), 1.0, rtol=1e-6):
        return False
    logs = np.log(arr)
    D = logs - logs.mean(axis=-1, keepdims=True)
    R = brutos - brutos.mean(axis=-1, keepdims=True)
    if float(np.sum(R * R)) < 1e-12:
        return False
    c = float(np.sum(D * R)) / float(np.sum(R * R))
    return (c > 0 and bool(np.allclose(D, c * R, rtol=1e-5, atol=1e-7))
            and not math.isclose(c, 1 / math.sqrt(K.shape[1]), rel_tol=1e-5))


def _explica_forma_pesos(Q: np.ndarray, K: np.ndarray) -> str:
    m, n = Q.shape[0], K.shape[0]
    return (f"Aqui Q tem forma {Q.shape} (uma query por linha) e K tem forma {K.shape} (uma key por linha): os escores "
            f"Q @ K.T têm forma ({m}, {n}), um por par (query, key). Na softmax, o máximo e a soma de cada linha com "
            f"keepdims=True têm forma ({m}, 1) e se alinham com as linhas; sem keepdims, ({m},), e não se alinham.")


PESOS_ATENCAO = Exercicio(
    nome="pesos de atenção de um lote de queries",
    casos=_casos_pesos,
    certo=_certo_pesos,
    acerto=lambda: "Correto! softmax(Q Kᵀ / √d) linha por linha: uma linha por query, um peso por key, e cada linha "
                   "soma 1. A primeira linha do exemplo resolvido é "
                   f"({', '.join(f'{p:.4f}' for p in _certo_pesos(**_casos_pesos()[0].entradas)[0])}) — os pesos do "
                   "Exemplo 1, ≈ (0.455, 0.225, 0.320). E ela aguenta escores de milhares e float32 sem NaN.",
    erros=[
        *erros_de_estabilidade(lambda trocar, Q, K: trocar(_escores_lote(Q.astype(float), K.astype(float)))),
        Erro("sem escala",
             "Faltou dividir por √d antes da softmax: você calculou softmax(Q Kᵀ). Com d grande, os escores crescem e "
             "a softmax satura.",
             resposta=lambda Q, K: softmax((Q @ K.T).astype(float), axis=-1)),
        Erro("÷d em vez de ÷√d",
             "Você dividiu por d em vez de √d: os escores ficam pequenos demais e os pesos, quase uniformes.",
             resposta=lambda Q, K: softmax((Q @ K.T).astype(float) / K.shape[1], axis=-1)),
        Erro("raiz do número de keys",
             "Você dividiu pela raiz do **número de keys**, não da dimensão. O d da escala é o tamanho de cada vetor: "
             "K.shape[1] (ou Q.shape[1]).",
             resposta=lambda Q, K: (softmax((Q @ K.T).astype(float) / math.sqrt(K.shape[0]), axis=-1)
                                    if K.shape[0] != K.shape[1] else None)),
        Erro("sem a softmax",
             "Você devolveu os escores escalados, Q Kᵀ / √d, sem a softmax. Os pesos são softmax desses escores, "
             "linha por linha: positivos e somando 1 em cada linha.",
             resposta=lambda Q, K: _escores_lote(Q.astype(float), K.astype(float))),
        Erro("softmax no eixo errado",
             "A softmax foi feita no eixo errado: na sua resposta, cada **coluna** soma 1. Cada query (uma linha) "
             "distribui o seu peso entre as keys: use axis=-1.",
             resposta=lambda Q, K: softmax(_escores_lote(Q.astype(float), K.astype(float)), axis=0)
             if Q.shape[0] > 1 else None),
        Erro("normalizou pela matriz inteira",
             "Você normalizou pela matriz inteira (e.sum(), sem axis): dentro de cada linha as proporções estão certas e "
             "a soma de **todos** os pesos dá 1, mas cada linha (cada query) é que deve somar 1. Some só ao longo do "
             "último eixo: e.sum(axis=-1, keepdims=True).",
             quando=normalizou_pelo_array_inteiro),
        Erro("sem keepdims", EXPLICA_KEEPDIMS,
             quando=esqueceu_keepdims(lambda Q, K: _escores_lote(Q.astype(float), K.astype(float)))),
        Erro("outro divisor no lugar de √d",
             lambda Q, K: f"Os pesos são a softmax dos escores divididos por outro número, não por √d = √{K.shape[1]} "
                          f"≈ {decimal(math.sqrt(K.shape[1]), 2)}. Um número fixo (como o √2 do exemplo, que só vale "
                          "com d = 2) não acompanha a dimensão, e nem K.size (n·d) nem o número de keys são o d. O d é "
                          "o tamanho de cada vetor, lido da entrada: K.shape[1] (ou Q.shape[1]).",
             quando=_pesos_com_outro_divisor),
        Erro("queries e keys trocadas",
             "Você comparou as keys com as queries (K @ Q.T): o resultado tem uma linha por **key**. Queremos uma "
             "linha por query e uma coluna por key: Q @ K.T.",
             resposta=lambda Q, K: softmax(K.astype(float) @ Q.T.astype(float) / math.sqrt(K.shape[1]), axis=-1)
             if _quadrado(Q, K) else None),
        Erro("pesos transpostos",
             "Os pesos estão certos, mas transpostos: a linha i deve ser a query i (e a coluna j, a key j). Não "
             "transponha o resultado no fim.",
             resposta=lambda Q, K: _certo_pesos(Q, K).T if _quadrado(Q, K) else None),
        _erro_float16("pesos"),
    ],
    explica_forma=_explica_forma_pesos,
    dica_de_forma="Os pesos têm uma linha por query e uma coluna por key: forma (m, n).",
)


@corretor_de(PESOS_ATENCAO)
def check_pesos_de_atencao(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(Q, K)`` = ``softmax(Q Kᵀ / √d)`` linha por linha: ``Q`` ``(m, d)``, ``K`` ``(n, d)`` → ``(m, n)``,
    cada linha somando 1.
    """
    return conferir(PESOS_ATENCAO, fn)
