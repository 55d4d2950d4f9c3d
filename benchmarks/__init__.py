"""Medições de desempenho (``python -m benchmarks``) e o que elas compartilham: a :class:`Linha`, a tabela, o
relatório (um modelo de ``modelos/`` gravado entre marcadores de uma página de ``docs/``) e os cronômetros.
"""

from __future__ import annotations

import asyncio
import platform
import statistics
import string
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import astuple, dataclass
from datetime import date
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
MODELOS = Path(__file__).resolve().parent / "modelos"
CUMPRE, NAO_CUMPRE, INFORMATIVO = "✅", "❌", "—"
COLUNAS = ("#", "medição", "caso", "resultado", "razão", "meta", "")


@dataclass
class Linha:
    """Uma linha: seção ("1" a "5"), caso, números, razão medida na mesma execução, meta e veredito."""

    secao: str
    medicao: str
    caso: str
    resultado: str
    razao: str = ""
    meta: str = ""
    veredito: str = INFORMATIVO

    def celulas(self) -> tuple[str, ...]:
        return astuple(self)


def aviso(texto: str) -> None:
    """O progresso vai para o stderr (a tabela, para o stdout)."""
    print(texto, file=sys.stderr, flush=True)


def tabela(colunas: Sequence[str], linhas: Sequence[Sequence[str]]) -> str:
    """Uma tabela em Markdown com as colunas alinhadas (lê-se bem no terminal e no GitHub)."""
    corpo = [[str(c).replace("|", "\\|") for c in linha] for linha in linhas]
    larguras = [max(len(str(col)), *(len(c[i]) for c in corpo)) for i, col in enumerate(colunas)]

    def fmt(celulas: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(celulas, larguras, strict=True)) + " |"

    return "\n".join([fmt(colunas), "|" + "|".join("-" * (w + 2) for w in larguras) + "|", *map(fmt, corpo)])


def tabela_markdown(linhas: Sequence[Linha]) -> str:
    return tabela(COLUNAS, [linha.celulas() for linha in linhas])


def resumo_metas(linhas: Sequence[Linha]) -> str:
    """Uma frase: quantas metas foram cumpridas e quais não."""
    com_meta = [lin for lin in linhas if lin.veredito in (CUMPRE, NAO_CUMPRE)]
    falhas = [f"{lin.secao} · {lin.caso}" for lin in com_meta if lin.veredito == NAO_CUMPRE]
    return f"metas cumpridas: {len(com_meta) - len(falhas)} de {len(com_meta)}" + (
        "; não cumpridas: " + "; ".join(falhas) if falhas else "")


def carga() -> str:
    """A carga média do sistema agora (1 min / 5 min; o psutil a imita onde o sistema não a tem)."""
    import psutil

    return "{:.1f} / {:.1f}".format(*psutil.getloadavg()[:2])


def linha_maquina() -> str:
    """CPUs, memória, Python, numpy e a BLAS que o numpy usa de fato (threadpoolctl), numa linha."""
    import numpy as np
    import psutil
    from threadpoolctl import threadpool_info

    blas = "; ".join(f"{i.get('internal_api')} {i.get('version')}, núcleo {i.get('architecture')}, {i.get('num_threads')} "
                     "threads" for i in threadpool_info() if i.get("user_api") == "blas")
    return (f"máquina: {psutil.cpu_count()} CPUs ({platform.machine()}), {psutil.virtual_memory().total / 2**30:.0f} GB · "
            f"Python {platform.python_version()} · numpy {np.__version__} · BLAS: {blas or 'desconhecida'}")


def relatorio(modelo: str, **campos: object) -> str:
    """O modelo ``modelos/<modelo>.md`` preenchido (``$campo``) com a data de hoje e ``campos``."""
    texto = (MODELOS / f"{modelo}.md").read_text(encoding="utf-8")
    return string.Template(texto).substitute(data=date.today().isoformat(), **campos).strip() + "\n"


def gravar_na_pagina(conteudo: str, caminho: Path, marca: str) -> None:
    """Troca só o que está entre ``<!-- marca:inicio -->`` e ``<!-- marca:fim -->`` em ``caminho``."""
    inicio, fim = f"<!-- {marca}:inicio -->", f"<!-- {marca}:fim -->"
    texto = caminho.read_text(encoding="utf-8")
    if texto.count(inicio) != 1 or texto.count(fim) != 1:
        raise SystemExit(f"{caminho.name} precisa ter os marcadores {inicio} e {fim}, uma vez cada")
    antes, resto = texto.split(inicio, 1)
    caminho.write_text(f"{antes}{inicio}\n{conteudo.strip()}\n{fim}{resto.split(fim, 1)[1]}", encoding="utf-8")


def fora_do_laco(f: Callable[..., object], *args: object) -> object:
    """``f(*args)``, num fio próprio se este fio já tem um laço asyncio rodando (um notebook, os testes de
    navegador), onde ``asyncio.run`` e ``sync_playwright`` se recusam a rodar."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return f(*args)
    with ThreadPoolExecutor(max_workers=1) as fio:
        return fio.submit(f, *args).result()


def melhor_de(funcoes: dict[str, Callable[[], object]], k: int, minimo_s: float = 0.0,
              maximo_rodadas: int = 1000) -> dict[str, float]:
    """O menor tempo (s) de cada função em ``k`` rodadas intercaladas (A, B, A, B…: o ruído cai igualmente sobre
    todas), ou mais, até somar ``minimo_s`` (no máximo ``maximo_rodadas``)."""
    melhores = dict.fromkeys(funcoes, float("inf"))
    inicio, rodada = time.perf_counter(), 0
    while rodada < k or (time.perf_counter() - inicio < minimo_s and rodada < maximo_rodadas):
        for nome, f in funcoes.items():
            t0 = time.perf_counter()
            resultado = f()
            melhores[nome] = min(melhores[nome], time.perf_counter() - t0)
            del resultado
        rodada += 1
    return melhores


def mediana_p95(amostras_ms: Sequence[float]) -> tuple[float, float]:
    """Mediana e percentil 95 (interpolação linear) de uma lista de tempos (``nan`` sem amostras)."""
    if len(amostras_ms) < 2:
        return (float(amostras_ms[0]),) * 2 if amostras_ms else (float("nan"), float("nan"))
    return statistics.median(amostras_ms), statistics.quantiles(amostras_ms, n=20, method="inclusive")[18]
