"""A turma (``python -m benchmarks --turma``): para cada N (1, 5, 10, 20, 40), N kernels de uma vez — um por
estudante, como num JupyterHub — rodam o notebook dos painéis e mexem nos sliders como estudantes (rajadas de
teclas com pausas), cada atualização cronometrada **no kernel**, da hora marcada para a tecla à figura pronta.
Só o que se mede nesta máquina (latência, CPU e memória, por ``psutil``); servidores maiores são uma nota em
``docs/turma.md``, não uma conta daqui.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import RAIZ, aviso, carga, fora_do_laco, gravar_na_pagina, linha_maquina, mediana_p95, relatorio, tabela

PASTA = RAIZ / "notebooks"
NOTEBOOK = "05_soma_ponderada.ipynb"
NS, NS_RAPIDO = (1, 5, 10, 20, 40), (1, 2)
META_P95_MS = 100.0
RESERVA_GIB = 2.0  # para o sistema, o hub e o proxy
INTERVALO_S, RAJADA, PAUSA_S = 0.15, 8, (1.0, 3.0)  # uma seta a cada 150 ms, 8 por rajada, 1 a 3 s de pausa
DURACAO_S, DURACAO_RAPIDA_S = 30.0, 3.0
MARCA = "@@benchmarks.turma@@"


def paineis_no_espaco(espaco: dict[str, Any]) -> list[tuple[str, Any]]:
    """Os painéis em ``espaco`` (o espaço de nomes do kernel e as saídas em ``Out``), uma vez cada: todo objeto
    com um dicionário ``controles`` de widgets e um método ``atualizar()``, seja qual for a classe."""
    import ipywidgets as W

    saidas = espaco.get("Out") if isinstance(espaco.get("Out"), dict) else {}
    candidatos = [(n, o) for n, o in espaco.items() if not n.startswith("_")] + [(f"Out[{n}]", o) for n, o in saidas.items()]
    achados: dict[int, tuple[str, Any]] = {}
    for nome, obj in candidatos:
        controles = None if isinstance(obj, type) else getattr(obj, "controles", None)
        if isinstance(controles, dict) and controles and callable(getattr(obj, "atualizar", None)) and all(
                isinstance(c, W.Widget) and hasattr(c, "value") for c in controles.values()):
            achados.setdefault(id(obj), (nome, obj))
    return list(achados.values())


def _plano(semente: int, duracao_s: float) -> list[tuple[float, int]]:
    """Os instantes (s desde o início) de cada tecla e a rajada a que pertence."""
    rng = random.Random(semente)
    t, rajada, plano = rng.uniform(0.0, min(PAUSA_S[1], duracao_s / 3)), 0, []  # cada um começa num instante
    while t < duracao_s:
        plano += [(t + i * INTERVALO_S, rajada) for i in range(RAJADA) if t + i * INTERVALO_S < duracao_s]
        t += RAJADA * INTERVALO_S + rng.uniform(*PAUSA_S)
        rajada += 1
    return plano


def sessao(espaco: dict[str, Any], inicio_epoch: float, duracao_s: float, semente: int) -> dict[str, Any]:
    """Move os sliders dos painéis de ``espaco`` como um estudante (roda no kernel): cada rajada escolhe um
    controle ao acaso e o move tecla a tecla pela faixa. Latência = do instante marcado para a tecla ao
    fim da atualização (inclui a espera quando a anterior ainda não tinha terminado)."""
    from .latencia import movimentos

    rng = random.Random(semente + 1)
    paineis = paineis_no_espaco(espaco)
    acoes = [(f"{n}.{nc}", c, lista) for n, p in paineis for nc, c in p.controles.items()
             if (lista := movimentos(c, 30))]
    resultado: dict[str, Any] = {"pid": os.getpid(), "paineis": [n for n, _ in paineis], "latencias_ms": [],
                                 "erros": [] if acoes else ["nenhum painel com controles que o benchmark saiba mover"]}
    if not acoes:
        return resultado
    posicao = dict.fromkeys((nome for nome, _, _ in acoes), 0)
    rajada_atual, escolhido = -1, acoes[0]
    time.sleep(max(0.0, inicio_epoch - time.time()))
    base = time.perf_counter()
    for instante, rajada in _plano(semente, duracao_s):
        if rajada != rajada_atual:
            rajada_atual, escolhido = rajada, rng.choice(acoes)
        nome, controle, lista = escolhido
        time.sleep(max(0.0, base + instante - time.perf_counter()))
        antes = controle.value
        try:
            lista[posicao[nome] % len(lista)]()
        except Exception as exc:  # relata e segue com o próximo controle
            resultado["erros"].append(f"{nome}: {type(exc).__name__}: {exc}"[:200])
            continue
        posicao[nome] += 1
        if controle.value != antes:  # no fim da faixa a tecla não muda nada: nada a cronometrar
            resultado["latencias_ms"].append((time.perf_counter() - (base + instante)) * 1000)
    return resultado


#: sockets IPC: com dezenas de kernels subindo juntos, portas TCP sorteadas podem colidir
_SOCKETS = tempfile.mkdtemp(prefix="turma-")


def memoria(pid: int) -> dict[str, float]:
    """RSS e PSS (as páginas compartilhadas divididas entre quem as usa) em MiB, ou ``{}`` sem o processo."""
    import psutil

    try:
        m = psutil.Process(pid).memory_full_info()
    except psutil.Error:
        return {}
    return {"rss": m.rss / 2**20, "pss": getattr(m, "pss", m.rss) / 2**20}  # sem PSS (fora do Linux): o RSS


class Kernel:
    """Um kernel de estudante: sobe com a raiz do repositório no ``PYTHONPATH`` (a sessão vem daqui)."""

    def __init__(self) -> None:
        from jupyter_client.manager import AsyncKernelManager

        ipc = {"transport": "ipc", "ip": os.path.join(_SOCKETS, uuid.uuid4().hex[:12])} if os.name == "posix" else {}
        self.km, self.kc, self.pid, self.erro = AsyncKernelManager(kernel_name="python3", **ipc), None, 0, ""

    async def subir(self) -> Kernel:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(RAIZ), os.environ.get("PYTHONPATH")]))}
        env.pop("MPLBACKEND", None)
        await self.km.start_kernel(cwd=str(PASTA), env=env, stderr=subprocess.DEVNULL)
        self.kc = self.km.client()
        self.kc.start_channels()
        await self.kc.wait_for_ready(timeout=300)
        self.pid = int(await self.executar("import os; print(os.getpid())"))
        return self

    async def executar(self, codigo: str, timeout: float = 600) -> str:
        """Roda ``codigo``; devolve o stdout; um erro na célula vira ``RuntimeError``."""
        saida: list[str] = []

        def gancho(msg: dict) -> None:
            if msg["msg_type"] == "stream" and msg["content"].get("name") == "stdout":
                saida.append(msg["content"]["text"])

        conteudo = (await self.kc.execute_interactive(codigo, output_hook=gancho, timeout=timeout))["content"]
        if conteudo.get("status") != "ok":
            raise RuntimeError(f"{conteudo.get('ename')}: {conteudo.get('evalue')}"[:300])
        return "".join(saida)

    async def run_all(self, celulas: list[str]) -> float:
        """Segundos para rodar ``celulas``, uma depois da outra (um erro vai para ``self.erro``)."""
        inicio = time.perf_counter()
        try:
            for codigo in celulas:
                await self.executar(codigo)
        except Exception as exc:
            self.erro = f"Run All: {exc}"[:300]
        return time.perf_counter() - inicio

    async def desligar(self) -> None:
        if self.kc is not None:
            self.kc.stop_channels()
        await self.km.shutdown_kernel(now=True)


@dataclass
class Rodada:
    """O que uma rodada com ``n`` estudantes mediu (tempos em s, latências em ms, memória em MiB)."""

    n: int
    run_all_s: list[float]
    latencias_ms: list[float]
    pss_mb: list[float]
    cpu_ocupada: float  # fração dos núcleos ocupada durante os sliders, a máquina inteira
    cpu_kernels: float  # fração dos núcleos usada pelos kernels da turma
    carga: str = ""
    erros: list[str] = field(default_factory=list)


async def _rodada(n: int, celulas: list[str], duracao_s: float) -> Rodada:
    import psutil

    aviso(f"  N={n}: {n} kernels, Run All de {NOTEBOOK} e sliders por {duracao_s:.0f} s …")
    kernels = [Kernel() for _ in range(n)]
    try:
        await asyncio.gather(*(k.subir() for k in kernels))
        run_all = await asyncio.gather(*(k.run_all(celulas) for k in kernels))
        inicio_epoch = time.time() + 2.0  # todos começam juntos, daqui a 2 s
        codigo = (f"import json, benchmarks.turma as t\nprint(t.MARCA + json.dumps(t.sessao(get_ipython().user_ns, "
                  f"{inicio_epoch!r}, {duracao_s!r}, {{}})))")
        processos = [psutil.Process(k.pid) for k in kernels]
        await asyncio.sleep(max(0.0, inicio_epoch - time.time()))
        psutil.cpu_percent()  # zera a contagem da máquina
        cpu_antes, relogio = [sum(p.cpu_times()[:2]) for p in processos], time.perf_counter()
        saidas = await asyncio.gather(*(k.executar(codigo.format(1000 + i), duracao_s + 600)
                                        for i, k in enumerate(kernels)), return_exceptions=True)
        relogio = time.perf_counter() - relogio
        cpu_kernels = sum(sum(p.cpu_times()[:2]) - a for p, a in zip(processos, cpu_antes, strict=True))
        sessoes = [json.loads(s.split(MARCA, 1)[1]) for s in saidas if isinstance(s, str) and MARCA in s]
        return Rodada(
            n=n, run_all_s=[t for t, k in zip(run_all, kernels, strict=True) if not k.erro],
            latencias_ms=[x for s in sessoes for x in s["latencias_ms"]],
            pss_mb=[m["pss"] for k in kernels if (m := memoria(k.pid))],
            cpu_ocupada=psutil.cpu_percent() / 100, cpu_kernels=cpu_kernels / relogio / psutil.cpu_count(),
            carga=carga(), erros=[k.erro for k in kernels if k.erro]
            + [f"sliders: {s}" for s in saidas if not isinstance(s, str)] + [e for s in sessoes for e in s["erros"]])
    finally:
        await asyncio.gather(*(k.desligar() for k in kernels), return_exceptions=True)


def medir_turma(ns: tuple[int, ...] = NS, duracao_s: float = DURACAO_S) -> list[Rodada]:
    """Uma :class:`Rodada` por N (N = 1 primeiro: a referência das razões)."""
    import nbformat

    celulas = [c.source for c in nbformat.read(PASTA / NOTEBOOK, as_version=4).cells if c.cell_type == "code"]
    rodadas = []
    for n in ns:
        rodadas.append(fora_do_laco(asyncio.run, _rodada(n, celulas, duracao_s)))
        time.sleep(2.0)  # os kernels da rodada anterior terminam de sair
    return rodadas


def memoria_do_servidor() -> dict[str, float]:
    """A memória do servidor JupyterLab ocioso de um estudante (além dos kernels), depois de servir ``/lab`` uma vez."""
    import urllib.request

    import psutil

    sys.path.insert(0, str(RAIZ / "tests" / "browser"))
    import _servidores

    with tempfile.TemporaryDirectory() as tmp, _servidores.jupyterlab(Path(tmp)) as servidor:
        urllib.request.urlopen(f"{servidor.url}/lab", timeout=60).read()
        time.sleep(1.0)
        lab = [p for p in psutil.Process().children() if "jupyterlab" in " ".join(p.cmdline())]
        return memoria(lab[0].pid) if lab else {}


def capacidade_medida(rodadas: list[Rodada]) -> tuple[float, bool]:
    """O maior N com p95 ≤ :data:`META_P95_MS`, interpolado entre os N medidos, e se todos cumprem ("pelo menos")."""
    pontos = [(r.n, mediana_p95(r.latencias_ms)[1]) for r in rodadas if r.latencias_ms]
    anterior = (0, 0.0)
    for n, p95 in pontos:
        if p95 > META_P95_MS:
            (n0, p0) = anterior
            return (n0 + (n - n0) * (META_P95_MS - p0) / (p95 - p0) if n0 else 0.0), False
        anterior = (n, p95)
    return float(anterior[0]), True


def tabela_rodadas(rodadas: list[Rodada]) -> str:
    """Uma linha por N: latências, CPU, memória e tempos, com as razões sobre N = 1."""
    def med(xs: list[float]) -> float:
        return statistics.median(xs) if xs else float("nan")

    ref_p95, ref_run = (mediana_p95(rodadas[0].latencias_ms)[1], med(rodadas[0].run_all_s)) if rodadas else (1, 1)
    linhas = []
    for r in rodadas:
        mediana, p95 = mediana_p95(r.latencias_ms)
        ok = not r.erros and p95 <= META_P95_MS
        linhas.append((
            str(r.n), f"{mediana:.0f} ms", f"{p95:.0f} ms ({p95 / ref_p95:.1f}×)",
            f"{100 * r.cpu_ocupada:.0f}% ({100 * r.cpu_kernels:.0f}% kernels)", f"{med(r.pss_mb):.0f} MiB",
            f"{med(r.run_all_s):.1f} s ({med(r.run_all_s) / ref_run:.1f}×)", r.carga,
            ("✅" if ok else "❌") + (f" ({len(r.erros)} erros: {r.erros[0][:80]})" if r.erros else "")))
    return tabela(("estudantes", "atualização: mediana", "p95 (÷ N=1)", "CPU ocupada", "PSS por kernel",
                   "Run All (÷ N=1)", "carga no fim", f"p95 ≤ {META_P95_MS:.0f} ms"), linhas)


def executar(rapido: bool = False, readme: bool = False) -> str:
    """Mede tudo, devolve o relatório e, com ``readme``, grava o trecho da turma em docs/turma.md."""
    import psutil

    carga_inicio, inicio = carga(), time.perf_counter()
    aviso("turma · 1/2 · o servidor JupyterLab de um estudante …")
    servidor = memoria_do_servidor()
    ns, duracao = (NS_RAPIDO, DURACAO_RAPIDA_S) if rapido else (NS, DURACAO_S)
    aviso(f"turma · 2/2 · N = {', '.join(map(str, ns))} estudantes ao mesmo tempo …")
    rodadas = medir_turma(ns, duracao)
    n_cpu, cumprem = capacidade_medida(rodadas)
    por_estudante = max((statistics.median(r.pss_mb) for r in rodadas if r.pss_mb), default=0.0) + servidor.get("pss", 0)
    memoria_gib = psutil.virtual_memory().total / 2**30
    texto = relatorio(
        "turma", maquina=linha_maquina(), carga_inicio=carga_inicio, carga_fim=carga(), notebook=NOTEBOOK,
        minutos=f"{(time.perf_counter() - inicio) / 60:.1f}", tabela=tabela_rodadas(rodadas),
        cabem_cpu=("pelo menos " if cumprem else "cerca de ") + f"{n_cpu:.0f}", nucleos=psutil.cpu_count(),
        memoria=f"{memoria_gib:.0f}", por_estudante=f"{por_estudante:.0f}", servidor=f"{servidor.get('pss', 0):.0f}",
        cabem_memoria=f"{(memoria_gib - RESERVA_GIB) * 1024 // max(por_estudante, 1):.0f}", reserva=f"{RESERVA_GIB:g}")
    if readme:
        gravar_na_pagina(texto, RAIZ / "docs" / "turma.md", "turma")
        aviso("docs/turma.md: trecho da turma atualizado")
    return texto
