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


# --- a prosa em pt-BR: vírgula decimal --------------------------------------------------------------

_CODIGO = re.compile(r"```.*?```|`[^`\n]*`", flags=re.S)
_MATEMATICA = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", flags=re.S)
_HTML = re.compile(r"<[^>\n]*>")
_LINK = re.compile(r"\]\([^)]*\)|https?://\S+")
_DECIMAL_COM_PONTO = re.compile(r"(?<![\w.,])(\d+\.\d+)(?![\w.]\d)")
_VERSAO = re.compile(r"(Python|numpy|matplotlib|ipywidgets|JupyterLab|Jupyter|nbval|pytest|Voilà|versão|versões|v)\s*$",
                     flags=re.I)


def decimais_com_ponto(caminho: Path) -> list[str]:
    """Os números com ponto decimal na **prosa** (células Markdown, fora de código, matemática, HTML e links).

    Na prosa, a coleção escreve como se escreve no Brasil — 0,455; 45,5% —; vetores, fórmulas e o que espelha
    código ficam com ponto, mas como código (`(0.455, 0.225)`) ou matemática ($\\sqrt{2} \\approx 1.414$).
    Números de versão (Python 3.10) não contam. Devolve ``"célula i: … trecho …"`` para cada achado.
    """
    achados = []
    for i, c in enumerate(json.loads(caminho.read_text(encoding="utf-8"))["cells"]):
        if c["cell_type"] != "markdown":
            continue
        texto = "".join(c["source"])
        for padrao in (_CODIGO, _MATEMATICA, _HTML, _LINK):
            texto = padrao.sub(" ", texto)
        for m in _DECIMAL_COM_PONTO.finditer(texto):
            if _VERSAO.search(texto[max(0, m.start() - 14):m.start()]):
                continue
            achados.append(f"célula {i}: …{texto[max(0, m.start() - 30):m.end() + 10]!r}…")
    return achados


# --- o guia do instrutor e os notebooks concordam ----------------------------------------------------

_NUMERO = re.compile(r"(?<![\w.,])-?\d+[.,]\d+(?![\w]|[.,]\d)")


def secoes_do_guia(guia: str) -> dict[str, str]:
    """``{"05": texto da seção "## 05 · …"}`` do guia do instrutor."""
    partes = re.split(r"^## (\d\d) · .*$", guia, flags=re.M)
    return {partes[i]: partes[i + 1] for i in range(1, len(partes) - 1, 2)}


def texto_do_notebook(caminho: Path) -> str:
    """Tudo o que um leitor vê num notebook: prosa, código e saídas de texto (com ponto e com vírgula)."""
    pedacos = []
    for c in json.loads(caminho.read_text(encoding="utf-8"))["cells"]:
        pedacos.append("".join(c["source"]))
        for o in c.get("outputs", []):
            pedacos.append("".join(o.get("text", "")))
            pedacos.append("".join(o.get("data", {}).get("text/plain", "")))
            pedacos.append("".join(o.get("data", {}).get("text/html", "")))
    texto = "\n".join(pedacos)
    return texto + "\n" + texto.replace(".", ",")


def numeros_do_guia_fora_do_notebook(secao: str, caminho: Path, extra: str = "") -> list[str]:
    """Os números com casa decimal que a seção do guia cita e que não aparecem no notebook (nem em ``extra``:
    as respostas das previsões, que a lição revela depois da previsão)."""
    texto = texto_do_notebook(caminho) + "\n" + extra + "\n" + extra.replace(".", ",")
    faltam = []
    for m in _NUMERO.finditer(secao):
        numero = m.group(0).lstrip("-")
        if not any(forma in texto for forma in (numero, numero.replace(",", "."), numero.replace(".", ","))):
            faltam.append(numero)
    return faltam
