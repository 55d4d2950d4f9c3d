"""O painel do notebook ``revisao``: o mecanismo inteiro ao vivo, por cabeça (as contas, a figura que muda
só dados e textos e o painel com os sliders)."""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ... import plots
from ...attention import merge_heads, scaled_dot_product_attention, split_heads
from ...paineis import Painel, slider, tabela, tabela_matriz
from ...plots import CORES, MAPA


def exemplo_da_revisao() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, W_q, W_k, W_v, W_o)`` da primeira seção do notebook: 3 tokens com ``d_model = 4``; as colunas
    0 e 1 das projeções copiam as duas primeiras coordenadas do embedding (a cabeça 0 de duas cabeças
    reproduz os Exemplos 1 e 2), as outras são sorteadas com a semente 0."""
    X = np.array([[1.0, 0.0, 0.3, -0.5], [0.0, 1.0, -0.2, 0.8], [0.5, 0.5, 0.9, 0.1]])
    rng = np.random.default_rng(0)
    copia_2 = np.eye(4, 2)
    W_q = np.hstack([copia_2, rng.normal(size=(4, 2))])
    W_k = np.hstack([copia_2, rng.normal(size=(4, 2))])
    W_v = np.hstack([10 * copia_2, rng.normal(size=(4, 2))])
    W_o = rng.normal(size=(4, 4))
    return X, W_q, W_k, W_v, W_o


def mecanismo_ao_vivo(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int,
                      q0: ArrayLike, k2: ArrayLike) -> dict[str, np.ndarray]:
    """As contas do painel: ``Q = X W_q``, ``K = X W_k``, ``V = X W_v``, com as coordenadas 0 e 1 da query do
    token 0 trocadas por ``q0`` e as da key do token 2 por ``k2``; depois, em cada cabeça,
    ``softmax(Q Kᵀ/√d_head)`` e ``pesos @ V`` (:func:`helpers.attention.scaled_dot_product_attention`), e
    as cabeças juntas vezes ``W_o``. Devolve ``Q, K, V`` ``(n, d_model)``, ``escores`` e ``pesos``
    ``(n_heads, n, n)`` e ``saida`` ``(n, d_out)``."""
    X = np.asarray(X, dtype=float)
    Q, K, V = X @ np.asarray(W_q, dtype=float), X @ np.asarray(W_k, dtype=float), X @ np.asarray(W_v, dtype=float)
    Q[0, :2] = np.asarray(q0, dtype=float)
    K[2, :2] = np.asarray(k2, dtype=float)
    Qh, Kh, Vh = (split_heads(M, n_heads) for M in (Q, K, V))
    d_head = Qh.shape[-1]
    escores = Qh @ np.swapaxes(Kh, -1, -2) / math.sqrt(d_head)
    saida_h, pesos = scaled_dot_product_attention(Qh, Kh, Vh)
    return {"Q": Q, "K": K, "V": V, "escores": escores, "pesos": pesos, "saida_h": saida_h,
            "saida": merge_heads(saida_h) @ np.asarray(W_o, dtype=float)}


#: quantas cabeças o painel pode ter (divisores de d_model = 4)
_CABECAS_PAINEL = (1, 2, 4)

#: o mapa de cores de X, Q, K, V e da saída, que têm sinal: divergente e legível por quem tem daltonismo (azul
#: para negativo, vermelho para positivo, branco no zero)
MAPA_DIVERGENTE = "RdBu_r"


class FiguraMecanismoVivo:
    """A figura do painel: em cima, ``X``, ``Q``, ``K``, ``V`` (com as fronteiras das cabeças e as entradas que
    os sliders controlam contornadas); embaixo, os pesos de cada cabeça e a saída. A figura traz as cores;
    os números vão para as tabelas HTML embaixo dela (:func:`html_do_mecanismo`). Os artistas são criados
    uma vez; ``atualizar`` muda só dados, títulos e as fronteiras."""

    def __init__(self, fig: Figure, n: int, d_model: int, d_out: int, max_cabecas: int = 4):
        from matplotlib.patches import Rectangle

        base = mpl.rcParams["font.size"]  # o modo de apresentação aumenta tudo junto

        grade = fig.add_gridspec(2, max(4, max_cabecas + 1), height_ratios=(1, 1.15), hspace=0.55, wspace=0.35,
                                 left=0.04, right=0.99, top=0.9, bottom=0.05)
        self.n, self.d_model = n, d_model
        self.grade = grade
        self.matrizes = {}
        for j, (nome, cor) in enumerate((("X", CORES["neutro"]), ("Q", CORES["q"]), ("K", CORES["k"]), ("V", CORES["v"]))):
            ax = fig.add_subplot(grade[0, j])
            img = ax.imshow(np.zeros((n, d_model)), cmap=MAPA_DIVERGENTE, vmin=-2, vmax=2)
            ax.set_xticks(range(d_model))
            ax.set_yticks(range(n), [f"tok {i}" for i in range(n)])
            ax.tick_params(length=0, labelsize=base - 2)
            ax.grid(False)
            titulo = ax.set_title(f"{nome} ({n}, {d_model})", color=cor, fontsize=base)
            linhas = [ax.axvline(0.5, color="black", lw=2.5, visible=False) for _ in range(max_cabecas)]
            ax.set_xlim(-0.5, d_model - 0.5)
            ax.set_ylim(n - 0.5, -0.5)
            self.matrizes[nome] = (ax, img, titulo, linhas)
        axq, axk = self.matrizes["Q"][0], self.matrizes["K"][0]
        # as entradas que os sliders controlam, contornadas (por cima das imagens: são desenhadas depois delas)
        self.destaques = [axq.add_patch(Rectangle((-0.45, -0.45), 1.9, 0.9, fill=False, ec=CORES["destaque"], lw=3)),
                          axk.add_patch(Rectangle((-0.45, 1.55), 1.9, 0.9, fill=False, ec=CORES["destaque"], lw=3))]
        self.cabecas = []
        for h in range(max_cabecas):
            ax = fig.add_subplot(grade[1, h])
            img = ax.imshow(np.zeros((n, n)), cmap=MAPA, vmin=0, vmax=1)
            ax.set_xticks(range(n), [f"k{j}" for j in range(n)])
            ax.set_yticks(range(n), [f"q{i}" for i in range(n)])
            ax.tick_params(length=0, labelsize=base - 2)
            ax.grid(False)
            titulo = ax.set_title("", fontsize=base - 1)
            self.cabecas.append((ax, img, titulo))
        ax = fig.add_subplot(grade[1, max_cabecas])
        img = ax.imshow(np.zeros((n, d_out)), cmap=MAPA_DIVERGENTE, vmin=-10, vmax=10)
        ax.set_xticks(range(d_out))
        ax.set_yticks(range(n), [f"tok {i}" for i in range(n)])
        ax.tick_params(length=0, labelsize=base - 2)
        ax.grid(False)
        ax.set_title("saída = juntar · W_o", color=CORES["saida"], fontsize=base)
        self.saida = (ax, img)
        self.titulo = fig.suptitle("X → Q, K, V → escores → pesos (softmax) → saída (uma linha preta separa as "
                                   "cabeças)", fontsize=base + 1)

    def atualizar(self, X: np.ndarray, contas: dict[str, np.ndarray], n_heads: int) -> None:
        d_head = self.d_model // n_heads
        for nome, M in (("X", X), ("Q", contas["Q"]), ("K", contas["K"]), ("V", contas["V"])):
            _ax, img, _titulo, linhas = self.matrizes[nome]
            img.set_data(np.clip(M, -2, 2))
            for h, linha in enumerate(linhas):  # a fronteira entre as cabeças h e h + 1
                x = (h + 1) * d_head - 0.5
                linha.set_xdata([x, x])
                linha.set_visible(nome != "X" and h < n_heads - 1)
        for h, (_ax, img, titulo) in enumerate(self.cabecas):
            if h >= n_heads:  # a cabeça não existe com este n_heads: o quadro fica vazio
                img.set_data(np.full((self.n, self.n), np.nan))
                titulo.set_text(f"(não há cabeça {h})")
                continue
            img.set_data(contas["pesos"][h])
            titulo.set_text(f"cabeça {h}: pesos")
        self.saida[1].set_data(contas["saida"])

    def animados(self) -> list[Artist]:
        """Os artistas que um movimento muda — as imagens e as fronteiras das cabeças — e os contornos, que ficam
        por cima das imagens: um painel redesenha só eles a cada movimento. Os títulos das matrizes e o título
        geral não mudam (o número de cabeças e ``d_head`` vão para o HTML)."""
        topo = [a for _ax, img, _titulo, linhas in self.matrizes.values() for a in (img, *linhas)]
        return [*topo, *self.destaques, *(img for _ax, img, _titulo in self.cabecas), self.saida[1]]

    def lentos(self) -> list[Artist]:
        """Os títulos das cabeças: mudam só com o número de cabeças («(não há cabeça 2)»)."""
        return [titulo for _ax, _img, titulo in self.cabecas]


def html_do_mecanismo(X: np.ndarray, contas: dict[str, np.ndarray], n_heads: int) -> str:
    """Os números do painel em tabelas HTML (que se copiam e um leitor de tela lê): ``X``, ``Q``, ``K``,
    ``V``; os pesos de cada cabeça e os escores ``z`` deles; a saída."""
    n = X.shape[0]
    toks = [f"tok {i}" for i in range(n)]
    colunas = [str(c) for c in range(X.shape[1])]

    def linha(partes: list[str]) -> str:
        return "<div style='display:flex;flex-wrap:wrap;align-items:flex-start'>" + "".join(partes) + "</div>"

    topo = [tabela_matriz("X", X, toks, colunas, 1)]
    topo += [tabela_matriz(nome, contas[nome], toks, [str(c) for c in range(contas[nome].shape[1])], 1, CORES[nome.lower()])
             for nome in ("Q", "K", "V")]
    qs, ks = [f"q{i}" for i in range(n)], [f"k{j}" for j in range(n)]
    baixo = []
    for h in range(n_heads):
        baixo.append(tabela_matriz(f"cabeça {h}: pesos", contas["pesos"][h], qs, ks, 3))
        baixo.append(tabela_matriz(f"cabeça {h}: escores z", contas["escores"][h], qs, ks, 2))
    S = contas["saida"]
    baixo.append(tabela_matriz("saída", S, toks, [str(c) for c in range(S.shape[1])], 2, CORES["saida"]))
    return linha(topo) + linha(baixo)


class PainelMecanismo(Painel):
    """O painel de :func:`painel_mecanismo`. Na figura estática, os quadros das cabeças que não existem com o
    ``n_heads`` escolhido somem e a saída vem logo depois da última cabeça (no painel vivo, os quadros ficam,
    vazios, prontos para 4 cabeças)."""

    figura: FiguraMecanismoVivo

    def png_estatico(self) -> bytes:
        n_heads = self.estado["n_heads"]
        vazios = [ax for h, (ax, *_resto) in enumerate(self.figura.cabecas) if h >= n_heads]
        ax_saida = self.figura.saida[0]
        lugar = ax_saida.get_position(original=True)
        for ax in vazios:
            ax.set_visible(False)  # marca a figura como mudada: o desenho é completo, e o próximo também
        ax_saida.set_position(self.figura.grade[1, n_heads].get_position(self.fig))
        try:
            self.desenhar()
            return plots.png_do_canvas(self.canvas)
        finally:
            for ax in vazios:
                ax.set_visible(True)
            ax_saida.set_position(lugar)


def painel_mecanismo(X: ArrayLike | None = None, W_q: ArrayLike | None = None, W_k: ArrayLike | None = None,
                     W_v: ArrayLike | None = None, W_o: ArrayLike | None = None, *, n_heads: int = 2,
                     q0: tuple[float, float] = (1.0, 0.0), k2: tuple[float, float] = (0.5, 0.5)
                     ) -> PainelMecanismo:
    """O mecanismo inteiro ao vivo, por cabeça. Sliders: as coordenadas 0 e 1 da **query do token 0**
    (``q_x``, ``q_y``, descritos na tela como ``Q[0, 0]`` e ``Q[0, 1]``), as da **key do token 2** (``k_x``,
    ``k_y``: ``K[2, 0]`` e ``K[2, 1]``) e o número de cabeças (1, 2 ou 4).

    Sem argumentos, usa :func:`exemplo_da_revisao`; no estado inicial (2 cabeças, ``q = (1, 0)``,
    ``k₂ = (0.5, 0.5)``), a linha do token 0 na cabeça 0 são os pesos do Exemplo 1. Estado: ``n_heads``,
    ``d_head``, ``pesos`` ``(n_heads, n, n)``, ``escores``, ``saida`` e ``pesos_q0`` (a linha do token 0
    na cabeça 0).
    """
    padrao = exemplo_da_revisao()
    X, W_q, W_k, W_v, W_o = (np.asarray(a if a is not None else b, dtype=float)
                             for a, b in zip((X, W_q, W_k, W_v, W_o), padrao))
    fig, _ = plots.nova_figura(11.6, 5.2)  # cabe ao lado das margens do JupyterLab numa janela de 1400 px
    fig.delaxes(fig.axes[0])
    figura = FiguraMecanismoVivo(fig, X.shape[0], W_q.shape[1], W_o.shape[1])
    estilo = {"continuous_update": True, "style": {"description_width": "initial"}, "layout": W.Layout(width="320px")}
    controles = {
        "q_x": slider("Q[0, 0]", q0[0], -2.0, 2.0),
        "q_y": slider("Q[0, 1]", q0[1], -2.0, 2.0),
        "k_x": slider("K[2, 0]", k2[0], -2.0, 2.0),
        "k_y": slider("K[2, 1]", k2[1], -2.0, 2.0),
        "n_heads": W.SelectionSlider(options=list(_CABECAS_PAINEL), value=n_heads, description="cabeças (n_heads)",
                                     **estilo),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        h = int(v["n_heads"])
        contas = mecanismo_ao_vivo(X, W_q, W_k, W_v, W_o, h, (v["q_x"], v["q_y"]), (v["k_x"], v["k_y"]))
        figura.atualizar(X, contas, h)
        pesos_q0 = contas["pesos"][0, 0]
        html_ = tabela([
            ("cabeças", f"{h} de d_head = {W_q.shape[1] // h} (d_model = {W_q.shape[1]}): Q, K e V "
                        f"({X.shape[0]}, {W_q.shape[1]}) viram {h} × ({X.shape[0]}, {W_q.shape[1] // h})"),
            ("query do token 0: Q[0, 0], Q[0, 1]", f"({v['q_x']:.1f}, {v['q_y']:.1f})"),
            ("key do token 2: K[2, 0], K[2, 1]", f"({v['k_x']:.1f}, {v['k_y']:.1f})"),
            ("pesos do token 0 na cabeça 0", ", ".join(f"{x:.3f}" for x in pesos_q0)),
            ("saída do token 0 na cabeça 0", ", ".join(f"{x:.3f}" for x in contas["saida_h"][0, 0])),
            ("saída final do token 0 (depois de W_o)", ", ".join(f"{x:.2f}" for x in contas["saida"][0])),
        ]) + html_do_mecanismo(X, contas, h)
        return {"n_heads": h, "d_head": W_q.shape[1] // h, "pesos": contas["pesos"], "escores": contas["escores"],
                "saida": contas["saida"], "pesos_q0": pesos_q0, "html": html_}

    titulo = ("O mecanismo inteiro, ao vivo: mexa na query do token 0 (Q[0, 0] e Q[0, 1]), na key do token 2 "
              "(K[2, 0] e K[2, 1]) e nas cabeças")
    painel = PainelMecanismo(fig, controles, calcular, titulo, animados=figura.animados(), lentos=figura.lentos())
    painel.figura = figura
    return painel
