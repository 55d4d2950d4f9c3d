"""Lição "Máscaras e atenção cruzada" (notebook ``mascaras_e_atencao_cruzada``): mapas de pesos com máscaras (figuras e painel) e os corretores das máscaras causal e de padding.

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
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .. import plots
from ..attention import causal_mask, padding_mask, scaled_dot_product_attention
from ..corretor import Caso, Erro, Exercicio, Mascara, conferir, corretor_de
from ..paineis import Painel, tabela
from ..plots import CORES, MAPA
from .soma_ponderada import check_attention  # noqa: F401 - o 07 confere a atenção com máscara com o corretor do 05

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
        "padding": W.Checkbox(value=padding, description="máscara de padding (ignorar <pad>)", indent=False),
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
    nome="máscara de padding",
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
        Erro("convenção invertida (True no padding)",
             "Máscara invertida: você marcou com True o **padding**. Aqui True quer dizer **pode olhar** (token de "
             "verdade): mask[b, 0, j] = j < lengths[b].",
             resposta=_padding_com(lambda j, L, n: j >= L)),
        Erro("padding à esquerda",
             "Você liberou as **últimas** lengths[b] posições: isso é o padding à **esquerda** (o enchimento no "
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
    dica_de_forma="A máscara de padding tem forma (b, 1, n): uma linha por frase, o eixo do meio de tamanho 1 (ele se "
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
