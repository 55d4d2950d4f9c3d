"""3 · Vazão da atenção: GFLOP/s de ``helpers.attention`` contra o teto do próprio numpy.

FLOPs: atenção = ``4·n²·d`` por cabeça (``2·n²·d`` em ``QKᵀ`` e em ``PV``; o softmax não conta); várias
cabeças (autoatenção, ``D = H·d_head``) = ``8·n·D²`` das quatro projeções + ``4·n²·D``. O **teto** são as
mesmas multiplicações de matrizes pelo ``@`` do numpy, mesmas formas e tipo, medidas na mesma execução;
razão = tempo do teto ÷ tempo da função (1.0: a atenção custaria só as suas multiplicações). Melhor de
``k`` rodadas intercaladas. Uma versão com laços de Python puro mostra a distância até o numpy.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import CUMPRE, INFORMATIVO, NAO_CUMPRE, Linha, melhor_de

MEDICAO = "vazão da atenção"
MINIMO_S, META_RAZAO, N_META = 4.0, 0.5, 1024  # cada caso medido por ≥ 4 s; a meta vale para n ≥ 1024
NOTA = ("3 · Teto = as mesmas multiplicações de matrizes com o `@` do numpy, na mesma execução; razão = tempo do "
        "teto ÷ tempo da função, melhor de k rodadas intercaladas (≥ 4 s por caso); multi-head com D = 8 × 64. Acima "
        "de 1 é ruído (a função faz o que o teto faz e mais o softmax); abaixo de 0.5, o softmax sobre a matriz "
        "n × n (cinco passadas pela memória, que o BLAS não acelera) pesa, e pesa mais com os núcleos divididos.")


def flops_atencao(n: int, d_head: int, n_heads: int) -> float:
    return 4.0 * n * n * d_head * n_heads


def flops_multi_head(n: int, d_head: int, n_heads: int) -> float:
    return 8.0 * n * (n_heads * d_head) ** 2 + 4.0 * n * n * n_heads * d_head


def atencao_ingenua(q: list[list[float]], k: list[list[float]], v: list[list[float]]) -> list[list[float]]:
    """``softmax(q kᵀ/√d) v`` com laços de Python, como se escreve à mão (uma cabeça, listas)."""
    escala = 1.0 / math.sqrt(len(q[0]))
    saida = []
    for qi in q:
        escores = [sum(a * b for a, b in zip(qi, kj, strict=True)) * escala for kj in k]
        m = max(escores)
        pesos = [math.exp(s - m) for s in escores]
        total = sum(pesos)
        saida.append([sum(p * vj[t] for p, vj in zip(pesos, v, strict=True)) / total for t in range(len(v[0]))])
    return saida


def medir_caso(n: int, dtype: type, n_heads: int = 8, d_head: int = 64, rodadas: int | None = None) -> list[Linha]:
    """As linhas de ``scaled_dot_product_attention`` e ``multi_head_attention`` para um ``n`` e um tipo."""
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
            veredito=(CUMPRE if razao >= META_RAZAO else NAO_CUMPRE) if n >= N_META else INFORMATIVO, nota=NOTA))
    return linhas


def medir_ingenua(n: int = 256, d_head: int = 64, rodadas: int = 5) -> Linha:
    """A versão com laços de Python contra o teto e contra ``scaled_dot_product_attention`` (uma cabeça, float64)."""
    from helpers.attention import scaled_dot_product_attention

    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((n, d_head)) for _ in range(3))
    kt = np.ascontiguousarray(k.T)
    saida_ref, w = scaled_dot_product_attention(q, k, v)
    inicio = time.perf_counter()
    saida = atencao_ingenua(q.tolist(), k.tolist(), v.tolist())
    t_ingenua = time.perf_counter() - inicio
    if not np.allclose(saida, saida_ref, rtol=1e-9, atol=1e-12):
        raise AssertionError("a versão ingênua não confere com scaled_dot_product_attention")
    t = melhor_de({"qk": lambda: q @ kt, "pv": lambda: w @ v, "sdpa": lambda: scaled_dot_product_attention(q, k, v)},
                  rodadas)
    flops, teto = flops_atencao(n, d_head, 1), t["qk"] + t["pv"]
    return Linha("3", MEDICAO, f"laços de Python (ingênua) · float64 · n={n}, 1 cabeça",
                 f"{flops / t_ingenua / 1e9:.3f} GFLOP/s ({t_ingenua * 1000:.0f} ms); "
                 f"{t_ingenua / t['sdpa']:.0f}× mais lenta que scaled_dot_product_attention",
                 razao=f"{teto / t_ingenua:.5f}× teto ({flops / teto / 1e9:.1f} GFLOP/s)",
                 meta="— (para mostrar a distância)", veredito=INFORMATIVO, nota=NOTA)


def medir_vazao(ns: tuple[int, ...] = (256, 1024, 4096), tipos: tuple[type, ...] = (np.float32, np.float64),
                n_heads: int = 8, d_head: int = 64, n_ingenua: int | None = 256, rodadas: int | None = None) -> list[Linha]:
    """Para cada tipo e ``n``, as duas funções; depois a versão ingênua."""
    linhas = [lin for dtype in tipos for n in ns for lin in medir_caso(n, dtype, n_heads, d_head, rodadas)]
    return linhas + ([medir_ingenua(n_ingenua)] if n_ingenua else [])
