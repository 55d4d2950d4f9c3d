"""Lição "Várias cabeças" (notebook ``multi_head``): mapas por cabeça, o painel de GQA e do KV cache e os corretores de divisão em cabeças, grupos e memória.

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
    kv_cache_bytes,
    kv_head_of_query,
    multi_head_attention,
    split_heads,
)
from ..corretor import (
    Array,
    Bytes,
    Caso,
    Erro,
    Exercicio,
    NumeroAproximado,
    NumeroDe,
    Previsao,
    conferir,
    conferir_previsao,
    corretor_de,
)
from ..formato import bytes_legiveis, milhares, vetor
from ..paineis import Painel, tabela
from ..plots import CORES, MAPA

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


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
       MQA (uma key/value só) —, com o tamanho escrito ao lado.

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
        ax_memoria.set_yticks([2, 1, 0], ["MHA", "sua escolha", "MQA"])
        # o eixo x vai de 0 a 1 e as barras chegam divididas pelo limite da vez: a mesma figura que mudar
        # o limite do eixo, sem mudar o eixo a cada movimento (o painel redesenha só o que muda)
        ax_memoria.set_xlim(0, 1)
        ax_memoria.set_ylim(-0.6, 2.6)
        ax_memoria.grid(False)
        self.titulo_memoria = ax_memoria.set_title("", y=1.0, loc="right")  # à direita: não sai da figura

    def atualizar(self, mapa: Sequence[int], n_kv: int, bytes_mha: float, bytes_escolha: float, bytes_mqa: float,
                  titulo_grupos: str = "", titulo_memoria: str = "", d_head: int | None = None,
                  nome_escolha: str = "sua escolha") -> None:
        """``mapa[h]`` = a cabeça de key/value da query ``h``; os três tamanhos em bytes; ``d_head``, se
        dado, vai escrito junto do número de cabeças de query; ``nome_escolha`` rotula a barra do meio."""
        mapa = np.asarray(mapa, dtype=int)
        n_q = len(mapa)
        xq = (np.arange(n_q) + 0.5) / n_q
        xkv = np.array([xq[mapa == g].mean() for g in range(n_kv)])
        cores_q = [CORES_GRUPOS[g % len(CORES_GRUPOS)] for g in mapa]
        cores_kv = [CORES_GRUPOS[g % len(CORES_GRUPOS)] for g in range(n_kv)]
        largura_pt = self.ax_grupos.get_position().width * self.ax_grupos.figure.get_figwidth() * 72
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

        valores = (bytes_mha, bytes_escolha, bytes_mqa)
        maximo = max(valores)
        largura_mem_pt = self.ax_memoria.get_position().width * self.ax_memoria.figure.get_figwidth() * 72
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
        # a escala: 0, metade e o tamanho da MHA, nas unidades legíveis
        self.ax_memoria.set_xticks([0, bytes_mha / 2 / limite, bytes_mha / limite],
                                   ["0", bytes_legiveis(bytes_mha / 2), bytes_legiveis(bytes_mha)])
        self.ax_memoria.set_yticks([2, 1, 0], ["MHA", nome_escolha, "MQA"])
        self.titulo_memoria.set_text(titulo_memoria)

# ---------------------------------------------------------------------------------------------
# Painéis
# ---------------------------------------------------------------------------------------------


#: comprimentos de contexto do painel das cabeças (tokens): potências de 2, de 512 a 131072
CONTEXTOS_CABECAS = [2**i for i in range(9, 18)]

#: precisões do painel das cabeças: (rótulo, bytes por número)
PRECISOES_CABECAS = [("fp32", 4), ("fp16", 2), ("int8", 1)]

_NOMES_PRECISAO = {4: "fp32 = 4 bytes", 2: "fp16/bf16 = 2 bytes", 1: "int8 = 1 byte"}

def divisores(n: int) -> list[int]:
    """Os divisores de ``n`` em ordem crescente: as escolhas válidas de ``n_kv_heads`` para ``n_heads = n``."""
    return [d for d in range(1, n + 1) if n % d == 0]

def _escolha_kv(n_kv_antigo: int, n_heads_antigo: int, n_heads: int) -> int:
    """O ``n_kv_heads`` válido mais próximo da escolha anterior quando ``n_heads`` muda.

    MHA continua MHA (``n_kv = n_heads``); senão, o maior divisor de ``n_heads`` que não passa do valor
    anterior (MQA, ``n_kv = 1``, sempre continua MQA).
    """
    if n_kv_antigo == n_heads_antigo:
        return n_heads
    return max(d for d in divisores(n_heads) if d <= n_kv_antigo)

class _PainelCabecas(Painel):
    """Um :class:`Painel` em que as opções de ``n_kv_heads`` acompanham ``n_heads`` (só divisores).

    Quando ``n_heads`` muda, as opções do seletor de ``n_kv_heads`` viram os divisores do novo valor e a
    escolha se ajusta (:func:`_escolha_kv`) antes de uma única atualização; as mudanças intermediárias
    não redesenham nada. Nenhuma combinação inválida chega a ``calcular``.
    """

    _ajustando = False

    def _ajustar_opcoes(self, n_heads_antigo: int) -> None:
        c_h, c_kv = self.controles["n_heads"], self.controles["n_kv_heads"]
        novo = _escolha_kv(int(c_kv.value), n_heads_antigo, int(c_h.value))
        opcoes = divisores(int(c_h.value))
        with c_kv.hold_sync():  # opções e valor novos numa mensagem só para o navegador
            if list(c_kv.options) != opcoes:
                c_kv.options = opcoes
            c_kv.value = novo

    def _ao_mudar(self, mudanca: Any) -> None:
        if self._ajustando:
            return
        if mudanca is not None and getattr(mudanca, "owner", None) is self.controles["n_heads"]:
            self._ajustando = True
            try:
                self._ajustar_opcoes(int(mudanca.old))
            finally:
                self._ajustando = False
        self.atualizar()

    def definir(self, **valores: Any) -> dict[str, Any]:
        """Como :meth:`Painel.definir`; ``n_heads`` é aplicado primeiro, e um ``n_kv_heads`` que não divide
        ``n_heads`` levanta ``ValueError`` (no painel, só os divisores aparecem)."""
        desconhecidos = [n for n in valores if n not in self.controles]
        if desconhecidos:
            raise ValueError(f"o painel não tem o controle {desconhecidos[0]!r}; os controles são {list(self.controles)}.")
        self._ajustando = True
        try:
            if "n_heads" in valores:
                antigo = int(self.controles["n_heads"].value)
                self.controles["n_heads"].value = valores.pop("n_heads")
                self._ajustar_opcoes(antigo)
            n_kv = valores.get("n_kv_heads")
            if n_kv is not None and n_kv not in self.controles["n_kv_heads"].options:
                n_h = self.controles["n_heads"].value
                raise ValueError(f"n_kv_heads={n_kv} não divide n_heads={n_h}; escolha entre {divisores(n_h)}.")
            for nome, valor in valores.items():
                self.controles[nome].value = valor
        finally:
            self._ajustando = False
        return self.atualizar()

def painel_cabecas(n_heads: int = 32, n_kv_heads: int = 8, n_tokens: int = 4096, bytes_per_value: int = 2,
                   n_layers: int = 32, d_model: int = 4096) -> Painel:
    """Cabeças de query, cabeças de key/value (MHA, GQA, MQA) e a memória do KV cache.

    Controles: ``n_heads`` (divisores de ``d_model`` entre 1 e 64, com ``d_head = d_model / n_heads``),
    ``n_kv_heads`` (só os divisores de ``n_heads``), ``n_tokens`` (contexto, de 512 a 131072) e
    ``bytes_per_value`` (a precisão: 4, 2 ou 1 byte por número). A figura mostra que query usa que key/value
    (``h // (n_heads // n_kv_heads)``) e a memória do KV cache (:func:`helpers.attention.kv_cache_bytes`,
    ``n_layers`` camadas, lote 1) da MHA, da escolha atual e da MQA.

    Estado: ``n_heads``, ``n_kv_heads``, ``d_head``, ``grupo`` (queries por key/value), ``tipo``
    (``"MHA"``, ``"GQA"`` ou ``"MQA"``), ``mapa`` (a key/value de cada query), ``n_tokens``,
    ``bytes_per_value``, ``n_layers``, ``bytes_escolha``, ``bytes_mha``, ``bytes_mqa``,
    ``bytes_por_token`` (todas as camadas) e ``razao`` (MHA ÷ escolha).
    """

    opcoes_h = [h for h in divisores(d_model) if h <= 64]
    if n_heads not in opcoes_h:
        raise ValueError(f"n_heads={n_heads} precisa dividir d_model={d_model} (e ser ≤ 64): escolha entre {opcoes_h}.")
    if n_kv_heads not in divisores(n_heads):
        raise ValueError(f"n_kv_heads={n_kv_heads} não divide n_heads={n_heads}; escolha entre {divisores(n_heads)}.")
    if n_tokens not in CONTEXTOS_CABECAS:
        raise ValueError(f"n_tokens precisa ser um de {CONTEXTOS_CABECAS}; recebi {n_tokens!r}.")
    if bytes_per_value not in [b for _, b in PRECISOES_CABECAS]:
        raise ValueError(f"bytes_per_value precisa ser 4, 2 ou 1; recebi {bytes_per_value!r}.")

    fig, axes = plots.nova_figura(10.5, 4.2, ncols=2)
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.14, top=0.84)
    # o diagrama das cabeças fica mais largo que as barras: são até 64 queries lado a lado
    axes[0, 0].set_position((0.08, 0.06, 0.48, 0.78))
    axes[0, 1].set_position((0.715, 0.14, 0.265, 0.70))
    figura = FiguraCabecas(axes[0, 0], axes[0, 1])
    estilo = {"continuous_update": True, "style": {"description_width": "initial"}, "layout": W.Layout(width="360px")}
    controles: dict[str, W.ValueWidget] = {
        "n_heads": W.SelectionSlider(options=opcoes_h, value=n_heads, description="queries (n_heads)", **estilo),
        "n_kv_heads": W.SelectionSlider(options=divisores(n_heads), value=n_kv_heads,
                                        description="keys/values (n_kv_heads)", **estilo),
        "n_tokens": W.SelectionSlider(options=CONTEXTOS_CABECAS, value=n_tokens, description="contexto (tokens)",
                                      **estilo),
        "bytes_per_value": W.SelectionSlider(options=PRECISOES_CABECAS, value=bytes_per_value,
                                             description="precisão (por número)", **estilo),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        n_h, n_t, b = int(v["n_heads"]), int(v["n_tokens"]), int(v["bytes_per_value"])
        n_kv = int(v["n_kv_heads"])
        if n_h % n_kv:  # não acontece pelo painel (as opções são os divisores); por garantia, sem exceção
            n_kv = max(d for d in divisores(n_h) if d <= n_kv)
        d_head = d_model // n_h
        grupo = n_h // n_kv
        tipo = "MHA" if n_kv == n_h else "MQA" if n_kv == 1 else "GQA"
        mapa = kv_head_of_query(n_h, n_kv)
        b_escolha = kv_cache_bytes(n_t, n_layers, n_kv, d_head, b)
        b_mha = kv_cache_bytes(n_t, n_layers, n_h, d_head, b)
        b_mqa = kv_cache_bytes(n_t, n_layers, 1, d_head, b)
        por_token = b_escolha // n_t
        razao = b_mha / b_escolha
        if tipo == "MHA":
            titulo = "MHA: cada query tem a sua key/value"
        else:
            titulo = f"{tipo}: {grupo} queries por key/value"
        precisao = next(nome for nome, bytes_ in PRECISOES_CABECAS if bytes_ == b)
        figura.atualizar(mapa, n_kv, b_mha, b_escolha, b_mqa, titulo_grupos=titulo,
                         titulo_memoria=f"KV cache: {n_t} tokens, {precisao}, {n_layers} camadas", d_head=d_head,
                         nome_escolha=f"sua escolha\n({tipo}, {n_kv})")
        if n_kv == 1:
            faixas = f"as {n_h} queries → key/value 0" if n_h > 1 else "query 0 → key/value 0"
        else:
            faixas = "; ".join(
                (f"{g * grupo}–{(g + 1) * grupo - 1} → {g}" if grupo > 1 else f"{g} → {g}") for g in range(min(n_kv, 4))
            ) + ("; …" if n_kv > 4 else "")
        html = tabela([
            ("d_model = n_heads · d_head", f"{d_model} = {n_h} · {d_head}"),
            ("tipo", f"{tipo}: n_kv_heads = {n_kv}, grupo = n_heads / n_kv_heads = {grupo}"),
            ("query h usa a key/value h // grupo", faixas),
            ("precisão", _NOMES_PRECISAO[b] + " por número"),
            ("memória = 2 · camadas · n_kv_heads · tokens · d_head · bytes",
             f"2 · {n_layers} · {n_kv} · {n_t} · {d_head} · {b} = {milhares(b_escolha)} bytes = "
             f"{bytes_legiveis(b_escolha)}"),
            ("por token (todas as camadas)", bytes_legiveis(por_token)),
            ("MHA (n_kv_heads = n_heads)", f"{bytes_legiveis(b_mha)} → a escolha usa 1/{razao:g} disso"),
            ("MQA (n_kv_heads = 1)", bytes_legiveis(b_mqa)),
        ])
        return {"n_heads": n_h, "n_kv_heads": n_kv, "d_head": d_head, "grupo": grupo, "tipo": tipo, "mapa": mapa,
                "n_tokens": n_t, "bytes_per_value": b, "n_layers": n_layers, "bytes_escolha": b_escolha,
                "bytes_mha": b_mha, "bytes_mqa": b_mqa, "bytes_por_token": por_token, "razao": razao, "html": html}

    return _PainelCabecas(fig, controles, calcular, titulo="Várias cabeças: quem compartilha keys/values e quanto o KV cache ocupa")

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------



# --- dividir em cabeças --------------------------------------------------------------------------


def _matriz_rotulada(n: int, largura: int) -> np.ndarray:
    """``x[i, c] = 10·i + c`` (n ≤ 9, largura ≤ 10): a dezena é o token, a unidade é a coluna."""
    return (10 * np.arange(n)[:, None] + np.arange(largura)[None, :]).astype(float)


def _fmt_rotulada(x: np.ndarray) -> str:
    """Uma matriz de ``_matriz_rotulada`` sem casas decimais (``[[ 0  1  2] [10 11 12]]``), se for inteira."""
    x = np.asarray(x, dtype=float)
    if np.all(np.isfinite(x)) and np.array_equal(x, np.round(x)):
        return np.array2string(x.astype(int), separator=" ")
    return vetor(x)


@dataclass(frozen=True)
class _Cabecas(Array):
    """As cabeças ``(n_heads, n, d_head)`` de uma matriz rotulada, mostradas pela cabeça 0, sem casas decimais
    (com ``10·token + coluna`` em cada entrada, dá para ler de que token e de que coluna veio cada número)."""

    def mostrar(self, x: np.ndarray) -> str:
        x = np.asarray(x)
        return f"cabeça 0 =\n{_fmt_rotulada(x[0])}" if x.ndim >= 3 else _fmt_rotulada(x)


def _formas_dividir(x: np.ndarray, n_heads: int) -> tuple[int, int, int]:
    n, largura = x.shape
    return n, n_heads, largura // n_heads


def _explica_forma_dividir(x: np.ndarray, n_heads: int) -> str:
    n, h, d = _formas_dividir(x, n_heads)
    return (f"x tem forma {x.shape}: {n} tokens, cada um com largura = n_heads · d_head = {h * d} colunas; com "
            f"n_heads = {h}, d_head = {h * d} / {h} = {d}. Separe as colunas de cada token com x.reshape(n, n_heads, "
            "d_head) e ponha o eixo das cabeças na frente com .transpose(1, 0, 2).")


DIVIDIR_CABECAS = Exercicio(
    nome="dividir em cabeças",
    casos=lambda: [
        Caso(f"com x de forma ({n}, {h * d}), x[token, coluna] = 10·token + coluna, e n_heads = {h}",
             {"x": _matriz_rotulada(n, h * d), "n_heads": h})
        for n, h, d in ((4, 2, 3), (3, 2, 4), (5, 4, 2))
    ],
    certo=split_heads,
    formato=_Cabecas(),
    acerto="Correto! (n, n_heads·d_head) → reshape (n, n_heads, d_head) → transpose (n_heads, n, d_head): a cabeça h "
           "fica com as colunas h·d_head … (h+1)·d_head − 1 de cada token, e nenhum token se mistura com outro.",
    erros=[
        Erro("reshape direto",
             lambda x, n_heads: "Você fez x.reshape(n_heads, n, d_head) direto, sem transpor. O reshape lê os números "
                                "na ordem da memória (linha por linha), então a 'cabeça 0' ficou com as "
                                f"{x.size // n_heads} primeiras entradas de x — pedaços de tokens diferentes "
                                "empilhados, e não as mesmas colunas de todos os tokens. Primeiro separe as colunas de "
                                "cada token, x.reshape(n, n_heads, d_head), e só então troque os dois primeiros eixos: "
                                ".transpose(1, 0, 2).",
             resposta=lambda x, n_heads: x.reshape(n_heads, x.shape[0], x.shape[1] // n_heads)),
        Erro("sem transpor",
             lambda x, n_heads: "Faltou a transposição: x.reshape(n, n_heads, d_head) separa as colunas certas, mas a "
                                f"forma é (n, n_heads, d_head) = {_formas_dividir(x, n_heads)}. Para cada cabeça ser uma "
                                "atenção independente, o eixo das cabeças vem primeiro: .transpose(1, 0, 2) → "
                                "(n_heads, n, d_head).",
             resposta=lambda x, n_heads: x.reshape(*_formas_dividir(x, n_heads))),
        Erro("colunas intercaladas",
             "Colunas intercaladas: a cabeça h ficou com as colunas h, h + n_heads, h + 2·n_heads, … Cada cabeça recebe "
             "um bloco **contíguo** de d_head colunas: a cabeça 0 as colunas 0 … d_head−1, a cabeça 1 as seguintes. "
             "Use x.reshape(n, n_heads, d_head) (não (n, d_head, n_heads)).",
             resposta=lambda x, n_heads: x.reshape(x.shape[0], -1, n_heads).transpose(2, 0, 1)),
        Erro("ordem invertida",
             "As cabeças saíram em ordem invertida: a cabeça 0 deve ficar com as **primeiras** d_head colunas, a "
             "cabeça 1 com as seguintes, e assim por diante.",
             resposta=lambda x, n_heads: split_heads(x, n_heads)[::-1]),
        Erro("cabeça transposta",
             lambda x, n_heads: "Cada cabeça saiu transposta, com forma (d_head, n) = "
                                f"{(_formas_dividir(x, n_heads)[2], x.shape[0])}: as colunas de x.reshape(n, n_heads, "
                                "d_head) estão certas, mas a ordem dos eixos ficou (n_heads, d_head, n). Use "
                                ".transpose(1, 0, 2): cada cabeça é uma matriz (n, d_head), um token por linha, como q, "
                                "k e v da atenção.",
             resposta=lambda x, n_heads: split_heads(x, n_heads).transpose(0, 2, 1)),
        Erro("n_heads e d_head trocados",
             lambda x, n_heads: (lambda n, h, d: f"Você trocou n_heads e d_head: o resultado tem {d} 'cabeças' de {h} "
                                                 f"colunas. Com n_heads = {h}, cada cabeça tem d_head = largura / "
                                                 f"n_heads = {h * d} / {h} = {d} colunas.")(*_formas_dividir(x, n_heads)),
             resposta=lambda x, n_heads: x.reshape(x.shape[0], -1, n_heads).transpose(1, 0, 2)),
        Erro("cabeça achatada",
             "Cada cabeça virou uma linha achatada; ela deve ser uma matriz (n, d_head), um token por linha.",
             resposta=lambda x, n_heads: split_heads(x, n_heads).reshape(n_heads, -1)),
        Erro("linhas divididas",
             "Você dividiu as **linhas** (os tokens) entre as cabeças, e não as colunas: cada cabeça deve ver **todos** "
             "os tokens, cada um com só d_head das colunas. Divida o último eixo: x.reshape(n, n_heads, "
             "d_head).transpose(1, 0, 2) (ou np.split(x, n_heads, axis=1)).",
             resposta=lambda x, n_heads: np.stack(np.split(x, n_heads, axis=0)) if x.shape[0] % n_heads == 0 else None),
    ],
    explica_forma=_explica_forma_dividir,
    dica_de_forma="A saída tem forma (n_heads, n, d_head): uma matriz (n, d_head) por cabeça, um token por linha.",
)


@corretor_de(DIVIDIR_CABECAS)
def check_dividir_cabecas(fn: Callable[[np.ndarray, int], Any]) -> bool:
    """Confere ``fn(x, n_heads)``: ``(n, n_heads·d_head)`` → ``(n_heads, n, d_head)``, com a cabeça ``h``
    recebendo as colunas ``h·d_head : (h+1)·d_head`` de cada token.

    Casos: ``x[i, c] = 10·i + c`` (a dezena é o token, a unidade é a coluna) com ``n = 4``, ``n_heads = 2``,
    ``d_head = 3``; ``n = 3``, ``n_heads = 2``, ``d_head = 4``; e ``n = 5``, ``n_heads = 4``, ``d_head = 2``.
    As mensagens mostram a cabeça 0, em que se lê de que token e de que coluna veio cada número. Reconhece
    cada erro de :data:`DIVIDIR_CABECAS`: ``reshape`` direto para ``(n_heads, n, d_head)`` sem transpor
    (mistura tokens), faltou a transposição (forma ``(n, n_heads, d_head)``), colunas intercaladas (a cabeça
    ``h`` com as colunas ``h, h + n_heads, …``), cabeças em ordem invertida, cada cabeça transposta
    ``(d_head, n)``, ``n_heads`` trocado com ``d_head``, cada cabeça achatada numa linha e os tokens (as
    linhas) divididos entre as cabeças.
    """
    return conferir(DIVIDIR_CABECAS, fn)


# --- que key/value cada query usa ----------------------------------------------------------------

#: as configurações ``(n_heads, n_kv_heads)`` do exercício: GQA, GQA com grupos de 2, MHA e MQA
_CONFIGURACOES_KV = ((8, 2), (6, 3), (8, 4), (8, 8), (8, 1))


def _lista(valores: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in valores) + "]"


def _tabela_kv(regra: str, sua: Callable[[int, int, int], float]) -> Callable[..., str]:
    """Uma explicação que termina com a tabela "query h · certo · o que ``regra`` dá" da configuração do caso."""

    def tabela(h: int, n_heads: int, n_kv_heads: int) -> str:
        grupo = n_heads // n_kv_heads
        rotulos = ("query h", "certo", regra)
        largura = max(map(len, rotulos))
        linhas = [list(range(n_heads)), [q // grupo for q in range(n_heads)],
                  [sua(q, n_heads, n_kv_heads) for q in range(n_heads)]]
        return (f"Com n_heads = {n_heads} e n_kv_heads = {n_kv_heads}:\n"
                + "\n".join(f"  {r.ljust(largura)} : {_lista(v)}" for r, v in zip(rotulos, linhas)))

    return tabela


def _erro_kv(nome: str, texto: str, regra: str, sua: Callable[[int, int, int], float]) -> Erro:
    tabela = _tabela_kv(regra, sua)
    return Erro(nome, lambda **e: f"{texto}\n{tabela(**e)}", resposta=sua)


CABECA_KV = Exercicio(
    nome="a key/value de cada query",
    casos=lambda: [
        Caso(f"com n_heads = {n_h}, n_kv_heads = {n_kv} e a query h = {h}", {"h": h, "n_heads": n_h, "n_kv_heads": n_kv})
        for n_h, n_kv in _CONFIGURACOES_KV for h in range(n_h)
    ],
    certo=lambda h, n_heads, n_kv_heads: kv_head_of_query(n_heads, n_kv_heads)[h],
    formato=NumeroDe(o_que="um número inteiro (o índice da cabeça de key/value)"),
    acerto="Correto! A query h usa a key/value h // (n_heads // n_kv_heads): com 8 cabeças de query e 2 de key/value, as "
           "queries 0–3 leem a key/value 0 e as 4–7 a key/value 1. Com n_kv_heads = n_heads cada uma tem a sua (MHA); "
           "com n_kv_heads = 1 todas leem a mesma (MQA).",
    erros=[
        _erro_kv("grupos intercalados (h % n_kv_heads)",
                 "Você usou h % n_kv_heads: os grupos ficaram intercalados (queries 0, 2, 4, … numa key/value e 1, 3, "
                 "5, … na outra). A convenção é de queries **consecutivas**: o grupo g são as queries g·grupo … "
                 "(g+1)·grupo − 1, com grupo = n_heads // n_kv_heads; o índice é h // grupo.",
                 "h % n_kv_heads", lambda h, n_heads, n_kv_heads: h % n_kv_heads),
        _erro_kv("dividiu por n_kv_heads",
                 "Você dividiu h pelo número de cabeças de key/value (h // n_kv_heads). O divisor é o **tamanho do "
                 "grupo**, quantas queries compartilham cada key/value: grupo = n_heads // n_kv_heads, e a resposta é "
                 "h // grupo (nunca passa de n_kv_heads − 1).",
                 "h // n_kv_heads", lambda h, n_heads, n_kv_heads: h // n_kv_heads),
        _erro_kv("índices a partir de 1",
                 "Os índices começam em 1; em Python (e aqui) a primeira cabeça de key/value é a 0: use h // grupo.",
                 "h // grupo + 1", lambda h, n_heads, n_kv_heads: h // (n_heads // n_kv_heads) + 1),
        _erro_kv("divisão comum",
                 "Você usou a divisão comum (h / grupo), que dá frações como 0,25 e 0,5. O índice de uma cabeça é "
                 "inteiro: use a divisão inteira, h // grupo, que joga fora o resto.",
                 "h / grupo", lambda h, n_heads, n_kv_heads: h / (n_heads // n_kv_heads)),
        _erro_kv("tamanho do grupo no lugar do índice",
                 "Você devolveu o tamanho do grupo (n_heads // n_kv_heads), que é o mesmo para todas as queries. "
                 "Queremos o **índice** da cabeça de key/value da query h: h // grupo.",
                 "n_heads // n_kv_heads", lambda h, n_heads, n_kv_heads: n_heads // n_kv_heads),
    ],
)


@corretor_de(CABECA_KV)
def check_cabeca_kv(fn: Callable[[int, int, int], Any]) -> bool:
    """Confere ``fn(h, n_heads, n_kv_heads)`` = a cabeça de key/value usada pela query ``h`` na atenção
    com keys/values agrupadas (GQA): ``h // (n_heads // n_kv_heads)``, grupos de queries **consecutivas**.

    Casos: cada query ``h`` (uma chamada por caso) de ``(n_heads, n_kv_heads)`` = ``(8, 2)``, ``(6, 3)``,
    ``(8, 4)``, ``(8, 8)`` (MHA) e ``(8, 1)`` (MQA). A resposta pode ser ``int``, ``float`` inteiro ou um
    inteiro do numpy. Reconhece cada erro de :data:`CABECA_KV` (com a tabela query → key/value certa e a
    que o erro dá): ``h % n_kv_heads`` (grupos intercalados), ``h // n_kv_heads`` (dividiu pelo número de
    cabeças de key/value em vez do tamanho do grupo), índices começando em 1, a divisão comum (frações) e
    o tamanho do grupo no lugar do índice.
    """
    return conferir(CABECA_KV, fn)


# --- a memória do KV cache -----------------------------------------------------------------------


def _kv_certo(n_tokens: int, n_layers: int, n_heads: int, n_kv_heads: int, d_head: int, bytes_per_value: int) -> int:
    return kv_cache_bytes(n_tokens, n_layers, n_kv_heads, d_head, bytes_per_value)


def _kv_vezes(fator: Callable[..., float]) -> Callable[..., float]:
    """A resposta de um erro que multiplica a memória certa por ``fator(**entradas)``."""
    return lambda **c: _kv_certo(**c) * fator(**c)


_BYTES = {1: "1 byte = 8 bits", 2: "2 bytes = 16 bits", 4: "4 bytes = 32 bits"}

#: a configuração do notebook: 32 camadas, 32 cabeças de query e 8 de key/value com d_head = 128, fp16, 4096 tokens
_KV_NOTEBOOK = {"n_tokens": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8, "d_head": 128, "bytes_per_value": 2}


def _acerto_kv() -> str:
    c = _KV_NOTEBOOK
    escolha, mha = _kv_certo(**c), _kv_certo(**{**c, "n_kv_heads": c["n_heads"]})
    return (f"Correto! 2 · n_layers · n_kv_heads · n_tokens · d_head · bytes_per_value — n_heads não entra, as queries "
            f"não são guardadas. Na configuração do notebook: 2 · {c['n_layers']} · {c['n_kv_heads']} · "
            f"{c['n_tokens']} · {c['d_head']} · {c['bytes_per_value']} = {milhares(escolha)} bytes = "
            f"{bytes_legiveis(escolha)} (a MHA, com {c['n_heads']} cabeças de key/value, precisaria de {bytes_legiveis(mha)}).")


MEMORIA_KV = Exercicio(
    nome="a memória do KV cache",
    casos=lambda: [
        # pequena: n_heads / n_kv_heads = 6 e 3 camadas, para que cada erro dê um número diferente
        Caso("numa configuração pequena (1000 tokens, 3 camadas, 12 cabeças de query, 2 de key/value, d_head = 64, int8 = 1 "
             "byte)", {"n_tokens": 1000, "n_layers": 3, "n_heads": 12, "n_kv_heads": 2, "d_head": 64,
                       "bytes_per_value": 1}),
        Caso("na configuração do notebook (4096 tokens, 32 camadas, 32 cabeças de query, 8 de key/value, d_head = 128, fp16 = "
             "2 bytes)", dict(_KV_NOTEBOOK)),
        # em fp32, esquecer os bytes (÷4) não se confunde com esquecer o fator 2 (÷2)
        Caso("numa configuração MQA em fp32 (512 tokens, 4 camadas, 16 cabeças de query, 1 de key/value, d_head = 32, 4 bytes)",
             {"n_tokens": 512, "n_layers": 4, "n_heads": 16, "n_kv_heads": 1, "d_head": 32, "bytes_per_value": 4}),
    ],
    certo=_kv_certo,
    formato=Bytes(),
    acerto=_acerto_kv,
    erros=[
        Erro("sem o fator 2",
             "Faltou o fator 2: o cache guarda **duas** coisas por token, a key **e** o value.",
             resposta=_kv_vezes(lambda **c: 1 / 2)),
        Erro("n_heads no lugar de n_kv_heads",
             "Você usou n_heads (as cabeças de query) no lugar de n_kv_heads. O cache só guarda keys e values, e com "
             "GQA há n_kv_heads delas; as queries não são guardadas.",
             resposta=_kv_vezes(lambda n_heads, n_kv_heads, **_: n_heads / n_kv_heads)),
        Erro("n_heads e sem o fator 2",
             "Dois erros: usou n_heads no lugar de n_kv_heads (o cache só guarda keys e values) e esqueceu o fator 2 "
             "(key **e** value).",
             resposta=_kv_vezes(lambda n_heads, n_kv_heads, **_: n_heads / n_kv_heads / 2)),
        Erro("bits em vez de bytes",
             lambda bytes_per_value, **_: "Você contou bits, não bytes: multiplicou por 8, mas bytes_per_value já diz "
                                          "quantos **bytes** ocupa cada número (aqui "
                                          f"{_BYTES.get(bytes_per_value, f'{bytes_per_value} bytes')}). A resposta é "
                                          "em bytes: use bytes_per_value como veio.",
             resposta=_kv_vezes(lambda **c: 8)),
        Erro("bits e sem o fator 2",
             "Dois erros: contou bits em vez de bytes (não multiplique por 8: bytes_per_value já está em bytes) e "
             "esqueceu o fator 2 (key **e** value).",
             resposta=_kv_vezes(lambda **c: 4)),
        Erro("n_heads e bits",
             "Dois erros: usou n_heads no lugar de n_kv_heads (as queries não são guardadas) e contou bits em vez de "
             "bytes.",
             resposta=_kv_vezes(lambda n_heads, n_kv_heads, **_: 8 * n_heads / n_kv_heads)),
        Erro("dividiu por 8",
             lambda bytes_per_value, **_: "Você dividiu por 8, como se a precisão viesse em bits: bytes_per_value já "
                                          "vem em **bytes** (aqui "
                                          f"{_BYTES.get(bytes_per_value, f'{bytes_per_value} bytes')}), e o resultado "
                                          "ficou 8 vezes menor. Não há conversão a fazer.",
             resposta=_kv_vezes(lambda **c: 1 / 8)),
        Erro("sem as camadas",
             "Faltaram as camadas: cada uma das n_layers camadas guarda as suas próprias keys e values.",
             resposta=_kv_vezes(lambda n_layers, **_: 1 / n_layers)),
        Erro("sem os bytes",
             "Você contou **números**, não bytes: multiplique por bytes_per_value (2 em fp16/bf16, 4 em fp32, 1 em "
             "int8).",
             resposta=_kv_vezes(lambda bytes_per_value, **_: 1 / bytes_per_value)),
        Erro("em GiB",
             "A resposta deve estar em **bytes**; você devolveu GiB (dividiu por 2³⁰). Converta só na hora de mostrar.",
             resposta=_kv_vezes(lambda **c: 2.0**-30)),
        Erro("em MiB",
             "A resposta deve estar em **bytes**; você devolveu MiB (dividiu por 2²⁰). Converta só na hora de mostrar.",
             resposta=_kv_vezes(lambda **c: 2.0**-20)),
        Erro("em GB",
             "A resposta deve estar em **bytes**; você devolveu GB (dividiu por 10⁹). Converta só na hora de mostrar.",
             resposta=_kv_vezes(lambda **c: 1e-9)),
    ],
)


@corretor_de(MEMORIA_KV)
def check_memoria_kv(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value)`` = bytes do KV cache,
    ``2 · n_layers · n_kv_heads · n_tokens · d_head · bytes_per_value`` (os nomes são os de
    :func:`helpers.attention.kv_cache_bytes`, que dá a resposta certa; ``n_heads`` não entra na conta).

    Casos: uma configuração pequena em que cada erro dá um número diferente (``n_heads / n_kv_heads = 6``,
    3 camadas, 1 byte), a configuração do notebook (32 camadas, 32 cabeças de query, 8 de key/value, ``d_head`` 128,
    fp16, 4096 tokens) e uma MQA em fp32. Reconhece cada erro de :data:`MEMORIA_KV`: faltou o fator 2
    (K **e** V), ``n_heads`` no lugar de ``n_kv_heads``, bits em vez de bytes (multiplicou por 8) ou a
    precisão tomada por bits (dividiu por 8), as combinações desses erros, faltaram as camadas, faltaram
    os bytes por número, e a resposta em GiB, MiB ou GB.
    """
    return conferir(MEMORIA_KV, fn)


# --- gerar com o KV cache, com keys/values agrupadas (GQA) -----------------------------------------


def _gerar_gqa(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int, n_kv_heads: int, *,
               softmax_de: Callable[[np.ndarray], np.ndarray] | None = None, grupo_de: str = "h // grupo",
               causal: bool = True, escala: str = "d_head", ver_a_si: bool = True, so_o_ultimo: bool = False
               ) -> np.ndarray | None:
    """A geração passo a passo com um cache de keys/values agrupadas, com um "defeito" escolhido (para
    construir os erros clássicos). Devolve ``(n, n_heads·d_head)``: as saídas das cabeças, juntas."""
    X = np.asarray(X)
    n = X.shape[0]
    d_head = W_q.shape[1] // n_heads
    grupo = n_heads // n_kv_heads
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    fator = {"d_head": 1 / math.sqrt(d_head), "d_model": 1 / math.sqrt(W_q.shape[1]), "nenhuma": 1.0}[escala]
    if softmax_de is None:
        def softmax_de(z: np.ndarray) -> np.ndarray:
            e = np.exp(z - z.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
    saidas = np.zeros((n, n_heads * d_head), dtype=np.result_type(Q, float))
    for t in range(n):
        fim = t + 1 if ver_a_si else t
        if not causal:
            fim = n
        if fim == 0:
            saidas[t] = np.nan
            continue
        ini = t if so_o_ultimo else 0
        cab = [h // grupo if grupo_de == "h // grupo" else h % n_kv_heads for h in range(n_heads)]
        q = Q[t].reshape(n_heads, d_head)                                     # (n_heads, d_head)
        k = K[ini:fim].reshape(fim - ini, n_kv_heads, d_head)[:, cab]         # (passos, n_heads, d_head)
        v = V[ini:fim].reshape(fim - ini, n_kv_heads, d_head)[:, cab]
        pesos = softmax_de(np.einsum("hd,jhd->hj", q, k) * fator)           # (n_heads, passos): todas as cabeças
        saidas[t] = np.einsum("hj,jhd->hd", pesos, v).reshape(-1)
    return saidas


def _casos_gerar_gqa() -> list[Caso]:
    rng = np.random.default_rng(8)
    casos = []
    for n, d_model, n_h, n_kv, d_head, ganho, tipo, descricao in (
        (5, 8, 4, 2, 2, 1.0, float, "com 5 tokens, 4 cabeças de query e 2 de key/value (d_head = 2)"),
        (6, 6, 6, 3, 2, 1.0, float, "com 6 tokens, 6 cabeças de query e 3 de key/value (grupos de 2)"),
        (4, 8, 4, 1, 2, 1.0, float, "com 4 tokens e MQA: 4 cabeças de query e 1 de key/value"),
        (4, 4, 2, 2, 2, 1.0, float, "com 4 tokens e MHA: 2 cabeças de query e 2 de key/value"),
        (5, 8, 4, 2, 2, 40.0, float, "com escores na casa dos milhares (embeddings 40 vezes maiores)"),
        (5, 8, 4, 2, 2, 12.0, np.float32, "com a entrada em float32 e escores na casa das centenas"),
    ):
        X = (ganho * rng.normal(size=(n, d_model))).astype(tipo)
        W_q = rng.normal(size=(d_model, n_h * d_head)).astype(tipo)
        W_k = rng.normal(size=(d_model, n_kv * d_head)).astype(tipo)
        W_v = rng.normal(size=(d_model, n_kv * d_head)).astype(tipo)
        casos.append(Caso(descricao, {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "n_heads": n_h,
                                      "n_kv_heads": n_kv}))
    return casos


def _gerar_certo(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int,
                 n_kv_heads: int) -> np.ndarray:
    largura = W_q.shape[1]
    X, W_q, W_k, W_v = (np.asarray(a, dtype=float) for a in (X, W_q, W_k, W_v))
    saida, _ = multi_head_attention(X, X, W_q, W_k, W_v, np.eye(largura), n_heads, n_kv_heads=n_kv_heads,
                                    causal=True)
    return saida


def _sem_ver_a_si(y: Any, certo: np.ndarray, caso: Caso) -> bool:
    """As linhas 1… batem com a atenção que só vê os tokens **anteriores** (a linha 0 não tem o que ver)."""
    arr = np.asarray(y, dtype=float)
    errada = _gerar_gqa(**{k: np.asarray(v, dtype=float) if isinstance(v, np.ndarray) else v
                           for k, v in caso.entradas.items()}, ver_a_si=False)
    return arr.shape == certo.shape and bool(np.allclose(arr[1:], errada[1:], rtol=1e-5, atol=1e-6))


def _gerar_com(**opcoes: Any) -> Callable[..., np.ndarray | None]:
    def errada(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, n_heads: int,
               n_kv_heads: int) -> np.ndarray | None:
        return _gerar_gqa(*(np.asarray(a, dtype=float) for a in (X, W_q, W_k, W_v)), n_heads, n_kv_heads, **opcoes)
    return errada


def _instavel_gqa(trocar: Callable[[np.ndarray], np.ndarray], X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray,
                  W_v: np.ndarray, n_heads: int, n_kv_heads: int) -> np.ndarray | None:
    # na dtype de entrada (o float32 estoura em e^89, não em e^710)
    return _gerar_gqa(X, W_q, W_k, W_v, n_heads, n_kv_heads, softmax_de=trocar)


def _erros_estabilidade_gqa() -> list[Erro]:
    from .softmax import erros_de_estabilidade

    return erros_de_estabilidade(_instavel_gqa)


GERAR_GQA = Exercicio(
    nome="gerar com o KV cache (GQA)",
    casos=_casos_gerar_gqa,
    certo=_gerar_certo,
    formato=Array(tol=1e-4),  # a conta em float32 (o caso em float32) erra na quinta casa
    acerto="Correto! Passo a passo, só com o token novo e o cache, você reproduziu a atenção causal inteira com "
           "keys/values agrupadas — e o cache guardou só n_kv_heads cabeças de key/value por token, não n_heads.",
    erros=[
        Erro("grupos intercalados (h % n_kv_heads)",
             "A query h leu a cabeça de key/value h % n_kv_heads: os grupos ficaram intercalados. A convenção são "
             "grupos de queries **consecutivas**: a query h usa a cabeça de key/value h // (n_heads // n_kv_heads).",
             resposta=_gerar_com(grupo_de="h % n_kv_heads")),
        Erro("olhou o futuro (sem a máscara causal)",
             "No passo t a query olhou para as keys de **todos** os tokens, inclusive os que ainda não foram gerados. "
             "Na geração, o cache do passo t só tem os tokens 0 … t: a query do token t olha para eles e para "
             "nenhum outro.",
             resposta=_gerar_com(causal=False)),
        Erro("o token não se vê (cache atualizado depois)",
             "A query do token t olhou só para os tokens **anteriores**: você pôs a key e o value do token t no "
             "cache depois de calcular a atenção. Guarde primeiro a key e o value do token novo e só então faça a "
             "query dele olhar para o cache (que já o inclui).",
             quando=_sem_ver_a_si),
        Erro("só o último token no cache",
             "Cada saída ficou igual ao value do próprio token: o cache guardou só a key/value do passo atual "
             "(sobrescrito a cada passo?). O cache **cresce**: acrescente a key e o value do token novo aos que já "
             "estavam lá.",
             resposta=_gerar_com(so_o_ultimo=True)),
        Erro("sem escala",
             "Faltou dividir os escores por √d_head antes da softmax.",
             resposta=_gerar_com(escala="nenhuma")),
        Erro("escala com a largura toda",
             "A escala de cada cabeça é 1/√d_head, não 1/√(n_heads·d_head): os escores de uma cabeça são produtos "
             "escalares de vetores com d_head coordenadas.",
             resposta=_gerar_com(escala="d_model")),
        *_erros_estabilidade_gqa(),
    ],
    dica_de_forma="A saída tem uma linha por token, com as cabeças lado a lado: forma (n, n_heads·d_head) — junte as "
                  "saídas das cabeças de cada passo com np.concatenate (a cabeça 0 primeiro).",
)


@corretor_de(GERAR_GQA)
def check_gerar_gqa(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v, n_heads, n_kv_heads)``: a geração passo a passo com um KV cache de
    keys/values agrupadas. Devolve ``(n, n_heads·d_head)`` (as saídas das cabeças lado a lado, sem ``W_o``),
    que deve ser igual à atenção causal de uma vez (:func:`helpers.attention.multi_head_attention` com
    ``causal=True``, ``n_kv_heads`` e ``W_o`` identidade).

    Casos: GQA 4/2 e 6/3, MQA e MHA, mais o padrão de estabilidade (escores na casa dos milhares e
    entrada em float32). Reconhece cada erro de :data:`GERAR_GQA`.
    """
    return conferir(GERAR_GQA, fn)


# --- prever: o KV cache da MHA com o dobro de cabeças ------------------------------------------------


PREVISAO_CACHE_CABECAS = Previsao(
    nome="o cache com o dobro de cabeças",
    certo=lambda: kv_cache_bytes(4096, 32, 64, 64, 2) / kv_cache_bytes(4096, 32, 32, 128, 2),
    revelar="Na MHA o cache guarda, por token e por camada, n_heads · d_head = d_model números de key e outros "
            "tantos de value. Com d_model = 4096 fixo, 64 cabeças têm d_head = 64: o dobro de cabeças, cada uma "
            "com a metade do tamanho — o cache não muda (2 GiB nos dois casos, com 4096 tokens).",
    formato=NumeroAproximado(2),
    erros=[
        Erro("mais cabeças, mais cache",
             "Você contou o dobro de cabeças, mas esqueceu que, com d_model fixo, cada cabeça fica com a metade "
             "das colunas (d_head = d_model / n_heads).",
             resposta=lambda: 2),
        Erro("só o d_head encolheu",
             "Você viu o d_head cair à metade, mas esqueceu que agora há o dobro de cabeças de key/value para "
             "guardar.",
             resposta=lambda: 0.5),
        Erro("ao quadrado",
             "As cabeças não multiplicam a memória duas vezes: o cache cresce com n_kv_heads · d_head, e esse "
             "produto é d_model na MHA.",
             resposta=lambda: 4),
    ],
)


@corretor_de(PREVISAO_CACHE_CABECAS)
def check_previsao_cache_cabecas(previsao: Any) -> bool:
    """Mostra e confere a previsão: na MHA com ``d_model = 4096`` fixo, passar de 32 para 64 cabeças
    multiplica o KV cache por quanto? (Por 1: ``n_heads · d_head = d_model`` não muda.) Aceita vírgula
    decimal e o arredondamento em duas casas; reconhece cada erro de :data:`PREVISAO_CACHE_CABECAS`."""
    return conferir_previsao(PREVISAO_CACHE_CABECAS, previsao)
