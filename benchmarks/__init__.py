"""Medições de desempenho da coleção: ``python -m benchmarks`` (da raiz do repositório).

Cinco medições, num único processo, numa única tabela:

1. **latência dos sliders** (:mod:`benchmarks.latencia`): cada ``painel_*`` de :mod:`helpers.widgets`;
2. **custo de executar os notebooks** (:mod:`benchmarks.notebooks`): cada notebook num kernel novo,
   comparado com um notebook-base que só importa os helpers e desenha uma figura;
3. **vazão da atenção** (:mod:`benchmarks.vazao`): GFLOP/s de ``scaled_dot_product_attention`` e
   ``multi_head_attention`` comparados com o teto do numpy (o próprio ``matmul``) na mesma execução;
4. **memória da atenção por blocos** (:mod:`benchmarks.blocos`): ``helpers.efficient.blockwise_attention``
   contra a atenção exata;
5. **latência no navegador** (:mod:`benchmarks.navegador`, com ``--navegador``): da tecla num slider à
   figura nova na página, e figuras por segundo num arrasto, num JupyterLab de verdade no Chromium,
   cada painel contra um painel-referência (um slider e uma figura do mesmo tamanho) medido na mesma
   execução.

As máquinas são barulhentas (outros processos dividem os mesmos núcleos), então o que vale são as
**razões medidas na mesma execução** (contra o teto, contra o notebook-base, contra a atenção exata,
contra o painel-referência).
O benchmark relata; não reprova nada (não há testes cronometrados).

Este módulo tem o que as quatro medições compartilham: a :class:`Linha` da tabela, a formatação
da tabela em Markdown, a linha da máquina e um cronômetro "melhor de k".
"""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

#: os vereditos possíveis de uma linha
CUMPRE, NAO_CUMPRE, INFORMATIVO, PENDENTE = "✅", "❌", "—", "⏳"

COLUNAS = ("#", "medição", "caso", "resultado", "razão", "meta", "")


@dataclass
class Linha:
    """Uma linha da tabela.

    ``secao``: "1" a "5" (a medição); ``caso``: o que foi medido; ``resultado``: os números;
    ``razao``: a razão medida na mesma execução (ou ""); ``meta``: o alvo (ou ""); ``veredito``:
    :data:`CUMPRE`, :data:`NAO_CUMPRE`, :data:`INFORMATIVO` ou :data:`PENDENTE`; ``nota``: uma
    explicação curta que vai para a lista de notas embaixo da tabela (ou "").
    """

    secao: str
    medicao: str
    caso: str
    resultado: str
    razao: str = ""
    meta: str = ""
    veredito: str = INFORMATIVO
    nota: str = ""

    def celulas(self) -> tuple[str, ...]:
        return (self.secao, self.medicao, self.caso, self.resultado, self.razao, self.meta, self.veredito)


def veredito(ok: bool) -> str:
    return CUMPRE if ok else NAO_CUMPRE


def _escapar(texto: str) -> str:
    return texto.replace("|", "\\|")


def tabela_markdown(linhas: Sequence[Linha]) -> str:
    """A tabela em Markdown, com colunas alinhadas (lê-se bem no terminal e no GitHub)."""
    corpo = [tuple(_escapar(c) for c in linha.celulas()) for linha in linhas]
    larguras = [max([len(COLUNAS[i])] + [len(c[i]) for c in corpo]) for i in range(len(COLUNAS))]

    def fmt(celulas: Iterable[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(celulas, larguras, strict=True)) + " |"

    separador = "|" + "|".join("-" * (w + 2) for w in larguras) + "|"
    return "\n".join([fmt(COLUNAS), separador, *(fmt(c) for c in corpo)])


def notas(linhas: Sequence[Linha]) -> list[str]:
    """As notas das linhas (sem repetição, na ordem em que aparecem)."""
    vistas: list[str] = []
    for linha in linhas:
        if linha.nota and linha.nota not in vistas:
            vistas.append(linha.nota)
    return vistas


def resumo_metas(linhas: Sequence[Linha]) -> str:
    """Uma frase: quantas metas foram cumpridas e quais não."""
    com_meta = [lin for lin in linhas if lin.veredito in (CUMPRE, NAO_CUMPRE)]
    falhas = [lin for lin in com_meta if lin.veredito == NAO_CUMPRE]
    texto = f"metas cumpridas: {len(com_meta) - len(falhas)} de {len(com_meta)}"
    if falhas:
        texto += "; não cumpridas: " + "; ".join(f"{lin.secao} · {lin.caso}" for lin in falhas)
    return texto


# ---------------------------------------------------------------------------------------------
# A máquina
# ---------------------------------------------------------------------------------------------


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for linha in f:
                if linha.startswith("model name"):
                    return linha.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def info_blas() -> str:
    """A biblioteca BLAS que o numpy usa de fato (threadpoolctl), ou o que o numpy diz da compilação."""
    import numpy as np

    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threadpool_info = None
    if threadpool_info is not None:
        partes = []
        for info in threadpool_info():
            if info.get("user_api") != "blas":
                continue
            arq = info.get("architecture")
            partes.append(
                f"{info.get('internal_api')} {info.get('version')}"
                + (f", núcleo {arq}" if arq else "")
                + f", {info.get('num_threads')} threads"
            )
        if partes:
            return "; ".join(partes)
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{cfg.get('name')} {cfg.get('version')} (da compilação do numpy; instale threadpoolctl para ver o núcleo)"
    except Exception:  # versões antigas do numpy não têm mode="dicts"
        return "desconhecida"


def linha_maquina() -> str:
    """Uma linha: CPUs, processador, Python, numpy, BLAS e as variáveis OPENBLAS_* em vigor."""
    import numpy as np

    texto = (
        f"máquina: {os.cpu_count()} CPUs ({_cpu()}) · Python {platform.python_version()} · "
        f"numpy {np.__version__} · BLAS: {info_blas()}"
    )
    variaveis = [f"{k}={v}" for k, v in sorted(os.environ.items()) if k in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS",
                                                                        "OMP_NUM_THREADS", "OPENBLAS_L2_SIZE")]
    if variaveis:
        texto += " · " + " ".join(variaveis)
    return texto


# ---------------------------------------------------------------------------------------------
# Cronômetro
# ---------------------------------------------------------------------------------------------


def fora_do_laco(f: Callable[..., object], *args: object) -> object:
    """``f(*args)``, num fio próprio se este fio já tem um laço asyncio rodando.

    Num notebook do Jupyter, ou num processo com a API síncrona do Playwright aberta (os testes de
    navegador), ``asyncio.run`` e ``sync_playwright`` recusam-se a rodar no fio principal; num fio novo, sem
    laço, eles rodam. O resultado (ou a exceção) volta para quem chamou.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return f(*args)
    with ThreadPoolExecutor(max_workers=1) as fio:
        return fio.submit(f, *args).result()


def cronometrar(f: Callable[[], object]) -> float:
    """Segundos de uma chamada de ``f`` (a desalocação do resultado fica fora da medida)."""
    inicio = time.perf_counter()
    resultado = f()
    fim = time.perf_counter()
    del resultado
    return fim - inicio


def melhor_de(funcoes: dict[str, Callable[[], object]], k: int, minimo_s: float = 0.0,
              maximo_rodadas: int = 1000) -> dict[str, float]:
    """O menor tempo (s) de cada função em ``k`` rodadas **intercaladas** (ou mais, até somar ``minimo_s``).

    Intercalar (A, B, A, B, …) em vez de (A, A, …, B, B, …) faz o ruído de outros processos cair
    igualmente sobre todas; o mínimo é a estimativa menos contaminada pelo ruído. Com ``minimo_s``, as
    rodadas continuam (até ``maximo_rodadas``) enquanto não se passaram ``minimo_s`` segundos: casos
    rápidos espalham as medidas no tempo e têm mais chance de pegar um momento sem outros processos.
    """
    melhores = {nome: float("inf") for nome in funcoes}
    inicio = time.perf_counter()
    rodada = 0
    while rodada < k or (time.perf_counter() - inicio < minimo_s and rodada < maximo_rodadas):
        for nome, f in funcoes.items():
            melhores[nome] = min(melhores[nome], cronometrar(f))
        rodada += 1
    return melhores


def mediana_p95(amostras_ms: Sequence[float]) -> tuple[float, float]:
    """Mediana e percentil 95 (interpolação linear) de uma lista de tempos."""
    ordenadas = sorted(amostras_ms)
    if not ordenadas:
        return float("nan"), float("nan")
    pos = 0.95 * (len(ordenadas) - 1)
    baixo = int(pos)
    alto = min(baixo + 1, len(ordenadas) - 1)
    p95 = ordenadas[baixo] + (ordenadas[alto] - ordenadas[baixo]) * (pos - baixo)
    return statistics.median(ordenadas), p95
