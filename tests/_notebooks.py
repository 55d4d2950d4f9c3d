"""Leitura de notebooks para os testes: as soluções publicadas nos blocos ``<details>`` de Solução."""

import json
import re
from pathlib import Path


def solucoes_do_notebook(caminho: Path) -> list[str]:
    """O código Python de cada bloco "✅ Solução" (em células Markdown), na ordem do notebook."""
    blocos: list[str] = []
    for c in json.loads(caminho.read_text(encoding="utf-8"))["cells"]:
        texto = "".join(c["source"])
        if c["cell_type"] == "markdown" and "✅ Solução" in texto:
            blocos += re.findall(r"```python\n(.*?)```", texto, flags=re.S)
    return blocos
