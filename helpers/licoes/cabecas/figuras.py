"""Notebook ``multi_head``: as figuras — os mapas de pesos de cada cabeça, as barras da memória do KV cache
e a figura do painel das cabeças (quem compartilha keys/values com quem, e quanto o KV cache ocupa).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ... import plots
from ...formato import bytes_legiveis
from ...plots import CORES, MAPA

__all__ = ["CORES_GRUPOS", "FiguraCabecas", "desenhar_mapa_cabeca", "figura_kv_cache", "figura_mapas_cabecas"]


#: cores dos grupos de cabeças (Okabe–Ito, em ciclo): grupo g usa CORES_GRUPOS[g % 8]
CORES_GRUPOS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#555555")

def desenhar_mapa_cabeca(ax: Axes, pesos: ArrayLike, tokens: Sequence[str], titulo: str = "",
                         rotulos_y: bool = True) -> None:
    """Um mapa de calor de pesos ``(n, n)`` de uma cabeça: linhas = queries, colunas = keys.

    Escala de cor fixa em ``[0, 1]`` (cores iguais = pesos iguais entre cabeças) e o peso escrito em
    cada célula que passa de 0.05.
    """
    w = np.asarray(pesos, dtype=float)
    n = w.shape[0]
    ax.imshow(w, cmap=MAPA, vmin=0.0, vmax=1.0)
    ax.set_xticks(range(n), tokens, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n), tokens if rotulos_y else [""] * n)
    ax.tick_params(length=0)
    ax.grid(False)
    ax.set_xlabel("keys (para quem se olha)")
    if rotulos_y:
        ax.set_ylabel("queries (quem olha)")
    if titulo:
        ax.set_title(titulo)
    for i in range(n):
        for j in range(n):
            if w[i, j] >= 0.05:
                ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center",
                        fontsize=mpl.rcParams["font.size"], color="black" if w[i, j] > 0.6 else "white")

def figura_mapas_cabecas(pesos: Sequence[ArrayLike], tokens: Sequence[str], titulos: Sequence[str],
                         largura: float = 13.0, altura: float = 4.8) -> Figure:
    """Vários mapas de pesos lado a lado (um por cabeça), na mesma escala de cor. Figura do pyplot."""
    fig, axes = plots.nova_figura(largura, altura, ncols=len(pesos), pyplot=True)
    fig.subplots_adjust(left=0.07, right=0.99, bottom=0.2, top=0.9, wspace=0.12)
    for j, (w, titulo) in enumerate(zip(pesos, titulos, strict=True)):
        desenhar_mapa_cabeca(axes[0, j], w, tokens, titulo, rotulos_y=j == 0)
    return fig

def figura_kv_cache(contextos: Sequence[int], memorias: dict[str, Sequence[float]], titulo: str = "") -> Figure:
    """Barras agrupadas da memória do KV cache (em GiB) por comprimento de contexto, uma cor por variante.

    ``memorias``: nome da variante → bytes para cada contexto. O valor vai escrito em cima de cada barra e,
    a partir da segunda variante, quantas vezes ela é menor que a primeira (``÷32``): barras baixas demais
    para se ver numa escala linear continuam com o número à vista.
    """
    fig, axes = plots.nova_figura(10.0, 4.6, pyplot=True)
    fig.subplots_adjust(left=0.08, right=0.99, bottom=0.14, top=0.9)
    ax = axes[0, 0]
    x = np.arange(len(contextos))
    largura = 0.8 / len(memorias)
    cores = (CORES["k"], CORES["q"], CORES["v"], CORES["destaque"])
    topo = max(max(v) for v in memorias.values()) / 2**30
    referencia = next(iter(memorias.values()))
    for j, (nome, valores) in enumerate(memorias.items()):
        gib = np.asarray(valores, dtype=float) / 2**30
        pos = x + (j - (len(memorias) - 1) / 2) * largura
        ax.bar(pos, gib, width=largura * 0.95, color=cores[j % len(cores)], label=nome)
        for p, g, b, r in zip(pos, gib, valores, referencia, strict=True):
            texto = bytes_legiveis(b).replace(" ", "\n") + (f"\n÷{r / b:g}" if j and b < r else "")
            ax.text(p, g + 0.01 * topo, texto, ha="center", va="bottom")
    ax.set_xticks(x, [f"{c} tokens" for c in contextos])
    ax.set_ylabel("KV cache (GiB)")
    ax.set_ylim(0, topo * 1.3)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", frameon=False)
    if titulo:
        ax.set_title(titulo)
    return fig

def _largura_texto_pt(texto: str, tamanho_pt: float) -> float:
    """Uma estimativa (por cima) da largura de ``texto`` em pontos: ~0.65 em por caractere (DejaVu Sans)."""
    return 0.65 * tamanho_pt * len(texto)

class FiguraCabecas:
    """O painel das várias cabeças: quem compartilha keys/values com quem, e quanto o KV cache ocupa.

    1. ``ax_grupos``: as cabeças de query numa fileira de barras altas (em cima) e as cabeças de
       key/value numa fileira de losangos (embaixo); cada query liga-se à cabeça de key/value que ela
       usa, e cada grupo tem uma cor. Com até 8 grupos, cada grupo leva em cima os índices das suas
       queries (``0–3``, ``4–7``…);
    2. ``ax_memoria``: três barras horizontais — MHA (uma key/value por query), a escolha atual e
       MQA (uma key/value só) —, com o tamanho escrito ao lado (o eixo x não tem marcas: a escala muda
       com os controles, e o número ao lado da barra é o que se lê).

    Os artistas são criados uma vez; ``atualizar`` só muda os dados (posições, cores, tamanhos, textos).
    """

    #: no máximo quantos grupos levam rótulo com os índices das queries
    MAX_ROTULOS_GRUPOS = 8

    def __init__(self, ax_grupos: Axes, ax_memoria: Axes):
        from matplotlib.collections import LineCollection, PolyCollection

        self.ax_grupos = ax_grupos
        ax_grupos.set_xlim(0, 1)
        ax_grupos.set_ylim(-0.45, 1.52)
        ax_grupos.set_xticks([])
        ax_grupos.set_yticks([0, 1], ["keys/\nvalues", "queries"])
        ax_grupos.tick_params(length=0)
        ax_grupos.grid(False)
        for lado in ("left", "bottom", "right", "top"):
            ax_grupos.spines[lado].set_visible(False)
        self.linhas = LineCollection([], linewidths=1.2, alpha=0.7)
        ax_grupos.add_collection(self.linhas)
        # as queries são barras altas (e não marcadores quadrados): com 32 ou 64 cabeças a largura de cada
        # uma é pequena, e a altura é o que as deixa visíveis num projetor
        self.barras_q = PolyCollection([], zorder=3, edgecolors="none")
        ax_grupos.add_collection(self.barras_q)
        self.rotulos_grupos = [ax_grupos.text(0.0, 1.17, "", ha="center", va="bottom",
                                              fontsize=mpl.rcParams["font.size"] - 1)
                               for _ in range(self.MAX_ROTULOS_GRUPOS)]
        self.pontos_kv = ax_grupos.scatter([], [], marker="D", zorder=3, edgecolors="black", linewidths=0.8)
        self.texto_q = ax_grupos.text(0.0, 1.42, "", ha="left", va="center")
        self.texto_kv = ax_grupos.text(0.0, -0.3, "", ha="left", va="center")
        self.titulo_grupos = ax_grupos.set_title("", y=1.0)

        self.ax_memoria = ax_memoria
        self.barras = ax_memoria.barh([2, 1, 0], [1, 1, 1], height=0.6,
                                      color=[CORES["k"], CORES["q"], CORES["v"]])
        self.rotulos_barras = [ax_memoria.text(0, y, "", va="center", ha="left") for y in (2, 1, 0)]
        # a barra do meio tem um rótulo que muda (o tipo e o número de cabeças de key/value): é um texto
        # comum, na posição de uma marca do eixo y; mudar as marcas de um eixo faria o painel redesenhar tudo
        ax_memoria.set_yticks([2, 0], ["MHA", "MQA"])
        marca = ax_memoria.yaxis.get_major_ticks()[0].label1
        self.rotulo_escolha = ax_memoria.text(-0.02, 1, "", transform=ax_memoria.get_yaxis_transform(),
                                              ha="right", va="center", fontsize=marca.get_fontsize())
        # o eixo x vai de 0 a 1 e as barras chegam divididas pelo limite da vez, sem marcas (o tamanho vai
        # escrito ao lado de cada barra): o eixo não muda a cada movimento e o painel redesenha só o que muda
        ax_memoria.set_xlim(0, 1)
        ax_memoria.set_xticks([])
        ax_memoria.set_ylim(-0.6, 2.6)
        ax_memoria.grid(False)
        self.titulo_memoria = ax_memoria.set_title("", y=1.0, loc="right")  # à direita: não sai da figura

    def atualizar(self, mapa: Sequence[int], n_kv: int, bytes_mha: float, bytes_escolha: float, bytes_mqa: float,
                  titulo_grupos: str = "", titulo_memoria: str = "", d_head: int | None = None,
                  nome_escolha: str = "sua escolha") -> None:
        """``mapa[h]`` = a cabeça de key/value da query ``h``; os três tamanhos em bytes; ``d_head``, se
        dado, vai escrito junto do número de cabeças de query; ``nome_escolha`` rotula a barra do meio."""
        mapa = np.asarray(mapa, dtype=int)
        self._atualizar_grupos(mapa, n_kv, titulo_grupos, d_head)
        self._atualizar_memoria(bytes_mha, bytes_escolha, bytes_mqa, titulo_memoria, nome_escolha)

    def _atualizar_grupos(self, mapa: np.ndarray, n_kv: int, titulo_grupos: str, d_head: int | None) -> None:
        chave = (tuple(mapa.tolist()), n_kv, titulo_grupos, d_head)
        if chave == getattr(self, "_grupos_desenhados", None):
            return  # nada mudou: mexer nos artistas os marcaria, e o painel os redesenharia à toa
        self._grupos_desenhados = chave
        n_q = len(mapa)
        xq = (np.arange(n_q) + 0.5) / n_q
        xkv = np.array([xq[mapa == g].mean() for g in range(n_kv)])
        cores_q = [CORES_GRUPOS[g % len(CORES_GRUPOS)] for g in mapa]
        cores_kv = [CORES_GRUPOS[g % len(CORES_GRUPOS)] for g in range(n_kv)]
        largura_pt = self.ax_grupos.bbox.width / self.ax_grupos.figure.dpi * 72  # (get_position marcaria o eixo)
        # cada barra ocupa 80% do espaço de uma cabeça, sem passar de 20 pt de largura
        meia = min(0.8 / n_q, 20.0 / largura_pt) / 2
        self.barras_q.set_verts([[(x - meia, 0.87), (x + meia, 0.87), (x + meia, 1.13), (x - meia, 1.13)]
                                 for x in xq])
        self.barras_q.set_facecolors(cores_q)
        grupo = n_q // n_kv
        textos = [f"{g * grupo}–{(g + 1) * grupo - 1}" if grupo > 1 else str(g) for g in range(n_kv)]
        # com fontes grandes (modo de apresentação) os rótulos podem não caber: mostra um a cada `passo`
        maior_pt = max(_largura_texto_pt(t, self.rotulos_grupos[0].get_fontsize()) for t in textos)
        passo = max(1, math.ceil(maior_pt / (0.9 * largura_pt * grupo / n_q)))
        for g, rotulo in enumerate(self.rotulos_grupos):
            if g < n_kv <= self.MAX_ROTULOS_GRUPOS and g % passo == 0:
                rotulo.set_position((xkv[g], 1.17))
                rotulo.set_text(textos[g])
            else:
                rotulo.set_text("")
        self.pontos_kv.set_offsets(np.column_stack([xkv, np.zeros(n_kv)]))
        self.pontos_kv.set_facecolors(cores_kv)
        self.pontos_kv.set_sizes([min(0.6 * largura_pt / n_kv, 18.0) ** 2])
        self.linhas.set_segments([[(xq[h], 1.0), (xkv[mapa[h]], 0.0)] for h in range(n_q)])
        self.linhas.set_colors(cores_q)
        self.texto_q.set_text(f"{n_q} cabeça{'s' if n_q > 1 else ''} de query"
                              + (f", d_head = {d_head}" if d_head is not None else ""))
        self.texto_kv.set_text(f"{n_kv} cabeça{'s' if n_kv > 1 else ''} de key/value")
        self.titulo_grupos.set_text(titulo_grupos)

    def _atualizar_memoria(self, bytes_mha: float, bytes_escolha: float, bytes_mqa: float, titulo_memoria: str,
                           nome_escolha: str) -> None:
        valores = (bytes_mha, bytes_escolha, bytes_mqa)
        maximo = max(valores)
        largura_mem_pt = self.ax_memoria.bbox.width / self.ax_memoria.figure.dpi * 72
        limite = 1.15 * maximo
        for rotulo, b in zip(self.rotulos_barras, valores, strict=True):
            fator = bytes_mha / b
            rotulo.set_text(bytes_legiveis(b) + (f"  (÷{fator:.3g} da MHA)" if fator > 1 else ""))
            # a escala vai até onde o texto ao lado da barra cabe inteiro
            fracao_texto = _largura_texto_pt(rotulo.get_text(), rotulo.get_fontsize()) / largura_mem_pt
            limite = max(limite, (b + 0.015 * maximo) / max(0.98 - fracao_texto, 0.15))
        for barra, rotulo, b in zip(self.barras, self.rotulos_barras, valores, strict=True):
            barra.set_width(b / limite)
            rotulo.set_position(((b + 0.015 * maximo) / limite, rotulo.get_position()[1]))
        self.rotulo_escolha.set_text(nome_escolha)
        self.titulo_memoria.set_text(titulo_memoria)

    def animados(self) -> list[Artist]:
        """Os artistas da memória, que todo controle muda: um painel redesenha só eles a cada movimento."""
        return [*self.barras, *self.rotulos_barras, self.rotulo_escolha, self.titulo_memoria]

    def lentos(self) -> list[Artist]:
        """Os artistas dos grupos, que só o número de cabeças muda (o painel os guarda desenhados até lá)."""
        return [self.linhas, self.barras_q, *self.rotulos_grupos, self.pontos_kv, self.texto_q, self.texto_kv,
                self.titulo_grupos]
