"""Lição "O gargalo recorrente" (notebook ``gargalo_recorrente``): o alcance medido da memória recorrente (figuras e painel) e o corretor do passo da RNN.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from .. import plots, recurrent
from ..corretor import Caso, Erro, Exercicio, conferir, corretor_de
from ..formato import vetor
from ..paineis import Painel, tabela
from ..plots import CORES, MAPA

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


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

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


def painel_gargalo(comprimento: int = 8, tamanho_estado: int = 32) -> Painel:
    """Quanto do 1º token ainda se lê depois de ``T`` tokens: RNN tanh, RNN com porta e atenção.

    Sliders: ``comprimento`` (``T`` de 1 a 40) e ``tamanho_estado`` (``n`` em 4, 8, …, 128). As
    acurácias são medidas de verdade por :func:`helpers.recurrent.memory_grid` (leitura ridge em
    1500 sequências, teste em 500 nunca vistas), uma vez por sessão (cerca de 1 s); mover um slider
    só consulta a grade e redesenha. Estado: ``comprimento``, ``tamanho_estado``, ``acc_rnn``,
    ``acc_porta``, ``acc_atencao``, ``acaso``, ``margem`` (3 desvios do acaso) e os vereditos
    ``rnn_acima_do_acaso``, ``porta_acima_do_acaso``.
    """

    grade = recurrent.memory_grid()
    tamanhos = [int(n) for n in grade.sizes]
    if tamanho_estado not in tamanhos:
        raise ValueError(f"tamanho_estado precisa ser um de {tamanhos}; recebi {tamanho_estado!r}.")
    fig, axes = plots.nova_figura(7.6, 3.6)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9)
    figura = FiguraGargalo(axes[0, 0], len(grade.lengths), grade.chance)
    controles: dict[str, W.ValueWidget] = {
        "comprimento": W.IntSlider(
            value=comprimento, min=1, max=len(grade.lengths), step=1, description="comprimento T (tokens)",
            continuous_update=True, style={"description_width": "initial"}, layout=W.Layout(width="320px"),
        ),
        "tamanho_estado": W.SelectionSlider(
            options=tamanhos, value=tamanho_estado, description="tamanho do estado n",
            continuous_update=True, style={"description_width": "initial"}, layout=W.Layout(width="320px"),
        ),
    }

    def veredito(acc: float) -> str:
        return "acima do acaso" if acc > grade.chance + grade.chance_margin else "no nível do acaso"

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        T, n = int(v["comprimento"]), int(v["tamanho_estado"])
        i, j = grade.index(T, n)
        acc_rnn, acc_porta, acc_att = float(grade.tanh[i, j]), float(grade.gated[i, j]), float(grade.attention[j])
        figura.atualizar(grade.tanh[i], grade.gated[i], grade.attention, T, n)
        margem = grade.chance_margin
        html = tabela([
            (f"RNN tanh (guarda {n} números)", f"{acc_rnn:.3f} — {veredito(acc_rnn)}"),
            (f"RNN com porta (guarda {n} números)", f"{acc_porta:.3f} — {veredito(acc_porta)}"),
            (f"atenção (guarda os {T} vetores)", f"{acc_att:.3f}"),
            ("acaso: 1 / vocabulário", f"{grade.chance:.3f} (± {margem:.3f}, 3 desvios em {grade.n_test} testes)"),
        ])
        return {
            "comprimento": T, "tamanho_estado": n, "acc_rnn": acc_rnn, "acc_porta": acc_porta,
            "acc_atencao": acc_att, "acaso": grade.chance, "margem": margem,
            "rnn_acima_do_acaso": acc_rnn > grade.chance + margem,
            "porta_acima_do_acaso": acc_porta > grade.chance + margem, "html": html,
        }

    return Painel(fig, controles, calcular, titulo="O gargalo recorrente: ler o 1º token depois de T tokens")

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------

_FORMAS_RNN = ("Lembre as formas: h (n,), x (d,), W_h (n, n), W_x (n, d), b (n,). W_h multiplica o estado "
               "(W_h @ h: (n, n) @ (n,) → (n,)) e W_x multiplica o token (W_x @ x: (n, d) @ (d,) → (n,)).")


def _pre(h: np.ndarray, x: np.ndarray, W_h: np.ndarray, W_x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return W_h @ h + W_x @ x + b


def _casos_passo_rnn() -> list[Caso]:
    rng = np.random.default_rng(11)
    aleatorio = dict(h=rng.normal(size=3), x=rng.normal(size=4), W_h=rng.normal(size=(3, 3)),
                     W_x=rng.normal(size=(3, 4)), b=rng.normal(size=3))
    rng = np.random.default_rng(5)
    quadrado = dict(h=rng.normal(size=2), x=rng.normal(size=2), W_h=rng.normal(size=(2, 2)),
                    W_x=rng.normal(size=(2, 2)), b=rng.normal(size=2))
    return [
        Caso("no exemplo pequeno (n = 2, d = 3)", dict(
            h=np.array([0.5, -1.0]), x=np.array([0.0, 1.0, 0.0]), W_h=np.array([[0.5, -0.2], [0.3, 0.8]]),
            W_x=np.array([[1.0, -1.0, 0.5], [0.0, 2.0, -0.5]]), b=np.array([0.1, -0.1]))),
        Caso("num caso aleatório (n = 3, d = 4)", aleatorio),
        Caso("num caso quadrado (n = d = 2)", quadrado),
    ]


PASSO_RNN = Exercicio(
    nome="passo da RNN",
    casos=_casos_passo_rnn,
    certo=lambda **e: np.tanh(_pre(**e)),
    acerto=lambda: "Correto! h_novo = tanh(W_h h + W_x x + b). No exemplo pequeno: "
                   f"{vetor(np.tanh(_pre(**_casos_passo_rnn()[0].entradas)))} — ainda 2 números, como o h de antes.",
    erros=[
        Erro("sem o tanh",
             "Faltou o tanh: W_h h + W_x x + b é só a soma; o novo estado é tanh(dessa soma). O tanh mantém cada "
             "número entre -1 e 1 — sem ele, o estado pode crescer sem limite passo após passo.",
             resposta=_pre),
        Erro("sigmoide no lugar do tanh",
             "Você usou a sigmoide, 1/(1 + e^(-z)), no lugar do tanh. As duas têm forma de S, mas a sigmoide vai de "
             "0 a 1 e o tanh de -1 a 1 (o estado pode ser negativo).",
             resposta=lambda **e: 1 / (1 + np.exp(-_pre(**e)))),
        Erro("ReLU no lugar do tanh", "Você usou ReLU, max(0, z), no lugar do tanh.",
             resposta=lambda **e: np.maximum(_pre(**e), 0)),
        Erro("sem o viés", "Faltou o viés b: some b antes do tanh — tanh(W_h h + W_x x + b).",
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_h @ h + W_x @ x)),
        Erro("viés fora do tanh",
             "O viés b ficou fora do tanh: ele entra na soma, antes — tanh(W_h h + W_x x + b).",
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_h @ h + W_x @ x) + b),
        Erro("tanh só em W_h h",
             "O tanh ficou só em W_h h: ele se aplica à soma inteira, tanh(W_h h + W_x x + b).",
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_h @ h) + W_x @ x + b),
        Erro("sem o estado anterior",
             "Faltou o estado anterior: sem W_h h o passo ignora tudo o que veio antes — não há memória nenhuma. O "
             "novo estado depende de h e de x.",
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_x @ x + b)),
        Erro("sem a entrada", "Faltou a entrada: sem W_x x o token atual nunca entra no estado.",
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_h @ h + b)),
        Erro("W_h transposta",
             "W_h entrou transposta (por exemplo h @ W_h): a convenção aqui é matriz @ vetor, W_h @ h, em que a linha "
             "i de W_h diz como o novo h[i] depende do estado antigo.",
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_h.T @ h + W_x @ x + b)),
        Erro("somou o estado antigo",
             "Você somou o estado antigo ao resultado (h + tanh(…)). Na RNN simples o novo estado é só "
             "tanh(W_h h + W_x x + b) — ele substitui o antigo.",
             resposta=lambda **e: e["h"] + np.tanh(_pre(**e))),
        Erro("* no lugar de @",
             lambda h, **_: f"h_novo veio com forma ({h.size}, {h.size}), mas deveria ser ({h.size},), o mesmo tamanho "
                            "de h. Você usou * (elemento a elemento) em vez de @ (produto matriz-vetor)?",
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_h * h + W_x @ x + b)),
        Erro("matrizes trocadas",
             "Você trocou as matrizes: usou W_x com o estado h e W_h com o token x. " + _FORMAS_RNN,
             resposta=lambda h, x, W_h, W_x, b: np.tanh(W_x @ h + W_h @ x + b)),
        Erro("convenção de vetor-linha",
             "Você escreveu o vetor à esquerda (h @ W_h, x @ W_x), a convenção de vetor-linha. Aqui a matriz vem à "
             "esquerda: W_h @ h e W_x @ x. " + _FORMAS_RNN,
             resposta=lambda h, x, W_h, W_x, b: np.tanh(h @ W_h + x @ W_x + b)),
    ],
    explica_forma=lambda **_: _FORMAS_RNN + " Confira qual matriz multiplica qual vetor e a ordem dos fatores "
                                            "(matriz @ vetor).",
    dica_de_forma="O novo estado tem sempre o tamanho de h: um vetor (n,).",
)


@corretor_de(PASSO_RNN)
def check_passo_rnn(fn: Callable[..., Any]) -> bool:
    """Confere um passo de RNN ``fn(h, x, W_h, W_x, b)`` = ``tanh(W_h h + W_x x + b)``, forma ``(n,)``.

    Casos: o exemplo pequeno do notebook (``n = 2``, ``d = 3``, ``x`` *one-hot*), um caso aleatório
    (``n = 3``, ``d = 4``) e um quadrado (``n = d = 2``, onde as matrizes trocadas rodam e se reconhecem).
    Reconhece cada erro de :data:`PASSO_RNN`: faltou o ``tanh``; outra não linearidade (sigmoide, ReLU);
    ``tanh`` só em parte da soma; faltou o viés ``b``; faltou o estado anterior (``W_h h``) ou a entrada
    (``W_x x``); ``W_h`` transposta; somou o ``h`` antigo; ``*`` em vez de ``@``; as matrizes trocadas e
    a convenção de vetor-linha (o erro de forma é explicado).
    """
    return conferir(PASSO_RNN, fn)
