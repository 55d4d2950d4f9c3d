"""5 · A turma inteira: N estudantes ao mesmo tempo num servidor (``python -m benchmarks --turma``).

Para cada N (1, 5, 10, 20, 40), o benchmark sobe N kernels de uma vez — um por estudante, como num
JupyterHub — e, em todos ao mesmo tempo:

1. **a coleção inteira**: cada estudante roda todos os notebooks, um depois do outro, cada um num
   kernel novo (como ao abrir cada notebook e pedir *Run All*);
2. **Run All**: cada kernel executa as células do mesmo notebook com painéis (o que a turma faz quando
   o instrutor diz "abram o notebook 05");
3. **sliders**: cada kernel move os controles dos seus painéis como um estudante — rajadas de
   teclas (uma seta a cada :data:`INTERVALO_S`), com pausas para olhar a figura — e cronometra, **no
   kernel**, cada atualização, da tecla (a hora marcada para ela) à figura nova pronta: com a CPU
   disputada, uma tecla que chega com o kernel ainda ocupado espera a vez, e essa espera conta.

Os painéis são achados no espaço de nomes do kernel por *duck typing*: todo objeto com um dicionário
``controles`` de ipywidgets e um método ``atualizar()`` (o nome da classe não importa).

Por N, o relatório traz: a latência das atualizações (mediana e p95), a memória de cada kernel (RSS e
PSS, a parte proporcional das páginas compartilhadas), a ocupação da CPU durante os sliders e o tempo
do Run All e da coleção inteira; as razões são sobre N = 1 medido na mesma execução. Daí sai a tabela "quantos estudantes
cabem" (:func:`dimensionamento`), e uma tabela de para onde vai a memória de um kernel
(:func:`memoria_de_um_kernel`).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import fora_do_laco, mediana_p95

RAIZ = Path(__file__).resolve().parent.parent
PASTA = RAIZ / "notebooks"
NOTEBOOK = "05_soma_ponderada.ipynb"
NS = (1, 5, 10, 20, 40)
NS_RAPIDO = (1, 2)
META_P95_MS = 100.0

# --- o estudante -----------------------------------------------------------------------------
#: segundos entre duas teclas numa rajada (uma seta tocada umas 7 vezes por segundo)
INTERVALO_S = 0.15
#: teclas por rajada
RAJADA = 8
#: pausa entre rajadas, em segundos (olhando a figura, lendo o texto): sorteada entre os dois valores
PAUSA_S = (1.0, 3.0)
#: duração da fase de sliders, em segundos (modo rápido: :data:`DURACAO_RAPIDA_S`)
DURACAO_S = 30.0
DURACAO_RAPIDA_S = 3.0

MARCA = "@@benchmarks.turma@@"


# =============================================================================================
# Dentro do kernel
# =============================================================================================


def paineis_no_espaco(espaco: dict[str, Any]) -> list[tuple[str, Any]]:
    """Os painéis em ``espaco`` (o espaço de nomes do kernel, e as saídas guardadas em ``Out``).

    Painel = qualquer objeto com um dicionário ``controles`` não vazio cujos valores são widgets com
    ``value`` e um método ``atualizar()`` — sem depender do nome nem do módulo da classe.
    """
    import ipywidgets as W

    candidatos: list[tuple[str, Any]] = [(n, o) for n, o in espaco.items() if not n.startswith("_")]
    saidas = espaco.get("Out")
    if isinstance(saidas, dict):
        candidatos += [(f"Out[{n}]", o) for n, o in saidas.items()]
    vistos: set[int] = set()
    achados = []
    for nome, obj in candidatos:
        if isinstance(obj, type) or id(obj) in vistos:
            continue
        try:
            controles = getattr(obj, "controles", None)
            atualizar = getattr(obj, "atualizar", None)
        except Exception:  # propriedades que falham ao serem lidas: não é painel
            continue
        if (isinstance(controles, dict) and controles and callable(atualizar)
                and all(isinstance(c, W.Widget) and hasattr(c, "value") for c in controles.values())):
            vistos.add(id(obj))
            achados.append((nome, obj))
    return achados


def _plano(semente: int, duracao_s: float) -> list[tuple[float, int]]:
    """Os instantes (s desde o início) de cada tecla e o número da rajada a que pertence."""
    rng = random.Random(semente)
    t = rng.uniform(0.0, min(PAUSA_S[1], duracao_s / 3))  # os estudantes não começam todos juntos
    plano = []
    rajada = 0
    while t < duracao_s:
        for i in range(RAJADA):
            if t + i * INTERVALO_S >= duracao_s:
                break
            plano.append((t + i * INTERVALO_S, rajada))
        t += RAJADA * INTERVALO_S + rng.uniform(*PAUSA_S)
        rajada += 1
    return plano


def sessao(espaco: dict[str, Any], inicio_epoch: float, duracao_s: float, semente: int) -> dict[str, Any]:
    """Move os sliders dos painéis de ``espaco`` como um estudante e devolve as medidas (roda no kernel).

    Cada rajada escolhe um controle ao acaso e o move tecla a tecla pela faixa dele. A latência de uma
    tecla é do instante marcado para ela até o fim da atualização (inclui a espera quando a anterior
    ainda não tinha terminado).
    """
    from .latencia import movimentos

    rng = random.Random(semente + 1)
    paineis = paineis_no_espaco(espaco)
    acoes: list[tuple[str, Any, list[Callable[[], None]]]] = []
    for nome, painel in paineis:
        for nome_controle, controle in painel.controles.items():
            lista = movimentos(controle, 30)
            if lista:
                acoes.append((f"{nome}.{nome_controle}", controle, lista))
    resultado: dict[str, Any] = {"pid": os.getpid(), "paineis": [n for n, _ in paineis],
                                 "latencias_ms": [], "cpu_ms": [], "erros": []}
    if not acoes:
        resultado["erros"].append("nenhum painel com controles que o benchmark saiba mover")
        return resultado
    posicao = {nome: 0 for nome, _, _ in acoes}
    rajada_atual, escolhido = -1, acoes[0]
    while time.time() < inicio_epoch:
        time.sleep(min(0.01, max(0.0, inicio_epoch - time.time())))
    base = time.perf_counter()
    for instante, rajada in _plano(semente, duracao_s):
        if rajada != rajada_atual:
            rajada_atual, escolhido = rajada, rng.choice(acoes)
        nome, controle, lista = escolhido
        espera = base + instante - time.perf_counter()
        if espera > 0:
            time.sleep(espera)
        antes = controle.value
        cpu0 = time.process_time()
        try:
            lista[posicao[nome] % len(lista)]()
        except Exception as exc:  # relata e segue com o próximo controle
            resultado["erros"].append(f"{nome}: {type(exc).__name__}: {exc}"[:200])
            continue
        fim = time.perf_counter()
        posicao[nome] += 1
        if controle.value == antes:  # a tecla não mudou o valor (fim da faixa): nada a cronometrar
            continue
        resultado["latencias_ms"].append((fim - (base + instante)) * 1000)
        resultado["cpu_ms"].append((time.process_time() - cpu0) * 1000)
    return resultado


def memoria_do_processo(pid: int | str = "self") -> dict[str, float]:
    """RSS, PSS e USS (memória só deste processo) em MiB, de ``/proc/<pid>/smaps_rollup`` (Linux)."""
    campos: dict[str, float] = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for linha in f:
                partes = linha.split()
                if len(partes) >= 2 and partes[0].endswith(":") and partes[1].isdigit():
                    campos[partes[0][:-1]] = int(partes[1]) / 1024
    except OSError:
        return {}
    return {"rss": campos.get("Rss", float("nan")), "pss": campos.get("Pss", float("nan")),
            "uss": campos.get("Private_Clean", 0.0) + campos.get("Private_Dirty", 0.0)}


# =============================================================================================
# Fora do kernel: N estudantes ao mesmo tempo
# =============================================================================================


def celulas_de_codigo(caminho: Path) -> list[str]:
    import nbformat

    nb = nbformat.read(caminho, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def _ambiente_do_kernel() -> dict[str, str]:
    env = dict(os.environ)
    # o kernel importa benchmarks.turma (a sessão) da raiz do repositório
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(RAIZ), env.get("PYTHONPATH", "")]))
    env.pop("MPLBACKEND", None)
    return env


class ErroNoKernel(RuntimeError):
    pass


async def _executar(kc, codigo: str, timeout: float = 600) -> str:
    """Executa ``codigo`` no kernel; devolve o stdout; erro da célula vira :class:`ErroNoKernel`."""
    saida: list[str] = []

    def gancho(msg: dict) -> None:
        if msg["msg_type"] == "stream" and msg["content"].get("name") == "stdout":
            saida.append(msg["content"]["text"])

    resposta = await kc.execute_interactive(codigo, output_hook=gancho, timeout=timeout)
    conteudo = resposta["content"]
    if conteudo.get("status") != "ok":
        raise ErroNoKernel(f"{conteudo.get('ename')}: {conteudo.get('evalue')}"[:300])
    return "".join(saida)


@dataclass
class Estudante:
    km: Any
    kc: Any
    pid: int = 0
    run_all_s: float = float("nan")
    erro: str = ""
    medidas: dict[str, Any] = field(default_factory=dict)


#: pasta dos sockets dos kernels (transporte IPC: com dezenas de kernels subindo juntos, portas TCP
#: sorteadas podem colidir — entre si ou com processos de outras pessoas na máquina)
_SOCKETS = tempfile.mkdtemp(prefix="turma-")


async def _subir(env: dict[str, str]) -> Estudante:
    import uuid

    from jupyter_client.manager import AsyncKernelManager

    if os.name == "posix":
        km = AsyncKernelManager(kernel_name="python3", transport="ipc",
                                ip=os.path.join(_SOCKETS, uuid.uuid4().hex[:12]))
    else:
        km = AsyncKernelManager(kernel_name="python3")
    # o stderr do processo do kernel (avisos do próprio Jupyter) não entra no relatório
    await km.start_kernel(cwd=str(PASTA), env=env, stderr=subprocess.DEVNULL)
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=300)
    return Estudante(km, kc)


async def _run_all(e: Estudante, celulas: list[str]) -> None:
    inicio = time.perf_counter()
    try:
        for codigo in celulas:
            await _executar(e.kc, codigo)
        e.run_all_s = time.perf_counter() - inicio
    except Exception as exc:
        e.erro = f"Run All: {type(exc).__name__}: {exc}"[:300]


async def _sliders(e: Estudante, inicio_epoch: float, duracao_s: float, semente: int) -> None:
    if e.erro:
        return
    codigo = (
        "import json as _json, benchmarks.turma as _turma\n"
        f"print({MARCA!r} + _json.dumps(_turma.sessao(get_ipython().user_ns, {inicio_epoch!r}, "
        f"{duracao_s!r}, {semente!r})))"
    )
    try:
        saida = await _executar(e.kc, codigo, timeout=duracao_s + 600)
        linha = next(x for x in saida.splitlines() if x.startswith(MARCA))
        e.medidas = json.loads(linha[len(MARCA):])
        e.pid = int(e.medidas["pid"])
    except Exception as exc:
        e.erro = f"sliders: {type(exc).__name__}: {exc}"[:300]


async def _desligar(e: Estudante) -> None:
    try:
        e.kc.stop_channels()
        await e.km.shutdown_kernel(now=True)
    except Exception:
        pass


@dataclass
class Rodada:
    """O que uma rodada com ``n`` estudantes mediu."""

    n: int
    subir_s: float
    run_all_s: list[float]
    latencias_ms: list[float]
    cpu_ms: list[float]
    rss_mb: list[float]
    pss_mb: list[float]
    cpu_ocupada: float  # fração dos núcleos (0 a 1) durante os sliders, máquina inteira
    cpu_kernels: float  # fração dos núcleos usada pelos kernels durante os sliders
    carga: str
    erros: list[str]
    colecao_s: list[float] = field(default_factory=list)
    cpu_outros: float = 0.0  # fração dos núcleos usada por outros processos da máquina durante os sliders

    def resumo(self) -> dict[str, float]:
        mediana, p95 = mediana_p95(self.latencias_ms)
        return {"mediana": mediana, "p95": p95,
                "run_all": statistics.median(self.run_all_s) if self.run_all_s else float("nan"),
                "run_all_max": max(self.run_all_s) if self.run_all_s else float("nan"),
                "colecao": statistics.median(self.colecao_s) if self.colecao_s else float("nan"),
                "colecao_max": max(self.colecao_s) if self.colecao_s else float("nan"),
                "rss": statistics.mean(self.rss_mb) if self.rss_mb else float("nan"),
                "pss": statistics.mean(self.pss_mb) if self.pss_mb else float("nan")}


def _carga() -> str:
    try:
        um, cinco, _ = os.getloadavg()
    except (AttributeError, OSError):
        return ""
    return f"{um:.1f} / {cinco:.1f}"


def _tempos_de_cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                campos = f.read().rsplit(")", 1)[1].split()
            total += (int(campos[11]) + int(campos[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


def _cpu_da_maquina() -> tuple[float, float]:
    """(tempo ocupado, tempo total) somados sobre todos os núcleos, de /proc/stat (em tiques)."""
    with open("/proc/stat", encoding="ascii") as f:
        valores = [int(x) for x in f.readline().split()[1:]]
    ocioso = valores[3] + (valores[4] if len(valores) > 4 else 0)
    return sum(valores) - ocioso, sum(valores)


async def _colecao(env: dict[str, str], colecao: list[list[str]]) -> tuple[float, str]:
    """Um estudante roda a coleção inteira, um notebook depois do outro, cada um num kernel novo (como
    ao abrir cada notebook no JupyterLab e rodar tudo). Devolve (segundos, erro ou "")."""
    inicio = time.perf_counter()
    for celulas in colecao:
        try:
            e = await _subir(env)
        except Exception as exc:  # um kernel que não sobe vira um erro relatado; a medição segue
            return time.perf_counter() - inicio, f"coleção: o kernel não subiu: {type(exc).__name__}: {exc}"[:300]
        try:
            await _run_all(e, celulas)
        finally:
            await _desligar(e)
        if e.erro:
            return time.perf_counter() - inicio, f"coleção: {e.erro}"
    return time.perf_counter() - inicio, ""


async def _rodada(n: int, notebook: str, celulas: list[str], colecao: list[list[str]], duracao_s: float,
                  aviso: Callable[[str], None]) -> Rodada:
    env = _ambiente_do_kernel()
    colecao_s: list[float] = []
    erros_colecao: list[str] = []
    if colecao:
        aviso(f"  N={n}: a coleção inteira ({len(colecao)} notebooks) em {n} kernel(s) ao mesmo tempo …")
        for t, erro in await asyncio.gather(*(_colecao(env, colecao) for _ in range(n))):
            if erro:
                erros_colecao.append(erro)
            else:
                colecao_s.append(t)
    inicio = time.perf_counter()
    subidos = await asyncio.gather(*(_subir(env) for _ in range(n)), return_exceptions=True)
    subir_s = time.perf_counter() - inicio
    estudantes = [e for e in subidos if isinstance(e, Estudante)]
    erros_colecao += [f"o kernel não subiu: {type(e).__name__}: {e}"[:300] for e in subidos
                      if not isinstance(e, Estudante)]
    try:
        aviso(f"  N={n}: {n} kernels em {subir_s:.1f} s; Run All de {notebook} em todos …")
        await asyncio.gather(*(_run_all(e, celulas) for e in estudantes))
        # os pids (para a CPU e a memória): uma célula curta em cada kernel
        for e in estudantes:
            if not e.erro:
                e.pid = int((await _executar(e.kc, "import os; print(os.getpid())")).strip())
        pids = [e.pid for e in estudantes if e.pid]
        aviso(f"  N={n}: sliders por {duracao_s:.0f} s …")
        # todos começam no mesmo instante (daqui a 2 s); a CPU é medida desse instante até o último terminar
        inicio_epoch = time.time() + 2.0
        marcas: dict[str, Any] = {}

        async def marcar_inicio() -> None:
            await asyncio.sleep(max(0.0, inicio_epoch - time.time()))
            marcas.update(relogio=time.perf_counter(), kernels=_tempos_de_cpu(pids), maquina=_cpu_da_maquina(),
                          eu=time.process_time())

        await asyncio.gather(marcar_inicio(), *(_sliders(e, inicio_epoch, duracao_s, semente=1000 + i)
                                                for i, e in enumerate(estudantes)))
        relogio = time.perf_counter() - marcas["relogio"]
        maquina_1 = _cpu_da_maquina()
        cpu_kernels = (_tempos_de_cpu(pids) - marcas["kernels"]) / max(relogio, 1e-9) / (os.cpu_count() or 1)
        cpu_ocupada = (maquina_1[0] - marcas["maquina"][0]) / max(maquina_1[1] - marcas["maquina"][1], 1)
        # o que sobra: processos que não são os kernels nem este benchmark (outras pessoas na máquina)
        cpu_eu = (time.process_time() - marcas["eu"]) / max(relogio, 1e-9) / (os.cpu_count() or 1)
        cpu_outros = max(0.0, cpu_ocupada - cpu_kernels - cpu_eu)
        carga = _carga()
        memorias = [memoria_do_processo(pid) for pid in pids]
        return Rodada(
            n=n, subir_s=subir_s,
            run_all_s=[e.run_all_s for e in estudantes if not e.erro], colecao_s=colecao_s,
            latencias_ms=[x for e in estudantes for x in e.medidas.get("latencias_ms", [])],
            cpu_ms=[x for e in estudantes for x in e.medidas.get("cpu_ms", [])],
            rss_mb=[m["rss"] for m in memorias if m], pss_mb=[m["pss"] for m in memorias if m],
            cpu_ocupada=cpu_ocupada, cpu_kernels=cpu_kernels, cpu_outros=cpu_outros, carga=carga,
            erros=erros_colecao + [e.erro for e in estudantes if e.erro]
            + [x for e in estudantes for x in e.medidas.get("erros", [])],
        )
    finally:
        await asyncio.gather(*(_desligar(e) for e in estudantes))


def medir_turma(ns: tuple[int, ...] = NS, duracao_s: float = DURACAO_S, notebook: str = NOTEBOOK,
                colecao: list[Path] | None = None, aviso: Callable[[str], None] = lambda s: None) -> list[Rodada]:
    """Uma :class:`Rodada` por N, na ordem de ``ns`` (N = 1 primeiro: é a referência das razões).

    ``colecao``: os notebooks que cada estudante roda, um depois do outro, antes dos painéis (todos os
    da pasta, se ``None``; nenhum, se ``[]``).
    """
    celulas = celulas_de_codigo(PASTA / notebook)
    arquivos = sorted(PASTA.glob("[0-9][0-9]_*.ipynb")) if colecao is None else colecao
    cels_colecao = [celulas_de_codigo(a) for a in arquivos]
    rodadas = []
    for n in ns:
        rodadas.append(fora_do_laco(asyncio.run, _rodada(n, notebook, celulas, cels_colecao, duracao_s, aviso)))
        time.sleep(2.0)  # os kernels da rodada anterior terminam de sair
    return rodadas


# =============================================================================================
# O servidor do estudante e a memória de um kernel
# =============================================================================================


def memoria_do_servidor(limite_s: float = 120.0) -> dict[str, float]:
    """A memória de um servidor JupyterLab ocioso (o processo que cada estudante tem no hub, além dos
    kernels), com pastas temporárias; depois de servir a página /lab uma vez."""
    import socket

    with tempfile.TemporaryDirectory() as base, socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        porta = s.getsockname()[1]
        s.close()
        env = dict(os.environ)
        for nome in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
            env[nome] = os.path.join(base, nome.lower())
        env.pop("JUPYTER_TOKEN", None)
        comando = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={porta}",
                   "--port-retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
                   f"--ServerApp.root_dir={PASTA}", "--LabApp.news_url=",
                   "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            comando.append("--allow-root")
        processo = subprocess.Popen(comando, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True)
        try:
            fim = time.monotonic() + limite_s
            while time.monotonic() < fim:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{porta}/lab", timeout=5).read()
                    break
                except OSError:
                    time.sleep(0.3)
            else:
                return {}
            for caminho in ("/lab/api/settings", "/lab/api/translations/pt_BR", "/api/contents"):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{porta}{caminho}", timeout=30).read()
                except OSError:
                    pass
            time.sleep(1.0)
            return memoria_do_processo(processo.pid)
        finally:
            processo.terminate()
            try:
                processo.wait(timeout=15)
            except subprocess.TimeoutExpired:
                processo.kill()


#: os passos da medição de memória de um kernel: as bibliotecas, na ordem em que pesam
PASSOS_DE_MEMORIA: list[tuple[str, str]] = [
    ("kernel ocioso (Python, IPython, ipykernel)", "pass"),
    ("+ import numpy", "import numpy"),
    ("+ matplotlib sem pyplot (Figure e o backend Agg)", "import matplotlib.figure, matplotlib.backends.backend_agg"),
    ("+ import ipywidgets", "import ipywidgets"),
    ("+ import matplotlib.pyplot (backend inline)", "import matplotlib.pyplot"),
]


def modulos_de_helpers() -> list[str]:
    """Os módulos do pacote ``helpers`` (pelos arquivos, sem importar nada), em ordem alfabética."""
    pasta = RAIZ / "helpers"
    nomes = []
    for arquivo in sorted(pasta.rglob("*.py")):
        partes = arquivo.relative_to(RAIZ).with_suffix("").parts
        if partes[-1] == "__init__":
            partes = partes[:-1]
        nomes.append(".".join(partes))
    return sorted(set(nomes))


def passos_de_memoria() -> list[tuple[str, str]]:
    """As bibliotecas e, depois delas, cada módulo de ``helpers`` (o que cada um custa a mais)."""
    return PASSOS_DE_MEMORIA + [(f"+ import {m}", f"import {m}") for m in modulos_de_helpers() if m != "helpers"]


#: no kernel: o buffer do Agg (bytes) e o PNG guardado de cada painel
_CODIGO_FIGURAS = """
import json as _json, benchmarks.turma as _turma
_figs = []
for _nome, _p in _turma.paineis_no_espaco(get_ipython().user_ns):
    _f = getattr(_p, 'fig', None)
    _buf = 0
    try:
        _buf = _f.canvas.get_renderer().buffer_rgba().nbytes
    except Exception:
        pass
    _png = len(getattr(getattr(_p, 'imagem', None), 'value', b'') or b'')
    _figs.append([_nome, _buf, _png])
print(_turma.MARCA + _json.dumps(_figs))
"""


def memoria_de_um_kernel(notebook: str = NOTEBOOK) -> list[tuple[str, dict[str, float]]]:
    """A memória de um kernel, passo a passo: cada import da coleção, o Run All do notebook, os
    sliders, e o que sobra sem os painéis. Devolve ``[(passo, {"rss", "pss", "uss"}), …]`` e, no fim,
    o passo ``"figuras"`` com o buffer do Agg e o PNG de cada painel (em MiB)."""

    async def medir() -> list[tuple[str, dict[str, float]]]:
        e = await _subir(_ambiente_do_kernel())
        try:
            pid = int((await _executar(e.kc, "import os; print(os.getpid())")).strip())
            passos = []
            for descricao, codigo in passos_de_memoria():
                try:
                    await _executar(e.kc, codigo)
                except ErroNoKernel as exc:  # um módulo que não importa sozinho: relata e segue
                    descricao += f" (erro: {exc})"[:120]
                passos.append((descricao, memoria_do_processo(pid)))
            for codigo in celulas_de_codigo(PASTA / notebook):
                await _executar(e.kc, codigo)
            passos.append((f"+ Run All de {notebook}", memoria_do_processo(pid)))
            await _executar(e.kc, "import benchmarks.turma as _t; _t.sessao(get_ipython().user_ns, 0, 5.0, 7)")
            passos.append(("+ 5 s de sliders", memoria_do_processo(pid)))
            saida = await _executar(e.kc, _CODIGO_FIGURAS)
            figuras = json.loads(next(x for x in saida.splitlines() if x.startswith(MARCA))[len(MARCA):])
            await _executar(e.kc, (
                "import gc as _gc, benchmarks.turma as _t\n"
                "for _n, _p in _t.paineis_no_espaco(get_ipython().user_ns):\n"
                "    getattr(_p, 'close', lambda: None)()\n"
                "    for _k in [k for k, v in list(get_ipython().user_ns.items()) if v is _p]:\n"
                "        del get_ipython().user_ns[_k]\n"
                "get_ipython().user_ns['Out'].clear()\n"
                "import matplotlib.pyplot as _plt; _plt.close('all')\n"
                "_p = None; _gc.collect()\n"
                "import ctypes; ctypes.CDLL('libc.so.6').malloc_trim(0)\n"
            ))
            passos.append(("− os painéis (fechados, apagados, gc, malloc_trim)", memoria_do_processo(pid)))
            passos.append(("figuras", {"n": len(figuras), "agg": sum(b for _, b, _ in figuras) / 2**20,
                                       "png": sum(p for _, _, p in figuras) / 2**20}))
            return passos
        finally:
            await _desligar(e)

    return fora_do_laco(asyncio.run, medir())


# =============================================================================================
# Relatório
# =============================================================================================


def _tabela(cabecalho: tuple[str, ...], linhas: list[tuple[str, ...]]) -> str:
    """Uma tabela em Markdown com colunas alinhadas."""
    larguras = [max([len(h)] + [len(linha[i]) for linha in linhas]) for i, h in enumerate(cabecalho)]

    def fmt(celulas: tuple[str, ...]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(celulas, larguras, strict=True)) + " |"

    separador = "|" + "|".join("-" * (w + 2) for w in larguras) + "|"
    return "\n".join([fmt(cabecalho), separador, *(fmt(linha) for linha in linhas)])


def _ms(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.0f} ms"


def _razao(x: float, ref: float) -> str:
    if math.isnan(x) or math.isnan(ref) or ref <= 0:
        return "—"
    return f"{x / ref:.1f}×"


def tabela_rodadas(rodadas: list[Rodada]) -> str:
    ref = rodadas[0].resumo() if rodadas else {}
    custos = custos_de_referencia(rodadas)
    cab = ("estudantes", "atualização: mediana", "p95", "p95 ÷ N=1", "p95 simulado", "CPU ocupada (kernels · outros)",
           "memória por kernel: RSS · PSS", "Run All do notebook: mediana · máx", "÷ N=1",
           "coleção inteira: mediana · máx", "÷ N=1", f"p95 ≤ {META_P95_MS:.0f} ms")
    linhas = []
    for r in rodadas:
        s = r.resumo()
        ok = not r.erros and s["p95"] <= META_P95_MS
        linhas.append((
            str(r.n), _ms(s["mediana"]), _ms(s["p95"]), _razao(s["p95"], ref.get("p95", float("nan"))),
            _ms(mediana_p95(simular_latencias(custos, r.n, os.cpu_count() or 1))[1]) if custos else "—",
            f"{100 * r.cpu_ocupada:.0f}% ({100 * r.cpu_kernels:.0f}% · {100 * r.cpu_outros:.0f}%)",
            f"{s['rss']:.0f} · {s['pss']:.0f} MiB",
            f"{s['run_all']:.1f} · {s['run_all_max']:.1f} s",
            _razao(s["run_all"], ref.get("run_all", float("nan"))),
            "—" if math.isnan(s["colecao"]) else f"{s['colecao']:.0f} · {s['colecao_max']:.0f} s",
            _razao(s["colecao"], ref.get("colecao", float("nan"))),
            ("✅" if ok else "❌") + (f" ({len(r.erros)} erros)" if r.erros else ""),
        ))
    return _tabela(cab, linhas)


def simular_latencias(custos_ms: list[float], n: int, nucleos: int, duracao_s: float = DURACAO_S,
                      semente: int = 0) -> list[float]:
    """Latências (ms) de ``n`` estudantes simulados em ``nucleos`` núcleos sem mais ninguém na máquina.

    Cada estudante aperta as teclas do mesmo plano do benchmark (:func:`_plano`); cada atualização custa
    um tempo de CPU sorteado de ``custos_ms`` (o medido); o kernel de cada estudante atende uma tecla por
    vez, na ordem; os kernels ocupados dividem os núcleos igualmente (cada um usa no máximo um núcleo).
    Não conta o servidor JupyterLab, o proxy nem o navegador: é uma estimativa otimista.
    """
    rng = random.Random(semente)
    chegadas = sorted((t, i) for i in range(n) for t, _ in _plano(1000 + i, duracao_s))
    filas: list[list[tuple[float, float]]] = [[] for _ in range(n)]  # (chegada, trabalho restante em s)
    latencias: list[float] = []
    agora, proxima = 0.0, 0
    while proxima < len(chegadas) or any(filas):
        ocupados = [i for i in range(n) if filas[i]]
        taxa = min(1.0, nucleos / len(ocupados)) if ocupados else 0.0
        fim_mais_cedo = min((filas[i][0][1] / taxa for i in ocupados), default=math.inf)
        t_chegada = chegadas[proxima][0] - agora if proxima < len(chegadas) else math.inf
        passo = min(fim_mais_cedo, t_chegada)
        for i in ocupados:
            chegada, resta = filas[i][0]
            filas[i][0] = (chegada, resta - passo * taxa)
        agora += passo
        for i in ocupados:
            if filas[i][0][1] <= 1e-12:
                latencias.append((agora - filas[i][0][0]) * 1000)
                filas[i].pop(0)
        if passo == t_chegada:
            t, i = chegadas[proxima]
            filas[i].append((t, rng.choice(custos_ms) / 1000))
            proxima += 1
    return latencias


def capacidade_simulada(custos_ms: list[float], nucleos: int, duracao_s: float = DURACAO_S,
                        limite: int = 400) -> int:
    """O maior N cuja simulação tem p95 ≤ 100 ms (busca exponencial e depois binária)."""
    if not custos_ms:
        return 0

    def cabe(n: int) -> bool:
        return mediana_p95(simular_latencias(custos_ms, n, nucleos, duracao_s))[1] <= META_P95_MS

    if not cabe(1):
        return 0
    baixo, alto = 1, 2
    while alto <= limite and cabe(alto):
        baixo, alto = alto, alto * 2
    alto = min(alto, limite + 1)
    while alto - baixo > 1:
        meio = (baixo + alto) // 2
        baixo, alto = (meio, alto) if cabe(meio) else (baixo, meio)
    return baixo


def capacidade_cpu(rodadas: list[Rodada]) -> tuple[float, bool]:
    """Quantos estudantes cabem com p95 ≤ 100 ms nos núcleos desta máquina: (estimativa, passou do maior N?).

    Entre o último N que cumpre e o primeiro que não cumpre, interpola o p95 linearmente.
    """
    pontos = sorted((r.n, r.resumo()["p95"]) for r in rodadas if not r.erros)
    ok = [(n, p) for n, p in pontos if p <= META_P95_MS]
    if not ok:
        return 0.0, False
    n_ok, p_ok = ok[-1]
    depois = [(n, p) for n, p in pontos if n > n_ok and p > META_P95_MS]
    if not depois:
        return float(n_ok), True
    n_ruim, p_ruim = depois[0]
    return n_ok + (META_P95_MS - p_ok) * (n_ruim - n_ok) / (p_ruim - p_ok), False


def memoria_total_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return float("nan")


#: memória que fica para o sistema, o hub e o proxy (GiB), fora dos estudantes
RESERVA_GIB = 2.0


def custos_de_referencia(rodadas: list[Rodada]) -> list[float]:
    """O tempo de CPU (ms) de cada atualização com um estudante só (N = 1): o custo que a simulação usa."""
    return list(rodadas[0].cpu_ms) if rodadas and rodadas[0].n == 1 else []


@dataclass
class Capacidade:
    """Quantos estudantes cabem, por núcleos: o medido (só nos núcleos desta máquina) e o simulado."""

    nucleos: int
    medido: float | None  # interpolado entre os N medidos (None fora desta máquina)
    passou_do_maior_n: bool
    simulado: int
    memoria: int  # pela memória, com um notebook aberto por estudante
    memoria_3: int  # com três notebooks abertos por estudante
    por_estudante_mib: float
    pss_mib: float


def capacidades(rodadas: list[Rodada], servidor_mib: float, nucleos: int | None = None, memoria_gib: float = 24.0,
                duracao_s: float = DURACAO_S, outros_nucleos: tuple[int, ...] = (4, 8, 16)) -> list[Capacidade]:
    nucleos = nucleos or os.cpu_count() or 1
    medido, passou = capacidade_cpu(rodadas)
    pss = max((r.resumo()["pss"] for r in rodadas if r.pss_mb), default=float("nan"))
    por_estudante = pss + servidor_mib  # MiB: um kernel + o servidor JupyterLab do estudante
    livre = (memoria_gib - RESERVA_GIB) * 1024
    memoria = math.floor(livre / por_estudante) if por_estudante > 0 else 0
    memoria_3 = math.floor(livre / (3 * pss + servidor_mib)) if por_estudante > 0 else 0
    custos = custos_de_referencia(rodadas)
    return [Capacidade(c, medido if c == nucleos else None, passou, capacidade_simulada(custos, c, duracao_s),
                       memoria, memoria_3, por_estudante, pss)
            for c in (nucleos, *(x for x in outros_nucleos if x > nucleos))]


def dimensionamento(caps: list[Capacidade], memoria_gib: float = 24.0) -> tuple[str, list[str]]:
    """A tabela "quantos estudantes cabem" e as frases que a explicam."""
    cab = ("núcleos", "medido aqui", "simulado (só a turma)", f"pela memória ({memoria_gib:.0f} GB)", "cabem",
           "de onde vem")
    linhas = []
    for cap in caps:
        if cap.medido is not None:
            medido = f"{'pelo menos' if cap.passou_do_maior_n else 'cerca de'} {math.floor(cap.medido)}"
            pela_cpu = f"{math.floor(cap.medido)} a {cap.simulado}" if cap.simulado > cap.medido else str(cap.simulado)
            origem = "medido nesta máquina; simulado com o custo medido"
        else:
            medido, pela_cpu = "—", str(cap.simulado)
            origem = f"extrapolado: simulação com o custo medido em {caps[0].nucleos} núcleos"
        cabem = pela_cpu if cap.memoria >= cap.simulado else str(cap.memoria)
        linhas.append((str(cap.nucleos), medido, str(cap.simulado), str(cap.memoria), cabem, origem))
    ref = caps[0] if caps else None
    notas = []
    if ref:
        notas = [
            f"Medido aqui: o maior número de estudantes com p95 das atualizações ≤ {META_P95_MS:.0f} ms, interpolado "
            "entre os N medidos, com a máquina como estava (se outros processos usavam a CPU, o medido sai menor).",
            f"Simulado: os mesmos estudantes (as mesmas teclas, nos mesmos instantes), cada atualização custando o "
            f"tempo de CPU medido com N = 1, o kernel de cada um atendendo uma tecla por vez e os kernels ocupados "
            f"dividindo os núcleos, sem mais nada na máquina. Não conta o servidor JupyterLab de cada estudante, o "
            f"proxy nem o navegador: é otimista. Acima de {ref.nucleos} núcleos, só há a simulação — uma "
            "extrapolação, não uma medida.",
            f"Pela memória: {ref.pss_mib:.0f} MiB de kernel (PSS, o maior medido) + "
            f"{ref.por_estudante_mib - ref.pss_mib:.0f} MiB do servidor JupyterLab de cada estudante ≈ "
            f"{ref.por_estudante_mib:.0f} MiB por estudante; {RESERVA_GIB:.0f} GB ficam para o sistema, o hub e o "
            f"proxy. Com três notebooks abertos por estudante (três kernels), cabem {ref.memoria_3}.",
        ]
    return _tabela(cab, linhas), notas


def frase_resumo(caps: list[Capacidade], memoria_gib: float = 24.0) -> str:
    """A resposta em poucas frases, para o instrutor: quantos cabem aqui e como cresce com os núcleos."""
    if not caps or caps[0].simulado < 1:
        return (f"Nesta medição, nem um estudante sozinho teve o p95 das atualizações abaixo de {META_P95_MS:.0f} ms: "
                "repita a medição com a máquina mais quieta.")
    aqui, resto = caps[0], caps[1:]
    medido = math.floor(aqui.medido or 0)
    if medido >= aqui.simulado:
        quantos = f"{'pelo menos ' if aqui.passou_do_maior_n else 'cerca de '}{medido} estudantes"
    else:
        quantos = (f"de {medido} (medido nesta máquina) a {aqui.simulado} (simulado: só os kernels da turma, sem o servidor "
                   "de cada um nem outros processos) estudantes")
    texto = (f"Num servidor de {aqui.nucleos} núcleos e {memoria_gib:.0f} GB, {quantos} podem mexer nos painéis ao "
             f"mesmo tempo com cada atualização pronta em menos de {META_P95_MS:.0f} ms (p95). ")
    if aqui.memoria >= aqui.simulado:
        texto += (f"A memória não é o limite: cada estudante ocupa uns {aqui.por_estudante_mib:.0f} MiB (um kernel e o "
                  f"seu servidor JupyterLab), e caberiam {aqui.memoria}. O que limita é a CPU")
    else:
        texto += f"Aqui o limite é a memória: cada estudante ocupa uns {aqui.por_estudante_mib:.0f} MiB, e cabem {aqui.memoria}"
    if resto:
        texto += (": " + ", ".join(f"com {c.nucleos} núcleos, ≈ {min(c.simulado, c.memoria)}" for c in resto)
                  + f" — extrapolado por simulação a partir dos {aqui.nucleos} núcleos medidos, não medido.")
    else:
        texto += "."
    return texto


def tabela_memoria(passos: list[tuple[str, dict[str, float]]], pequeno_mib: float = 0.5) -> str:
    """A tabela dos passos; módulos de ``helpers`` seguidos que custam menos de ``pequeno_mib`` viram uma linha."""
    linhas: list[tuple[str, str, str, str]] = []
    anterior: float | None = None
    grupo: list[str] = []
    grupo_de: float | None = None
    ultimo: dict[str, float] = {}

    def fechar_grupo() -> None:
        nonlocal grupo, grupo_de
        if grupo:
            rotulo = grupo[0] if len(grupo) == 1 else f"+ mais {len(grupo)} módulos de helpers (cada um < {pequeno_mib:g} MiB)"
            linhas.append((rotulo, f"{ultimo['rss']:.0f} MiB", f"{ultimo['uss']:.0f} MiB",
                           f"{ultimo['uss'] - grupo_de:+.1f} MiB"))
        grupo, grupo_de = [], None

    for descricao, m in passos:
        if descricao == "figuras" or not m:
            continue
        extra = None if anterior is None else m["uss"] - anterior
        if descricao.startswith("+ import helpers") and extra is not None and extra < pequeno_mib:
            if not grupo:
                grupo_de = anterior
            grupo.append(descricao)
            ultimo = m
        else:
            fechar_grupo()
            linhas.append((descricao, f"{m['rss']:.0f} MiB", f"{m['uss']:.0f} MiB",
                           "—" if extra is None else f"{extra:+.1f} MiB"))
        anterior = m["uss"]
    fechar_grupo()
    return _tabela(("passo", "RSS", "USS (só do kernel)", "USS a mais"), linhas)


# =============================================================================================
# O comando: python -m benchmarks --turma [--rapido] [--readme]
# =============================================================================================

INICIO, FIM = "<!-- turma:inicio -->", "<!-- turma:fim -->"
NOTA_FASES = (
    "Cada rodada tem três fases, com todos os N estudantes ao mesmo tempo: (1) a coleção inteira — cada estudante "
    "roda todos os notebooks, um depois do outro, cada um num kernel novo (\"coleção inteira\": o tempo de um "
    "estudante, incluindo subir os kernels); (2) o Run All do notebook dos painéis num kernel novo (\"Run All do "
    "notebook\"); (3) os sliders nesse mesmo kernel. A memória é a de cada kernel no fim dos sliders."
)
NOTA_ESTUDANTE = (
    f"Cada estudante simulado move os sliders em rajadas de {RAJADA} teclas, uma a cada {INTERVALO_S * 1000:.0f} ms, "
    f"com pausas de {PAUSA_S[0]:.0f} a {PAUSA_S[1]:.0f} s para olhar a figura (sorteadas; cada estudante começa num "
    "instante diferente). A latência de uma tecla vai do instante em que ela seria apertada até a figura nova pronta "
    "no kernel (contas + redesenho + PNG), e inclui a espera quando o kernel ainda estava ocupado com a tecla "
    "anterior; o caminho até o navegador (proxy, websocket, desenhar o PNG) soma alguns milissegundos a mais. "
    "\"CPU ocupada\" é a da máquina inteira durante os sliders; entre parênteses, a dos kernels e a de outros "
    "processos da máquina (nem os kernels nem o benchmark: outras pessoas usando o servidor, que deixam as "
    "latências piores do que seriam só com a turma); "
    "PSS é a memória de cada kernel contando as páginas compartilhadas (bibliotecas) divididas entre todos."
)


def relatorio(rodadas: list[Rodada], servidor: dict[str, float], passos: list, notebook: str,
              maquina: str, carga_inicio: str, duracao_s: float) -> str:
    servidor_mib = servidor.get("pss", float("nan"))
    servidor_mib = 0.0 if math.isnan(servidor_mib) else servidor_mib
    caps = capacidades(rodadas, servidor_mib)
    partes = [f"**{frase_resumo(caps)}**", "", maquina, "", f"carga média {carga_inicio} (1 min / 5 min) no início · {_carga()} no fim · "
                          f"medição completa em {duracao_s / 60:.1f} min · notebook: `{notebook}`", ""]
    partes += [tabela_rodadas(rodadas), ""]
    for r in rodadas:
        if r.erros:
            partes.append(f"- N={r.n}: {len(r.erros)} erros; o primeiro: {r.erros[0]}")
    partes += [f"- {NOTA_FASES}", f"- {NOTA_ESTUDANTE}", "- Carga média (1 min / 5 min) no fim de cada rodada: "
               + "; ".join(f"N={r.n}: {r.carga}" for r in rodadas), ""]
    tabela, notas = dimensionamento(caps)
    partes += ["**Quantos estudantes cabem** (atualizações com p95 ≤ 100 ms e memória de 24 GB):", "", tabela, ""]
    partes += [f"- {n}" for n in notas]
    if servidor:
        partes.append(f"- Servidor JupyterLab de um estudante, ocioso: RSS {servidor['rss']:.0f} MiB, "
                      f"PSS {servidor['pss']:.0f} MiB.")
    if passos:
        figuras = dict(passos).get("figuras", {})
        partes += ["", "**Para onde vai a memória de um kernel** (um kernel novo, passo a passo):", "",
                   tabela_memoria(passos), ""]
        if figuras:
            partes.append(f"- Os {figuras['n']:.0f} painéis guardam {figuras['agg']:.1f} MiB no buffer de desenho do "
                          f"matplotlib (Agg) e {figuras['png']:.2f} MiB de PNG.")
    return "\n".join(partes).rstrip() + "\n"


def secao_readme(texto: str, hoje=None) -> str:
    from datetime import date

    hoje = hoje or date.today()
    return (f"Medido em {hoje.isoformat()} com `python -m benchmarks --turma --readme`, que reescreve este trecho "
            "(só medir: `python -m benchmarks --turma`, uns 20 minutos; da raiz do repositório, com o ambiente de "
            "`requirements-dev.txt`). Cada estudante é um kernel de verdade rodando o notebook e mexendo nos "
            "sliders; a máquina é barulhenta, então compare as razões sobre N = 1, medidas na mesma execução.\n\n"
            + texto)


def executar(rapido: bool = False, readme: bool = False, notebook: str = NOTEBOOK,
             aviso: Callable[[str], None] = lambda s: None) -> str:
    """Mede tudo, devolve o relatório e, com ``readme``, grava o trecho da turma em docs/turma.md."""
    from . import linha_maquina

    carga_inicio = _carga()
    inicio = time.perf_counter()
    aviso("5 · a turma: servidor JupyterLab de um estudante …")
    servidor = memoria_do_servidor()
    aviso("5 · a turma: memória de um kernel, passo a passo …")
    passos = memoria_de_um_kernel(notebook)
    ns, duracao = (NS_RAPIDO, DURACAO_RAPIDA_S) if rapido else (NS, DURACAO_S)
    colecao = sorted(PASTA.glob("[0-9][0-9]_*.ipynb"))[:2 if rapido else None]
    aviso(f"5 · a turma: N = {', '.join(map(str, ns))} estudantes ao mesmo tempo …")
    rodadas = medir_turma(ns, duracao, notebook, colecao, aviso)
    texto = relatorio(rodadas, servidor, passos, notebook, linha_maquina(), carga_inicio,
                      time.perf_counter() - inicio)
    if readme:
        from .__main__ import RAIZ, gravar_readme

        pagina = RAIZ / "docs" / "turma.md"
        gravar_readme(secao_readme(texto), pagina, inicio=INICIO, fim=FIM)
        aviso(f"docs/turma.md: trecho da turma atualizado ({pagina})")
    return texto
