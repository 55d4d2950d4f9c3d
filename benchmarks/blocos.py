"""4 · Atenção por blocos: memória e tempo de ``helpers.efficient.blockwise_attention``.

A atenção por blocos calcula a mesma saída que a atenção exata, bloco de keys por bloco de keys, com
um softmax "online" (máximo e soma corrigidos a cada bloco): nunca guarda a matriz ``n × n`` de pesos.
Aqui se mede, para uma cabeça (``d = 64``, float64) em ``n = 4096`` e ``16384``:

- o **pico de memória extra** de uma chamada (``tracemalloc``, que enxerga as alocações do numpy),
  da atenção por blocos e da exata (``helpers.attention.scaled_dot_product_attention``);
- o **tempo** das duas, melhor de ``k`` rodadas intercaladas, sem o ``tracemalloc`` ligado.

Enquanto ``helpers/efficient.py`` (ou a função) não existir, a linha diz "não construído ainda".
"""

from __future__ import annotations

import importlib
import tracemalloc
from collections.abc import Callable

import numpy as np

from . import CUMPRE, NAO_CUMPRE, PENDENTE, Linha, melhor_de

MEDICAO = "memória por blocos"
META_MEMORIA = 20.0  # a exata usa pelo menos 20× mais memória extra (em n = 16384)
META_TEMPO = 2.0  # no máximo 2× o tempo da exata
N_META_MEMORIA = 16384
NOTA = (
    "4 · Uma cabeça, d = 64, float64. Pico de memória extra = maior memória alocada durante a chamada "
    "(tracemalloc), que inclui a saída; tempo = melhor de k rodadas intercaladas, sem tracemalloc. "
    "A referência é scaled_dot_product_attention (exata, guarda os n × n pesos)."
)
NOTA_PENDENTE = (
    "4 · Quando helpers/efficient.py ganhar blockwise_attention(q, k, v), esta linha passa a medir, com uma "
    "cabeça (d = 64, float64) em n = 4096 e 16384, o pico de memória extra (tracemalloc) e o tempo contra a "
    "atenção exata."
)


def encontrar() -> tuple[Callable | None, str]:
    """``(blockwise_attention, "")`` se existir; senão ``(None, motivo)``."""
    try:
        modulo = importlib.import_module("helpers.efficient")
    except ModuleNotFoundError as exc:
        if exc.name not in ("helpers.efficient", "helpers"):
            raise  # o módulo existe mas importa algo que falta: isso é um erro de verdade
        return None, "helpers/efficient.py não existe"
    f = getattr(modulo, "blockwise_attention", None)
    if f is None:
        return None, "helpers.efficient não tem blockwise_attention"
    return f, ""


def _saida(resultado: object) -> np.ndarray:
    return np.asarray(resultado[0] if isinstance(resultado, tuple) else resultado)


def pico_extra(f: Callable[[], object]) -> int:
    """Bytes: o maior total alocado durante ``f()`` além do que já estava alocado antes."""
    ligado_antes = tracemalloc.is_tracing()
    if not ligado_antes:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        resultado = f()
        pico = tracemalloc.get_traced_memory()[1] - base
        del resultado
    finally:
        if not ligado_antes:
            tracemalloc.stop()
    return pico


def _mib(b: float) -> str:
    return f"{b / 2**30:.2f} GiB" if b >= 2**30 else f"{b / 2**20:.1f} MiB"


def medir_blocos(ns: tuple[int, ...] = (4096, 16384), d: int = 64, rodadas: int = 2,
                 n_meta_memoria: int = N_META_MEMORIA) -> list[Linha]:
    """Uma linha por ``n`` (ou uma linha "não construído ainda")."""
    blockwise, motivo = encontrar()
    meta = f"memória ≤ 1/{META_MEMORIA:g} da exata (n={n_meta_memoria}), tempo ≤ {META_TEMPO:g}× exata"
    if blockwise is None:
        return [Linha("4", MEDICAO, "blockwise_attention", f"não construído ainda ({motivo})", meta=meta,
                      veredito=PENDENTE, nota=NOTA_PENDENTE)]
    return [_medir_n(blockwise, n, d, rodadas, n_meta_memoria, meta) for n in ns]


def _medir_n(blockwise: Callable, n: int, d: int, rodadas: int, n_meta_memoria: int, meta: str) -> Linha:
    from helpers.attention import scaled_dot_product_attention

    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))

    def exata() -> object:
        return scaled_dot_product_attention(q, k, v)

    def blocos() -> object:
        return blockwise(q, k, v)

    try:
        erro = float(np.max(np.abs(_saida(blocos()) - _saida(exata()))))
        mem_exata, mem_blocos = pico_extra(exata), pico_extra(blocos)
        tempos = melhor_de({"exata": exata, "blocos": blocos}, rodadas)
    except Exception as exc:  # relata e segue
        return Linha("4", MEDICAO, f"blockwise_attention · n={n}", f"ERRO: {type(exc).__name__}: {exc}"[:160],
                     meta=meta, veredito=NAO_CUMPRE)
    razao_mem = mem_exata / max(mem_blocos, 1)
    razao_t = tempos["blocos"] / tempos["exata"]
    ok = razao_t <= META_TEMPO and erro <= 1e-8
    if n >= n_meta_memoria:
        ok = ok and razao_mem >= META_MEMORIA
    else:
        meta = f"tempo ≤ {META_TEMPO:g}× exata (memória: informativa)"
    return Linha(
        "4", MEDICAO, f"blockwise_attention · float64 · n={n}, 1 cabeça",
        f"pico extra {_mib(mem_blocos)} (exata {_mib(mem_exata)}); {tempos['blocos'] * 1000:.0f} ms "
        f"(exata {tempos['exata'] * 1000:.0f} ms); maior diferença da exata {erro:.1e}",
        razao=f"memória 1/{razao_mem:.0f} da exata; tempo {razao_t:.2f}× exata",
        meta=meta, veredito=CUMPRE if ok else NAO_CUMPRE, nota=NOTA,
    )
