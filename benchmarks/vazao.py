"""3 · Vazão da atenção: GFLOP/s de ``helpers.attention`` contra o teto do próprio numpy.

**FLOPs contados.** Atenção (``scaled_dot_product_attention``): ``4·n²·d`` por cabeça — ``2·n²·d`` em
``QKᵀ`` e ``2·n²·d`` em ``PV``; o softmax (máximo, exp, soma, divisão: O(n²), sem multiplicações de
matrizes) não entra na conta. Várias cabeças (``multi_head_attention``, autoatenção, ``D = H·d_head``):
``8·n·D²`` das quatro projeções (W_q, W_k, W_v, W_o) mais ``4·n²·D`` da atenção.

**O teto.** O melhor que um código numpy pode fazer: as mesmas multiplicações de matrizes, com as
mesmas formas e o mesmo tipo, feitas pelo ``@`` do numpy (``q @ kᵀ``, ``w @ v``, ``x @ W``), medidas na
mesma execução. A razão é ``GFLOP/s da função ÷ GFLOP/s do teto`` = ``tempo do teto ÷ tempo da função``:
1.0 seria a atenção custar só as suas multiplicações de matrizes.

Os tempos são o melhor de ``k`` rodadas intercaladas (teto, função, teto, função, …), para que o ruído
de outros processos caia igualmente sobre os dois lados.

Também há uma versão ingênua, com laços de Python puro (listas, sem numpy), em ``n = 256`` e uma
cabeça: é o que os estudantes escreveriam à mão, e mostra a distância até o numpy.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import CUMPRE, INFORMATIVO, NAO_CUMPRE, Linha, melhor_de

MEDICAO = "vazão da atenção"
MINIMO_S = 4.0  # cada caso rápido é medido por pelo menos estes segundos (rodadas espalhadas no tempo)
META_RAZAO = 0.5
N_META = 1024  # a meta vale para n >= 1024
NOTA = (
    "3 · FLOPs: atenção = 4·n²·d_head por cabeça (2·n²·d em QKᵀ + 2·n²·d em PV; o softmax não conta); "
    "multi-head = 8·n·D² (projeções W_q, W_k, W_v, W_o) + 4·n²·D, com D = 8 cabeças × 64 = 512. "
    "Teto = as mesmas multiplicações de matrizes com o `@` do numpy (mesmas formas e tipo), na mesma execução; "
    "razão = tempo do teto ÷ tempo da função; melhor de k rodadas intercaladas (pelo menos 4 s por caso)."
)
NOTA_RUIDO = (
    "3 · Uma razão acima de 1 é ruído: a função faz as mesmas multiplicações que o teto e mais o softmax, então "
    "só passa dele se o teto foi medido com os núcleos ocupados por outros processos; rode de novo."
)
NOTA_FALHA = (
    "3 · Abaixo de 0.5× do teto: além das duas multiplicações de matrizes (que o BLAS faz nos dois núcleos), a "
    "atenção precisa do softmax sobre a matriz n × n inteira (máximo, subtração, exp, soma e divisão: cinco "
    "passadas pela memória, que o BLAS não acelera). Quando outros processos dividem os núcleos, esse trecho "
    "sofre mais que o teto; rode de novo numa máquina parada antes de concluir."
)


def flops_atencao(n: int, d_head: int, n_heads: int) -> float:
    return 4.0 * n * n * d_head * n_heads


def flops_multi_head(n: int, d_head: int, n_heads: int) -> float:
    largura = n_heads * d_head
    return 8.0 * n * largura * largura + 4.0 * n * n * largura


def atencao_ingenua(q: list[list[float]], k: list[list[float]], v: list[list[float]]) -> list[list[float]]:
    """``softmax(q kᵀ/√d) v`` com laços de Python, como se escreve à mão (uma cabeça, listas)."""
    d = len(q[0])
    escala = 1.0 / math.sqrt(d)
    saida = []
    for qi in q:
        escores = []
        for kj in k:
            s = 0.0
            for t in range(d):
                s += qi[t] * kj[t]
            escores.append(s * escala)
        m = max(escores)
        pesos = [math.exp(s - m) for s in escores]
        total = sum(pesos)
        linha = [0.0] * len(v[0])
        for p, vj in zip(pesos, v, strict=True):
            p /= total
            for t in range(len(vj)):
                linha[t] += p * vj[t]
        saida.append(linha)
    return saida


def _rodadas(n: int, dtype: type) -> int:
    if n <= 256:
        return 30
    if n <= 1024:
        return 15
    return 8 if np.dtype(dtype).itemsize <= 4 else 5


def medir_caso(n: int, dtype: type, n_heads: int = 8, d_head: int = 64, rodadas: int | None = None) -> list[Linha]:
    """As linhas de ``scaled_dot_product_attention`` e ``multi_head_attention`` para um ``n`` e um tipo."""
    from helpers.attention import multi_head_attention, scaled_dot_product_attention

    k_rodadas = rodadas or _rodadas(n, dtype)
    rng = np.random.default_rng(0)
    largura = n_heads * d_head
    q, k, v = (rng.standard_normal((n_heads, n, d_head)).astype(dtype) for _ in range(3))
    kt = np.swapaxes(k, -1, -2)
    w = np.ascontiguousarray(scaled_dot_product_attention(q, k, v)[1])  # pesos de verdade para o teto de PV
    x = rng.standard_normal((n, largura)).astype(dtype)
    wq, wk, wv, wo = (rng.standard_normal((largura, largura)).astype(dtype) / math.sqrt(largura) for _ in range(4))

    tempos = melhor_de({
        "qk": lambda: q @ kt,
        "pv": lambda: w @ v,
        "proj": lambda: x @ wq,
        "sdpa": lambda: scaled_dot_product_attention(q, k, v),
        "mha": lambda: multi_head_attention(x, x, wq, wk, wv, wo, n_heads),
    }, k_rodadas, minimo_s=0.0 if rodadas else MINIMO_S)
    teto_atencao = tempos["qk"] + tempos["pv"]
    teto_mha = teto_atencao + 4 * tempos["proj"]
    nome_tipo = np.dtype(dtype).name
    linhas = []
    casos = (("scaled_dot_product_attention", flops_atencao(n, d_head, n_heads), tempos["sdpa"], teto_atencao),
             ("multi_head_attention", flops_multi_head(n, d_head, n_heads), tempos["mha"], teto_mha))
    for nome, flops, t, teto in casos:
        razao = round(teto / t, 2)  # o veredito julga o número que a tabela mostra
        com_meta = n >= N_META
        linhas.append(Linha(
            "3", MEDICAO, f"{nome} · {nome_tipo} · n={n}",
            f"{flops / t / 1e9:.1f} GFLOP/s ({t * 1000:.1f} ms; {flops / 1e9:.2f} GFLOP)",
            razao=f"{razao:.2f}× teto ({flops / teto / 1e9:.1f} GFLOP/s)",
            meta=f"≥ {META_RAZAO:g}× teto" if com_meta else f"— (a meta é para n ≥ {N_META})",
            veredito=(CUMPRE if razao >= META_RAZAO else NAO_CUMPRE) if com_meta else INFORMATIVO,
            nota=NOTA_RUIDO if razao > 1.0 else NOTA if (razao >= META_RAZAO or not com_meta) else NOTA_FALHA,
        ))
    return linhas


def medir_ingenua(n: int = 256, d_head: int = 64, rodadas: int = 5) -> Linha:
    """A versão com laços de Python contra o teto (e contra ``scaled_dot_product_attention``), uma cabeça, float64."""
    from helpers.attention import scaled_dot_product_attention

    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((n, d_head)) for _ in range(3))
    ql, kl, vl = q.tolist(), k.tolist(), v.tolist()
    kt = np.ascontiguousarray(k.T)
    saida_ref, w = scaled_dot_product_attention(q, k, v)
    inicio = time.perf_counter()
    saida = atencao_ingenua(ql, kl, vl)
    t_ingenua = time.perf_counter() - inicio
    if not np.allclose(saida, saida_ref, rtol=1e-9, atol=1e-12):
        raise AssertionError("a versão ingênua não confere com scaled_dot_product_attention")
    tempos = melhor_de({"qk": lambda: q @ kt, "pv": lambda: w @ v,
                        "sdpa": lambda: scaled_dot_product_attention(q, k, v)}, rodadas)
    flops = flops_atencao(n, d_head, 1)
    teto = tempos["qk"] + tempos["pv"]
    return Linha(
        "3", MEDICAO, f"laços de Python (ingênua) · float64 · n={n}, 1 cabeça",
        f"{flops / t_ingenua / 1e9:.3f} GFLOP/s ({t_ingenua * 1000:.0f} ms); "
        f"{t_ingenua / tempos['sdpa']:.0f}× mais lenta que scaled_dot_product_attention",
        razao=f"{teto / t_ingenua:.5f}× teto ({flops / teto / 1e9:.1f} GFLOP/s)",
        meta="— (para mostrar a distância)", veredito=INFORMATIVO, nota=NOTA,
    )


def medir_vazao(ns: tuple[int, ...] = (256, 1024, 4096), tipos: tuple[type, ...] = (np.float32, np.float64),
                n_heads: int = 8, d_head: int = 64, n_ingenua: int | None = 256, rodadas: int | None = None) -> list[Linha]:
    """Todas as linhas da vazão: para cada tipo e ``n``, as duas funções; depois a versão ingênua."""
    linhas = []
    for dtype in tipos:
        for n in ns:
            linhas += medir_caso(n, dtype, n_heads, d_head, rodadas)
    if n_ingenua:
        linhas.append(medir_ingenua(n_ingenua, d_head))
    return linhas
