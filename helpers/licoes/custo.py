"""Lição "O custo quadrático" (notebook ``custo_quadratico``): o painel do custo de cada atenção e os corretores da softmax online e da memória dos pesos.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..attention import (
    scaled_dot_product_attention,
    softmax,
)
from ..corretor import (
    Array,
    Bytes,
    Caso,
    Erro,
    Exercicio,
    Formato,
    Numero,
    NumeroAproximado,
    Previsao,
    RespostaInvalida,
    conferir,
    conferir_previsao,
    corretor_de,
)
from ..efficient import attention_costs, combine_states, computed_pairs
from ..formato import bytes_legiveis, decimal, milhares, numero_legivel, vetor
from ..paineis import Painel, PainelRedesenhaSoOQueMuda
from ..plots import CORES, MAPA

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


#: cor e estilo de linha de cada método nas curvas de custo. Nas operações, a curva "por blocos" cai
#: exatamente em cima da "exata" (as contas são as mesmas): por isso a exata é mais grossa e fica
#: embaixo, e a por blocos, de outra cor e tracejada, por cima dela — as duas continuam visíveis.
ESTILO_METODOS = {
    "exata": (CORES["k"], "-"),
    "local": (CORES["q"], "-"),
    "linear": (CORES["v"], "-"),
    "blocos": (CORES["saida"], "--"),
}

#: espessura de cada curva e marcador/tamanho do ponto no n atual, relativos ao estilo em vigor
_TRACO_METODOS = {"exata": (2.0, "o", 1.3), "local": (1.0, "o", 1.0), "linear": (1.0, "o", 1.0),
                  "blocos": (1.0, "D", 0.8)}

NOMES_METODOS = {"exata": "exata", "local": "local (janela)", "linear": "linear", "blocos": "por blocos"}

class FiguraCusto:
    """O custo de cada método de atenção: o padrão de pares ``(query, key)`` e duas curvas log-log.

    - ``ax_padrao``: a matriz ``n × n`` de pares, resumida numa imagem de até 128 × 128 células; a cor
      de cada célula é a fração dos seus pares que o método calcula (1 = calculado e usado,
      0.5 = calculado e descartado pela máscara, 0 = nem calculado). Para a atenção por blocos, a
      grade dos blocos e, em laranja, o único bloco de escores que está na memória num instante.
    - ``ax_flops`` e ``ax_memoria``: operações e bytes de memória de trabalho em função de ``n``
      (eixos log-log), uma curva por método, com um ponto no ``n`` atual.

    ``atualizar(...)`` só muda os dados dos artistas (imagem, linhas, pontos, textos).
    """

    def __init__(self, ax_padrao: Axes, ax_flops: Axes, ax_memoria: Axes, ns: Sequence[int]):
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Rectangle

        self.ns = np.asarray(ns, dtype=float)
        self.ax_padrao = ax_padrao
        mapa = "cividis" if mpl.rcParams["image.cmap"] == "cividis" else MAPA
        # o padrão ocupa sempre o quadrado [0, 1] × [0, 1] (as posições chegam divididas por n): os limites
        # do eixo não mudam com n, e o painel redesenha só o que muda
        self.imagem = ax_padrao.imshow(np.zeros((2, 2)), cmap=mapa, vmin=0.0, vmax=1.0,
                                       interpolation="nearest", extent=(0, 1, 1, 0))
        ax_padrao.set_xlim(0, 1)
        ax_padrao.set_ylim(1, 0)
        ax_padrao.grid(False)
        ax_padrao.set_xticks([])
        ax_padrao.set_yticks([])
        ax_padrao.set_xlabel("key j", labelpad=20)
        ax_padrao.set_ylabel("query i", labelpad=34)
        # as marcas 0, n/2, n são textos próprios (e não os ticks do eixo) para que um painel possa
        # redesenhar só o que muda (veja artistas_dinamicos)
        self.marcas = [ax_padrao.text(f, -0.03, "", transform=ax_padrao.transAxes, ha="center", va="top")
                       for f in (0.0, 0.5, 1.0)]
        self.marcas += [ax_padrao.text(-0.03, 1 - f, "", transform=ax_padrao.transAxes, ha="right", va="center")
                        for f in (0.0, 0.5, 1.0)]
        self.grade = LineCollection([], colors="white", linewidths=0.6, alpha=0.7)
        ax_padrao.add_collection(self.grade)
        self.bloco = Rectangle((0, 0), 1, 1, fill=False, edgecolor=CORES["destaque"], lw=2.5, visible=False)
        ax_padrao.add_patch(self.bloco)
        self.aviso = ax_padrao.text(0.5, 0.5, "", transform=ax_padrao.transAxes, ha="center", va="center",
                                    color="white", fontsize=mpl.rcParams["font.size"])
        self.titulo_padrao = ax_padrao.set_title("")

        self.linhas: dict[str, dict[str, object]] = {"flops": {}, "bytes": {}}
        self.pontos: dict[str, dict[str, object]] = {"flops": {}, "bytes": {}}
        self.verticais = []
        for chave, ax, ylim in (("flops", ax_flops, (1e3, 1e13)), ("bytes", ax_memoria, (1e2, 2e11))):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlim(self.ns[0] / 1.3, self.ns[-1] * 1.3)
            ax.set_ylim(*ylim)
            ax.set_xlabel("n (tokens)")
            ax.set_xticks([16, 256, 4096, 65536], ["16", "256", "4096", "65536"])
            ax.minorticks_off()
            for metodo, (cor, estilo) in ESTILO_METODOS.items():
                espessura, marcador, tamanho = _TRACO_METODOS[metodo]
                linha, = ax.plot(self.ns, np.ones_like(self.ns), color=cor, ls=estilo, label=NOMES_METODOS[metodo],
                                 lw=espessura * mpl.rcParams["lines.linewidth"])
                ponto, = ax.plot([1.0], [1.0], marker=marcador, ls="none", color=cor, zorder=5,
                                 ms=tamanho * 1.2 * mpl.rcParams["lines.markersize"],
                                 mec="white" if metodo == "blocos" else cor, mew=1.0)
                self.linhas[chave][metodo] = linha
                self.pontos[chave][metodo] = ponto
            self.verticais.append(ax.axvline(1.0, color=CORES["neutro"], lw=1, ls=":"))
        ax_flops.set_title("operações (FLOPs)")
        ax_memoria.set_title("memória (float32)")
        # unidades binárias, como no resto do notebook (1 KiB = 2¹⁰ bytes, 1 MiB = 2²⁰, 1 GiB = 2³⁰)
        ax_memoria.set_yticks([2.0**10, 2.0**20, 2.0**30], ["1 KiB", "1 MiB", "1 GiB"])
        ax_flops.set_yticks([1e3, 1e6, 1e9, 1e12], ["10³", "10⁶", "10⁹", "10¹²"])
        ax_memoria.legend(loc="upper left", frameon=False, fontsize=mpl.rcParams["font.size"] - 1)

    def artistas_dinamicos(self) -> list:
        """Os artistas que ``atualizar`` muda; o resto da figura (eixos, legendas, grades) é fixo."""
        fixos = [self.imagem, *self.ax_padrao.spines.values(), self.grade, self.bloco, self.aviso, self.titulo_padrao,
                 *self.marcas, *self.verticais]  # as bordas do padrão vão por cima da imagem
        return fixos + [a for chave in ("flops", "bytes") for d in (self.linhas[chave], self.pontos[chave])
                        for a in d.values()]

    def atualizar(self, n: int, padrao: ArrayLike, curvas: dict[str, dict[str, ArrayLike]],
                  atuais: dict[str, dict[str, float]], *, bloco: int | None = None, titulo: str = "",
                  aviso: str = "") -> None:
        """``padrao``: imagem ``(R, R)`` em [0, 1]; ``curvas[metodo]["flops" | "bytes"]``: um valor por
        ``n`` de ``ns``; ``atuais[metodo]["flops" | "bytes"]``: os valores no ``n`` atual; ``bloco``:
        o tamanho do bloco para desenhar a grade (``None`` = sem grade)."""
        self.imagem.set_data(np.asarray(padrao, dtype=float))
        for texto, m in zip(self.marcas, [0, n // 2, n] * 2, strict=True):
            texto.set_text(f"{m // 1024}k" if m >= 2048 else str(m))
        if bloco is not None:
            nb = -(-n // bloco)
            if nb <= 64:
                cortes = np.arange(1, nb) * bloco / n
                self.grade.set_segments([((c, 0), (c, 1)) for c in cortes] + [((0, c), (1, c)) for c in cortes])
            else:
                self.grade.set_segments([])
            linha = min(2, nb - 1)
            coluna = min(1, linha)
            lado = min(bloco, n) / n
            self.bloco.set_bounds(coluna * bloco / n, linha * bloco / n, lado, lado)
            self.bloco.set_visible(True)
        else:
            self.grade.set_segments([])
            self.bloco.set_visible(False)
        self.aviso.set_text(aviso)
        self.titulo_padrao.set_text(titulo)
        for chave in ("flops", "bytes"):
            for metodo, linha in self.linhas[chave].items():
                linha.set_ydata(np.maximum(np.asarray(curvas[metodo][chave], dtype=float), 1e-300))
                y = max(float(atuais[metodo][chave]), 1e-300)
                self.pontos[chave][metodo].set_data([n], [y])
        for vertical in self.verticais:
            vertical.set_xdata([n, n])

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: os n do painel de custo: potências de dois de 16 a 131072 (128k tokens)
_NS_CUSTO = tuple(2**e for e in range(4, 18))

_BLOCOS_CUSTO = (16, 32, 64, 128, 256, 512)

_METODOS_CUSTO = (("exata", "exata"), ("local", "local"), ("linear", "linear"), ("por blocos", "blocos"))

def painel_custo(n: int = 1024, janela: int = 16, bloco: int = 128, metodo: str = "local", *,
                 causal: bool = False, d: int = 64) -> Painel:
    """Quanto custa cada método de atenção para ``n`` tokens: o padrão de pares e as contas.

    Controles: ``n`` (potências de dois de 16 a 131072), a janela ``w`` da atenção local (cada lado),
    o tamanho ``B`` do bloco da atenção por blocos, o método mostrado no padrão e a máscara causal.
    À esquerda, os pares ``(query, key)`` que o método calcula (:func:`helpers.efficient.computed_pairs`); no meio e à
    direita, operações e memória de trabalho (float32) de cada método em função de ``n``
    (de :func:`helpers.efficient.attention_costs`), com o ``n`` atual marcado.
    Estado: ``n``, ``d``, ``janela``, ``bloco``, ``metodo``, ``causal``, ``custos`` (o dicionário de
    ``attention_costs``), ``padrao`` (a imagem), ``fracao_local`` e ``fracao_blocos`` (escores
    calculados / ``n²``).
    """

    if n not in _NS_CUSTO or bloco not in _BLOCOS_CUSTO:
        raise ValueError(f"n precisa ser uma de {_NS_CUSTO} e bloco um de {_BLOCOS_CUSTO}; recebi n={n}, bloco={bloco}.")
    if metodo not in dict(_METODOS_CUSTO).values():
        raise ValueError(f"método desconhecido: {metodo!r}; use 'exata', 'local', 'linear' ou 'blocos'.")
    fig = Figure(figsize=(9.0, 3.9))
    ax_padrao = fig.add_axes((0.095, 0.17, 0.23, 0.66))
    ax_flops = fig.add_axes((0.415, 0.17, 0.25, 0.66))
    ax_memoria = fig.add_axes((0.735, 0.17, 0.255, 0.66))
    figura = FiguraCusto(ax_padrao, ax_flops, ax_memoria, _NS_CUSTO)
    estilo = {"description_width": "150px"}  # a mesma largura em todas as descrições: sliders alinhados
    largura = W.Layout(width="440px")
    controles: dict[str, W.ValueWidget] = {
        "n": W.SelectionSlider(options=list(_NS_CUSTO), value=n, description="n (tokens)", continuous_update=True,
                               style=estilo, layout=largura),
        "janela": W.IntSlider(value=janela, min=1, max=512, step=1, description="janela w (local)",
                              continuous_update=True, style=estilo, layout=largura),
        "bloco": W.SelectionSlider(options=list(_BLOCOS_CUSTO), value=bloco, description="bloco B (por blocos)",
                                   continuous_update=True, style=estilo, layout=largura),
        "metodo": W.SelectionSlider(options=list(_METODOS_CUSTO), value=metodo, description="padrão mostrado",
                                    continuous_update=True, style=estilo, layout=largura),
        "causal": W.Checkbox(value=causal, description="máscara causal", indent=False, layout=largura),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        n_, w, b, met, cau = int(v["n"]), int(v["janela"]), int(v["bloco"]), v["metodo"], bool(v["causal"])
        custos = attention_costs(n_, d, window=w, block_size=b, causal=cau)
        por_n = [attention_costs(m, d, window=w, block_size=b, causal=cau) for m in _NS_CUSTO]
        curvas = {nome: {"flops": [c[nome]["flops"] for c in por_n], "bytes": [c[nome]["bytes"] for c in por_n]}
                  for nome in custos}
        padrao = computed_pairs(n_, met, w, b, cau)
        b_ef = min(b, n_)
        titulos = {
            "exata": "exata causal: n², ½ descartada" if cau else "exata: todos os n² pares",
            "local": f"local causal: 0 ≤ i − j ≤ {w}" if cau else f"local: |i − j| ≤ {w}",
            "linear": "linear: nenhum par q·k",
            "blocos": f"por blocos: {b_ef} × {b_ef} por vez",
        }
        aviso = "nenhum escore q·k\né calculado: a conta\nguarda só φ(K)ᵀV\n(d × d)" if met == "linear" else ""
        figura.atualizar(n_, padrao, curvas, custos, bloco=b_ef if met == "blocos" else None,
                         titulo=titulos[met], aviso=aviso)
        total = n_ * n_
        linhas = [("", "<b>escores q·k calculados</b>", "<b>operações (FLOPs)</b>", "<b>memória de trabalho (float32)</b>")]
        for nome, rotulo in (("exata", "exata"), ("local", f"local (w = {w})"), ("linear", f"linear (d = {d})"),
                             ("blocos", f"por blocos (B = {b_ef})")):
            c = custos[nome]
            linhas.append((rotulo, f"{milhares(c['escores'])} ({decimal(100 * c['escores'] / total, 1)}% de n²)",
                           numero_legivel(c["flops"]).replace(".", ","), bytes_na_prosa(c["bytes"])))
        corpo = "".join("<tr>" + "".join(f"<td style='padding:0 0.8em'>{x}</td>" for x in lin) + "</tr>" for lin in linhas)
        html = (f"<div style='font-size:1.1em'>n = {n_} tokens · d = {d} · "
                f"{'com' if cau else 'sem'} máscara causal · n² = {milhares(total)} pares" +
                f"<table>{corpo}</table>"
                "<div style='color:#555;font-size:0.9em'>No padrão, cada célula resume um quadrado de pares (query, "
                "key): amarelo = calculado e usado; verde-azulado = calculado e descartado pela máscara; roxo = nem "
                "calculado. Memória de trabalho: o que a conta guarda ao mesmo tempo além "
                "de q, k, v e da saída — a matriz de pesos (exata), um bloco de queries contra a faixa de keys que "
                "ele vê (local, como efficient.local_attention faz, um bloco por vez), φ(K)ᵀV e φ(K)ᵀ1 (linear), "
                "um bloco B × B e o máximo e a soma corridos de B queries (por blocos).</div></div>")
        return {"n": n_, "d": d, "janela": w, "bloco": b, "metodo": met, "causal": cau, "custos": custos,
                "padrao": padrao, "fracao_local": custos["local"]["escores"] / total,
                "fracao_blocos": custos["blocos"]["escores"] / total, "html": html}

    return PainelRedesenhaSoOQueMuda(fig, controles, calcular, "O custo de cada atenção: quais pares são calculados "
                                      "e quanto isso pesa", figura.artistas_dinamicos())

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------

# --- juntar dois estados da softmax online --------------------------------------------------------


@dataclass(frozen=True)
class EstadoOnline(Formato):
    """Um estado ``(m, l, acc)`` da softmax online: tupla ou lista; ``m`` e ``l`` números (de qualquer tipo
    numérico), ``acc`` um vetor. Iguais se as três partes forem iguais (tolerância relativa ``tol``)."""

    tol: float = 1e-9

    def normalizar(self, y: Any) -> tuple[float, float, np.ndarray]:
        if isinstance(y, np.ndarray) or not isinstance(y, (tuple, list)) or len(y) != 3:
            tamanho = f" de tamanho {len(y)}" if isinstance(y, (tuple, list)) else ""
            raise RespostaInvalida("a função deve devolver uma tripla (m, l, acc) — o novo máximo, a nova soma e o "
                                   f"novo acumulador; veio {type(y).__name__}{tamanho}")
        partes = []
        for nome, parte, formato in zip(("m", "l", "acc"), y, (Numero(), Numero(), Array())):
            try:
                partes.append(formato.normalizar(parte))
            except RespostaInvalida as exc:
                raise RespostaInvalida(f"na tripla (m, l, acc), {nome}: {exc}") from None
        return tuple(partes)

    def igual(self, a: tuple, b: tuple) -> bool:
        return (math.isclose(a[0], b[0], rel_tol=self.tol, abs_tol=1e-12)
                and math.isclose(a[1], b[1], rel_tol=self.tol, abs_tol=1e-12)
                and Array(self.tol).igual(a[2], b[2]))

    def mostrar(self, x: tuple) -> str:
        return f"(m = {x[0]:.6g}, l = {x[1]:.6g}, acc = {vetor(x[2])})"

    def forma(self, x: tuple) -> tuple:
        return x[2].shape  # m e l são números; a forma que pode sair errada é a de acc


_ESTADO = EstadoOnline()

#: o estado vazio, antes do primeiro bloco: o elemento neutro da combinação
_VAZIO = (-math.inf, 0.0, np.zeros(2))


def _estado_de(z: Sequence[float], v: np.ndarray) -> tuple[float, float, np.ndarray]:
    """O estado ``(m, l, acc)`` de um bloco de escores ``z`` com os values ``v``."""
    z_arr = np.asarray(z, dtype=float)
    m = float(z_arr.max())
    e = np.exp(z_arr - m)
    return m, float(e.sum()), e @ v


def _blocos_grandes() -> tuple[np.ndarray, np.ndarray]:
    """Nove escores perto de 1000 e os seus values (2-D), em três blocos de três."""
    rng = np.random.default_rng(9)
    return 1000.0 + rng.normal(size=9) * 3, rng.normal(size=(9, 2))


def _casos_combinar() -> list[Caso]:
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    casos = [
        Caso("quando o bloco novo traz o maior escore (blocos [1, 3] e [5, 2])",
             {"estado_a": _estado_de([1.0, 3.0], v[:2]), "estado_b": _estado_de([5.0, 2.0], v[2:])}),
        Caso("quando o bloco antigo tem o maior escore (blocos [4, 0.5] e [1, 2])",
             {"estado_a": _estado_de([4.0, 0.5], v[:2]), "estado_b": _estado_de([1.0, 2.0], v[2:])}),
        Caso("no primeiro bloco (o estado vazio (-inf, 0, 0) com o bloco [5, 2])",
             {"estado_a": _VAZIO, "estado_b": _estado_de([5.0, 2.0], v[2:])}),
    ]
    # bloco a bloco, em escores perto de 1000: cada passo junta o estado (certo) dos blocos anteriores ao novo
    z, vs = _blocos_grandes()
    estado = _VAZIO
    for k, nome in enumerate(("1º bloco, com o estado vazio", "2º bloco", "3º bloco")):
        novo = _estado_de(z[3 * k:3 * k + 3], vs[3 * k:3 * k + 3])
        casos.append(Caso(f"com escores perto de 1000, aplicada bloco a bloco ({nome})",
                          {"estado_a": estado, "estado_b": novo}))
        estado = combine_states(estado, novo)
    return casos


def _combinar_errado(tipo: str) -> Callable[..., tuple | None]:
    """A combinação errada ``tipo`` de dois estados de verdade (``None`` com o estado vazio, em que quase todos
    os erros dão a resposta certa ou NaN: esse caso tem um erro próprio)."""

    def errada(estado_a: tuple, estado_b: tuple) -> tuple | None:
        (m_a, l_a, acc_a), (m_b, l_b, acc_b) = estado_a, estado_b
        if not (math.isfinite(m_a) and math.isfinite(m_b)):
            return None
        m = max(m_a, m_b)
        fa, fb = math.exp(m_a - m), math.exp(m_b - m)
        ga, gb = math.exp(m - m_a), math.exp(m - m_b)
        l_certo, acc_certo = l_a * fa + l_b * fb, acc_a * fa + acc_b * fb
        return {
            "antigo": (m, l_a + l_b * fb, acc_a + acc_b * fb),
            "novo": (m, l_a * fa + l_b, acc_a * fa + acc_b),
            "nenhum": (m, l_a + l_b, acc_a + acc_b),
            "so_l": (m, l_certo, acc_a + acc_b),
            "so_acc": (m, l_a + l_b, acc_certo),
            "sinal": (m, l_a * ga + l_b * gb, acc_a * ga + acc_b * gb),
            "cedo": (m, l_certo, acc_certo / l_certo),
            "cedo_cada": (m, l_certo, acc_a / l_a * fa + acc_b / l_b * fb),
        }[tipo]

    return errada


def _maximo_errado(y: Any, certo: tuple, _caso: Caso) -> bool:
    return not math.isclose(_ESTADO.normalizar(y)[0], certo[0], rel_tol=_ESTADO.tol, abs_tol=1e-12)


def _nao_finito_no_vazio(y: Any, _certo: tuple, caso: Caso) -> bool:
    if math.isfinite(caso.entradas["estado_a"][0]):
        return False  # só o estado vazio tem este erro
    _m, l_, acc = _ESTADO.normalizar(y)
    return not (math.isfinite(l_) and np.all(np.isfinite(acc)))


def _acerto_combinar() -> str:
    z, vs = _blocos_grandes()
    return ("Correto! m = max(m_a, m_b), e l e acc de cada estado são multiplicados por e^(m_velho − m) antes de "
            "somar. Aplicada bloco a bloco em escores perto de 1000, a sua função leva a acc / l = "
            f"({', '.join(f'{x:.4f}' for x in softmax(z) @ vs)}), a atenção exata, sem nunca calcular e^1000.")


COMBINAR_ESTADOS = Exercicio(
    nome="juntar dois estados da softmax online",
    casos=_casos_combinar,
    certo=lambda estado_a, estado_b: combine_states(estado_a, estado_b),
    formato=_ESTADO,
    acerto=_acerto_combinar,
    erros=[
        Erro("máximo errado",
             lambda estado_a, estado_b: "O novo m deveria ser max(m_a, m_b) = "
                                        f"{max(estado_a[0], estado_b[0]):.6g}. O máximo combinado é o maior dos dois "
                                        "máximos: é ele que garante e^(z − m) <= 1 para todos os escores vistos até "
                                        "aqui.",
             quando=_maximo_errado),
        Erro("NaN com o estado vazio",
             "Com o estado vazio, l ou acc saíram NaN ou inf. No estado vazio m_a = -inf, e e^(m_a − m) = e^(-inf) = 0: "
             "o estado vazio some da soma sozinho. Não divida por l_a nem calcule m − m_a (que dá +inf).",
             quando=_nao_finito_no_vazio),
        Erro("antigo sem reescalar",
             "Você esqueceu de reescalar o estado **antigo** (a). Quando o bloco novo traz um máximo maior, o que já "
             "estava somado em l_a e acc_a foi medido a partir de m_a, que deixou de ser o máximo: multiplique l_a "
             "**e** acc_a por e^(m_a − m).",
             resposta=_combinar_errado("antigo")),
        Erro("novo sem reescalar",
             "Você esqueceu de reescalar o estado **novo** (b). Quando o máximo continua sendo o antigo (m_a > m_b), "
             "l_b e acc_b precisam ser trazidos para a referência m: multiplique os dois por e^(m_b − m).",
             resposta=_combinar_errado("novo")),
        Erro("nenhum reescalado",
             "Você somou os estados sem reescalar nenhum. Cada l e cada acc foi medido a partir do **seu** máximo "
             "(e^(z − m_a) num, e^(z − m_b) no outro): antes de somar, multiplique o estado a por e^(m_a − m) e o "
             "estado b por e^(m_b − m), com m = max(m_a, m_b).",
             resposta=_combinar_errado("nenhum")),
        Erro("acc sem reescalar",
             "A soma l está certa, mas o acumulador acc não foi reescalado: acc_a e acc_b precisam do **mesmo** fator "
             "que l_a e l_b (e^(m_a − m) e e^(m_b − m)), senão a saída acc / l mistura escalas diferentes.",
             resposta=_combinar_errado("so_l")),
        Erro("l sem reescalar",
             "O acumulador acc está certo, mas a soma l não foi reescalada: l_a e l_b precisam dos mesmos fatores "
             "e^(m_a − m) e e^(m_b − m) que acc_a e acc_b.",
             resposta=_combinar_errado("so_acc")),
        Erro("sinal trocado no expoente",
             "Sinal trocado no expoente: você multiplicou por e^(m − m_a), que é >= 1. O fator certo é e^(m_a − m) "
             "(velho menos novo, sempre <= 1): ele **diminui** o que foi somado com uma referência menor.",
             resposta=_combinar_errado("sinal")),
        Erro("dividiu por l cedo demais",
             "Você dividiu acc por l cedo demais. O estado guarda acc **sem** dividir; a divisão acc / l é feita uma "
             "vez só, no fim, depois do último bloco (a função finish_state). Devolva acc = acc_a·e^(m_a − m) + "
             "acc_b·e^(m_b − m).",
             resposta=_combinar_errado("cedo")),
        Erro("dividiu cada acc pelo seu l",
             "Você dividiu cada acc pelo seu l antes de combinar. O estado guarda acc **sem** dividir; a divisão "
             "acc / l é feita uma vez só, no fim (finish_state).",
             resposta=_combinar_errado("cedo_cada")),
    ],
    dica_de_forma="Essa é a forma de acc: um vetor com um número por coordenada do value (m e l são números).",
)


@corretor_de(COMBINAR_ESTADOS)
def check_combinar_estados(fn: Callable[[tuple, tuple], Any]) -> bool:
    """Confere ``fn(estado_a, estado_b)`` → ``(m, l, acc)``: o passo que junta dois estados parciais
    ``(m, l, acc)`` da softmax online (a referência é :func:`helpers.efficient.combine_states`).

    A tripla pode vir como tupla ou lista, com ``m`` e ``l`` de qualquer tipo numérico. Casos: o bloco
    novo traz o maior escore; o bloco antigo tem o maior escore; o primeiro bloco (o estado vazio
    ``(-inf, 0, 0)`` com um estado de verdade); e os três passos da função aplicada bloco a bloco em
    escores perto de 1000 (cada passo parte do estado certo dos blocos anteriores), cujo ``acc / l`` final é
    a atenção exata. Reconhece cada erro de :data:`COMBINAR_ESTADOS`: o máximo errado, NaN/inf com o estado
    vazio, o estado antigo ou o novo sem reescalar, nenhum reescalado, ``acc`` sem reescalar (e ``l``
    também), o sinal trocado no expoente (``e^(m − m_a)``) e a divisão por ``l`` cedo demais (do total ou
    de cada estado).
    """
    return conferir(COMBINAR_ESTADOS, fn)


# --- quanto ocupam os pesos -----------------------------------------------------------------------

#: 128k tokens em float32: uma cabeça só (o exemplo do acerto)
_N_LONGO = 131072


def _pesos_certo(n: int, n_heads: int, bytes_per_value: int) -> int:
    return n * n * n_heads * bytes_per_value


MEMORIA_PESOS = Exercicio(
    nome="quanto ocupam os pesos",
    casos=lambda: [
        Caso(f"com n = {n}, n_heads = {h}, bytes_per_value = {b}", {"n": n, "n_heads": h, "bytes_per_value": b})
        for n, h, b in ((1024, 1, 4), (8192, 32, 2), (_N_LONGO, 1, 4), (3, 2, 8))
    ],
    certo=_pesos_certo,
    formato=Bytes(),
    acerto=lambda: "Correto! n² · n_heads · bytes_per_value. Com 128k tokens (n = 131072) e float32, uma única cabeça "
                   f"já pede {bytes_na_prosa(_pesos_certo(_N_LONGO, 1, 4))} só para os pesos — é por isso que ninguém "
                   "monta essa matriz inteira em contextos longos.",
    erros=[
        Erro("sem o quadrado",
             "Faltou o quadrado: a matriz de escores (e a de pesos) tem uma linha por query **e** uma coluna por key — "
             "n × n números por cabeça, não n.",
             resposta=lambda n, n_heads, bytes_per_value: n * n_heads * bytes_per_value),
        Erro("contou números",
             "Você contou **números**, não bytes: multiplique por bytes_per_value (4 no float32, 2 no "
             "float16/bfloat16).",
             resposta=lambda n, n_heads, bytes_per_value: n * n * n_heads),
        Erro("sem as cabeças",
             "Faltaram as cabeças: cada cabeça tem a sua própria matriz n × n de pesos.",
             resposta=lambda n, n_heads, bytes_per_value: n * n * bytes_per_value),
        Erro("bits em vez de bytes",
             "Você contou **bits** (× 8): bytes_per_value já está em bytes.",
             resposta=lambda **e: _pesos_certo(**e) * 8),
        Erro("só a metade causal",
             "Você contou só a metade causal (n(n + 1)/2). A máscara zera os pesos do futuro, mas a matriz guardada "
             "continua tendo as n² posições.",
             resposta=lambda n, n_heads, bytes_per_value: n * (n + 1) // 2 * n_heads * bytes_per_value),
        Erro("em MiB",
             "Você converteu para MiB; a função deve devolver **bytes** (a conversão vem depois, na hora de mostrar).",
             resposta=lambda **e: _pesos_certo(**e) / 2**20),
        Erro("em GiB",
             "Você converteu para GiB; a função deve devolver **bytes** (a conversão vem depois, na hora de mostrar).",
             resposta=lambda **e: _pesos_certo(**e) / 2**30),
        Erro("em MB",
             "Você converteu para MB; a função deve devolver **bytes** (a conversão vem depois, na hora de mostrar).",
             resposta=lambda **e: _pesos_certo(**e) / 1e6),
    ],
)


@corretor_de(MEMORIA_PESOS)
def check_memoria_pesos(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(n, n_heads, bytes_per_value)`` = os bytes das matrizes de pesos de atenção de uma camada:
    ``n² · n_heads · bytes_per_value`` (uma matriz ``n × n`` por cabeça).

    Casos: 1k tokens em float32, 8k tokens com 32 cabeças em float16, 128k tokens em float32 e um caso
    minúsculo em float64. Reconhece cada erro de :data:`MEMORIA_PESOS`: ``n`` em vez de ``n²``, a contagem
    de números em vez de bytes, as cabeças esquecidas, bits em vez de bytes, só a metade causal e o
    resultado já convertido para MiB, GiB ou MB.
    """
    return conferir(MEMORIA_PESOS, fn)


def marcas_em_ms(ax: Axes, *tempos_ms: ArrayLike) -> None:
    """Marcas legíveis no eixo y (logarítmico) de um gráfico de tempos em milissegundos: as potências de 4
    (0.25, 1, 4, 16, 64…) dentro da faixa dos ``tempos_ms`` — cada marca é um "andar" de ×4, o que um custo
    quadrático sobe quando ``n`` dobra. Sem as marcas menores."""
    from matplotlib.ticker import NullLocator

    todos = np.concatenate([np.ravel(np.asarray(t, dtype=float)) for t in tempos_ms])
    todos = todos[np.isfinite(todos) & (todos > 0)]
    if not todos.size:
        return
    baixo, alto = math.ceil(math.log(todos.min(), 4)), math.floor(math.log(todos.max(), 4))
    marcas = 4.0 ** np.arange(baixo, max(alto, baixo) + 1)
    ax.set_yticks(marcas, [f"{m:g}" for m in marcas])
    ax.yaxis.set_minor_locator(NullLocator())


def bytes_na_prosa(n_bytes: float) -> str:
    """:func:`helpers.formato.bytes_legiveis` com vírgula decimal, para frases e tabelas em português:
    ``34603008`` → ``"33,0 MiB"``. (Um candidato a :mod:`helpers.formato`.)"""
    return bytes_legiveis(n_bytes).replace(".", ",")


# ---------------------------------------------------------------------------------------------
# Medir com honestidade: tudo num núcleo só
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def um_nucleo() -> Iterator[None]:
    """Dentro do ``with``, **toda** a conta roda num núcleo só: o BLAS (as multiplicações de matrizes do
    numpy, limitadas pelo ``threadpoolctl``) **e** as contas que a própria coleção divide entre os
    núcleos — a softmax da atenção, que a partir de 2²⁰ escores reparte as linhas entre threads, e a
    atenção por blocos, que reparte os blocos de queries. Assim o tempo medido é o de um núcleo, e a
    inclinação não mistura trechos em paralelo com trechos sequenciais.
    """
    from .. import _fast, efficient

    originais = (_fast.cores, efficient.cores)
    _fast.cores = efficient.cores = lambda: 1
    try:
        with _fast.blas_one_thread():
            yield
    finally:
        _fast.cores, efficient.cores = originais


def cronometrar(f: Callable[..., Any], *args: Any, repeticoes: int = 5) -> float:
    """O menor de ``repeticoes`` tempos (em segundos) de ``f(*args)``, com tudo num núcleo só (:func:`um_nucleo`)."""
    melhor = float("inf")
    with um_nucleo():
        for _ in range(repeticoes):
            inicio = time.perf_counter()
            f(*args)
            melhor = min(melhor, time.perf_counter() - inicio)
    return melhor


def tempo_rnn(n: int, d: int = 64, seed: int = 0) -> float:
    """O tempo (s, o melhor de 5, num núcleo só) de uma camada recorrente ``h_t = tanh(W_h h_{t−1} + W_x x_t)``
    sobre ``n`` posições com vetores de tamanho ``d``: ``n`` passos, um depois do outro."""
    rng = np.random.default_rng(seed)
    W_h, W_x = rng.normal(size=(d, d)) / math.sqrt(d), rng.normal(size=(d, d)) / math.sqrt(d)
    xs = rng.normal(size=(n, d))

    def camada() -> np.ndarray:
        h = np.zeros(d)
        for x in xs:                          # cada passo espera o anterior
            h = np.tanh(W_h @ h + W_x @ x)
        return h

    return cronometrar(camada, repeticoes=5)


# ---------------------------------------------------------------------------------------------
# A atenção por blocos, com a softmax online do estudante
# ---------------------------------------------------------------------------------------------


def _blocos_com(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int, *, escala: bool = True,
                ultimo: bool = True, acumular: bool = True, maximo_no_bloco: bool = True, m0: float = -math.inf,
                dividir: bool = True, media_das_saidas: bool = False) -> np.ndarray:
    """A atenção de uma query, bloco a bloco, com um "defeito" escolhido (para os erros clássicos)."""
    q, K, V = (np.asarray(a) for a in (q, K, V))
    n, d = K.shape
    fator = 1 / math.sqrt(d) if escala else 1.0
    fim = n if ultimo else (n // tamanho_bloco) * tamanho_bloco
    estado = (m0, 0.0, np.zeros(V.shape[-1]))
    saidas = []
    for i in range(0, fim, tamanho_bloco):
        z = (K[i:i + tamanho_bloco] @ q) * fator
        m = float(z.max()) if maximo_no_bloco else 0.0
        e = np.exp(z - m)
        novo = (m, float(e.sum()), e @ V[i:i + tamanho_bloco])
        saidas.append(novo[2] / novo[1])
        estado = combine_states(estado, novo) if acumular else novo
    if media_das_saidas:
        return np.mean(saidas, axis=0)
    return estado[2] / estado[1] if dividir else estado[2]


# O caminho, não só o resultado: qualquer conta exata (até a atenção pronta, de uma vez) dá a mesma saída. Para
# reconhecer quem percorre as keys em blocos, K chega à função do estudante vigiado: cada fatia de linhas tirada
# dele fica registrada. E check_atencao_por_blocos conta as chamadas à combinar do estudante (a do Exercício 1).

#: a vigia da última cópia de K entregue a uma função (o corretor faz uma cópia por chamada, logo antes dela)
_VIGIA: dict[str, int] = {"fatias": 0, "maior": 0, "combinar": 0}


class _KeysVigiadas(np.ndarray):
    """``K`` vigiado: cada fatia de linhas tirada dele (``K[i:j]``, ``K[i]``, um laço ``for k in K``) fica
    registrada em ``vigia`` (quantas fatias e quantas linhas tinha a maior). Cópias inteiras (``K.copy()``,
    ``K.astype(...)``) continuam vigiadas; as fatias e o que sai das contas, não. Uma cópia profunda (a que o
    corretor faz antes de cada chamada) começa uma vigia nova, que passa a ser a :data:`_VIGIA`."""

    vigia: dict[str, int] | None = None

    def __array_finalize__(self, obj: Any) -> None:
        origem = getattr(obj, "vigia", None)
        self.vigia = origem if origem is not None and self.shape == getattr(obj, "shape", None) else None

    def __getitem__(self, indice: Any) -> Any:
        pedaco = super().__getitem__(indice)
        if self.vigia is not None:
            linhas = pedaco.shape[0] if isinstance(pedaco, np.ndarray) and pedaco.ndim == self.ndim else 1
            self.vigia["fatias"] += 1
            self.vigia["maior"] = max(self.vigia["maior"], linhas)
        return pedaco

    def __deepcopy__(self, memo: dict) -> _KeysVigiadas:
        global _VIGIA
        copia = np.array(self, copy=True, subok=False).view(_KeysVigiadas)
        copia.vigia = _VIGIA = {"fatias": 0, "maior": 0, "combinar": 0}
        return copia


def _vigiado(K: np.ndarray) -> _KeysVigiadas:
    vigiado = np.array(K, copy=True).view(_KeysVigiadas)
    vigiado.vigia = {"fatias": 0, "maior": 0, "combinar": 0}
    return vigiado


def _sem_blocos(_bruta: Any, _certo: Any, caso: Caso) -> bool:
    """A função respondeu sem que o corretor a visse percorrer as keys em blocos (só nos casos com 2 blocos ou mais):
    nenhuma fatia de K com até ``tamanho_bloco`` linhas, e a combinar do estudante chamada menos de uma vez por
    bloco (o primeiro bloco pode virar o estado sem combinar)."""
    n, bloco = caso.entradas["K"].shape[0], caso.entradas["tamanho_bloco"]
    if n <= bloco:
        return False
    fatiou = _VIGIA["fatias"] > 0 and _VIGIA["maior"] <= bloco
    combinou = _VIGIA["combinar"] >= -(-n // bloco) - 1
    return not (fatiou or combinou)


def _contando_combinar(fn: Any) -> Any:
    """``fn``, com as chamadas à ``combinar`` do estudante (a global do notebook que ``fn`` usa) contadas em
    :data:`_VIGIA` durante cada chamada; a ``combinar`` original volta ao lugar depois."""
    globais = getattr(fn, "__globals__", None)
    if not callable(fn) or not isinstance(globais, dict) or not callable(globais.get("combinar")):
        return fn

    @functools.wraps(fn)
    def vigiada(*args: Any, **kwargs: Any) -> Any:
        original = globais["combinar"]
        chamadas = [0]

        def contando(*a: Any, **k: Any) -> Any:
            chamadas[0] += 1
            return original(*a, **k)

        globais["combinar"] = contando
        try:
            return fn(*args, **kwargs)
        finally:
            globais["combinar"] = original
            _VIGIA["combinar"] = chamadas[0]

    return vigiada


def _casos_por_blocos() -> list[Caso]:
    rng = np.random.default_rng(11)
    casos = []
    for n, d, d_v, bloco, ganho, centro, tipo, descricao in (
        (7, 4, 2, 3, 1.0, 0.0, float, "com 7 keys em blocos de 3 (o último bloco tem 1 key)"),
        (8, 4, 3, 8, 1.0, 0.0, float, "com 8 keys num bloco só"),
        (5, 2, 2, 1, 1.0, 0.0, float, "com 5 keys em blocos de 1"),
        (9, 4, 2, 4, 1.0, 1000.0, float, "com escores perto de +1000 (9 keys em blocos de 4)"),
        (9, 4, 2, 4, 1.0, -1000.0, float, "com escores perto de −1000 (9 keys em blocos de 4)"),
        (6, 4, 2, 2, 300.0, 0.0, float, "com escores muito espalhados (centenas de distância entre eles)"),
        (7, 4, 2, 3, 3.0, 0.0, np.float32, "com q, K e V em float32"),
    ):
        q = rng.normal(size=d)
        K = ganho * rng.normal(size=(n, d))
        if centro:
            # um componente comum a todas as keys, alinhado com q: todos os escores perto de `centro`
            K = K * 0.3 + np.outer(np.ones(n), q) * centro * math.sqrt(d) / (q @ q)
        V = rng.normal(size=(n, d_v))
        casos.append(Caso(descricao, {"q": q.astype(tipo), "K": _vigiado(K.astype(tipo)), "V": V.astype(tipo),
                                      "tamanho_bloco": bloco}))
    return casos


def _por_blocos_certo(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
    saida, _ = scaled_dot_product_attention(np.asarray(q, dtype=float), np.asarray(K, dtype=float),
                                            np.asarray(V, dtype=float))
    return saida


def _blocos_errado(**opcoes: Any) -> Callable[..., np.ndarray]:
    def errada(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
        return _blocos_com(*(np.asarray(a, dtype=float) for a in (q, K, V)), tamanho_bloco, **opcoes)
    return errada


def _blocos_instavel(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _blocos_com(q, K, V, tamanho_bloco, maximo_no_bloco=False)


def _blocos_m0(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _blocos_com(q, K, V, tamanho_bloco, m0=0.0)


POR_BLOCOS = Exercicio(
    nome="a atenção por blocos",
    casos=_casos_por_blocos,
    certo=_por_blocos_certo,
    formato=Array(tol=1e-5),
    acerto="Correto! A saída bate com a atenção exata em todos os casos — último bloco menor, blocos de uma key, "
           "escores perto de ±1000 (em que e^(escore) nem cabe num float64), escores muito espalhados e float32 —, e "
           "a sua função percorreu as keys em blocos. (O corretor confere o resultado e o caminho — K lido em "
           "pedaços, ou a sua combinar chamada a cada bloco —, não a memória: quem garante que só os escores de um "
           "bloco existem por vez é o seu código.)",
    erros=[
        Erro("sem percorrer em blocos",
             "A saída está certa, mas o corretor não viu a sua função percorrer as keys em blocos: K não foi fatiado "
             "em pedaços de até tamanho_bloco linhas (K[inicio:inicio + tamanho_bloco]), e a sua combinar não foi "
             "chamada a cada bloco. Calcular todos os escores de uma vez (ou chamar a atenção pronta) dá o mesmo "
             "número — e é justamente o que a atenção por blocos evita. Percorra K em blocos e junte o estado de "
             "cada bloco ao acumulado com a sua combinar.",
             quando=_sem_blocos, sempre=True),
        Erro("sem a escala √d",
             "Faltou dividir os escores por √d (d = o tamanho de q) antes de montar o estado do bloco.",
             resposta=_blocos_errado(escala=False)),
        Erro("perdeu o último bloco",
             "As keys do fim ficaram de fora: quando o número de keys não é múltiplo do tamanho do bloco, o último "
             "bloco é menor, mas existe. Percorra range(0, n, tamanho_bloco) e corte K[i:i + tamanho_bloco] (o "
             "fatiamento do numpy já para no fim).",
             resposta=_blocos_errado(ultimo=False)),
        Erro("só o último bloco",
             "A saída só enxerga o **último** bloco: o estado foi substituído a cada passo em vez de combinado. "
             "Guarde estado = combinar(estado, estado_do_bloco) — o estado carrega tudo o que já foi visto.",
             resposta=_blocos_errado(acumular=False)),
        Erro("média das saídas dos blocos",
             "Você fez a softmax de cada bloco separadamente e tirou a média das saídas. Cada bloco normalizado sozinho "
             "dá peso total 1 ao bloco, por menores que sejam os escores dele; a softmax de verdade compara os escores "
             "de **todos** os blocos. Carregue (m, l, acc) e divida uma vez só, no fim.",
             resposta=_blocos_errado(media_das_saidas=True)),
        Erro("sem dividir por l",
             "Você devolveu acc sem dividir por l: acc é a soma dos values pesados por e^(z − m), ainda não "
             "normalizada. A saída é acc / l, uma vez, depois do último bloco.",
             resposta=_blocos_errado(dividir=False)),
        Erro("estado vazio com m = 0",
             "Com escores perto de −1000 a resposta saiu NaN: o estado inicial começou com m = 0 em vez de −inf. "
             "Aí o máximo corrido nunca desce abaixo de 0, e e^(−1000 − 0) vira 0 em l e em acc (0/0 no fim). O "
             "estado vazio é (−inf, 0, 0): e^(−inf) = 0 faz ele sumir sozinho na primeira combinação.",
             resposta=_blocos_m0),
        Erro("bloco sem subtrair o máximo (instável)",
             "A resposta tem NaN ou inf: o estado de cada bloco foi calculado com e^z, sem subtrair o máximo do "
             "bloco, e e^1000 estoura. O estado do bloco é m = max(z), l = Σ e^(z − m), acc = Σ e^(z − m) v.",
             resposta=_blocos_instavel),
    ],
    dica_de_forma="A saída de uma query é um vetor com o tamanho de um value: forma (d_v,).",
)


@corretor_de(POR_BLOCOS)
def check_atencao_por_blocos(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(q, K, V, tamanho_bloco)`` = a atenção exata de **uma** query ``q`` ``(d,)`` contra
    ``K`` ``(n, d)`` e ``V`` ``(n, d_v)``, calculada bloco de keys a bloco de keys com a softmax online
    (a referência é :func:`helpers.attention.scaled_dot_product_attention`).

    Casos: último bloco menor, um bloco só, blocos de 1, escores perto de +1000 e de −1000, escores muito
    espalhados e entrada em float32. Reconhece cada erro de :data:`POR_BLOCOS`, inclusive a resposta certa
    calculada sem percorrer as keys em blocos (nem ``K`` fatiado em pedaços de até ``tamanho_bloco`` linhas, nem a
    ``combinar`` do estudante, a global do notebook, chamada a cada bloco).
    """
    return conferir(POR_BLOCOS, _contando_combinar(fn))


# --- prever: o tamanho do estado da atenção linear causal ------------------------------------------


PREVISAO_ESTADO_LINEAR = Previsao(
    nome="o estado da atenção linear",
    certo=lambda: 64 * 64 + 64,
    revelar="O estado é S = Σ φ(k_j) v_jᵀ, uma matriz 64 × 64, mais o normalizador z = Σ φ(k_j), com 64 números: "
            "4160 números depois de 10 tokens ou de 100 mil. Ele não cresce — por isso a geração não precisa de "
            "KV cache — e, pelo mesmo motivo, tudo o que a sequência disse precisa caber nesses 4160 números.",
    formato=NumeroAproximado(0),
    erros=[
        Erro("pensou no KV cache",
             "Esse é o tamanho de um KV cache (uma key e um value de 64 números por token): é o que a atenção com "
             "softmax guarda. A linear soma tudo num estado que não cresce.",
             resposta=lambda: 2 * 100_000 * 64),
        Erro("um vetor por token",
             "Você guardou um vetor por token. O estado da atenção linear é uma **soma**: cada token novo é somado "
             "nos mesmos números.",
             resposta=lambda: 100_000 * 64),
        Erro("esqueceu o normalizador",
             "Quase: a matriz S = Σ φ(k_j) v_jᵀ tem 64 × 64 = 4096 números, mas a saída também divide por "
             "φ(q)·z, e z = Σ φ(k_j) são mais 64 números.",
             resposta=lambda: 64 * 64),
        Erro("um vetor só",
             "Esse é o tamanho do estado de uma RNN comum (o notebook 01). O estado da atenção linear é uma "
             "**matriz** d × d (mais o normalizador): φ(k) v ᵀ é um produto externo.",
             resposta=lambda: 64),
    ],
)


@corretor_de(PREVISAO_ESTADO_LINEAR)
def check_previsao_estado_linear(previsao: Any) -> bool:
    """Mostra e confere a previsão: quantos números o estado da atenção linear causal guarda com ``d = 64``
    depois de 100 mil tokens (``64·64 + 64 = 4160``, seja qual for o número de tokens). Reconhece cada erro
    de :data:`PREVISAO_ESTADO_LINEAR`."""
    return conferir_previsao(PREVISAO_ESTADO_LINEAR, previsao)
