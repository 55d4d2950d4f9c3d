"""4 · Atenção por blocos (``helpers.efficient.blockwise_attention``, que nunca guarda os ``n × n`` pesos) contra a
exata: pico de memória extra de uma chamada (``tracemalloc``, que enxerga o numpy) e tempo, uma cabeça, float64.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import numpy as np

from . import CUMPRE, NAO_CUMPRE, Linha, melhor_de

MEDICAO = "memória por blocos"
META_MEMORIA, META_TEMPO, N_META_MEMORIA = 20.0, 2.0, 16384  # em n = 16384: ≥ 20× menos memória; ≤ 2× o tempo


def pico_extra(f: Callable[[], object]) -> int:
    """Bytes: o maior total alocado durante ``f()`` além do que já estava alocado antes."""
    tracemalloc.start()
    resultado = None
    try:
        base = tracemalloc.get_traced_memory()[0]
        resultado = f()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        del resultado
        tracemalloc.stop()


def _mib(b: float) -> str:
    return f"{b / 2**30:.2f} GiB" if b >= 2**30 else f"{b / 2**20:.1f} MiB"


def medir_blocos(ns: tuple[int, ...] = (4096, 16384), d: int = 64, rodadas: int = 2,
                 n_meta_memoria: int = N_META_MEMORIA, blockwise: Callable | None = None) -> list[Linha]:
    """Uma linha por ``n`` (``blockwise``: outra implementação a medir, em vez da dos helpers)."""
    from helpers.efficient import blockwise_attention

    return [_medir_n(blockwise or blockwise_attention, n, d, rodadas, n_meta_memoria) for n in ns]


def _medir_n(blockwise: Callable, n: int, d: int, rodadas: int, n_meta_memoria: int) -> Linha:
    from helpers.attention import scaled_dot_product_attention

    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    funcoes = {"exata": lambda: scaled_dot_product_attention(q, k, v)[0], "blocos": lambda: blockwise(q, k, v)}
    meta = (f"memória ≤ 1/{META_MEMORIA:g} da exata, " if n >= n_meta_memoria else "") + f"tempo ≤ {META_TEMPO:g}× exata"
    try:
        saida = funcoes["blocos"]()
        erro = float(np.max(np.abs(np.asarray(saida[0] if isinstance(saida, tuple) else saida) - funcoes["exata"]())))
        mem_exata, mem_blocos = pico_extra(funcoes["exata"]), pico_extra(funcoes["blocos"])
        tempos = melhor_de(funcoes, rodadas)
    except Exception as exc:  # relata e segue
        return Linha("4", MEDICAO, f"blockwise_attention · n={n}", f"ERRO: {type(exc).__name__}: {exc}"[:160],
                     meta=meta, veredito=NAO_CUMPRE)
    razao_mem, razao_t = mem_exata / max(mem_blocos, 1), tempos["blocos"] / tempos["exata"]
    ok = razao_t <= META_TEMPO and erro <= 1e-8 and (n < n_meta_memoria or razao_mem >= META_MEMORIA)
    return Linha("4", MEDICAO, f"blockwise_attention · float64 · n={n}, 1 cabeça",
                 f"pico extra {_mib(mem_blocos)} (exata {_mib(mem_exata)}); {tempos['blocos'] * 1000:.0f} ms "
                 f"(exata {tempos['exata'] * 1000:.0f} ms); maior diferença da exata {erro:.1e}",
                 razao=f"memória 1/{razao_mem:.0f} da exata; tempo {razao_t:.2f}× exata", meta=meta,
                 veredito=CUMPRE if ok else NAO_CUMPRE)
