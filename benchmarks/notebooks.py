"""2 · Custo de executar os notebooks: cada um num kernel novo, de cima a baixo (nbclient, pasta
``notebooks/``, cópia na memória: os arquivos não mudam), contra um **notebook-base** que só importa os
helpers e desenha uma figura — o custo fixo de qualquer notebook —, medido na mesma execução.
"""

from __future__ import annotations

import re
import subprocess
import time
from datetime import datetime
from pathlib import Path

from . import CUMPRE, INFORMATIVO, NAO_CUMPRE, RAIZ, Linha

MEDICAO, PASTA, META_RAZAO, META_TOTAL_S = "execução do notebook", RAIZ / "notebooks", 3.0, 60.0

FONTE_BASE = [
    "import numpy as np\nimport matplotlib.pyplot as plt\nfrom helpers import attention, corretor, paineis, plots",
    "fig, ax = plt.subplots(figsize=(5, 3))\nax.plot(np.arange(5), np.arange(5) ** 2, 'o-')\nplt.show()",
]


def notebook_base():
    """O notebook-base: os imports da coleção e uma figura."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(fonte) for fonte in FONTE_BASE]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def executar(nb, pasta: Path = PASTA, timeout: int = 600) -> tuple[float, float]:
    """Executa ``nb`` (já na memória) num kernel novo; devolve (segundos de relógio, segundos nas células)."""
    from nbclient import NotebookClient

    cliente = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=True,
                             store_widget_state=False, resources={"metadata": {"path": str(pasta)}})
    inicio = time.perf_counter()
    # o stderr do processo do kernel (avisos do próprio Jupyter) não entra na tabela; erros das células,
    # sim: chegam pelo protocolo e viram exceção aqui
    cliente.execute(stderr=subprocess.DEVNULL)
    marcas = [c.metadata.get("execution", {}) for c in nb.cells]  # as marcas que o nbclient grava em cada célula
    hora = lambda texto: datetime.fromisoformat(texto.replace("Z", "+00:00"))  # o Python 3.10 não lê o "Z"
    celulas = sum((hora(m["shell.execute_reply"]) - hora(m["iopub.execute_input"])).total_seconds()
                  for m in marcas if "iopub.execute_input" in m and "shell.execute_reply" in m)
    return time.perf_counter() - inicio, celulas


def medir_notebooks(arquivos: list[Path] | None = None, rodadas_base: int = 2, rodadas: int = 2) -> list[Linha]:
    """Uma linha para o notebook-base, uma por notebook e uma para a coleção (o menor de ``rodadas`` execuções)."""
    import nbformat

    arquivos = sorted(PASTA.glob("*.ipynb")) if arquivos is None else list(arquivos)
    t_base, cel_base = min(executar(notebook_base()) for _ in range(rodadas_base))
    linhas = [Linha("2", MEDICAO, "notebook-base (imports + 1 figura)",
                    f"{t_base:.1f} s (células {cel_base:.1f} s)", razao="1.00× base", veredito=INFORMATIVO)]
    total = 0.0
    meta = f"≤ {META_RAZAO:g}× base"
    for caminho in arquivos:
        try:
            # o menor de `rodadas`: subir um kernel às vezes demora por causa de outros processos
            t, cel = min(executar(nbformat.read(caminho, as_version=4)) for _ in range(rodadas))
        except Exception as exc:  # relata e segue
            msg = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()  # sem as cores do terminal
            linhas.append(Linha("2", MEDICAO, caminho.name, f"ERRO: {type(exc).__name__}: {(msg[-1] if msg else '')[:120]}",
                                meta=meta, veredito=NAO_CUMPRE))
            continue
        total += t
        razao = t / t_base
        linhas.append(Linha("2", MEDICAO, caminho.name, f"{t:.1f} s (células {cel:.1f} s)", razao=f"{razao:.2f}× base",
                            meta=meta, veredito=CUMPRE if round(razao, 2) <= META_RAZAO else NAO_CUMPRE))
    if arquivos:
        linhas.append(Linha("2", MEDICAO, f"coleção inteira ({len(arquivos)} notebook{'s' if len(arquivos) > 1 else ''})", f"{total:.1f} s",
                            razao=f"{total / t_base:.1f}× base", meta=f"≈ 1 min (≤ {META_TOTAL_S:.0f} s)",
                            veredito=CUMPRE if total <= META_TOTAL_S else NAO_CUMPRE))
    return linhas
