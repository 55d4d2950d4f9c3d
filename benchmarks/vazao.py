"""3 · Vazão da atenção: GFLOP/s de ``helpers.attention`` contra o teto do numpy — as mesmas multiplicações de
matrizes pelo ``@``, medidas na mesma execução (razão = tempo do teto ÷ tempo da função). FLOPs: ``4·n²·d`` por
cabeça (``QKᵀ`` e ``PV``; o softmax não conta); várias cabeças (``D = H·d_head``): mais ``8·n·D²`` das projeções.
O caminho rápido (``helpers._fast``, o que ``multi_head_attention`` usa) é medido na mesma execução, e a sua
linha diz quantas vezes ele é mais rápido que a referência: é o que justifica ele existir.
"""

from __future__ import annotations

import math

import numpy as np

from . import CUMPRE, INFORMATIVO, NAO_CUMPRE, Linha, melhor_de

MEDICAO = "vazão da atenção"
MINIMO_S, META_RAZAO, N_META = 4.0, 0.5, 1024  # cada caso medido por ≥ 4 s; a meta vale para n ≥ 1024


def flops_atencao(n: int, d_head: int, n_heads: int) -> float:
    return 4.0 * n * n * d_head * n_heads


def flops_multi_head(n: int, d_head: int, n_heads: int) -> float:
    return 8.0 * n * (n_heads * d_head) ** 2 + 4.0 * n * n * n_heads * d_head


def medir_caso(n: int, dtype: type, n_heads: int = 8, d_head: int = 64, rodadas: int | None = None) -> list[Linha]:
    """As linhas de ``scaled_dot_product_attention`` e ``multi_head_attention`` para um ``n`` e um tipo."""
    from helpers._fast import fast_scaled_dot_product_attention
    from helpers.attention import multi_head_attention, scaled_dot_product_attention

    rng, largura = np.random.default_rng(0), n_heads * d_head
    q, k, v = (rng.standard_normal((n_heads, n, d_head)).astype(dtype) for _ in range(3))
    kt = np.swapaxes(k, -1, -2)
    w = np.ascontiguousarray(scaled_dot_product_attention(q, k, v)[1])  # pesos de verdade para o teto de PV
    x = rng.standard_normal((n, largura)).astype(dtype)
    wq, wk, wv, wo = (rng.standard_normal((largura, largura)).astype(dtype) / math.sqrt(largura) for _ in range(4))
    k_rodadas = rodadas or (30 if n <= 256 else 15 if n <= 1024 else 8 if np.dtype(dtype).itemsize <= 4 else 5)
    t = melhor_de({"qk": lambda: q @ kt, "pv": lambda: w @ v, "proj": lambda: x @ wq,
                   "sdpa": lambda: scaled_dot_product_attention(q, k, v),
                   "rapido": lambda: fast_scaled_dot_product_attention(q, k, v),
                   "mha": lambda: multi_head_attention(x, x, wq, wk, wv, wo, n_heads)},
                  k_rodadas, minimo_s=0.0 if rodadas else MINIMO_S)
    linhas = []
    for nome, flops, tempo, teto in (
            ("scaled_dot_product_attention", flops_atencao(n, d_head, n_heads), t["sdpa"], t["qk"] + t["pv"]),
            ("multi_head_attention", flops_multi_head(n, d_head, n_heads), t["mha"], t["qk"] + t["pv"] + 4 * t["proj"])):
        razao = round(teto / tempo, 2)  # o veredito julga o número que a tabela mostra
        linhas.append(Linha(
            "3", MEDICAO, f"{nome} · {np.dtype(dtype).name} · n={n}",
            f"{flops / tempo / 1e9:.1f} GFLOP/s ({tempo * 1000:.1f} ms; {flops / 1e9:.2f} GFLOP)",
            razao=f"{razao:.2f}× teto ({flops / teto / 1e9:.1f} GFLOP/s)",
            meta=f"≥ {META_RAZAO:g}× teto" if n >= N_META else f"— (a meta é para n ≥ {N_META})",
            veredito=(CUMPRE if razao >= META_RAZAO else NAO_CUMPRE) if n >= N_META else INFORMATIVO))
    ganho = t["sdpa"] / t["rapido"]
    linhas.insert(1, Linha(
        "3", MEDICAO, f"caminho rápido (helpers._fast) · {np.dtype(dtype).name} · n={n}",
        f"{flops_atencao(n, d_head, n_heads) / t['rapido'] / 1e9:.1f} GFLOP/s ({t['rapido'] * 1000:.1f} ms)",
        razao=f"{ganho:.2f}× a velocidade da referência", meta="— (informativo)", veredito=INFORMATIVO))
    return linhas


def medir_vazao(ns: tuple[int, ...] = (256, 1024, 4096), tipos: tuple[type, ...] = (np.float32, np.float64),
                n_heads: int = 8, d_head: int = 64, rodadas: int | None = None) -> list[Linha]:
    """Para cada tipo e ``n``, as duas funções e o caminho rápido."""
    return [lin for dtype in tipos for n in ns for lin in medir_caso(n, dtype, n_heads, d_head, rodadas)]
