"""1 · Latência dos sliders no Python: quanto um painel demora para reagir a um movimento.

Cria cada ``painel_*`` das lições sem argumentos e move cada controle por ~30 valores (sliders do mínimo
ao máximo, todas as opções de uma escolha, caixas liga-desliga), cronometrando em volta do
``controle.value = …``: observador, contas, redesenho e PNG. A razão é sobre redesenhar a figura inteira e
codificá-la (``plots.png``): abaixo de 1, o ganho do *blitting* de :class:`helpers.paineis.Painel`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from . import CUMPRE, NAO_CUMPRE, Linha, mediana_p95

MEDICAO, META_MEDIANA_MS, META_P95_MS = "latência do slider", 50.0, 100.0


def movimentos(controle: Any, n: int) -> list[Callable[[], None]] | None:
    """Até ``n`` ações que mudam ``controle`` (cada uma dispara uma atualização), ou ``None`` se o controle não
    for de um tipo que o benchmark sabe mover (texto, botão…)."""
    import ipywidgets as W

    valor = controle.value
    if isinstance(valor, bool):  # Checkbox, ToggleButton: liga e desliga
        return [lambda: setattr(controle, "value", not controle.value)] * n
    if getattr(controle, "options", None) is not None and hasattr(controle, "index"):  # escolhas: sempre outra
        total, faixa = len(controle.options), isinstance(controle.index, tuple)  # SelectionRangeSlider: (0, i)
        atual = controle.index[1] if faixa else controle.index
        indices = [(atual + 1 + j) % total for j in range(n)] if total >= 2 else []
        return [partial(setattr, controle, "index", (0, i) if faixa else i) for i in indices]
    if hasattr(controle, "min") and hasattr(controle, "max"):  # sliders (também de faixa e logarítmicos)
        lo, hi, passo = controle.min, controle.max, getattr(controle, "step", None)
        xs = [lo + round((x - lo) / passo) * passo if passo else x for x in np.linspace(lo, hi, n).tolist()]
        if isinstance(controle, W.FloatLogSlider):
            xs = [controle.base ** x for x in xs]
        else:
            xs = [int(round(x)) if isinstance(lo, int) and isinstance(hi, int) else x for x in (min(max(x, lo), hi) for x in xs)]
        return [partial(setattr, controle, "value", (lo, x) if isinstance(valor, tuple) else x) for x in xs]
    return None


def _desenho_completo_ms(fig: Any) -> float:
    """ms de redesenhar a figura inteira e codificar o PNG (``plots.png``), sem perturbar o painel: as marcas
    de "mudou" dos artistas voltam a ser o que eram."""
    from helpers import plots

    marcas = [(a, a.stale) for a in fig.findobj()]
    inicio = time.perf_counter()
    plots.png(fig)
    ms = (time.perf_counter() - inicio) * 1000
    for artista, marca in marcas:
        artista.stale = marca
    return ms


def medir_painel(nome: str, fabrica: Callable[[], Any], n_movimentos: int = 30) -> Linha:
    """Cria o painel, move cada controle ``n_movimentos`` vezes e devolve a linha da tabela."""
    meta = f"mediana ≤ {META_MEDIANA_MS:.0f} ms, p95 ≤ {META_P95_MS:.0f} ms"
    amostras, amostras_cpu, pisos, por_controle, ignorados, erro = [], [], [], {}, [], ""
    try:
        painel = fabrica()
        for nome_controle, controle in painel.controles.items():
            acoes = movimentos(controle, n_movimentos)
            if acoes is None:
                ignorados.append(nome_controle)
                continue
            original, tempos = controle.value, []
            for acao in acoes:
                tempo_antes, estado_antes = painel.ultimo_tempo_ms, painel.estado
                inicio, inicio_cpu = time.perf_counter(), time.process_time()
                acao()
                dt, dt_cpu = (time.perf_counter() - inicio) * 1000, (time.process_time() - inicio_cpu) * 1000
                if painel.ultimo_tempo_ms != tempo_antes or painel.estado is not estado_antes:  # houve atualização
                    tempos.append(dt)
                    amostras_cpu.append(min(dt, dt_cpu))
                    if len(tempos) % 3 == 1:  # o desenho completo, intercalado com os movimentos (mesmo ruído)
                        pisos.append(_desenho_completo_ms(painel.fig))
            with contextlib.suppress(Exception):  # o original fora da faixa nova de um controle dependente
                controle.value = original
            if tempos:
                por_controle[nome_controle] = float(np.median(tempos))
            amostras += tempos
    except Exception as exc:  # o benchmark relata o erro e segue para o próximo painel
        erro = f"ERRO: {type(exc).__name__}: {exc}"[:160]
    if erro or not amostras:
        return Linha("1", MEDICAO, nome, erro or "nenhum controle que o benchmark saiba mover", meta=meta,
                     veredito=NAO_CUMPRE)
    (mediana, p95), (mediana_cpu, p95_cpu) = mediana_p95(amostras), mediana_p95(amostras_cpu)
    piso, pior = float(np.median(pisos)), max(por_controle, key=por_controle.get)
    resultado = (f"mediana {mediana:.0f} ms · p95 {p95:.0f} ms (CPU: {mediana_cpu:.0f} · {p95_cpu:.0f} ms; "
                 f"{len(amostras)} movimentos de {len(por_controle)} controles; mais lento: {pior} "
                 f"{por_controle[pior]:.0f} ms)" + (f"; não movidos: {', '.join(ignorados)}" if ignorados else ""))
    ok = mediana_cpu <= META_MEDIANA_MS and p95_cpu <= META_P95_MS
    return Linha("1", MEDICAO, nome, resultado, razao=f"{mediana / piso:.2f}× completo ({piso:.0f} ms)", meta=meta,
                 veredito=CUMPRE if ok else NAO_CUMPRE)


def medir_latencia(n_movimentos: int = 30) -> list[Linha]:
    """Uma linha por painel."""
    import matplotlib

    from tools.notebooks import paineis

    matplotlib.use("Agg")
    return [medir_painel(nome, f, n_movimentos) for nome, f in paineis().items()]
