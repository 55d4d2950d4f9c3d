"""Lição "Produto escalar" (notebook ``produto_escalar``): setas q e k, o ranking de keys (figuras e painéis), a caixa da previsão de qual key vence e os corretores dos escores de uma query e dos escores por cosseno com temperatura.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .. import plots
from ..corretor import Caso, Erro, Exercicio, Previsao, bate_com_alguma, conferir, corretor_de
from ..erros_de_escores import ERROS_DE_LACO_E_ORDEM, ERROS_ESCORES, explica_forma_q_k  # noqa: F401
from ..formato import subscrito
from ..paineis import Painel, polar, slider, sliders_polares, tabela
from ..plots import CORES
from ..previsao import CaixaDePrevisao, caixa
from ..respostas import Array, Formato, RespostaInvalida

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------



class FiguraProdutoEscalar:
    """Duas setas ``q`` e ``k`` no plano, o arco do ângulo entre elas e a sombra (projeção) de ``k`` sobre ``q``.

    ``atualizar(q, k)`` recebe vetores ``(2,)``. O painel escreve os números ao lado; a figura mostra
    a geometria: ``q·k = |q| |k| cos θ`` é o comprimento de ``q`` vezes a sombra de ``k`` sobre ele. O
    título traz ``q·k`` com três casas, como a prosa dos notebooks 00 e 02 (2,121).
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
                                 label="sombra de k sobre a direção de q")
        self.arco, = ax.plot([], [], color=CORES["neutro"], lw=1.5)
        self.texto_angulo = ax.text(0, 0, "", color=CORES["neutro"], ha="center", va="center")
        self.seta_q, self.rotulo_q = plots.seta(ax, CORES["q"], "q")
        self.seta_k, self.rotulo_k = plots.seta(ax, CORES["k"], "k")
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
        produto = round(float(q @ k), 3) + 0.0  # + 0.0: sem "-0.000" quando as setas são perpendiculares
        self.titulo.set_text(f"q·k = {produto:.3f}")

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda: um painel redesenha só eles a cada movimento."""
        return [self.sombra, self.projecao, self.arco, self.texto_angulo, self.seta_q, self.rotulo_q,
                self.seta_k, self.rotulo_k, self.titulo]

def figura_produto_escalar(q: Sequence[float], k: Sequence[float], limite: float = 3.0) -> Figure:
    """Figura estática de :class:`FiguraProdutoEscalar` (devolve a ``Figure`` do pyplot)."""
    fig, axes = plots.nova_figura(5, 5, pyplot=True)
    FiguraProdutoEscalar(axes[0, 0], limite).atualizar(q, k)
    return fig

def nomes_keys(n: int) -> list[str]:
    """``["k₁", "k₂", …]``: os nomes das keys nas figuras."""
    return [f"k{subscrito(i + 1)}" for i in range(n)]

class FiguraRankingKeys:
    """Uma query contra várias keys: as setas no plano (à esquerda) e os escores ``q·kᵢ`` em barras
    ordenadas do maior para o menor (à direita).

    As keys ficam fixas; ``atualizar(q)`` move a query, recalcula ``K @ q`` e reordena as barras
    (a barra de cima é sempre o 1º lugar, destacada em amarelo-alaranjado, como a seta da key
    vencedora; as outras ficam em laranja-avermelhado). A reta tracejada passa pela origem perpendicular a
    ``q``: as keys do lado de ``q`` têm escore positivo, as do outro lado, negativo. Devolve
    ``(escores, ordem)`` (``ordem[0]`` = índice da key vencedora).

    Os rótulos das keys ficam a uma distância fixa além da ponta da seta (não em cima dela) e são
    empurrados para longe da reta tracejada, do lado da própria key, com um fundo branco por baixo; nunca
    saem do quadro (uma key perto da borda tem o rótulo puxado para dentro).
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
        self.setas_k = [plots.seta(ax, CORES["k"], nome) for nome in self.nomes]
        normas = np.linalg.norm(self.K, axis=1, keepdims=True)
        direcoes = np.divide(self.K, normas, out=np.zeros_like(self.K), where=normas > 0)
        self._pontas_rotulos = self.K + self._AFASTAMENTO_RADIAL * direcoes  # além da ponta da seta
        for (seta, rotulo), vet, ponta in zip(self.setas_k, self.K, self._pontas_rotulos):
            seta.xy = tuple(vet)
            rotulo.set_position(tuple(ponta))
            rotulo.set_ha("center")
            rotulo.set_va("center")
            rotulo.set_bbox(dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.85))
        self.seta_q, self.rotulo_q = plots.seta(ax, CORES["q"], "q")
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
        borda = self._limite - 0.25  # o rótulo não encosta na moldura
        for (_, rotulo), pos in zip(self.setas_k, np.clip(self._pontas_rotulos + empurrao, -borda, borda)):
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

    def animados(self) -> list[Artist]:
        """Os artistas que ``atualizar`` muda: um painel redesenha só eles a cada movimento."""
        return [self.fronteira, self.seta_q, self.rotulo_q, *(a for par in self.setas_k for a in par),
                *self.barras, *self.textos, self.titulo_barras]

def figura_ranking_keys(q: Sequence[float], keys: ArrayLike, nomes: Sequence[str] | None = None,
                        limite: float = 3.0) -> Figure:
    """Figura estática de :class:`FiguraRankingKeys` (devolve a ``Figure`` do pyplot)."""
    fig, axes = plots.nova_figura(9, 4.2, ncols=2, pyplot=True)
    fig.subplots_adjust(left=0.04, right=0.97, bottom=0.13, top=0.9, wspace=0.25)
    k = np.asarray(keys, dtype=float)
    escore_max = float(np.linalg.norm(q)) * float(np.max(np.linalg.norm(k, axis=-1)))
    FiguraRankingKeys(axes[0, 0], axes[0, 1], k, nomes, limite, escore_max or None).atualizar(q)
    return fig

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


def _duas_casas(x: float) -> str:
    """``x`` com duas casas, sem o ``-0.00`` que sobra de cossenos como ``cos 90°`` ≈ 6e-17."""
    texto = f"{x:.2f}"
    return "0.00" if texto == "-0.00" else texto


def _fator(x: float) -> str:
    """``x`` com duas casas, entre parênteses quando negativo: ``1.73·(-1.30)``, e não ``1.73·-1.30``."""
    texto = _duas_casas(x)
    return f"({texto})" if texto.startswith("-") else texto


def painel_produto_escalar(
    angulo_q: float = 30.0,
    comprimento_q: float = 2.0,
    angulo_k: float = 75.0,
    comprimento_k: float = 1.5,
    *,
    mover_k: bool = True,
) -> Painel:
    """Setas ``q`` e ``k`` no plano; sliders de ângulo (graus) e comprimento.

    Mostra ao vivo ``q·k = q₁k₁ + q₂k₂``, ``|q| |k| cos θ`` (o mesmo número) e ``cos θ``.
    Com ``mover_k=False`` só a query se mexe (o primeiro contato, no notebook 00).
    Estado: ``q``, ``k`` (arrays ``(2,)``), ``produto``, ``cos``, ``theta_graus``.
    """
    fig, axes = plots.nova_figura(4.6, 4.6)
    fig.subplots_adjust(left=0.12, right=0.96, bottom=0.1, top=0.9)
    figura = FiguraProdutoEscalar(axes[0, 0])
    controles = sliders_polares(angulo_q, comprimento_q, angulo_k, comprimento_k, mover_k)

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        q = polar(v["angulo_q"], v["comprimento_q"])
        k = polar(v.get("angulo_k", angulo_k), v.get("comprimento_k", comprimento_k))
        produto = float(q @ k)
        nq, nk = float(np.linalg.norm(q)), float(np.linalg.norm(k))
        cos = produto / (nq * nk) if nq > 0 and nk > 0 else float("nan")
        theta = math.degrees(math.acos(max(-1.0, min(1.0, cos)))) if nq > 0 and nk > 0 else float("nan")
        figura.atualizar(q, k)
        cos_txt = f"{cos:.3f}".replace("-0.000", "0.000") if nq > 0 and nk > 0 else "indefinido (vetor nulo)"
        cos_fator = f"({cos_txt})" if cos_txt.startswith("-") else cos_txt
        produto_txt = f"{produto:.3f}".replace("-0.000", "0.000")
        html = tabela([
            ("q", f"({_duas_casas(q[0])}, {_duas_casas(q[1])})"),
            ("k", f"({_duas_casas(k[0])}, {_duas_casas(k[1])})"),
            ("q·k = q₁k₁ + q₂k₂", f"{_fator(q[0])}·{_fator(k[0])} + {_fator(q[1])}·{_fator(k[1])} = {produto_txt}"),
            ("|q| |k| cos θ", f"{nq:.2f} · {nk:.2f} · {cos_fator} = {produto_txt}"),
            ("cos θ", cos_txt),
        ])
        return {"q": q, "k": k, "produto": produto, "cos": cos, "theta_graus": theta, "html": html}

    return Painel(fig, controles, calcular, titulo="Produto escalar: quanto q e k apontam para o mesmo lado",
                  animados=figura.animados())

#: as keys do notebook 02: k₂ é longa e meio torta, k₁ é curta e bem alinhada com a query padrão
KEYS_RANKING = np.array([[1.1, 0.1], [0.8, 2.4], [-1.6, 1.0], [0.8, -1.6], [-0.6, -1.2]])

def painel_ranking_keys(angulo_q: float = 30.0, comprimento_q: float = 1.5, keys: Any = None) -> Painel:
    """Uma query contra várias keys fixas (``keys``: ``(n, 2)``; padrão :data:`KEYS_RANKING`).

    Sliders giram e esticam ``q``; as barras dos escores ``q·kᵢ`` se reordenam ao vivo.
    Estado: ``q`` ``(2,)``, ``escores`` ``(n,)`` (na ordem das keys), ``ordem`` (índices, do 1º ao
    último lugar), ``vencedora`` (nome da key do 1º lugar), ``cos`` ``(n,)`` (cossenos, para comparar).
    """
    K = KEYS_RANKING if keys is None else np.asarray(keys, dtype=float)
    nomes = nomes_keys(len(K))
    comprimento_max = 2.8
    fig, axes = plots.nova_figura(8.6, 4.0, ncols=2)
    fig.subplots_adjust(left=0.04, right=0.97, bottom=0.13, top=0.9, wspace=0.25)
    escore_max = comprimento_max * float(np.max(np.linalg.norm(K, axis=1)))
    figura = FiguraRankingKeys(axes[0, 0], axes[0, 1], K, nomes, limite=3.0, escore_max=escore_max)
    controles = {
        "angulo_q": slider("ângulo de q (graus)", angulo_q, -180, 180, 5),
        "comprimento_q": slider("comprimento |q|", comprimento_q, 0, comprimento_max, 0.1),
    }
    normas_k = np.linalg.norm(K, axis=1)

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        q = polar(v["angulo_q"], v["comprimento_q"])
        escores, ordem = figura.atualizar(q)
        nq = float(np.linalg.norm(q))
        cos = escores / (nq * normas_k) if nq > 0 else np.full(len(K), np.nan)
        linhas = [("q", f"({q[0]:.2f}, {q[1]:.2f})")]
        for pos, i in enumerate(ordem):
            cos_txt = f"{cos[i]:+.2f}" if nq > 0 else "indefinido"
            linhas.append((f"{pos + 1}º lugar: {nomes[i]} = ({K[i, 0]:.1f}, {K[i, 1]:.1f})",
                           f"q·{nomes[i]} = {escores[i]:+.2f}   (cos θ = {cos_txt})"))
        return {"q": q, "escores": escores, "ordem": ordem, "vencedora": nomes[ordem[0]], "cos": cos,
                "html": tabela(linhas)}

    return Painel(fig, controles, calcular, titulo="Ranking: qual key casa melhor com a query?",
                  animados=figura.animados())

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------


ESCORES = Exercicio(
    nome="escores de uma query",
    casos=lambda: [
        Caso("com q (3,) e K (4, 3)", {"q": np.array([2.0, 0.0, 1.0]),
                                       "K": np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0], [3.0, 0.0, 1.0],
                                                      [-1.0, 1.0, 2.0]])}),
        Caso("com q (2,) e K (2, 2), uma K quadrada", {"q": np.array([1.0, 2.0]), "K": np.array([[3.0, 1.0], [0.0, 2.0]])}),
        Caso("no exemplo resolvido: q = (1, 0), keys (1, 0), (0, 1) e (0.5, 0.5)",
             {"q": np.array([1.0, 0.0]), "K": np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])}),
        Caso("com q (3,) e K (5, 3), a vencedora no meio",
             {"q": np.array([1.0, 2.0, -1.0]), "K": np.array([[1.0, 0.0, 2.0], [0.0, 2.0, 1.0], [0.5, 0.0, 0.0],
                                                              [2.0, 1.0, 0.0], [0.0, 1.0, 0.0]])}),
    ],
    certo=lambda q, K: K @ q,
    acerto="Correto! Os escores são K @ q: um produto escalar por linha de K, na ordem das keys. No exemplo resolvido "
           "eles dão (1, 0, 0.5): k₁ em 1º lugar, k₃ em 2º, k₂ em 3º.",
    erros=[*ERROS_ESCORES, *ERROS_DE_LACO_E_ORDEM,
           Erro("dividiu por √d (a escala do notebook 03)",
                lambda q, K: f"Você dividiu os escores por √d = √{q.shape[-1]}. Essa escala existe — é o assunto do "
                             "notebook 03, e a atenção a usa antes da softmax —, mas este exercício pede o produto "
                             "escalar **puro**, q·kᵢ, sem dividir por nada: no exemplo resolvido, (1, 0, 0.5).",
                resposta=lambda q, K: K @ q / np.sqrt(q.shape[-1]))],
    explica_forma=explica_forma_q_k,
    dica_de_forma="Os escores são um vetor (n,): um escore por key, na ordem das linhas de K.",
)


@corretor_de(ESCORES)
def check_escores(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, K)``: os escores ``q·kᵢ`` de uma query ``(d,)`` contra as keys ``K`` ``(n, d)``,
    todos de uma vez, num vetor ``(n,)`` na ordem das keys.
    """
    return conferir(ESCORES, fn)



# ---------------------------------------------------------------------------------------------
# A variante por cosseno, com temperatura (como no Swin Transformer V2)
# ---------------------------------------------------------------------------------------------


def _cos(q: np.ndarray, K: np.ndarray) -> np.ndarray:
    return K @ q / (np.linalg.norm(K, axis=1) * np.linalg.norm(q))


def _casos_cosseno() -> list[Caso]:
    return [
        Caso("com q (3,), K (4, 3) e tau = 0.5", {
            "q": np.array([2.0, 0.0, 1.0]), "K": np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0], [3.0, 0.0, 1.0],
                                                        [-1.0, 1.0, 2.0]]), "tau": 0.5}),
        Caso("no exemplo resolvido (q = (1, 0), keys (1, 0), (0, 1) e (0.5, 0.5)) com tau = 1",
             {"q": np.array([1.0, 0.0]), "K": np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), "tau": 1.0}),
        Caso("com q (2,), K (2, 2), uma K quadrada, e tau = 0.1",
             {"q": np.array([3.0, 1.0]), "K": np.array([[2.0, 1.0], [0.0, -4.0]]), "tau": 0.1}),
        Caso("com uma key longa e uma curta na mesma direção (K (2, 2)) e tau = 0.25",
             {"q": np.array([0.0, 2.0]), "K": np.array([[3.0, 4.0], [0.3, 0.4]]), "tau": 0.25}),
    ]


def _explica_forma_cosseno(q: np.ndarray, K: np.ndarray) -> str:
    """O que dizer quando a conta do cosseno nem roda: um produto de matrizes na ordem errada (``q @ K``) ou uma
    divisão elemento a elemento de K pelos comprimentos sem keepdims (o texto separa os dois pela mensagem do numpy)."""
    n, d = K.shape
    return (f"Aqui q tem forma ({d},) e K tem forma ({n}, {d}): uma key por linha. Se o numpy reclamou de matmul, "
            f"foi um produto de matrizes na ordem errada: q @ K tenta casar as {d} coordenadas de q com as {n} linhas "
            "de K; use K @ q (ou q @ K.T). Se reclamou de broadcast, foi uma conta elemento a elemento: os "
            f"comprimentos das keys, um por linha, têm forma ({n},), e o * ou o / os alinha com o último eixo de K, "
            f"que tem {d}; para dividir cada linha de K pelo seu comprimento, use keepdims=True (forma ({n}, 1)).")


ESCORES_COSSENO = Exercicio(
    nome="escores por cosseno com temperatura",
    casos=_casos_cosseno,
    certo=lambda q, K, tau: _cos(q, K) / tau,
    acerto="Correto! cos(q, kᵢ) / τ: cada key dividida pelo próprio comprimento, a query também, e a temperatura "
           "devolve o botão de nitidez que a normalização tirou. Repare no último caso: a key longa e a curta, na "
           "mesma direção, empatam — o cosseno não vê o comprimento.",
    erros=[
        Erro("sem normalizar",
             "Você devolveu o produto escalar dividido por τ, sem normalizar. O cosseno divide q·kᵢ pelos comprimentos: "
             "|q| e |kᵢ|.",
             resposta=lambda q, K, tau: K @ q / tau),
        Erro("só as keys normalizadas",
             "Você dividiu só pelos comprimentos das keys. Falta dividir também pelo comprimento da query, |q|: "
             "cos θ = q·k / (|q| |k|).",
             resposta=lambda q, K, tau: K @ q / np.linalg.norm(K, axis=1) / tau),
        Erro("só a query normalizada",
             "Você dividiu só pelo comprimento da query. Cada key também precisa ser dividida pelo **seu** "
             "comprimento: np.linalg.norm(K, axis=1) dá um comprimento por linha.",
             resposta=lambda q, K, tau: K @ q / np.linalg.norm(q) / tau),
        Erro("norma da matriz inteira",
             "Você dividiu pela norma da matriz K inteira (np.linalg.norm(K) sem axis), um número só. Cada key tem o "
             "seu comprimento: np.linalg.norm(K, axis=1), um por linha.",
             resposta=lambda q, K, tau: K @ q / (np.linalg.norm(K) * np.linalg.norm(q)) / tau),
        Erro("normas das colunas",
             "Você calculou as normas das **colunas** de K (axis=0). As keys são as linhas: np.linalg.norm(K, axis=1) "
             "(ou axis=-1) dá o comprimento de cada key.",
             resposta=lambda q, K, tau: (K @ q / (np.linalg.norm(K, axis=0) * np.linalg.norm(q)) / tau
                                         if K.shape[0] == K.shape[1] else None)),
        Erro("normas ao quadrado",
             "Você dividiu pelos comprimentos ao quadrado (|q|² |kᵢ|², como q·q e k·k). O cosseno divide pelos "
             "comprimentos: |q| = √(q·q).",
             resposta=lambda q, K, tau: K @ q / (np.sum(K**2, axis=1) * np.sum(q**2)) / tau),
        Erro("√d no lugar das normas",
             lambda q, K, tau: f"Você dividiu o produto escalar por √d = √{q.shape[-1]}, a escala da atenção do "
                               "notebook 03. O cosseno divide por outra coisa: pelos **comprimentos** de q e de cada "
                               "key, cos θ = q·kᵢ / (|q| |kᵢ|) — e depois pela temperatura τ. O √d não entra.",
             quando=bate_com_alguma(Array(), lambda q, K, tau: K @ q / np.sqrt(q.shape[-1]),
                                     lambda q, K, tau: K @ q / np.sqrt(q.shape[-1]) / tau)),
        Erro("multiplicou por τ",
             "Você multiplicou por τ; aqui a temperatura **divide**, como no Swin Transformer V2 (e como na "
             "temperatura da softmax do notebook 04): τ pequeno deixa os escores maiores e a atenção mais concentrada.",
             resposta=lambda q, K, tau: _cos(q, K) * tau),
        Erro("sem a temperatura",
             "Você devolveu o cosseno puro, sem a temperatura. Divida por τ: é ela que deixa os escores saírem do "
             "intervalo de −1 a 1.",
             resposta=lambda q, K, tau: _cos(q, K)),
        Erro("devolveu o ângulo",
             "Você devolveu o ângulo θ (arccos do cosseno), não o cosseno. O escore é cos θ / τ: grande quando o ângulo "
             "é pequeno.",
             resposta=lambda q, K, tau: np.arccos(np.clip(_cos(q, K), -1, 1)) / tau),
        Erro("q @ K sem transpor",
             "Você calculou q @ K sem transpor. Com K quadrada isso roda, mas combina as **linhas** de K; não compara q "
             "com cada key. Cada key é uma linha de K: use K @ q (ou q @ K.T).",
             resposta=lambda q, K, tau: (q @ K / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau
                                         if K.shape[0] == K.shape[1] else None)),
        Erro("produto sem a soma",
             "Você multiplicou coordenada a coordenada (q * K dá uma matriz (n, d)), mas esqueceu de **somar** os "
             "produtos de cada key: o cosseno de q com kᵢ é um número só, (Σⱼ qⱼ kᵢⱼ) / (|q| |kᵢ|).",
             resposta=lambda q, K, tau: q * K / (np.linalg.norm(K, axis=1, keepdims=True) * np.linalg.norm(q)) / tau),
        Erro("soma no eixo errado",
             "Você somou no eixo errado: a soma com axis=0 junta as keys entre si, coordenada por coordenada. Cada "
             "produto escalar soma as coordenadas de **uma** key: axis=-1 (ou K @ q).",
             quando=bate_com_alguma(
                 Array(),
                 lambda q, K, tau: np.sum(q * K, axis=0) / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau,
                 lambda q, K, tau: np.sum(q / np.linalg.norm(q) * (K / np.linalg.norm(K, axis=1, keepdims=True)),
                                          axis=0) / tau)),
        Erro("normalizou sem keepdims",
             "Você dividiu K por np.linalg.norm(K, axis=1) sem keepdims: o vetor (n,) de comprimentos se alinha com as "
             "**colunas** de K, e cada coluna j foi dividida pelo comprimento da key j. Com K quadrada roda sem erro "
             "(e dá outro número); senão, nem roda. Use keepdims=True (forma (n, 1)), ou divida os escores K @ q, "
             "que já são um por key.",
             resposta=lambda q, K, tau: ((K / np.linalg.norm(K, axis=1)) @ q / np.linalg.norm(q) / tau
                                         if K.shape[0] == K.shape[1] else None)),
        Erro("distância do cosseno",
             "Você calculou a **distância** do cosseno, 1 − cos θ (a do scipy.spatial.distance.cosine), que é 0 para a "
             "key mais parecida. O escore é o próprio cosseno, cos θ / τ: grande para a key mais alinhada.",
             quando=bate_com_alguma(Array(), lambda q, K, tau: (1 - _cos(q, K)) / tau, lambda q, K, tau: 1 - _cos(q, K))),
        Erro("faltou a última key",
             "Faltou o escore da última key: o resultado tem n − 1 números. O laço parou uma volta antes "
             "(range(len(K) - 1)?): percorra **todas** as linhas de K.",
             resposta=lambda q, K, tau: _cos(q, K)[:-1] / tau),
        Erro("pulou a primeira key",
             "Faltou o escore da primeira key: o laço começou na linha 1 (range(1, len(K))?). Em Python as linhas "
             "começam em 0: K[0] é a primeira key.",
             resposta=lambda q, K, tau: _cos(q, K)[1:] / tau),
        Erro("faltou a última coordenada",
             "A última coordenada ficou de fora (um laço com range(len(q) - 1)?): o produto escalar, e cada "
             "comprimento, somam **todas** as d coordenadas.",
             quando=bate_com_alguma(
                 Array(),
                 lambda q, K, tau: K[:, :-1] @ q[:-1] / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau,
                 lambda q, K, tau: _cos(q[:-1], K[:, :-1]) / tau)),
        Erro("ordem invertida",
             "Os escores estão certos, mas na ordem inversa (o da última key primeiro). A posição i do resultado deve "
             "ser o escore da key i, na ordem das linhas de K.",
             resposta=lambda q, K, tau: _cos(q, K)[::-1] / tau),
        Erro("escores ordenados",
             "Você devolveu os escores ordenados. A posição i do resultado deve ser o escore da key i (na ordem das "
             "linhas de K); ordenar é outro passo (np.argsort).",
             quando=bate_com_alguma(Array(), lambda q, K, tau: np.sort(_cos(q, K) / tau),
                                     lambda q, K, tau: np.sort(_cos(q, K) / tau)[::-1])),
    ],
    explica_forma=lambda q, K, **_: _explica_forma_cosseno(q, K),
    dica_de_forma="Os escores são um vetor (n,): um escore por key, na ordem das linhas de K.",
)


@corretor_de(ESCORES_COSSENO)
def check_escores_cosseno(fn: Callable[[np.ndarray, np.ndarray, float], Any]) -> bool:
    """Confere ``fn(q, K, tau)`` = ``cos(q, kᵢ) / tau`` da query ``q`` ``(d,)`` com cada key (linha de ``K``
    ``(n, d)``): um vetor ``(n,)``, na ordem das keys.

    É a atenção por cosseno escalada do Swin Transformer V2 (sem o viés de posição dele).
    """
    return conferir(ESCORES_COSSENO, fn)


# ---------------------------------------------------------------------------------------------
# Prever, depois conferir
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NomeDeKey(Formato):
    """O nome de uma das ``n`` keys, escrito como o estudante quiser: ``"k2"``, ``"K₂"``, ``"k 2"``, ``"'k2'"``, como a
    página o escreve (``"k_2"``, ``"$k_2$"``, ``"k_{2}"``) ou só ``2`` (o número que a caixa lê). Um nome que não é de key (``"q"``, ``"k7"`` com cinco keys) não conta como
    previsão: a caixa pede outra, sem revelar a resposta."""

    n: int = 5

    def normalizar(self, y: Any) -> str:
        if isinstance(y, (int, np.integer)) and not isinstance(y, bool):
            numero = int(y)
        elif isinstance(y, str):
            # "k_2", "$k_2$", "k_{2}" (como a página escreve), "K₂", "'k2'", "key 2": todos são a key 2
            texto = re.sub(r"[\s'\"$`_{}\\]", "", y).lower().translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789"))
            m = re.fullmatch(r"(?:k|key|chave)?(\d+)", texto)
            if m is None:
                raise RespostaInvalida(f"a resposta é o nome de uma key, de k1 a k{self.n} (por exemplo k3); veio {y!r}")
            numero = int(m.group(1))
        else:
            raise RespostaInvalida(f"a resposta é o nome de uma key, de k1 a k{self.n}; veio {type(y).__name__}")
        if not 1 <= numero <= self.n:
            raise RespostaInvalida(f"só há {self.n} keys, de k1 a k{self.n}; veio {y!r}")
        return f"k{numero}"

    def igual(self, a: str, b: str) -> bool:
        return a == b

    def mostrar(self, x: str) -> str:
        return f"k{subscrito(int(x[1:]))}"


def _vencedora_padrao() -> str:
    q = polar(30.0, 1.5)
    return nomes_keys(len(KEYS_RANKING))[int(np.argmax(KEYS_RANKING @ q))]


PREVISAO_VENCEDORA = Previsao(
    nome="qual key vence",
    certo=_vencedora_padrao,
    formato=NomeDeKey(len(KEYS_RANKING)),
    revelar="Os escores são 1,504 para k₁, 2,839 para k₂, −1,328 para k₃, −0,161 para k₄ e −1,679 para k₅: k₂ vence. "
            "Ela é menos alinhada com q do que k₁ (cosseno 0,75 contra 0,91), mas é bem mais longa (|k₂| ≈ 2,53 contra "
            "|k₁| ≈ 1,10), e o produto escalar multiplica pelo comprimento: |q| |k| cos θ. Pelo cosseno, k₁ venceria.",
    erros=[
        Erro("a mais alinhada", "k₁ é a mais alinhada com q (o menor ângulo), e venceria pelo cosseno. Mas o produto "
                                "escalar é |q| |k| cos θ: o comprimento da key também entra.", resposta=lambda: "k1"),
        Erro("a quase perpendicular", "k₄ está quase perpendicular a q (a diferença de direção é de quase 90°): o "
                                      "escore dela fica perto de 0.", resposta=lambda: "k4"),
        Erro("uma do outro lado da reta", "k₃ faz mais de 90° com q, e o escore dela é negativo: q·k < 0 quando o "
                                          "ângulo passa de 90°.", resposta=lambda: "k3"),
        Erro("a mais oposta", "k₅ aponta quase para o lado contrário de q: tem o escore mais negativo de "
                              "todos.", resposta=lambda: "k5"),
    ],
    exemplo="k3",
    # o nome da vencedora como a página o escreveria (em prosa, em LaTeX, num título) e o escore dela
    pistas=("k₂ vence", "vence k₂", "vence $k_2$", "$k_2$ vence", "k2 vence", "vence k2", "vence a k₂",
            "k₂ ganha", "ganha k₂", "1º lugar: k₂", "['k₂', 'k₁'", "2,839", "2.839", "2,84", "2.84"),
)


@corretor_de(PREVISAO_VENCEDORA)
def prever_vencedora() -> CaixaDePrevisao:
    """A caixa da previsão de qual key de :data:`KEYS_RANKING` vence para ``q`` a 30° com comprimento 1.5 (a
    resposta: ``k₂``, a mais longa, não a mais alinhada; aceita ``k2``, ``K₂``, ``2``)."""
    return caixa(PREVISAO_VENCEDORA)
