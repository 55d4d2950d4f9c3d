"""Notebook ``multi_head``: o painel das cabeças — cabeças de query e de key/value (MHA, GQA, MQA), com as
opções de ``n_kv_heads`` acompanhando ``n_heads``, e a memória do KV cache.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as W

from ... import plots
from ...attention import kv_cache_bytes, kv_head_of_query
from ...formato import bytes_legiveis, milhares
from ...paineis import Painel, tabela
from .figuras import FiguraCabecas

__all__ = ["CONTEXTOS_CABECAS", "PRECISOES_CABECAS", "divisores", "painel_cabecas"]


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

    return _PainelCabecas(fig, controles, calcular, titulo="Várias cabeças: quem compartilha keys/values e quanto o KV "
                          "cache ocupa", animados=figura.animados(),
                          lentos=figura.lentos())
