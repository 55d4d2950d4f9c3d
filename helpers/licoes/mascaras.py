"""Lição "Máscaras e atenção cruzada" (notebook ``mascaras_e_atencao_cruzada``): mapas de pesos com máscaras (figuras e painel) e os corretores das máscaras causal e de padding, da atenção com máscara, da atenção cruzada num lote com padding e da previsão da forma dos pesos.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
import re
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
from ..attention import causal_mask, padding_mask, scaled_dot_product_attention, softmax
from ..corretor import (
    Caso,
    Erro,
    Exercicio,
    Formato,
    Mascara,
    Previsao,
    RespostaInvalida,
    SaidaOuPar,
    conferir,
    conferir_previsao,
    corretor_de,
)
from ..formato import decimal
from ..paineis import Painel, tabela
from ..plots import CORES, MAPA
from .softmax import (
    ComLinhasLivres,
    SaidaComLinhasLivres,
    erro_nan_na_linha_mascarada,
    erros_de_estabilidade,
    linhas_sem_key_permitida,
    livrar,
)

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


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
        fig, axes = plots.nova_figura(5.0, 4.2, pyplot=True)
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

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: a frase do painel das máscaras (seis tokens; o que passa do comprimento real vira <pad>)
FRASE_MASCARAS = ("a", "menina", "leu", "o", "livro", "ontem")

PAD = "<pad>"

def _dados_mascaras(palavras: tuple[str, ...], d: int, d_v: int, semente: int) -> dict[str, Any]:
    """Embeddings (um vetor por palavra e um para o <pad>) e as projeções já aplicadas a cada um."""
    rng = np.random.default_rng(semente)
    vocab = list(palavras) + [PAD]
    X = rng.normal(size=(len(vocab), d))
    W_q, W_k = rng.normal(size=(d, d)) * 0.7, rng.normal(size=(d, d)) * 0.7  # pesos nem uniformes nem 0/1
    W_v = rng.normal(size=(d, d_v))
    return {"vocab": vocab, "Q": X @ W_q, "K": X @ W_k, "V": X @ W_v}

def painel_mascaras(causal: bool = True, padding: bool = True, comprimento: int = 4, query: int = 2,
                    palavras: tuple[str, ...] = FRASE_MASCARAS, semente: int = 0) -> Painel:
    """Máscara causal e de padding, ao vivo, numa frase de ``n = len(palavras)`` posições.

    Controles: ``causal`` e ``padding`` (caixas), ``comprimento`` (quantos tokens são de verdade; o
    resto da sequência é ``<pad>``) e ``query`` (a linha em destaque). Os vetores de cada palavra e do
    ``<pad>`` são sorteados uma vez (``semente``) e projetados em q, k (``d = 4``) e v (``d_v = 3``); a
    conta é a de :func:`helpers.attention.scaled_dot_product_attention`, com a máscara
    ``causal_mask(n) & padding_mask([comprimento], n)[0]`` (só as partes ligadas).

    Mostra o mapa de pesos ``(n, n)`` com as células mascaradas em cinza (×) e a soma de cada linha; à
    direita, a saída da query em destaque e (tracejada) a que ela teria sem máscara nenhuma.

    Estado: ``tokens``, ``permitido`` ``(n, n)``, ``pesos`` ``(n, n)``, ``somas`` ``(n,)``, ``query``,
    ``pesos_query`` ``(n,)``, ``saida`` ``(d_v,)``, ``saida_sem_mascara`` ``(d_v,)``, ``peso_no_pad`` e
    ``peso_no_futuro`` (quanto a query em destaque dá a posições ``<pad>`` e a posições ``j > query``).
    """
    from html import escape


    palavras = tuple(palavras)
    n, d_v = len(palavras), 3
    if n < 2:
        raise ValueError(f"o painel precisa de pelo menos 2 palavras; recebi {n}.")
    dados = _dados_mascaras(palavras, 4, d_v, semente)
    causal_nn = causal_mask(n)

    def conta(L: int, com_causal: bool, com_padding: bool) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray,
                                                                      np.ndarray, np.ndarray]:
        ids = list(range(L)) + [n] * (n - L)  # n é o índice do <pad> no vocabulário
        tokens = [dados["vocab"][t] for t in ids]
        Q, K, V = dados["Q"][ids], dados["K"][ids], dados["V"][ids]
        permitido = np.ones((n, n), dtype=bool)
        if com_causal:
            permitido &= causal_nn
        if com_padding:
            permitido &= padding_mask(np.array([L]), n)[0]
        saidas, pesos = scaled_dot_product_attention(Q, K, V, permitido)
        saidas_livres, _ = scaled_dot_product_attention(Q, K, V)
        return tokens, permitido, pesos, saidas, saidas_livres, V

    # eixo da saída fixo: o maior |coordenada| entre todas as combinações dos controles
    limite = 1.15 * max(float(np.abs(r).max()) for L in range(1, n + 1) for c in (False, True)
                        for pd in (False, True) for r in conta(L, c, pd)[3:5])
    fig, axes = plots.nova_figura(9.0, 4.0, ncols=2)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.22, top=0.9, wspace=0.42)
    ax_mapa, ax_saida = axes[0]
    ax_mapa.set_position([0.1, 0.22, 0.42, 0.68])
    ax_saida.set_position([0.68, 0.22, 0.29, 0.68])
    figura = FiguraMascaras(ax_mapa, ax_saida, n, d_v, (-limite, 1.5 * limite))  # folga para a legenda
    estilo = {"description_width": "initial"}
    controles: dict[str, W.ValueWidget] = {
        "causal": W.Checkbox(value=causal, description="máscara causal (não olhar o futuro)", indent=False),
        "padding": W.Checkbox(value=padding, description="máscara de preenchimento (ignorar <pad>)", indent=False),
        "comprimento": W.IntSlider(value=comprimento, min=1, max=n, step=1, description="comprimento real (tokens)",
                                   continuous_update=True, style=estilo, layout=W.Layout(width="400px")),
        "query": W.IntSlider(value=query, min=0, max=n - 1, step=1, description="query em destaque (posição)",
                             continuous_update=True, style=estilo, layout=W.Layout(width="400px")),
    }
    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        L, i = int(v["comprimento"]), int(v["query"])
        com_causal, com_padding = bool(v["causal"]), bool(v["padding"])
        tokens, permitido, pesos, saidas, saidas_livres, _ = conta(L, com_causal, com_padding)
        somas = pesos.sum(axis=-1)
        no_pad = float(pesos[i, L:].sum())
        no_futuro = float(pesos[i, i + 1:].sum())
        ativas = " + ".join(nome for nome, ligada in (("causal", com_causal), ("padding", com_padding)) if ligada)
        figura.atualizar(pesos, permitido, tokens, i, saidas[i], saidas_livres[i],
                         titulo=f"pesos — máscara: {ativas or 'nenhuma'}")
        esc = [escape(t) for t in tokens]  # "<pad>" viraria uma tag no HTML
        linha = ", ".join(f"{t} {w:.2f}" for t, w in zip(esc, pesos[i], strict=True))
        html = tabela([
            ("sequência", " ".join(esc) + f"   ({L} de {n} tokens são reais)"),
            ("máscaras ligadas", ativas or "nenhuma"),
            (f"pesos da query {i} («{esc[i]}»)", linha),
            ("soma da linha", f"{somas[i]:.3f}"),
            (f"peso que a query dá ao {escape(PAD)}", f"{no_pad:.3f}"),
            (f"peso que a query dá ao futuro (posições > {i})", f"{no_futuro:.3f}"),
            ("saída da query (com as máscaras)", "(" + ", ".join(f"{x:.2f}" for x in saidas[i]) + ")"),
            ("saída sem máscara nenhuma", "(" + ", ".join(f"{x:.2f}" for x in saidas_livres[i]) + ")"),
        ])
        return {"tokens": tokens, "permitido": permitido, "pesos": pesos, "somas": somas, "query": i,
                "pesos_query": pesos[i], "saida": saidas[i], "saida_sem_mascara": saidas_livres[i],
                "peso_no_pad": no_pad, "peso_no_futuro": no_futuro, "causal": com_causal, "padding": com_padding,
                "comprimento": L, "html": html}

    return Painel(fig, controles, calcular, titulo="Máscaras: quem pode olhar para quem")

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------

_MASCARA = Mascara()


class _MascaraDoLote(Mascara):
    """A máscara de padding: mostrada com a forma e, quando é ``(b, 1, n)``, uma linha por frase."""

    def mostrar(self, x: np.ndarray) -> str:
        a = np.asarray(x).astype(int)
        if a.ndim == 3 and a.shape[1] == 1:
            return f"forma {a.shape}; mask[:, 0, :] =\n{a[:, 0, :]}"
        return f"forma {a.shape}:\n{a}"


def _numeros_com_o_padrao_certo(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    """``y`` tem o padrão certo de True/False, mas em números (0/1), não booleanos."""
    return np.asarray(y).dtype != np.bool_ and _MASCARA.igual(_MASCARA.normalizar(y), certo)


def _aditiva(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    """``y`` é a versão aditiva da máscara certa (0 onde pode olhar, -inf ou muito negativo onde não)?"""
    arr = np.asarray(y, dtype=float)
    return arr.shape == certo.shape and bool(np.all(arr[certo] == 0)) and bool(np.all(arr[~certo] < -1e3))


def _outra_forma_mesmos_valores(y: Any, certo: np.ndarray, _caso: Caso) -> bool:
    """Os valores certos, na ordem certa, mas noutra forma (achatada, com um eixo a mais…)."""
    m = _MASCARA.normalizar(y)
    return m.shape != certo.shape and m.size == certo.size and bool(np.array_equal(m.ravel(), certo.ravel()))


def _explica_dtype(exemplo: str) -> str:
    return ("O padrão de True/False está certo, mas a máscara veio com **números** (0 e 1, dtype int ou float), e ela "
            f"precisa ser **booleana**, dtype bool ({exemplo}). Com números, ~mask não inverte a máscara (em "
            "inteiros, ~1 vale -2 e ~0 vale -1, e os dois contam como True), np.where(mask, …) trata qualquer número "
            "diferente de 0 como True, e attention.scaled_dot_product_attention recusa máscaras que não sejam bool.")


def _erro_aditiva(uso: str) -> Erro:
    return Erro("máscara aditiva (0/−inf)",
                "Você devolveu a máscara **aditiva** (0 onde pode olhar, -inf onde não): ela serve para somar aos "
                f"escores, mas aqui queremos a máscara booleana ({uso}), a que se passa como mask=.",
                quando=_aditiva)


MASCARA_CAUSAL = Exercicio(
    nome="máscara causal",
    casos=lambda: [Caso(f"com n = {n}", {"n": n}) for n in (4, 6)],
    certo=lambda n: np.tri(n, dtype=bool),
    formato=_MASCARA,
    acerto="Correto! Máscara causal (n, n) booleana: a linha i libera as colunas 0, …, i (o passado e o próprio "
           "token) e bloqueia o futuro.",
    erros=[
        Erro("números no lugar de booleanos", _explica_dtype("np.tri(n, dtype=bool) ou .astype(bool)"),
             quando=_numeros_com_o_padrao_certo, sempre=True),
        _erro_aditiva("True = pode olhar"),
        Erro("tudo True (máscara ignorada)",
             "Tudo True: isso não bloqueia nada (é a atenção sem máscara). Só o passado e o próprio token podem ficar "
             "liberados: a query i vê as keys j ≤ i.",
             resposta=lambda n: np.ones((n, n), dtype=bool)),
        Erro("triângulo de cima",
             "Você pegou o triângulo de **cima** (j ≥ i): assim cada token olha para si e para o **futuro**, "
             "exatamente o que a máscara deveria impedir. A query i pode ver as keys j ≤ i: o triângulo de baixo "
             "(np.tril ou np.tri).",
             resposta=lambda n: np.triu(np.ones((n, n), dtype=bool))),
        Erro("convenção invertida (True = proibido)",
             "Máscara invertida: você marcou com True as posições **proibidas** (o futuro, j > i). Algumas bibliotecas "
             "usam essa convenção, mas aqui (como no scaled_dot_product_attention do PyTorch) True quer dizer **pode "
             "olhar**. Inverta com ~mask ou use np.tri(n, dtype=bool).",
             resposta=lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)),
        Erro("diagonal excluída",
             "A diagonal ficou de fora: cada token também pode olhar para **si mesmo** (j = i). Sem a diagonal, o "
             "primeiro token não teria nada para ver. Use np.tri(n, dtype=bool) (k=0, o padrão), não k=-1, ou j <= i "
             "em vez de j < i.",
             resposta=lambda n: np.tri(n, k=-1, dtype=bool)),
        Erro("um passo a mais (vê o seguinte)",
             "Um passo a mais: com k=1 (ou j <= i + 1) cada token vê também o token **seguinte** — justamente o que "
             "ele deveria prever. Use k=0 (o padrão de np.tri), ou j <= i.",
             resposta=lambda n: np.tri(n, k=1, dtype=bool)),
        Erro("só a diagonal",
             "Só a diagonal: cada token veria apenas a si mesmo. Ele pode olhar para si **e para todo o passado** "
             "(j ≤ i).",
             resposta=lambda n: np.eye(n, dtype=bool)),
        Erro("tudo False",
             "Tudo False: nenhuma query poderia olhar para nada. True marca o que **pode** ser visto: o passado e o "
             "próprio token (j ≤ i).",
             resposta=lambda n: np.zeros((n, n), dtype=bool)),
        Erro("triângulo espelhado",
             "O triângulo ficou espelhado (virado da esquerda para a direita). Na linha i, as colunas liberadas são "
             "0, 1, …, i.",
             resposta=lambda n: np.fliplr(np.tri(n, dtype=bool))),
        Erro("forma errada com os valores certos",
             lambda n: f"Os valores estão certos, só que arrumados em outra forma: a máscara deveria ter forma ({n}, "
                       f"{n}), uma matriz com uma linha por query e uma coluna por key — sem eixos a mais e sem "
                       "achatar.",
             quando=_outra_forma_mesmos_valores),
    ],
    dica_de_forma="A máscara causal é uma matriz (n, n): uma linha por query e uma coluna por key, n de cada.",
)


@corretor_de(MASCARA_CAUSAL)
def check_mascara_causal(fn: Callable[[int], Any]) -> bool:
    """Confere ``fn(n)`` = a máscara causal ``(n, n)`` booleana: ``True`` onde a query ``i`` pode olhar
    para a key ``j``, isto é, ``j <= i`` (o triângulo de baixo, com a diagonal).

    Casos: ``n = 4`` e ``n = 6``. Reconhece cada erro de :data:`MASCARA_CAUSAL`: números (0/1) no lugar
    de booleanos, máscara aditiva (0/−inf), tudo liberado (a máscara ignorada), triângulo de cima
    (``np.triu``), a convenção invertida (``True`` = bloqueado), a diagonal excluída, um passo a mais
    (cada token vê o seguinte), só a diagonal, tudo bloqueado, o triângulo espelhado e os valores certos
    numa forma errada; outras formas erradas são explicadas.
    """
    return conferir(MASCARA_CAUSAL, fn)


def _padding_com(regra: Callable[[np.ndarray, np.ndarray, int], np.ndarray]) -> Callable[..., np.ndarray]:
    """A máscara ``(b, 1, n)`` de quem usou ``regra(j, L, n)`` (``j`` ``(1, n)``, ``L`` ``(b, 1)``) no lugar
    de ``j < L``."""
    def resposta(lengths: np.ndarray, n: int) -> np.ndarray:
        return regra(np.arange(n)[None, :], np.asarray(lengths)[:, None], n)[:, None, :]

    return resposta


def _padding_certa(lengths: np.ndarray, n: int) -> np.ndarray:
    return (np.arange(n)[None, :] < np.asarray(lengths)[:, None])[:, None, :]


def _explica_forma_padding(lengths: np.ndarray, n: int) -> str:
    return (f"np.arange(n) tem forma ({n},) e lengths tem forma ({len(lengths)},): comparar os dois direto não faz uma "
            "tabela (o broadcasting só casa eixos de mesmo tamanho ou de tamanho 1). Ponha cada um num eixo: "
            "np.arange(n)[None, :] < lengths[:, None] dá (b, n); depois acrescente o eixo do meio com [:, None, :].")


def _casos_padding() -> list[Caso]:
    return [Caso(f"com lengths = {lengths} e n = {n}", {"lengths": np.array(lengths), "n": n})
            for lengths, n in (([3, 5, 1], 5), ([2, 4], 6))]


MASCARA_PADDING = Exercicio(
    nome="máscara de preenchimento",
    casos=_casos_padding,
    certo=_padding_certa,
    formato=_MascaraDoLote(),
    acerto="Correto! mask[b, 0, j] = j < lengths[b]: forma (b, 1, n), booleana, True nos tokens de verdade. O eixo do "
           "meio faz a mesma máscara valer para todas as queries.",
    erros=[
        Erro("números no lugar de booleanos", _explica_dtype("a comparação j < lengths já dá bool"),
             quando=_numeros_com_o_padrao_certo, sempre=True),
        _erro_aditiva("True = token de verdade"),
        Erro("sem o eixo do meio: (b, n)",
             "Os valores estão certos, mas faltou o **eixo do meio**: a forma deveria ser (b, 1, n), e veio (b, n). Os "
             "escores têm forma (b, n_q, n) e o numpy alinha as formas pela direita: uma máscara (b, n) seria lida "
             "como (n_q, n). Se b ≠ n_q, isso dá erro de forma; se por acaso b = n_q, é pior: roda sem erro, usando a "
             "frase i para a **query** i. Acrescente o eixo com mask[:, None, :].",
             resposta=lambda lengths, n: _padding_certa(lengths, n)[:, 0, :]),
        Erro("máscara nas queries: (b, n, 1)",
             "Forma (b, n, 1): assim a máscara vale para as **linhas** (as queries), não para as colunas (as keys). O "
             "que precisa sumir são as colunas do <pad>, para que ninguém olhe para ele: use a forma (b, 1, n).",
             resposta=lambda lengths, n: _padding_certa(lengths, n)[:, 0, :, None]),
        Erro("matriz cheia (b, n, n)",
             "A matriz (b, n, n) que você montou funciona, mas repete a mesma linha n vezes. Devolva a forma (b, 1, n): "
             "o broadcasting estende o eixo do meio para todas as queries de graça.",
             resposta=lambda lengths, n: np.broadcast_to(_padding_certa(lengths, n), (len(lengths), n, n))),
        Erro("erro de um: j <= lengths",
             "Erro de um: com j <= lengths, a posição lengths[b] também fica liberada — e ela já é o primeiro <pad> "
             "(as posições começam em 0: uma frase de 3 tokens ocupa 0, 1 e 2). Use j < lengths.",
             resposta=_padding_com(lambda j, L, n: j <= L)),
        Erro("erro de um: j < lengths − 1",
             "Erro de um: com j < lengths - 1 o **último token de verdade** ficou bloqueado. Uma frase de 3 tokens "
             "ocupa as posições 0, 1 e 2: libere j < lengths.",
             resposta=_padding_com(lambda j, L, n: j < L - 1)),
        Erro("convenção invertida (True no preenchimento)",
             "Máscara invertida: você marcou com True o **preenchimento**. Aqui True quer dizer **pode olhar** (token de "
             "verdade): mask[b, 0, j] = j < lengths[b].",
             resposta=_padding_com(lambda j, L, n: j >= L)),
        Erro("preenchimento à esquerda",
             "Você liberou as **últimas** lengths[b] posições: isso é o preenchimento à **esquerda** (o <pad> no "
             "começo). Aqui os tokens de verdade vêm primeiro e o <pad> no fim: eles ocupam as posições 0, …, "
             "lengths[b] − 1, então mask[b, 0, j] = j < lengths[b].",
             resposta=_padding_com(lambda j, L, n: j >= n - L)),
        Erro("n − lengths no lugar de lengths",
             "Você liberou as primeiras n − lengths[b] posições: esse é o número de <pad> da frase, não o de tokens de "
             "verdade. Libere as primeiras lengths[b]: j < lengths[b].",
             resposta=_padding_com(lambda j, L, n: j < n - L)),
        Erro("tudo True (máscara ignorada)",
             "Tudo True: isso não bloqueia nada, e as queries continuam olhando para o <pad>. Só os tokens de verdade "
             "(j < lengths[b]) podem ficar liberados.",
             resposta=lambda lengths, n: np.ones((len(lengths), 1, n), dtype=bool)),
    ],
    explica_forma=_explica_forma_padding,
    dica_de_forma="A máscara de preenchimento tem forma (b, 1, n): uma linha por frase, o eixo do meio de tamanho 1 (ele se "
                  "estende a todas as queries) e uma coluna por posição.",
)


@corretor_de(MASCARA_PADDING)
def check_mascara_padding(fn: Callable[[np.ndarray, int], Any]) -> bool:
    """Confere ``fn(lengths, n)`` = a máscara de padding ``(b, 1, n)`` booleana, com
    ``mask[b, 0, j] = j < lengths[b]`` (``True`` = token de verdade, pode olhar).

    Casos: ``lengths = [3, 5, 1]`` com ``n = 5`` e ``lengths = [2, 4]`` com ``n = 6``. Reconhece cada erro
    de :data:`MASCARA_PADDING`: números (0/1) no lugar de booleanos, máscara aditiva (0/−inf), falta do
    eixo do meio (forma ``(b, n)``), queries mascaradas no lugar das keys (forma ``(b, n, 1)``), a matriz
    cheia ``(b, n, n)``, erro de um na comparação (``<=`` ou ``< lengths - 1``), máscara invertida
    (``True`` no padding), padding à esquerda, ``n - lengths`` no lugar de ``lengths`` e tudo liberado (a
    máscara ignorada); a comparação sem alinhar os eixos (erro de broadcasting) é explicada.
    """
    return conferir(MASCARA_PADDING, fn)



# --- a atenção com máscara (exercício 3) ------------------------------------------------------------


def _atencao_mascarada(q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None, *,
                       trocar: Callable[[np.ndarray], np.ndarray] | None = None, preenche: float = -np.inf,
                       escala: float | None = None, eixo: int = -1, mistura: np.ndarray | None = None,
                       depois: bool = False) -> np.ndarray:
    """A atenção com máscara, com um erro no meio: ``trocar`` no lugar da softmax estável, ``preenche`` no
    lugar de −inf, outra ``escala``, a softmax noutro ``eixo``, outra matriz na ``mistura`` ou a máscara
    aplicada ``depois`` da softmax (multiplicando os pesos)."""
    d = q.shape[-1]
    z = q @ K.T * (1 / math.sqrt(d) if escala is None else escala)
    if mask is not None and not depois:
        z = np.where(mask, z, preenche)
    if trocar is not None:
        pesos = trocar(z)
    else:
        pesos = softmax(z, axis=eixo)
    if mask is not None and depois:
        pesos = pesos * mask
    return pesos @ (V if mistura is None else mistura)


def _livres_atencao(q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    forma = (V.shape[-1],) if q.ndim == 1 else (*np.broadcast_shapes(q.shape[:-1]), V.shape[-1])
    return linhas_sem_key_permitida(mask, forma, K.shape[-2])


def _atencao_mascarada_certa(q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None
                             ) -> ComLinhasLivres:
    saida, _ = scaled_dot_product_attention(q.astype(float), K.astype(float), V.astype(float), mask)
    return ComLinhasLivres(saida, _livres_atencao(q, K, V, mask))


def _mask_none_vira_tudo_proibido(y: Any, certo: ComLinhasLivres, caso: Caso) -> bool:
    if "mask" in caso.entradas:
        return False
    v = SaidaOuPar().normalizar(y)
    return v.shape == certo.valor.shape and bool(np.all(~np.isfinite(v)) or np.all(v == 0))


def _casos_atencao_mascarada() -> list[Caso]:
    rng = np.random.default_rng(70)
    q, K, V = np.array([1.0, 0.0]), np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    K4 = rng.normal(size=(4, 4)) * 2.0
    V4 = rng.normal(size=(4, 3))
    vazia = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 1.0, 2.0, 0.0], [1500.0, 1800.0, 2000.0, 100.0]])
    mascara_vazia = np.array([[False] * 4, [True, True, True, False], [True, True, False, True]])

    def caso(descricao: str, **entradas: Any) -> Caso:
        return Caso(descricao, entradas, nomeados=("mask",) if "mask" in entradas else ())

    return [
        caso("sem máscara (mask=None), no exemplo resolvido", q=q, K=K, V=V),
        caso("com escores permitidos abaixo de −10 (entre −17 e −8,5) e a key proibida com escore alto",
             q=np.array([[-10.0, -10.0], [-12.0, 0.0]]), K=np.array([[1.0, 1.0], [2.0, 0.0], [-1.0, -1.0]]),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]), mask=np.array([[True, True, False], [True, True, False]])),
        caso("com uma máscara causal (q (3, 4), K (4, 4), V (4, 3), mask (3, 4))",
             q=rng.normal(size=(3, 4)), K=K4, V=V4, mask=np.tri(3, 4, dtype=bool)),
        caso("com uma máscara de preenchimento de uma dimensão (mask (4,): as duas últimas keys proibidas)",
             q=rng.normal(size=(2, 4)), K=K4, V=V4, mask=np.array([True, True, False, False])),
        caso("com duas queries cujos escores diferem em milhares (a segunda × 3000) e a máscara causal",
             q=np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 3000.0, 0.0, 1000.0]]), K=K4, V=V4, mask=np.tri(2, 4, k=1, dtype=bool)),
        caso("com uma linha muito espalhada (escores de −1414 a 1414) e a última key proibida",
             q=np.array([[2000.0, 0.0]]), K=np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]), mask=np.array([[True, True, True, False]])),
        caso("com tudo em float32, escores perto de 200 e a máscara causal",
             q=np.array([[20.0, 0, 0, 0], [0, 20.0, 0, 0]], dtype=np.float32),
             K=np.array([[20.0, 0, 0, 0], [0, 20.0, 0, 0], [10.0, 10.0, 0, 0]], dtype=np.float32),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], dtype=np.float32), mask=np.tri(2, 3, dtype=bool)),
        caso("com uma query sem nenhuma key permitida (a primeira linha da máscara toda False)",
             q=vazia, K=2.0 * np.eye(4), V=V4, mask=mascara_vazia),
    ]


_EXPLICA_FORMA_MASCARA = (
    "os escores são q @ Kᵀ ((n_q, d) @ (d, n_k) = (n_q, n_k)); a máscara se estende (broadcasting) a essa forma — "
    "use np.where(mask, escores, -np.inf), sem indexar a máscara como se ela tivesse sempre duas dimensões —, e a "
    "saída é pesos @ V ((n_q, n_k) @ (n_k, d_v))."
)

ATENCAO_MASCARA = Exercicio(
    nome="atenção com máscara",
    casos=_casos_atencao_mascarada,
    certo=_atencao_mascarada_certa,
    formato=SaidaComLinhasLivres(),
    acerto="Correto! Os escores proibidos viram -inf **antes** da softmax (peso exatamente 0, em qualquer escala de "
           "escores), a softmax é estável por linha e a query sem nenhuma key permitida sai finita, sem NaN.",
    erros=[
        *livrar(erros_de_estabilidade(lambda trocar, q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, trocar=trocar)),
                _livres_atencao),
        erro_nan_na_linha_mascarada(),
        Erro("mask=None vira tudo proibido",
             "Sem máscara (mask=None), a sua função proibiu tudo: np.where(None, escores, -np.inf) trata o None como "
             "False. Quando mask for None, não mexa nos escores — if mask is not None: … —, e todas as keys ficam "
             "permitidas.",
             quando=_mask_none_vira_tudo_proibido),
        *livrar([
            Erro("máscara ignorada",
                 "A máscara foi ignorada: a saída é a da atenção sem máscara, e as queries continuam olhando para as "
                 "keys proibidas. Use mask: np.where(mask, escores, -np.inf) antes da softmax.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, None) if mask is not None else None),
            Erro("escores mascarados = 0",
                 "Você pôs **0** nos escores proibidos (np.where(mask, escores, 0), ou escores * mask). Zero não quer dizer "
                 "'nada': e^0 = 1, e a posição proibida recebe o mesmo peso que teria uma key com escore 0 — às vezes mais "
                 "que as permitidas. O proibido precisa de -inf (e^-inf = 0).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, preenche=0.0)
                 if mask is not None else None),
            Erro("−10 no lugar de −inf",
                 "Você pôs um número negativo **pequeno** (como −10) nos escores proibidos. Com escores de verdade perto "
                 "de 0 o vazamento é de uns e^-10 ≈ 4,5·10⁻⁵ e as matrizes impressas parecem certas; mas quando os "
                 "escores permitidos ficam perto de −10 ou abaixo, a posição proibida passa a levar boa parte do peso "
                 "(no caso abaixo, quase tudo). Use -np.inf (ou, se precisar de um número finito, algo como −1e9, muito abaixo de "
                 "qualquer escore realista — em float32 ou float64; em float16 −1e9 nem cabe).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, preenche=-10.0)
                 if mask is not None else None),
            Erro("máscara depois da softmax",
                 "Máscara aplicada depois da softmax: zerar os pesos proibidos depois de normalizar deixa linhas que não "
                 "somam 1, e a posição proibida já influenciou o denominador (o futuro vaza). Aplique a máscara nos "
                 "**escores**, trocando-os por -inf, e só então a softmax.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, depois=True)
                 if mask is not None else None),
            Erro("máscara invertida",
                 "Máscara invertida: True significa **pode olhar** (a convenção do scaled_dot_product_attention do "
                 "PyTorch e desta coleção); você bloqueou as posições permitidas e liberou as proibidas.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, ~np.asarray(mask, dtype=bool))
                 if mask is not None else None),
            Erro("sem escala",
                 "Você esqueceu de escalar: os escores q·k devem ser divididos por √d antes da máscara e da softmax.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, escala=1.0)),
            Erro("÷d em vez de ÷√d",
                 lambda q, **_: f"Você dividiu por d = {q.shape[-1]} em vez de √d ≈ {decimal(math.sqrt(q.shape[-1]), 2)}: a "
                                "escala é 1/√d.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, escala=1 / q.shape[-1])),
            Erro("soma das keys",
                 "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values** (V).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, mistura=K)),
            Erro("softmax no eixo errado",
                 "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha) devem somar 1, então a softmax "
                 "age sobre o último eixo (as keys).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, eixo=0)
                 if q.ndim == 2 and q.shape[0] > 1 else None),
        ], _livres_atencao),
    ],
    explica_forma=lambda **_: _EXPLICA_FORMA_MASCARA,
    dica_de_forma="A saída tem uma linha por query, com d_v colunas: os pesos (n_q, n_k) multiplicam V (n_k, d_v).",
)


@corretor_de(ATENCAO_MASCARA)
def check_atencao_com_mascara(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(q, K, V, mask=None)``: a atenção por produto escalar escalado com máscara booleana
    (``True`` = pode olhar, *broadcastable* para ``(n_q, n_k)``). Pode devolver a saída ou ``(saída, pesos)``.

    Casos: sem máscara, máscara causal, máscara de padding 1-D, escores permitidos abaixo de −10 (onde
    preencher com −10 não basta), e o padrão de estabilidade da coleção (linhas a milhares de distância, uma
    linha espalhada, float32 e uma query sem nenhuma key permitida, cuja linha aceita qualquer saída
    finita). Reconhece cada erro de :data:`ATENCAO_MASCARA`: as três softmax instáveis, NaN na linha toda
    mascarada, ``mask=None`` tratado como tudo proibido, a máscara ignorada, 0 ou −10 no lugar de −inf, a
    máscara depois da softmax, a máscara invertida, a escala errada, as keys somadas e o eixo errado.
    """
    return conferir(ATENCAO_MASCARA, fn)



# --- a atenção cruzada num lote com padding (exercício 4) ---------------------------------------------


def _cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray, W_k: np.ndarray,
             W_v: np.ndarray, *, trocar: Callable[[np.ndarray], np.ndarray] | None = None,
             mascara: str = "padding", preenche: float = -np.inf, escala: str = "d_k", eixo: int = -1,
             mistura: str = "V", origem_kv: str = "enc", trocar_kv: bool = False) -> np.ndarray:
    """A atenção cruzada ``(b, n_q, d_v)``, certa ou com um erro clássico (os argumentos nomeados)."""
    Q = X_dec @ W_q                                                       # (b, n_q, d_k)
    fonte = X_enc if origem_kv == "enc" else X_dec
    K, V = fonte @ W_k, fonte @ W_v                                       # (b, n, d_k), (b, n, d_v)
    if trocar_kv:
        K, V = fonte @ W_v, fonte @ W_k
    d = {"d_k": K.shape[-1], "d_model": X_dec.shape[-1], "1": 1}[escala]
    z = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d)                         # (b, n_q, n)
    b, n_q, n = z.shape
    j = np.arange(n)[None, None, :]
    L = np.asarray(comprimentos)[:, None, None]
    if mascara == "padding":
        z = np.where(j < L, z, preenche)
    elif mascara == "<=":
        z = np.where(j <= L, z, preenche)
    elif mascara == "causal":
        z = np.where((j < L) & np.tri(n_q, n, dtype=bool), z, preenche)
    pesos = trocar(z) if trocar is not None else softmax(z, axis=eixo)
    return pesos @ {"V": V, "K": K, "X": fonte}[mistura]


def _livres_cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                    W_k: np.ndarray, W_v: np.ndarray) -> np.ndarray:
    b, n_q = X_dec.shape[:2]
    vazias = np.asarray(comprimentos) <= 0                                # (b,): frase de origem sem tokens
    return np.broadcast_to(vazias[:, None, None], (b, n_q, W_v.shape[1])).copy()


def _cruzada_certa(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                   W_k: np.ndarray, W_v: np.ndarray) -> ComLinhasLivres:
    f = [np.asarray(a, dtype=float) for a in (X_dec, X_enc, W_q, W_k, W_v)]
    mask = padding_mask(np.asarray(comprimentos), f[1].shape[1])
    saida, _ = scaled_dot_product_attention(f[0] @ f[2], f[1] @ f[3], f[1] @ f[4], mask)
    return ComLinhasLivres(saida, _livres_cruzada(X_dec, X_enc, comprimentos, W_q, W_k, W_v))


def _caso_cruzada(descricao: str, X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: Sequence[int],
                  Ws: Sequence[np.ndarray]) -> Caso:
    return Caso(descricao, {"X_dec": X_dec, "X_enc": X_enc, "comprimentos": np.array(comprimentos),
                            "W_q": Ws[0], "W_k": Ws[1], "W_v": Ws[2]})


def _casos_cruzada() -> list[Caso]:
    rng = np.random.default_rng(71)
    Ws = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)))
    X_dec, X_enc = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4))
    X_dec2, X_enc2 = rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 4, 4))
    Ws2 = (rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 4)))
    X_enc_enorme = X_enc.copy()
    X_enc_enorme[:, 1] *= 3000.0           # duas posições da origem com vetores enormes e opostos (permitidas nas
    X_enc_enorme[:, 2] = -X_enc_enorme[:, 1]  # duas frases): toda query tem um escore de milhares, positivo
    # float32: W = I, escores = X_dec · X_enc / 2, perto de 200 (e^100 já estoura em float32)
    I32 = np.eye(4, dtype=np.float32)
    X_dec32 = np.array([[[20.0, 0, 0, 0], [0, 20.0, 0, 0]]], dtype=np.float32)
    X_enc32 = np.array([[[20.0, 0, 0, 0], [0, 20.0, 0, 0], [10.0, 10.0, 0, 0]]], dtype=np.float32)
    return [
        _caso_cruzada("com um lote de 2 frases: 3 tokens no decoder, origem preenchida até 5 posições "
                      "(comprimentos [5, 3]), d_model = 4, d_k = 3, d_v = 2", X_dec, X_enc, [5, 3], Ws),
        _caso_cruzada("com um lote de 3 frases: 2 tokens no decoder, origem de 4 posições (comprimentos [4, 1, 2]), "
                      "d_k = d_v = d_model = 4", X_dec2, X_enc2, [4, 1, 2], Ws2),
        _caso_cruzada("com duas posições da origem de vetores enormes e opostos (× 3000): escores de milhares, espalhados "
                      "e com linhas a milhares de distância", X_dec, X_enc_enorme, [5, 3], Ws),
        _caso_cruzada("com tudo em float32 e escores perto de 200 (as três W iguais à identidade)",
                      X_dec32, X_enc32, [3], (I32, I32, I32)),
        _caso_cruzada("com uma frase de origem vazia (comprimentos [5, 0]: as queries dela não têm nenhuma key "
                      "permitida) e, na outra, as posições de vetores enormes", X_dec, X_enc_enorme, [5, 0], Ws),
    ]


def _queries_da_origem(y: Any, _certo: Any, caso: Caso) -> bool:
    e = caso.entradas
    b, n_kv = e["X_enc"].shape[:2]
    return e["X_dec"].shape[1] != n_kv and np.shape(SaidaOuPar().normalizar(y)) == (b, n_kv, e["W_v"].shape[1])


def _explica_forma_cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                           W_k: np.ndarray, W_v: np.ndarray) -> str:
    b, n_q, d_model = X_dec.shape
    n_kv, d_k, d_v = X_enc.shape[1], W_k.shape[1], W_v.shape[1]
    return (f"Siga as formas: Q = X_dec @ W_q é ({b}, {n_q}, {d_k}); K = X_enc @ W_k é ({b}, {n_kv}, {d_k}) e "
            f"V = X_enc @ W_v, ({b}, {n_kv}, {d_v}). Em lote, K.T inverte os **três** eixos (vira ({d_k}, {n_kv}, {b})): "
            "para transpor só os dois últimos use K.transpose(0, 2, 1), np.swapaxes(K, -1, -2) ou np.einsum. Os escores "
            f"ficam ({b}, {n_q}, {n_kv}); a máscara de preenchimento é ({b}, 1, {n_kv}) — np.arange(n_kv)[None, None, :] < "
            f"comprimentos[:, None, None] —, e a saída, pesos @ V, ({b}, {n_q}, {d_v}).")


def _erros_cruzada_com(**como: Any) -> Callable[..., np.ndarray]:
    return lambda **e: _cruzada(**e, **como)


ATENCAO_CRUZADA = Exercicio(
    nome="atenção cruzada num lote com preenchimento",
    casos=_casos_cruzada,
    certo=_cruzada_certa,
    formato=SaidaComLinhasLivres(),
    acerto="Correto! Queries do decoder, keys e values da origem, escores (b, n_q, n_kv) com as posições de preenchimento "
           "da origem em -inf antes da softmax estável, e nenhuma máscara causal sobre a origem: é a atenção "
           "cruzada de um tradutor, num lote de frases de tamanhos diferentes.",
    erros=[
        *livrar(erros_de_estabilidade(lambda trocar, **e: _cruzada(**e, trocar=trocar)), _livres_cruzada),
        erro_nan_na_linha_mascarada("uma frase de origem vazia (comprimento 0: nenhuma key permitida)"),
        Erro("queries da origem",
             "A saída tem uma linha por token da **origem**: as queries saíram de X_enc. Na atenção cruzada quem "
             "pergunta é o decoder — Q = X_dec @ W_q — e quem responde é a origem: K = X_enc @ W_k, V = X_enc @ W_v. "
             "A saída tem uma linha por token do decoder.",
             quando=_queries_da_origem),
        *livrar([
            Erro("autoatenção do decoder",
                 "Você fez a autoatenção do decoder: as keys e os values também saíram de X_dec. Na atenção cruzada eles "
                 "vêm da **outra** sequência, a origem: K = X_enc @ W_k e V = X_enc @ W_v.",
                 resposta=_erros_cruzada_com(origem_kv="dec", mascara="nenhuma")),
            Erro("sem a máscara de preenchimento",
                 "As queries estão olhando para o <pad> da origem: faltou a máscara de preenchimento. As posições j ≥ "
                 "comprimentos[b] da frase b precisam de -inf nos escores antes da softmax — máscara (b, 1, n_kv), "
                 "np.arange(n_kv)[None, None, :] < comprimentos[:, None, None].",
                 resposta=_erros_cruzada_com(mascara="nenhuma")),
            Erro("preenchimento com escore 0",
                 "Você pôs 0 nos escores do preenchimento (np.where(mask, escores, 0), ou escores * mask). e^0 = 1: o <pad> "
                 "continua recebendo peso. O proibido precisa de -inf.",
                 resposta=_erros_cruzada_com(preenche=0.0)),
            Erro("erro de um: j <= comprimentos",
                 "Erro de um: com j <= comprimentos a posição comprimentos[b] também ficou liberada — e ela já é o "
                 "primeiro <pad> (as posições começam em 0). Use j < comprimentos.",
                 resposta=_erros_cruzada_com(mascara="<=")),
            Erro("máscara causal na atenção cruzada",
                 "Você pôs uma máscara **causal** na atenção cruzada. A frase de origem está inteira disponível antes "
                 "de a tradução começar — não há futuro para esconder nela —: só o preenchimento da origem fica proibido. "
                 "(A causal é da autoatenção do decoder.)",
                 resposta=_erros_cruzada_com(mascara="causal")),
            Erro("escala por √d_model",
                 lambda X_dec, W_k, **_: f"Você dividiu por √d_model = √{X_dec.shape[-1]}; a escala usa o tamanho das "
                                         f"queries e keys depois da projeção: √d_k = √{W_k.shape[1]}.",
                 resposta=_erros_cruzada_com(escala="d_model")),
            Erro("sem escala",
                 "Você esqueceu de escalar: os escores Q Kᵀ devem ser divididos por √d_k antes da máscara e da softmax.",
                 resposta=_erros_cruzada_com(escala="1")),
            Erro("softmax no eixo errado",
                 "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha de cada frase) devem somar 1, "
                 "então a softmax age sobre o último eixo, o das keys da origem.",
                 resposta=_erros_cruzada_com(eixo=-2)),
            Erro("soma das keys",
                 "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values** da origem, V = X_enc @ W_v.",
                 resposta=_erros_cruzada_com(mistura="K")),
            Erro("X_enc no lugar de V",
                 "Você misturou os embeddings da origem (X_enc) em vez dos values: faltou a projeção V = X_enc @ W_v "
                 "(por isso a saída tem d_model colunas, não d_v).",
                 resposta=_erros_cruzada_com(mistura="X")),
            Erro("K e V trocados",
                 "K e V estão trocados: os escores foram calculados com X_enc @ W_v e a mistura com X_enc @ W_k. "
                 "K = X_enc @ W_k entra nos escores; V = X_enc @ W_v é o conteúdo que sai.",
                 resposta=_erros_cruzada_com(trocar_kv=True)),
        ], _livres_cruzada),
    ],
    explica_forma=_explica_forma_cruzada,
    dica_de_forma="A saída tem uma linha por token do **decoder** em cada frase: forma (b, n_q, d_v).",
    mostrar_valores=False,
)


@corretor_de(ATENCAO_CRUZADA)
def check_atencao_cruzada(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X_dec, X_enc, comprimentos, W_q, W_k, W_v)``: a atenção cruzada de um lote.

    ``X_dec`` ``(b, n_q, d_model)`` (quem pergunta, o decoder), ``X_enc`` ``(b, n_kv, d_model)`` (a origem,
    preenchida até ``n_kv``), ``comprimentos`` ``(b,)`` (os tokens de verdade de cada frase de origem),
    ``W_q``/``W_k`` ``(d_model, d_k)`` e ``W_v`` ``(d_model, d_v)``. Resposta: a saída ``(b, n_q, d_v)`` ou
    ``(saída, pesos)``. Casos: dois lotes de formas diferentes (``n_q ≠ n_kv``, ``d_k ≠ d_model``), o padrão
    de estabilidade da coleção (escores de milhares, espalhados, com linhas a milhares de distância; float32;
    uma frase de origem vazia, cujas linhas aceitam qualquer saída finita). Reconhece cada erro de
    :data:`ATENCAO_CRUZADA`.
    """
    return conferir(ATENCAO_CRUZADA, fn)


# --- prever, depois conferir: a forma dos pesos (exercício 5) ------------------------------------------


@dataclass(frozen=True)
class _Forma(Formato):
    """Uma forma de array: aceita tupla ou lista de inteiros e textos como ``"(2, 3, 6)"``, ``"2x3x6"``,
    ``"2 × 3 × 6"`` ou ``"[2, 3, 6]"``."""

    def normalizar(self, y: Any) -> tuple[int, ...]:
        if isinstance(y, str):
            numeros = re.findall(r"\d+", y)
            if not numeros or re.search(r"[^\d\s,()\[\]xX×*]", y):
                raise RespostaInvalida(f"a resposta é uma forma, como (2, 3, 4) ou \"2x3x4\"; veio {y!r}")
            return tuple(int(n) for n in numeros)
        if isinstance(y, (tuple, list)) and y and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool)
                                                       for n in y):
            return tuple(int(n) for n in y)
        raise RespostaInvalida(f"a resposta é uma forma, uma tupla de inteiros como (2, 3, 4); veio {type(y).__name__}")

    def igual(self, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        return tuple(a) == tuple(b)

    def mostrar(self, x: tuple[int, ...]) -> str:
        return str(tuple(x))


PREVISAO_FORMA = Previsao(
    nome="a forma dos pesos da atenção cruzada",
    certo=(2, 3, 6),
    revelar="Uma linha por query e uma coluna por key, em cada frase do lote: 2 frases, 3 queries (os tokens já "
            "escritos da tradução) e 6 keys (todas as posições da origem, inclusive as 2 de <pad> da segunda frase, "
            "que a máscara de preenchimento (2, 1, 6) zera sem mudar a forma). Não há máscara causal: a origem está inteira "
            "disponível.",
    formato=_Forma(),
    erros=[
        Erro("queries e keys trocadas",
             "(2, 6, 3) teria uma linha por posição da origem: as queries viriam da origem. Na atenção cruzada do "
             "decoder, quem pergunta são os 3 tokens da tradução (as linhas); a origem responde (as colunas).",
             resposta=lambda: (2, 6, 3)),
        Erro("quadrada como na autoatenção",
             "(2, 6, 6) é a forma da **autoatenção** da origem (o encoder). Na atenção cruzada a matriz não é "
             "quadrada: n_q × n_kv = 3 × 6.",
             resposta=lambda: (2, 6, 6)),
        Erro("keys do próprio decoder",
             "(2, 3, 3) é a autoatenção do decoder (a tradução olhando para si mesma, com a máscara causal). Na "
             "atenção cruzada as keys são as 6 posições da origem.",
             resposta=lambda: (2, 3, 3)),
        Erro("esqueceu o lote",
             "(3, 6) são os pesos de **uma** frase. O lote tem 2: a forma começa com o b = 2.",
             resposta=lambda: (3, 6)),
        Erro("forma da máscara, não dos pesos",
             "(2, 1, 6) é a forma da **máscara** de preenchimento da origem, que se estende às 3 queries por broadcasting. "
             "Os pesos têm uma linha por query: (2, 3, 6).",
             resposta=lambda: (2, 1, 6)),
        Erro("só as posições de verdade",
             "O preenchimento não encolhe a matriz: a segunda frase tem só 4 tokens de verdade, mas o lote é um retângulo "
             "com 6 posições. As 2 colunas de <pad> continuam lá, com peso 0.",
             resposta=lambda: (2, 3, 4)),
    ],
)


@corretor_de(PREVISAO_FORMA)
def check_previsao_forma(previsao: Any) -> bool:
    """Confere a previsão da forma dos pesos da atenção cruzada de um lote de 2 frases de origem preenchidas
    até 6 posições, com 3 tokens já escritos na tradução: ``(2, 3, 6)``. Aceita tupla, lista ou texto
    (``"2x3x6"``) e diz o equívoco de cada forma errada típica."""
    return conferir_previsao(PREVISAO_FORMA, previsao)
