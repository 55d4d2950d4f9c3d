"""Lição "Projeções Q, K, V" (notebook ``projecoes_qkv``): o exemplo do "banco" (figura e painel) e os corretores das projeções, da autoatenção e da previsão do notebook.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .. import plots
from ..attention import (
    scaled_dot_product_attention,
    softmax,
)
from ..corretor import (
    Array,
    Caso,
    Erro,
    Exercicio,
    NumeroAproximado,
    Previsao,
    SaidaOuPar,
    Sequencia,
    conferir,
    conferir_previsao,
    corretor_de,
)
from ..formato import decimal, par
from ..paineis import Painel, slider, tabela
from ..plots import CORES, MAPA
from .softmax import erros_de_estabilidade

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


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
       quem olha, coluna = para quem), todos os pesos escritos, a linha de "banco" contornada e com
       números maiores, e uma barra de cores à direita do segundo mapa;
    2. ``ax_sentidos``: o plano dos dois sentidos (coordenadas "finanças" e "lugar" (assento) dos
       values) com a saída de "banco" em cada frase e, tracejado, o value de "banco" sozinho. É a
       projeção nas duas primeiras coordenadas: a terceira (gramática) não aparece, e o ângulo no
       plano não é o do cosseno calculado com as três.

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
            self.textos.append([[ax.text(j, linha, "", ha="center", va="center",
                                         fontsize=fonte if linha == i else fonte - 2)
                                 for j in range(n)] for linha in range(n)])
        # a barra de cores, colada à direita do segundo mapa (as duas frases usam a mesma escala)
        fig = ax_frase2.figure
        caixa = ax_frase2.get_position()
        barra = fig.add_axes((caixa.x1 + 0.012, caixa.y0, 0.012, caixa.height))
        fig.colorbar(self.imagens[1], cax=barra, ticks=[0, 0.1, 0.25, 0.5, 1])
        barra.set_yticklabels(["0", "0.1", "0.25", "0.5", "1"])

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
        ax.text(0.5, -0.42, "só finanças e lugar: a 3ª\ncoordenada (gramática)\nfica de fora do plano",
                transform=ax.transAxes, ha="center", va="top", fontsize=fonte - 1, color=CORES["neutro"])

    def atualizar(self, pesos1: ArrayLike, pesos2: ArrayLike, saida1: ArrayLike, saida2: ArrayLike) -> None:
        for imagem, textos, pesos in zip(self.imagens, self.textos, (pesos1, pesos2)):
            w = np.asarray(pesos, dtype=float)
            imagem.set_data(w)
            for linha, textos_linha in enumerate(textos):
                for j, texto in enumerate(textos_linha):
                    texto.set_text(f"{w[linha, j]:.2f}")
                    texto.set_color(_cor_do_texto(math.sqrt(max(float(w[linha, j]), 0.0))))
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
    """A figura 9.8 × 4.2 do exemplo "banco": dois mapas de calor (com a barra de cores) e o plano dos sentidos."""
    fig, axes = plots.nova_figura(9.8, 4.2, ncols=3, pyplot=pyplot)
    largura, altura = fig.get_size_inches()
    # [esquerda, baixo, largura, altura] em polegadas: os mapas são quadrados, o plano é menor
    caixas = [(0.85, 1.0, 2.5, 2.75), (4.0, 1.0, 2.5, 2.75), (7.9, 1.45, 1.75, 1.9)]
    for ax, (x, y, w, h) in zip(axes[0], caixas):
        ax.set_position([x / largura, y / altura, w / largura, h / altura])
    return fig, list(axes[0])

def figura_banco(tokens1: Sequence[str], tokens2: Sequence[str], pesos1: ArrayLike, pesos2: ArrayLike,
                 saida1: ArrayLike, saida2: ArrayLike, proprio: ArrayLike = (0.5, 0.5)) -> Figure:
    """Figura estática de :class:`FiguraBanco` (devolve a ``Figure`` do pyplot)."""
    fig, axes = eixos_banco(pyplot=True)
    FiguraBanco(*axes, tokens1, tokens2, proprio).atualizar(pesos1, pesos2, saida1, saida2)
    return fig

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: o exemplo "banco" do notebook 06 (seção 3): o que cada coordenada dos embeddings quer dizer
DIMENSOES_BANCO = ("finanças", "assento/lugar", "ambiguidade", "gramática")

#: embeddings feitos à mão (d_model = 4), nas dimensões de :data:`DIMENSOES_BANCO`
EMBEDDINGS_BANCO = {
    "banco": (0.5, 0.5, 1.0, 0.0),
    "depositei": (0.9, 0.1, 0.0, 0.0),
    "salário": (1.0, 0.0, 0.0, 0.0),
    "sentei": (0.1, 0.9, 0.0, 0.0),
    "praça": (0.0, 1.0, 0.0, 0.0),
    "o": (0.0, 0.0, 0.0, 1.0),
    "no": (0.0, 0.0, 0.0, 1.0),
    "da": (0.0, 0.0, 0.0, 1.0),
}

FRASE_DINHEIRO = ("depositei", "o", "salário", "no", "banco")

FRASE_PRACA = ("sentei", "no", "banco", "da", "praça")

def matrizes_banco(forca_query: float = 2.0, financas_key: float = 1.0,
                   lugar_key: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W_q, W_k, W_v)`` do exemplo "banco", escolhidas à mão (num modelo, viriam do treino).

    - ``W_q`` (4 × 2): a ambiguidade vira a pergunta "quem tem sentido próprio?" (coordenada 0 da
      query) com peso ``forca_query``; finanças e lugar perguntam o mesmo, mais fraco (0.5).
    - ``W_k`` (4 × 2): a coordenada 0 da key, "tenho sentido próprio", soma ``financas_key``·finanças
      + ``lugar_key``·lugar − ambiguidade; a coordenada 1 marca as palavras gramaticais.
    - ``W_v`` (4 × 3): o value entrega (finanças, lugar, gramática); a ambiguidade não é entregue.
    """
    W_q = np.array([[0.5, 0.0], [0.5, 0.0], [forca_query, 0.0], [0.0, 0.0]])
    W_k = np.array([[financas_key, 0.0], [lugar_key, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    W_v = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return W_q, W_k, W_v

def _cos(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na > 0 and nb > 0 else 0.0

def painel_projecoes(forca_query: float = 2.0, financas_key: float = 1.0, lugar_key: float = 1.0) -> Painel:
    """As duas frases com "banco" e as **mesmas** ``W_q``, ``W_k``, ``W_v``; sliders mexem em três
    números dessas matrizes (:func:`matrizes_banco`).

    Sliders: ``forca_query`` (o peso da ambiguidade na query, ``W_q[ambiguidade, 0]``),
    ``financas_key`` e ``lugar_key`` (o peso de finanças e de lugar na key, ``W_k[·, 0]``). Para cada
    frase: ``Q = X W_q``, ``K = X W_k``, ``V = X W_v`` e
    :func:`helpers.attention.scaled_dot_product_attention`. Mostra os mapas de calor dos pesos, a
    saída de "banco" no plano dos dois sentidos e, embaixo, os pesos de "banco" e o cosseno da saída
    com cada sentido (as direções dos values de finanças e de lugar: as linhas 0 e 1 de ``W_v``).

    Estado: ``W_q``, ``W_k``, ``W_v``; ``q_banco`` (a query de "banco", igual nas duas frases);
    ``Q_1``, ``K_1``, ``V_1``, ``pesos_1`` ``(5, 5)``, ``saida_1`` ``(3,)`` (a saída de "banco"),
    ``cos_financas_1``, ``cos_lugar_1`` e o mesmo com ``_2`` para a frase da praça.
    """

    frases = (FRASE_DINHEIRO, FRASE_PRACA)
    Xs = [np.array([EMBEDDINGS_BANCO[t] for t in frase]) for frase in frases]
    linhas = [frase.index("banco") for frase in frases]
    x_banco = np.array(EMBEDDINGS_BANCO["banco"])
    fig, axes = eixos_banco(pyplot=False)
    _, _, W_v0 = matrizes_banco()
    figura = FiguraBanco(*axes, frases[0], frases[1], proprio=(x_banco @ W_v0)[:2])
    controles: dict[str, W.ValueWidget] = {
        "forca_query": slider("W_q[ambiguidade, 0]", forca_query, 0.0, 4.0, 0.25),
        "financas_key": slider("W_k[finanças, 0]", financas_key, -1.0, 2.0, 0.25),
        "lugar_key": slider("W_k[lugar, 0]", lugar_key, -1.0, 2.0, 0.25),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        W_q, W_k, W_v = matrizes_banco(float(v["forca_query"]), float(v["financas_key"]), float(v["lugar_key"]))
        u_fin, u_lugar = W_v[0], W_v[1]  # o que uma palavra só de finanças (ou só de lugar) entrega
        estado: dict[str, Any] = {"W_q": W_q, "W_k": W_k, "W_v": W_v, "q_banco": x_banco @ W_q}
        linhas_html = [("query de 'banco' = x_banco W_q", par(estado["q_banco"]))]
        saidas = []
        for n, (frase, X, i) in enumerate(zip(frases, Xs, linhas), 1):
            Q, K, V = X @ W_q, X @ W_k, X @ W_v
            saida, pesos = scaled_dot_product_attention(Q, K, V)
            o = saida[i]
            cf, cl = _cos(o, u_fin), _cos(o, u_lugar)
            estado.update({f"Q_{n}": Q, f"K_{n}": K, f"V_{n}": V, f"pesos_{n}": pesos, f"saida_{n}": o,
                           f"cos_financas_{n}": cf, f"cos_lugar_{n}": cl})
            saidas.append(o)
            cor = FiguraBanco.COR_FRASE1 if n == 1 else FiguraBanco.COR_FRASE2
            linhas_html += [
                (f"<span style='color:{cor}'>■</span> frase {n}: pesos de 'banco'",
                 " · ".join(f"{t} {p:.3f}" for t, p in zip(frase, pesos[i]))),
                ("&nbsp;&nbsp;&nbsp;saída de 'banco' (finanças, lugar, gramática)",
                 f"({o[0]:.3f}, {o[1]:.3f}, {o[2]:.3f})"),
                ("&nbsp;&nbsp;&nbsp;cosseno com finanças · com lugar", f"{cf:.3f} · {cl:.3f}"),
            ]
        figura.atualizar(estado["pesos_1"], estado["pesos_2"], saidas[0], saidas[1])
        estado["html"] = tabela(linhas_html) + (
            "<div style='color:#555'>'banco' sozinho entrega (0.5, 0.5, 0): cosseno 0,707 com os dois sentidos.</div>")
        return estado

    return Painel(fig, controles, calcular, titulo="As mesmas W_q, W_k, W_v em duas frases: para onde vai 'banco'?")


# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rotulada(Sequencia):
    """Várias matrizes juntas, mostradas cada uma com o seu nome (``Q =``, ``K =`` …) e com a forma de
    cada uma na mensagem de forma errada."""

    rotulos: tuple[str, ...] = ()

    def mostrar(self, x: tuple) -> str:
        return "\n".join(f"{r} =\n{f.mostrar(p)}" for r, f, p in zip(self.rotulos, self.partes, x))

    def forma(self, x: tuple) -> tuple:
        return tuple(np.shape(p) for p in x)


_PAPEIS = ("Q", "K", "V")

_MATRIZES = ("W_q", "W_k", "W_v")

_ARRAY = Array()

_TRIO = _Rotulada((_ARRAY, _ARRAY, _ARRAY), "o trio (Q, K, V), nessa ordem", _PAPEIS)

_CADA_PAPEL = "Cada papel tem a sua matriz: Q = X @ W_q, K = X @ W_k, V = X @ W_v."


def _iguais(a: Any, b: Any) -> bool:
    return _ARRAY.igual(_ARRAY.normalizar(a), _ARRAY.normalizar(b))


def _casos_projecoes() -> list[Caso]:
    """Um caso quadrado (quase todo erro roda e se reconhece pelo valor) e um retangular (vários erros
    viram erro de forma)."""
    X = np.array([[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 1.0, 0.0], [2.0, -1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 3.0]])
    quadrado = (
        np.array([[1.0, 2.0, 0.0, 0.0], [0.0, 1.0, -1.0, 0.0], [3.0, 0.0, 1.0, 1.0], [0.0, 0.0, 2.0, -1.0]]),
        np.array([[0.0, 1.0, 1.0, 0.0], [2.0, 0.0, 0.0, 1.0], [0.0, -1.0, 1.0, 2.0], [1.0, 0.0, 0.0, 1.0]]),
        np.array([[2.0, 0.0, -1.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 3.0, 0.0, 1.0], [0.0, 1.0, 2.0, 0.0]]),
    )
    rng = np.random.default_rng(6)
    X2 = rng.integers(-2, 3, size=(5, 4)).astype(float)
    retangular = (rng.integers(-2, 3, size=(4, 3)).astype(float), rng.integers(-2, 3, size=(4, 3)).astype(float),
                  rng.integers(-2, 3, size=(4, 2)).astype(float))
    return [
        Caso("com X (4, 4) e as três W (4, 4)", {"X": X, **dict(zip(_MATRIZES, quadrado))}),
        Caso("com X (5, 4), W_q e W_k (4, 3) e W_v (4, 2)", {"X": X2, **dict(zip(_MATRIZES, retangular))}),
    ]


#: as contas erradas clássicas de uma projeção, no lugar de X @ W
_FORMAS_ERRADAS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "W @ X": lambda X, W: W @ X,
    "X @ W.T": lambda X, W: X @ W.T,
    "(X @ W).T": lambda X, W: (X @ W).T,
    "X * W": lambda X, W: X * W,
}


def _candidatos_projecao(X: np.ndarray, Ws: Sequence[np.ndarray]) -> list[tuple[str, int, np.ndarray]]:
    """Tudo o que um componente da resposta pode ter sido: ``(forma do erro, índice da W, valor)``.

    ``forma`` é ``"certo"`` (``X @ W``) ou uma chave de :data:`_FORMAS_ERRADAS`; as que não rodam com
    essas formas ficam de fora.
    """
    saida = []
    for j, Wm in enumerate(Ws):
        saida.append(("certo", j, X @ Wm))
        for forma, conta in _FORMAS_ERRADAS.items():
            try:
                saida.append((forma, j, conta(X, Wm)))
            except ValueError:
                pass
    return saida


def _cada_componente(forma: str) -> Callable[[Any, Any, Caso], bool]:
    """Condição: cada uma de Q, K, V está certa ou foi feita com a conta errada ``forma`` (com a sua
    própria W), e pelo menos uma está errada (o erro vale mesmo se só uma das três o tiver)."""
    conta = _FORMAS_ERRADAS[forma]

    def quando(y: Any, certo: tuple, caso: Caso) -> bool:
        X = caso.entradas["X"]
        erradas = 0
        for r, c, m in zip(_TRIO.normalizar(y), certo, _MATRIZES):
            if _ARRAY.igual(r, c):
                continue
            if not _iguais(r, conta(X, caso.entradas[m])):
                return False
            erradas += 1
        return erradas > 0

    return quando


def _com_matrizes(indices: tuple[int, int, int]) -> Callable[..., tuple[np.ndarray, ...]]:
    """A resposta de quem calculou Q, K, V com as matrizes ``indices`` (0 = W_q, 1 = W_k, 2 = W_v)."""
    def resposta(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> tuple[np.ndarray, ...]:
        Ws = (W_q, W_k, W_v)
        return tuple(X @ Ws[j] for j in indices)

    return resposta


def _matrizes_usadas(y: Any, caso: Caso) -> tuple[int, ...] | None:
    """Com que matriz cada componente foi calculado (``X @ W_j``), ou ``None`` se algum não é nenhum."""
    X = caso.entradas["X"]
    usadas = []
    for r in _TRIO.normalizar(y):
        j = next((j for j, m in enumerate(_MATRIZES) if _ARRAY.igual(r, _ARRAY.normalizar(X @ caso.entradas[m]))), None)
        if j is None:
            return None
        usadas.append(j)
    return tuple(usadas)


def _erros_de_papel() -> list[Erro]:
    """A mesma W em três papéis, em dois papéis, e papéis trocados de lugar."""
    erros = [
        Erro(f"{m} nas três projeções",
             f"Você usou a mesma matriz ({m}) para as três projeções: Q, K e V saíram iguais. {_CADA_PAPEL} (Com um "
             "vetor só nos três papéis, cada token tende a olhar para si mesmo, os escores ficam simétricos e o que "
             "um token entrega fica amarrado a como ele é encontrado.)",
             resposta=_com_matrizes((j, j, j)))
        for j, m in enumerate(_MATRIZES)
    ]
    for p, papel in enumerate(_PAPEIS):
        for j, m in enumerate(_MATRIZES):
            if j == p:
                continue
            indices = tuple(j if k == p else k for k in range(3))
            juntos = " e ".join(_PAPEIS[k] for k in range(3) if indices[k] == j)
            erros.append(Erro(
                f"{papel} com {m}",
                f"{juntos} foram calculados com a mesma matriz, {m}. {_CADA_PAPEL} Aqui {papel} deveria usar "
                f"{_MATRIZES[p]} (olhe se não sobrou um copiar-e-colar).",
                resposta=_com_matrizes(indices)))
    erros += [
        Erro("K e V trocados",
             "K e V estão trocados: você devolveu (Q, V, K). A ordem é (Q, K, V): K = X @ W_k (para ser comparada com "
             "as queries) e V = X @ W_v (o conteúdo que sai). Trocados, os pesos passariam a ser calculados com os "
             "values.",
             resposta=_com_matrizes((0, 2, 1))),
        Erro("Q e K trocados",
             "Q e K estão trocados: você devolveu (K, Q, V). A ordem é (Q, K, V): Q = X @ W_q e K = X @ W_k.",
             resposta=_com_matrizes((1, 0, 2))),
        Erro("Q e V trocados",
             "Q e V estão trocados: você devolveu (V, K, Q). A ordem é (Q, K, V): Q = X @ W_q e V = X @ W_v.",
             resposta=_com_matrizes((2, 1, 0))),
        Erro("trio em ordem circular",
             "Os três resultados estão certos, mas na ordem errada: devolva (Q, K, V), com Q = X @ W_q, K = X @ W_k "
             "e V = X @ W_v.",
             quando=lambda y, _certo, caso: _matrizes_usadas(y, caso) in {(1, 2, 0), (2, 0, 1)}),
        Erro("matrizes misturadas entre os papéis",
             f"Cada resultado é X @ uma das três matrizes, mas não a do seu papel. {_CADA_PAPEL}",
             quando=lambda y, _certo, caso: _matrizes_usadas(y, caso) not in {None, (0, 1, 2)}),
    ]
    return erros


def _explica_forma_projecoes(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> str:
    n, d_model = X.shape
    formas = ", ".join(f"{m} {W.shape}" for m, W in zip(_MATRIZES, (W_q, W_k, W_v)))
    return (f"Aqui X tem forma {X.shape} (um token por linha, d_model = {d_model}) e {formas}. A conta que fecha "
            f"é X @ W: ({n}, {d_model}) @ ({d_model}, d) = ({n}, d). Trocar a ordem (W @ X) ou transpor W (X @ W.T) "
            "não fecha quando as formas não são quadradas.")


PROJECOES = Exercicio(
    nome="projeções Q, K, V",
    casos=_casos_projecoes,
    certo=lambda X, W_q, W_k, W_v: (X @ W_q, X @ W_k, X @ W_v),
    formato=_TRIO,
    acerto="Correto! Q = X @ W_q, K = X @ W_k e V = X @ W_v: uma linha por token, e cada papel com a sua matriz. Com "
           "X (5, 4), W_q (4, 3) e W_v (4, 2), Q sai (5, 3) e V sai (5, 2).",
    erros=[
        Erro("W @ X",
             "Você calculou **W @ X** em vez de **X @ W**. Cada token é uma **linha** de X, de forma (n, d_model), e W "
             "tem forma (d_model, d): a conta que fecha é X @ W = (n, d_model) @ (d_model, d) = (n, d), uma linha por "
             "token. W @ X só roda por acaso quando as formas são quadradas; com X (5, 4) e W_q (4, 3) dá erro de "
             "forma, porque (4, 3) @ (5, 4) tenta casar 3 colunas com 5 linhas.",
             quando=_cada_componente("W @ X")),
        Erro("X @ W.T",
             "Você transpôs as matrizes de pesos (X @ W.T). Aqui W já vem com forma (d_model, d): uma linha por "
             "coordenada do embedding, uma coluna por coordenada da projeção. Use X @ W direto. Com W_q de forma "
             "(4, 3), X @ W_q.T nem roda: (5, 4) @ (3, 4) não fecha.",
             quando=_cada_componente("X @ W.T")),
        Erro("(X @ W).T",
             "Você devolveu a transposta: (X @ W).T tem forma (d, n), um token por **coluna**. A convenção é um token "
             "por **linha**: Q[i] é a query do token i, forma (n, d). Tire o .T (ou não escreva W.T @ X.T).",
             quando=_cada_componente("(X @ W).T")),
        Erro("X * W",
             "Você usou * (produto elemento a elemento) em vez de @ (produto de matrizes). Cada coordenada da query é "
             "uma **soma** de produtos: Q[i, c] = Σⱼ X[i, j]·W_q[j, c]. Isso é X @ W_q.",
             quando=_cada_componente("X * W")),
        *_erros_de_papel(),
    ],
    explica_forma=_explica_forma_projecoes,
    dica_de_forma="Cada uma tem uma linha por token: Q e K (n, d_k), V (n, d_v).",
    mostrar_valores=False,
)


@corretor_de(PROJECOES)
def check_projecoes(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v)`` = ``(X @ W_q, X @ W_k, X @ W_v)``.

    ``X`` tem forma ``(n, d_model)`` (um token por linha) e cada ``W`` tem forma ``(d_model, d)``.
    Casos: um quadrado (``n = d_model = d = 4``, onde quase todo erro roda e se reconhece pelo valor) e
    um retangular (``X`` ``(5, 4)``, ``W_q`` e ``W_k`` ``(4, 3)``, ``W_v`` ``(4, 2)``, onde vários
    erros viram erro de forma). Reconhece cada erro de :data:`PROJECOES`: ``W @ X`` no lugar de
    ``X @ W`` (e o erro de forma que ele causa), pesos transpostos (``X @ W.T``), o resultado transposto
    (``(X @ W).T``), ``*`` no lugar de ``@``, a mesma matriz em três ou em dois papéis, papéis trocados
    (K e V, Q e K, Q e V, a ordem circular); uma resposta que não é o trio ``(Q, K, V)`` é explicada.
    """
    return conferir(PROJECOES, fn)


# --- a autoatenção de uma frase (exercício 2) -------------------------------------------------------


def _qkv(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> tuple[np.ndarray, ...]:
    return X @ W_q, X @ W_k, X @ W_v


def _saida_com(pesos_de: Callable[..., np.ndarray], mistura: str = "V") -> Callable[..., np.ndarray]:
    """A saída de uma autoatenção errada: ``pesos_de(Q, K, V, X, r)`` (``r = √d_k``) dá os pesos, e eles
    ponderam ``V``, ``K`` ou ``X``."""
    def resposta(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> np.ndarray:
        Q, K, V = _qkv(X, W_q, W_k, W_v)
        pesos = pesos_de(Q, K, V, X, math.sqrt(K.shape[-1]))
        return pesos @ {"V": V, "K": K, "X": X}[mistura]

    return resposta


def _autoatencao_com(trocar: Callable[[np.ndarray], np.ndarray], X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray,
                     W_v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(saídas, pesos)`` com ``trocar`` no lugar da softmax estável (para os erros de estabilidade)."""
    Q, K, V = _qkv(X, W_q, W_k, W_v)
    pesos = trocar(Q @ K.T / math.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def _autoatencao_certa(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> tuple[np.ndarray, ...]:
    Q, K, V = _qkv(*(np.asarray(a, dtype=float) for a in (X, W_q, W_k, W_v)))
    return scaled_dot_product_attention(Q, K, V)


def _caso_autoatencao(descricao: str, X: np.ndarray, Ws: Sequence[np.ndarray]) -> Caso:
    return Caso(descricao, {"X": X, **dict(zip(_MATRIZES, Ws))})


def _casos_estabilidade_autoatencao() -> list[Caso]:
    """O padrão de estabilidade da coleção (veja :func:`helpers.licoes.softmax.casos_de_estabilidade`)
    dentro da autoatenção: linhas de escores separadas por milhares, uma linha muito espalhada e float32.

    Nos dois primeiros, ``X`` tem as colunas (1, c, deslocamento, inclinação): ``K = (1, c)`` e
    ``Q = (deslocamento, inclinação)``, então a linha ``i`` dos escores é ``deslocamento_i +
    inclinação_i · c`` (antes de dividir por √2).
    """
    W_q = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    W_k = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    W_v = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    milhares = np.array([[1.0, 1.0, 0.0, 1.0], [1.0, 2.0, 3000.0, 2.0], [1.0, -1.0, 0.0, -1.0]])
    espalhada = np.array([[1.0, 1.0, 0.0, 800.0], [1.0, 0.0, 0.0, 1.0], [1.0, -1.0, 0.0, 2.0]])
    # float32 com d_k = 4 (√4 = 2, divisão exata): escores 200 + i·j, e e^100 já passa do maior float32
    X32 = np.array([[10.0, 0.0, 1.0, 0.0], [10.0, 1.0, 0.0, 1.0], [10.0, 2.0, 1.0, 1.0]], dtype=np.float32)
    Wq32 = np.zeros((4, 4), dtype=np.float32)
    Wq32[0, 0], Wq32[1, 1] = 2.0, 1.0
    Wv32 = np.array([[0.0, 0.0, 0.0, 0.1], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]],
                    dtype=np.float32)
    return [
        _caso_autoatencao("com uma query cujos escores estão milhares acima dos das outras (linhas de Q Kᵀ "
                          "separadas por milhares)", milhares, (W_q, W_k, W_v)),
        _caso_autoatencao("com uma linha de escores muito espalhados (de −800 a 800, antes de dividir por √d_k)",
                          espalhada, (W_q, W_k, W_v)),
        _caso_autoatencao("com tudo em float32 e escores perto de 200 (X (3, 4), as três W (4, 4))",
                          X32, (Wq32, np.eye(4, dtype=np.float32), Wv32)),
    ]


def _casos_autoatencao() -> list[Caso]:
    rng = np.random.default_rng(60)
    X1 = rng.integers(-2, 3, size=(5, 4)).astype(float)
    Ws1 = tuple(rng.integers(-2, 3, size=(4, 3)).astype(float) * 0.5 for _ in range(3))
    X2 = rng.normal(size=(6, 4))
    Ws2 = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)))
    return [
        _caso_autoatencao("com X (5, 4) e as três W (4, 3)", X1, Ws1),
        _caso_autoatencao("com X (6, 4), W_q e W_k (4, 3) e W_v (4, 2)", X2, Ws2),
        _caso_autoatencao("com escores enormes (o primeiro X multiplicado por 30)", 30.0 * X1, Ws1),
        *_casos_estabilidade_autoatencao(),
    ]


_PAR = _Rotulada((_ARRAY, _ARRAY), "o par (saídas, pesos)", ("saídas", "pesos"))

_SAIDA = SaidaOuPar()


def _so_a_saida(y: Any, certo: tuple, _caso: Caso) -> bool:
    if isinstance(y, (tuple, list)) and len(y) == 2:
        return False
    return _ARRAY.igual(_ARRAY.normalizar(y), certo[0])


def _saida_certa(y: Any, certo: tuple) -> bool:
    return isinstance(y, (tuple, list)) and len(y) == 2 and _ARRAY.igual(_ARRAY.normalizar(y[0]), certo[0])


def _escores_no_lugar_dos_pesos(y: Any, certo: tuple, caso: Caso) -> bool:
    if not _saida_certa(y, certo):
        return False
    Q, K, _ = _qkv(*(np.asarray(caso.entradas[k], dtype=float) for k in ("X", *_MATRIZES)))
    pesos = _ARRAY.normalizar(y[1])
    return any(_ARRAY.igual(pesos, z) for z in (Q @ K.T / math.sqrt(K.shape[-1]), Q @ K.T))


def _tem_nao_finito(y: Any, _certo: tuple, _caso: Caso) -> bool:
    partes = y if isinstance(y, (tuple, list)) else (y,)
    return any(not np.all(np.isfinite(_ARRAY.normalizar(p))) for p in partes)


def _explica_forma_autoatencao(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray) -> str:
    n, d_model = X.shape
    d_k, d_v = W_k.shape[1], W_v.shape[1]
    return (f"Siga as formas: X ({n}, {d_model}) @ W_q ({d_model}, {d_k}) = Q ({n}, {d_k}), e o mesmo para K; "
            f"V = X @ W_v é ({n}, {d_v}). Os escores são Q @ K.T: ({n}, {d_k}) @ ({d_k}, {n}) = ({n}, {n}); a saída é "
            f"pesos @ V: ({n}, {n}) @ ({n}, {d_v}) = ({n}, {d_v}). Confira a ordem X @ W (não W @ X), o .T de K e se "
            "K e V não foram trocados.")


def _d_k(W_k: np.ndarray, **_: Any) -> int:
    return int(W_k.shape[1])


AUTOATENCAO = Exercicio(
    nome="autoatenção de uma frase",
    casos=_casos_autoatencao,
    certo=_autoatencao_certa,
    formato=_PAR,
    acerto="Correto! Projeções Q = X @ W_q, K = X @ W_k, V = X @ W_v, escores Q Kᵀ / √d_k (d_k = 3, não d_model = 4), "
           "softmax estável em cada linha (escores a milhares de distância e float32 não estouram) e saídas pesos @ V: "
           "é a autoatenção de uma frase inteira, sem laço.",
    erros=[
        *erros_de_estabilidade(lambda trocar, X, W_q, W_k, W_v: _autoatencao_com(trocar, X, W_q, W_k, W_v)),
        Erro("NaN ou inf na resposta",
             "A resposta tem NaN ou inf: em geral é a exponencial dos escores que estourou o tipo de ponto flutuante "
             "(e^710 já passa do maior float64; em float32, e^89). Subtraia o máximo de **cada linha** antes de "
             "exponenciar: escores - escores.max(axis=-1, keepdims=True).",
             quando=_tem_nao_finito),
        Erro("escala por √d_model",
             lambda X, W_k, **_: f"Você dividiu os escores por √d_model = √{X.shape[1]} ≈ {decimal(math.sqrt(X.shape[1]), 2)}, "
                                 "o tamanho dos embeddings. A escala usa o tamanho das queries e keys **depois** da "
                                 f"projeção: √d_k = √{_d_k(W_k)} ≈ {decimal(math.sqrt(_d_k(W_k)), 2)}. Pegue d_k de "
                                 "K.shape[-1] (ou W_k.shape[1]), não de X.shape[1].",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / math.sqrt(X.shape[-1]))), formato=_SAIDA),
        Erro("sem escala",
             "Você esqueceu de escalar: os escores Q Kᵀ devem ser divididos por √d_k antes da softmax.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T)), formato=_SAIDA),
        Erro("÷d_k em vez de ÷√d_k",
             lambda W_k, **_: f"Você dividiu por d_k = {_d_k(W_k)} em vez de √d_k ≈ {decimal(math.sqrt(_d_k(W_k)), 2)}: a "
                              "escala é 1/√d_k.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / K.shape[-1])), formato=_SAIDA),
        Erro("×√d_k em vez de ÷√d_k", "Você multiplicou por √d_k em vez de dividir.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T * r)), formato=_SAIDA),
        Erro("softmax no eixo errado",
             "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha de Q Kᵀ) devem somar 1, então a "
             "softmax age sobre o último eixo (axis=-1, as keys), não sobre as queries (as colunas).",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / r, axis=0)), formato=_SAIDA),
        Erro("sem softmax",
             "Faltou a softmax: os escores escalados precisam virar pesos positivos que somam 1 em cada linha.",
             resposta=_saida_com(lambda Q, K, V, X, r: Q @ K.T / r), formato=_SAIDA),
        Erro("soma das keys",
             "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values**: pesos @ V, com V = X @ W_v.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / r), mistura="K"), formato=_SAIDA),
        Erro("X no lugar de V",
             "Você misturou os embeddings X em vez dos values: a saída é pesos @ V, com V = X @ W_v (por isso ela tem "
             "d_v colunas, não d_model).",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ K.T / r), mistura="X"), formato=_SAIDA),
        Erro("sem as projeções",
             "Você usou os embeddings X direto nos três papéis, sem as projeções. Primeiro Q = X @ W_q, K = X @ W_k e "
             "V = X @ W_v; depois a atenção com Q, K e V. (Sem as projeções, cada token tende a olhar para si mesmo, "
             "os escores ficam simétricos e o que um token entrega fica amarrado a como ele é encontrado.)",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(X @ X.T / math.sqrt(X.shape[-1])), mistura="X"),
             formato=_SAIDA),
        Erro("K e V trocados",
             "K e V estão trocados: os escores foram calculados com X @ W_v e a mistura com X @ W_k. K = X @ W_k entra "
             "nos escores (Q Kᵀ); V = X @ W_v é o conteúdo que sai.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ V.T / r), mistura="K"), formato=_SAIDA),
        Erro("Q e K trocados",
             "Q e K estão trocados: você calculou K Qᵀ, e os escores ficaram transpostos (a linha i virou a coluna i). "
             "A linha i deve ser a query do token i contra todas as keys: Q Kᵀ, com Q = X @ W_q e K = X @ W_k.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(K @ Q.T / r)), formato=_SAIDA),
        Erro("K calculado com W_q",
             "K foi calculado com W_q: os escores saíram Q Qᵀ (e simétricos). Cada papel tem a sua matriz: "
             "K = X @ W_k.",
             resposta=_saida_com(lambda Q, K, V, X, r: softmax(Q @ Q.T / r)), formato=_SAIDA),
        Erro("só a saída",
             "As saídas estão certas, mas a função deve devolver o **par** (saídas, pesos): return pesos @ V, pesos.",
             quando=_so_a_saida),
        Erro("par na ordem trocada",
             "Os números estão certos, mas o par veio na ordem trocada: devolva (saídas, pesos), nessa ordem.",
             resposta=lambda **e: _autoatencao_certa(**e)[::-1]),
        Erro("pesos transpostos",
             "As saídas estão certas, mas os pesos vieram transpostos: a linha i deve ser a da query i (cada **linha** "
             "soma 1).",
             resposta=lambda **e: (lambda s, p: (s, p.T))(*_autoatencao_certa(**e))),
        Erro("escores no lugar dos pesos",
             "As saídas estão certas, mas você devolveu os **escores** no lugar dos pesos. Devolva a matriz depois da "
             "softmax, a que multiplica V (cada linha soma 1).",
             quando=_escores_no_lugar_dos_pesos),
        Erro("pesos diferentes dos usados",
             "As saídas estão certas, mas os pesos não: devolva a matriz (n, n) que multiplicou V, "
             "softmax(Q Kᵀ / √d_k) em cada linha.",
             quando=lambda y, certo, _caso: _saida_certa(y, certo)),
    ],
    explica_forma=_explica_forma_autoatencao,
    dica_de_forma="As saídas têm uma linha por token e d_v colunas (pesos @ V, com V = X @ W_v); os pesos são (n, n).",
    mostrar_valores=False,
)


@corretor_de(AUTOATENCAO)
def check_autoatencao(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v)`` = ``(saídas, pesos)``: a autoatenção inteira de uma frase.

    ``Q, K, V = X @ W_q, X @ W_k, X @ W_v``; ``pesos = softmax(Q Kᵀ / √d_k)`` em cada linha;
    ``saídas = pesos @ V``. Casos: ``X`` ``(5, 4)`` com as três ``W`` ``(4, 3)`` (``d_model = 4`` e
    ``d_k = 3`` diferentes de propósito; quase todo erro roda e se reconhece pelo valor), ``X`` ``(6, 4)``
    com ``W_v`` ``(4, 2)`` (``d_v ≠ d_k``), o primeiro caso com ``X`` multiplicado por 30 (escores
    enormes) e o padrão de estabilidade da coleção (linhas de escores a milhares de distância, uma linha
    muito espalhada, float32). Reconhece cada erro de :data:`AUTOATENCAO`: softmax instável (sem
    subtrair o máximo, subtraindo o mínimo, um máximo só para a matriz inteira), escala por ``√d_model``
    em vez de ``√d_k``, sem escala, por ``d_k``, vezes ``√d_k``, softmax no eixo errado, sem softmax,
    keys somadas no lugar dos values, ``X`` no lugar de ``V`` (ou de Q, K e V), K e V trocados, Q e K
    trocados, ``W_q`` usada também para K, só a saída devolvida, o par na ordem trocada, os pesos
    transpostos e os escores no lugar dos pesos; os erros de forma (``W @ X``, ``Q @ K`` sem transpor)
    são explicados com as formas do caso.
    """
    return conferir(AUTOATENCAO, fn)


# --- prever, depois conferir -----------------------------------------------------------------------


def _escores_identidade(frase: Sequence[str] = FRASE_DINHEIRO) -> np.ndarray:
    """``X Xᵀ / √d_model`` da frase: os escores com ``Q = K = X`` (sem projeções)."""
    X = np.array([EMBEDDINGS_BANCO[t] for t in frase])
    return X @ X.T / math.sqrt(X.shape[1])


def _b_s() -> tuple[int, int]:
    return FRASE_DINHEIRO.index("banco"), FRASE_DINHEIRO.index("salário")


def _escore_projetado(de: str, para: str) -> float:
    W_q, W_k, _ = matrizes_banco()
    X = np.array([EMBEDDINGS_BANCO[t] for t in FRASE_DINHEIRO])
    z = (X @ W_q) @ (X @ W_k).T / math.sqrt(W_k.shape[1])
    return float(z[FRASE_DINHEIRO.index(de), FRASE_DINHEIRO.index(para)])


PREVISAO_SIMETRIA = Previsao(
    nome="escore de volta sem projeções",
    certo=lambda: round(float(_escores_identidade()[_b_s()[1], _b_s()[0]]), 3),
    revelar="Sem projeções, a query e a key de cada token são o próprio embedding, e o escore de A olhando para B é "
            "x_A·x_B / √d — o mesmo número que o de B olhando para A, porque o produto escalar é simétrico. Por isso "
            "salário → banco vale os mesmos 0,250 de banco → salário. Com W_q e W_k separadas, os dois sentidos se "
            "descolam: banco → salário vale 1,768 e salário → banco, 0.",
    formato=NumeroAproximado(3),
    erros=[
        Erro("assimetria sem projeções",
             "0 é o escore de salário → banco **com** as projeções W_q e W_k. Sem elas (Q = K = X), a query de "
             "salário é o próprio embedding dele, igual à key dele: o escore de volta é x_salário·x_banco / √d, o "
             "mesmo produto escalar de ida.",
             resposta=lambda: _escore_projetado("salário", "banco")),
        Erro("escore com as projeções",
             "1,768 é o escore de banco → salário **com** W_q e W_k. A pergunta é sem projeções, onde o escore de ida "
             "é 0,250; e o de volta?",
             resposta=lambda: _escore_projetado("banco", "salário")),
        Erro("peso no lugar do escore",
             "0,192 é o **peso** (depois da softmax) que banco dá a salário sem projeções, não o escore. Os pesos "
             "nem são simétricos — cada linha é normalizada por conta própria —; a pergunta é sobre o escore, "
             "x_salário·x_banco / √d.",
             resposta=lambda: float(softmax(_escores_identidade(), axis=-1)[_b_s()[0], _b_s()[1]])),
    ],
)


@corretor_de(PREVISAO_SIMETRIA)
def check_previsao_simetria(previsao: Any) -> bool:
    """Confere a previsão do escore salário → banco com ``Q = K = X`` (0.250, igual ao de banco → salário)
    e diz o equívoco de cada previsão errada típica (0, 1.768, 0.192)."""
    return conferir_previsao(PREVISAO_SIMETRIA, previsao)
