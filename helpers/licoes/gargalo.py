"""Lição "O gargalo recorrente" (notebook ``gargalo_recorrente``): o alcance medido de uma RNN aleatória (painel), a capacidade de um estado de n números (figura), a figura da história (codificador–decodificador e atenção), a caixa da previsão da capacidade e os corretores do passo da RNN e da leitura de uma sequência.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.patches import FancyBboxPatch
from numpy.typing import ArrayLike

from .. import plots, recurrent
from ..corretor import Caso, Erro, Exercicio, Previsao, Regra, bate_com_alguma, conferir, corretor_de, usa_nomes
from ..formato import vetor
from ..paineis import Painel, tabela
from ..plots import CORES
from ..previsao import CaixaDePrevisao, caixa
from ..respostas import Array, NumeroAproximado, RespostaInvalida

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
    RNN com porta, atenção e o acaso — com o comprimento escolhido marcado (os valores vão na tabela do painel).

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
        self.marca.set_xdata([T, T])
        self.pontos.set_data([T] * 3, [float(y[T - 1]) for y in curvas.values()])
        self.titulo.set_text(f"acurácia depois de T = {T} tokens, com um estado de n = {tamanho} números")

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda: um painel redesenha só eles a cada movimento."""
        return [*self.linhas.values(), self.marca, self.pontos, self.titulo]

#: cor e estilo de cada rede na figura da capacidade
_ESTILOS_CAPACIDADE = (
    dict(color=CORES["destaque"], ls="-", marker="o", ms=4),
    dict(color=CORES["q"], ls="-", marker="s", ms=3.5),
    dict(color=CORES["k"], ls="-.", marker="^", ms=3.5),
    dict(color=CORES["v"], ls=":", marker="D", ms=3.5),
)


def desenhar_capacidade(ax: Axes, curvas: dict[str, recurrent.Reconstruction], atencao: ArrayLike) -> None:
    """Fração da sequência que a leitura linear reconstrói × comprimento ``T``, uma curva por rede
    (``curvas``: nome → :class:`helpers.recurrent.Reconstruction`, todas com o mesmo ``n`` e ``d``), a
    atenção (``atencao`` ``(L,)``) e o teto ``min(1, n / (T·d))`` de qualquer leitura linear de ``n``
    números (tracejado). Uso: ``fig, ax = plt.subplots(figsize=(8.5, 5.4))``, esta função, ``plt.show()``.
    """
    primeira = next(iter(curvas.values()))
    T, n, d = primeira.lengths, primeira.n, primeira.d
    ax.plot(T, np.asarray(atencao, dtype=float), color=CORES_GARGALO["atencao"], lw=3,
            label="atenção (guarda os T tokens)")
    ax.plot(T, primeira.ceiling, color="black", ls="--", lw=1.8, label="teto: min(1, n / (T·d))")
    for (nome, curva), estilo in zip(curvas.items(), _ESTILOS_CAPACIDADE):
        ax.plot(T, curva.fraction, label=nome, **estilo)
    ax.axvline(n / d, color=CORES["neutro"], lw=1, alpha=0.6)
    ax.text(n / d + 0.4, 0.74, f"T·d = n\n(T = {n // d})", color=CORES["neutro"], fontsize=10, va="center")
    ax.set_xlim(0.5, T[-1] + 0.5)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("comprimento da sequência T (tokens)")
    ax.set_ylabel("fração reconstruída (R²)")
    ax.set_title(f"Ler qualquer posição de um estado de n = {n} números (tokens de d = {d} números)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, fontsize=10, frameon=False)


def _caixa(ax: Axes, x: float, y: float, texto: str, cor: str, largura: float = 0.8, destaque: bool = False) -> None:
    ax.add_patch(FancyBboxPatch((x - largura / 2, y - 0.28), largura, 0.56,
                                            boxstyle="round,pad=0.02,rounding_size=0.12",
                                            facecolor=cor if destaque else "white", edgecolor=cor, lw=2))
    ax.text(x, y, texto, ha="center", va="center", fontsize=12, color="white" if destaque else "black")


def _seta(ax: Axes, de: tuple[float, float], para: tuple[float, float], cor: str = "black", lw: float = 1.5,
          alpha: float = 1.0) -> None:
    ax.annotate("", xy=para, xytext=de, arrowprops=dict(arrowstyle="-|>", color=cor, lw=lw, alpha=alpha,
                                                        shrinkA=14, shrinkB=14, mutation_scale=14))


#: pesos ilustrativos (não medidos) da figura da história: o decodificador, ao escrever "cat", olha para "gato"
PESOS_ILUSTRATIVOS = (0.10, 0.80, 0.10)


def desenhar_historia(axes: Sequence[Axes]) -> None:
    """A figura da história, em dois eixos: à esquerda, o codificador–decodificador de 2014 (a frase
    inteira vira **um** vetor ``c``); à direita, o decodificador com atenção de Bahdanau, Cho e Bengio:
    para escrever a 2ª palavra, os pesos sobre **todos** os estados do codificador saem da comparação
    com o estado anterior do decodificador, ``s1`` (a query), e a média ponderada entra em ``s2`` (as
    espessuras são :data:`PESOS_ILUSTRATIVOS`, ilustrativas). Simplificada: no artigo, o codificador é
    uma RNN bidirecional; aqui ele é desenhado num sentido só.
    Uso: ``fig, axes = plt.subplots(1, 2, figsize=(11, 4))``, esta função, ``plt.show()``.
    """
    axes[0].figure.subplots_adjust(left=0.01, right=0.99, wspace=0.04)
    fonte, alvo = ("o", "gato", "dormiu"), ("the", "cat", "slept")
    x_enc, x_dec, x_c = (0.0, 1.3, 2.6), (5.2, 6.5, 7.8), 3.9
    for ax, com_atencao in zip(axes, (False, True)):
        ax.set_xlim(-0.6, 8.4)
        ax.set_ylim(-0.95, 3.3)
        ax.axis("off")
        for i, (x, palavra) in enumerate(zip(x_enc, fonte)):
            ax.text(x, -0.45, palavra, ha="center", va="center", fontsize=12, style="italic")
            _seta(ax, (x, -0.45), (x, 0.6), lw=1.2)
            _caixa(ax, x, 0.9, f"h{i + 1}", CORES["q"])
            if i:
                _seta(ax, (x_enc[i - 1], 0.9), (x, 0.9), CORES["q"])
        for i, (x, palavra) in enumerate(zip(x_dec, alvo)):
            _caixa(ax, x, 0.9, f"s{i + 1}", CORES["k"])
            _seta(ax, (x, 0.9), (x, 2.2), lw=1.2)
            ax.text(x, 2.45, palavra, ha="center", va="center", fontsize=12, style="italic")
            if i:
                _seta(ax, (x_dec[i - 1], 0.9), (x, 0.9), CORES["k"])
        if not com_atencao:
            _caixa(ax, x_c, 0.9, "c", CORES["destaque"], largura=0.6, destaque=True)
            _seta(ax, (x_enc[-1], 0.9), (x_c, 0.9), CORES["destaque"], lw=2.5)
            _seta(ax, (x_c, 0.9), (x_dec[0], 0.9), CORES["destaque"], lw=2.5)
            ax.text(x_c, 0.5, "a frase\ninteira num\nvetor só", ha="center", va="top", fontsize=10,
                    color=CORES["destaque"], linespacing=1.1)
            ax.set_title("Sutskever et al. (2014), Cho et al. (2014):\ncodificador–decodificador", fontsize=12)
        else:
            _seta(ax, (x_enc[-1], 0.9), (x_dec[0], 0.9), CORES["neutro"], lw=1.2, alpha=0.6)
            # o contexto de "cat": dos estados do codificador para s2 (espessura = peso)
            for x, peso in zip(x_enc, PESOS_ILUSTRATIVOS):
                ax.annotate("", xy=(x_dec[1] - 0.1, 1.2), xytext=(x, 1.2),
                            arrowprops=dict(arrowstyle="-|>", color=CORES_GARGALO["atencao"], lw=1 + 9 * peso,
                                            connectionstyle="arc3,rad=-0.35", shrinkA=6, shrinkB=6,
                                            mutation_scale=12))
            ax.text(x_dec[0], 0.3, "query", ha="center", va="top", fontsize=10, color=CORES["k"])
            ax.text(x_enc[1], -0.68, "codificador simplificado (no artigo, bidirecional)", ha="center", va="top",
                    fontsize=9.5, color=CORES["neutro"])
            ax.text(x_c, 3.25, "ao escrever “cat”: pesos sobre h1, h2, h3 comparados com s1;\n"
                               "a média ponderada entra em s2 (espessura = peso; ilustrativo)",
                    ha="center", va="top", fontsize=10.5, color=CORES_GARGALO["atencao"])
            ax.set_title("Bahdanau, Cho e Bengio (2014):\natenção sobre os estados do codificador", fontsize=12)


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

    return Painel(fig, controles, calcular, titulo="O gargalo recorrente: ler o 1º token depois de T tokens",
                  animados=figura.animados())

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
                            "de h: você usou * (elemento a elemento) em vez de @ (produto matriz-vetor). Matriz * vetor "
                            "multiplica cada linha da matriz pelo vetor e devolve uma matriz; matriz @ vetor soma esses "
                            "produtos e devolve um vetor: W_h @ h e W_x @ x.",
             quando=bate_com_alguma(Array(), lambda h, x, W_h, W_x, b: np.tanh(W_h * h + W_x @ x + b),
                                     lambda h, x, W_h, W_x, b: np.tanh(W_h @ h + W_x * x + b),
                                     lambda h, x, W_h, W_x, b: np.tanh(W_h * h + W_x * x + b))),
        Erro("tanh em cada parcela",
             "Você aplicou o tanh a cada parcela separadamente (tanh(W_h h) + tanh(W_x x) + …). O tanh vem **depois** "
             "da soma, uma vez só: tanh(W_h h + W_x x + b). (A soma de tanhs nem fica entre −1 e 1.)",
             quando=bate_com_alguma(Array(),
                                     lambda h, x, W_h, W_x, b: np.tanh(W_h @ h) + np.tanh(W_x @ x) + np.tanh(b),
                                     lambda h, x, W_h, W_x, b: np.tanh(W_h @ h) + np.tanh(W_x @ x) + b,
                                     lambda h, x, W_h, W_x, b: np.tanh(W_h @ h) + np.tanh(W_x @ x + b),
                                     lambda h, x, W_h, W_x, b: np.tanh(W_h @ h + b) + np.tanh(W_x @ x))),
        Erro("x tratado como índice",
             "Você pegou **uma coluna** de W_x (a do maior número de x, como se x fosse sempre *one-hot*). Com um "
             "*one-hot* isso coincide com W_x @ x, mas o passo recebe qualquer vetor x: use o produto matriz-vetor, "
             "W_x @ x, que vale para todos.",
             resposta=lambda h, x, W_h, W_x, b: (None if np.isin(x, (0.0, 1.0)).all()
                                                 else np.tanh(W_h @ h + W_x[:, int(np.argmax(x))] + b))),
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
    """Confere um passo de RNN ``fn(h, x, W_h, W_x, b)`` = ``tanh(W_h h + W_x x + b)``: o estado ``h`` ``(n,)``,
    a entrada ``x`` ``(d,)``, ``W_h`` ``(n, n)``, ``W_x`` ``(n, d)`` e ``b`` ``(n,)``; a resposta é o estado novo, ``(n,)``.
    """
    return conferir(PASSO_RNN, fn)


def _estados(xs: np.ndarray, W_h: np.ndarray, W_x: np.ndarray, b: np.ndarray, h0: np.ndarray | None = None,
             passo: Callable[..., np.ndarray] | None = None) -> np.ndarray:
    """Os estados ``(T, n)`` de uma RNN que lê ``xs`` ``(T, d)`` a partir de ``h0`` (zero), com um ``passo``."""
    passo = passo or (lambda h, x: np.tanh(W_h @ h + W_x @ x + b))
    h = np.zeros(W_h.shape[0]) if h0 is None else h0
    estados = []
    for x in xs:
        h = passo(h, x)
        estados.append(h)
    return np.array(estados)


def _estado_antes_de_ler(xs: np.ndarray, W_h: np.ndarray, W_x: np.ndarray, b: np.ndarray) -> np.ndarray:
    estados = _estados(xs, W_h, W_x, b)
    return np.vstack([np.zeros((1, W_h.shape[0])), estados[:-1]])


def _casos_ler_sequencia() -> list[Caso]:
    passo = _casos_passo_rnn()[0].entradas
    rng = np.random.default_rng(21)
    rnn = recurrent.make_tanh_rnn(4, 8, seed=0)
    quadrado = dict(xs=rng.normal(size=(5, 3)), W_h=rng.normal(size=(3, 3)) * 0.6, W_x=rng.normal(size=(3, 3)),
                    b=rng.normal(size=3) * 0.1)
    return [
        Caso("com o exemplo pequeno (n = 2, d = 3) lendo os tokens 1, 0, 2", dict(
            xs=np.eye(3)[[1, 0, 2]], W_h=passo["W_h"], W_x=passo["W_x"], b=passo["b"])),
        Caso("com os pesos de rnn_pequena (n = 4) lendo os 7 tokens [3, 1, 4, 1, 5, 2, 6]", dict(
            xs=recurrent.one_hot([3, 1, 4, 1, 5, 2, 6], 8), W_h=rnn.W_h, W_x=rnn.W_x, b=rnn.b)),
        Caso("num caso quadrado (n = d = 3, T = 5)", quadrado),
        Caso("com um token só (T = 1)", dict(xs=np.eye(3)[[2]], W_h=passo["W_h"], W_x=passo["W_x"], b=passo["b"])),
    ]


def _passos_errados() -> list[Callable[..., Any]]:
    """Os passos errados de :data:`PASSO_RNN` (cada versão de cada erro), como funções das entradas do passo."""
    passos = []
    for erro in PASSO_RNN.erros:
        passos += [erro.resposta] if erro.resposta is not None else list(getattr(erro.quando, "respostas", ()))
    return passos


def _laco_com_passo_errado(y: Any, caso: Caso) -> bool:
    """A resposta é a de um laço certo com um dos passos errados de :data:`PASSO_RNN` dentro?"""
    xs, W_h, W_x, b = (caso.entradas[k] for k in ("xs", "W_h", "W_x", "b"))
    try:
        arr = Array().normalizar(y)
    except RespostaInvalida:
        return False
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for errado in _passos_errados():
            def passo(h: np.ndarray, x: np.ndarray, errado: Callable[..., Any] = errado) -> np.ndarray:
                novo = errado(h=h, x=x, W_h=W_h, W_x=W_x, b=b)
                # None: o erro não muda este passo (um x one-hot, para quem pega uma coluna de W_x)
                return np.tanh(W_h @ h + W_x @ x + b) if novo is None else np.asarray(novo, dtype=float)

            try:
                errada = _estados(xs, W_h, W_x, b, passo=passo)
            except Exception:  # noqa: BLE001 - este passo errado nem roda com estas formas
                continue
            if errada.shape == arr.shape and np.allclose(arr, errada, rtol=1e-6, atol=1e-6, equal_nan=True):
                return True
    return False


LER_SEQUENCIA = Exercicio(
    nome="RNN lendo uma sequência",
    casos=_casos_ler_sequencia,
    certo=lambda **e: _estados(**e),
    acerto=lambda: "Correto! Um laço, um estado que passa de um token para o seguinte e uma linha por token: "
                   f"{len(_casos_ler_sequencia()[1].entradas['xs'])} tokens lidos, e cada linha ainda tem só "
                   f"{_casos_ler_sequencia()[1].entradas['W_h'].shape[0]} números. Tudo o que a rede sabe da "
                   "sequência está na última linha.",
    erros=[
        Erro("só o estado final",
             "Você devolveu só o estado final, de forma (n,). Queremos **todos** os estados, um por token: um array "
             "(T, n) em que a linha t é o estado depois de ler o token t (a última linha é o estado final).",
             resposta=lambda **e: _estados(**e)[-1]),
        Erro("incluiu o estado inicial",
             "Você incluiu o estado inicial h = 0 como primeira linha: o resultado tem T + 1 linhas. A linha t deve "
             "ser o estado **depois** de ler o token t, então são T linhas, e a primeira já leu o primeiro token.",
             resposta=lambda **e: np.vstack([np.zeros((1, e["W_h"].shape[0])), _estados(**e)])),
        Erro("guardou o estado antes de ler o token",
             "Cada linha está um passo atrasada: você guardou o estado **antes** de ler o token (a primeira linha "
             "é o h = 0 inicial e o último token nunca entra). Atualize h com o token e só depois guarde.",
             resposta=lambda **e: _estado_antes_de_ler(**e)),
        Erro("o estado não passa adiante",
             "Cada linha só depende do seu token: o estado não passou de um passo para o seguinte (você usou o h = 0 "
             "inicial em todo passo, ou esqueceu de reatribuir h). Dentro do laço, o h novo precisa virar o h do "
             "próximo passo: h = passo(h, x).",
             resposta=lambda xs, W_h, W_x, b: np.tanh(xs @ W_x.T + b)),
        Erro("o mesmo array guardado T vezes",
             "Todas as linhas saíram iguais ao estado final: você guardou T vezes **o mesmo array** e foi mudando o "
             "conteúdo dele (por exemplo h[:] = … ou h += …, depois estados.append(h)). No numpy, append guarda uma "
             "referência, não uma cópia: escreva h = … (um array novo a cada passo) ou guarde h.copy().",
             resposta=lambda **e: np.repeat(_estados(**e)[-1:], len(e["xs"]), axis=0)),
        Erro("leu de trás para frente",
             "Você leu os tokens de trás para frente (do último para o primeiro). A RNN lê na ordem da sequência: o "
             "primeiro estado é o de depois do token 0.",
             resposta=lambda xs, W_h, W_x, b: _estados(xs[::-1], W_h, W_x, b) if len(xs) > 1 else None),
        Erro("estados na ordem inversa",
             "A conta está certa, mas as linhas saíram na ordem inversa (a primeira é o estado final). A linha t deve "
             "ser o estado depois do token t: não inverta a lista no fim.",
             resposta=lambda **e: _estados(**e)[::-1] if len(e["xs"]) > 1 else None),
        Erro("passo sem o tanh",
             "O laço está certo, mas o passo não: faltou o tanh. Use o passo do exercício anterior, "
             "tanh(W_h h + W_x x + b).",
             resposta=lambda xs, W_h, W_x, b: _estados(xs, W_h, W_x, b, passo=lambda h, x: W_h @ h + W_x @ x + b)),
        Erro("passo com W_h transposta",
             "O laço está certo, mas o passo não: W_h entrou transposta (h @ W_h no lugar de W_h @ h). Use o passo do "
             "exercício anterior, tanh(W_h h + W_x x + b).",
             resposta=lambda xs, W_h, W_x, b: _estados(xs, W_h, W_x, b,
                                                        passo=lambda h, x: np.tanh(h @ W_h + W_x @ x + b))),
        Erro("passo errado dentro do laço",
             "O laço está certo (o estado passa adiante, uma linha por token, na ordem), mas o passo dentro dele tem um "
             "erro. Ponha o passo numa função e confira com licao.check_passo_rnn, o corretor do exercício 1: ele diz "
             "qual é o erro. Depois chame essa função dentro do laço.",
             quando=lambda y, certo, caso: _laco_com_passo_errado(y, caso)),
        Erro("faltou o último token",
             "Faltou o último token: o resultado tem T − 1 linhas. O laço parou uma volta antes (range(len(xs) - 1)?): "
             "percorra **todos** os tokens, for x in xs.",
             resposta=lambda xs, W_h, W_x, b: _estados(xs[:-1], W_h, W_x, b) if len(xs) > 1 else None),
        Erro("pulou o primeiro token",
             "O primeiro token ficou de fora: o laço começou no token 1 (range(1, len(xs))?). Em Python as posições "
             "começam em 0: xs[0] é o primeiro token, e a primeira linha é o estado depois de lê-lo.",
             resposta=lambda xs, W_h, W_x, b: _estados(xs[1:], W_h, W_x, b) if len(xs) > 1 else None),
        Erro("estados transpostos",
             "Os estados saíram nas **colunas**: o resultado tem forma (n, T), não (T, n) (np.column_stack, ou "
             "np.stack(…, axis=1)?). Cada estado é uma **linha**: np.array(estados) ou np.stack(estados).",
             resposta=lambda **e: _estados(**e).T),
    ],
    regras=[
        Regra("usou a RNN pronta",
              "o exercício é escrever **o laço**, e a RNN pronta do helpers.recurrent (TanhRNN(…).run) já faz o laço "
              "inteiro. Percorra os tokens com um for, um passo por token (o seu passo_rnn serve).",
              lambda fn: usa_nomes(fn, {"TanhRNN", "GatedRNN", "run", "make_tanh_rnn", "make_gated_rnn"})),
    ],
    explica_forma=lambda **_: _FORMAS_RNN + " Aqui xs tem forma (T, d): xs[t] é o token t, um vetor (d,).",
    dica_de_forma="O resultado tem uma linha por token e n colunas: forma (T, n).",
    dica_de_valor="Confira o seu passo com o corretor do exercício anterior, e confira que o laço começa de h = 0.",
)


@corretor_de(LER_SEQUENCIA)
def check_ler_sequencia(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(xs, W_h, W_x, b)``: os estados ``(T, n)`` de uma RNN tanh que lê ``xs`` ``(T, d)`` a partir
    de ``h = 0``; a linha ``t`` é o estado depois de ler o token ``t`` (``W_h``, ``W_x`` e ``b`` como em
    :func:`check_passo_rnn`). O laço é o exercício.
    """
    return conferir(LER_SEQUENCIA, fn)


# ---------------------------------------------------------------------------------------------
# Prever, depois conferir
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NumeroDeTokens(NumeroAproximado):
    """Uma quantidade de tokens: um número **inteiro** (``16``, ``"16"``, ``"16,0"``). ``16,5`` não é lido como 16
    (não há meio token): a caixa pede um inteiro, sem revelar a resposta."""

    casas: int = 0
    unidade: str = "tokens"  # "16 tokens" vale 16

    def normalizar(self, y: Any) -> float:
        valor = super().normalizar(y)
        if not float(valor).is_integer():
            raise RespostaInvalida(f"um comprimento T conta tokens inteiros (não há meio token); veio "
                                   f"{valor:g}".replace(".", ",") + ": escreva um número inteiro")
        return valor


PREVISAO_CAPACIDADE = Previsao(
    nome="quantos tokens cabem no estado",
    certo=16,
    formato=NumeroDeTokens(),
    revelar="A pergunta era sobre a melhor rede possível, não sobre as redes sorteadas. Há um teto para "
            "qualquer rede, com porta ou sem, treinada ou não: uma leitura linear de um estado de n = 32 números "
            "reconstrói no máximo 32 números da sequência, por mais que a rede misture os tokens (o porquê está no "
            "aprofundamento da seção 4). Cada token ocupa d = 2 números, então cabem 32 / 2 = 16 tokens inteiros "
            "(com T = 16, T·d = 32 = n). A memória ideal chega lá: lê a sequência inteira até T = 16 e, depois, "
            "continua guardando 16 tokens (32 números).",
    erros=[
        Erro("um token por número", "Você contou um token por número do estado, mas cada token ocupa d = 2 números: "
                                    "um estado de 32 números guarda 32 números da sequência, ou seja, 32 / 2 tokens.",
             resposta=lambda: 32),
        Erro("multiplicou n por d", "Você multiplicou n por d. A pergunta é quantos tokens de 2 números cabem em 32 "
                                    "números: uma divisão, 32 / 2.", resposta=lambda: 64),
        Erro("o tamanho de um token", "2 é o tamanho de um token (d), não quantos cabem: 32 números guardam 32 / 2 "
                                      "tokens de 2 números.", resposta=lambda: 2),
        Erro("um a menos", "Com T = 16 a sequência tem 16 · 2 = 32 números, exatamente n: ainda cabe (T·d ≤ n).",
             resposta=lambda: 15),
        Erro("um a mais", "Com T = 17 a sequência tem 17 · 2 = 34 números, mais que os 32 do estado: já não cabe.",
             resposta=lambda: 17),
    ],
    exemplo="10",
    # "16" sozinho aparece na página por outros motivos (n = 16 no painel): as pistas são as frases que diriam
    # o comprimento que cabe, ou a conta que leva a ele
    pistas=("16 tokens", "T = 16", "T=16", "T ≤ 16", "até 16", "cabem 16", "32 / 2", "32/2", "n / d = 16",
            "(T = 16)"),
)


@corretor_de(PREVISAO_CAPACIDADE)
def prever_capacidade() -> CaixaDePrevisao:
    """A caixa da previsão do maior ``T`` cuja sequência inteira cabe num estado de ``n = 32`` números lido por uma
    leitura linear, com tokens de ``d = 2`` números (a resposta: ``n / d = 16``)."""
    return caixa(PREVISAO_CAPACIDADE)
