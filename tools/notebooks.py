"""O mapa da coleção e a manutenção dos notebooks: navegação, mapa e reexecução.

Uso (da raiz do repositório)::

    python -m tools.notebooks                      # regrava navegação e mapas (README e 00)
    python -m tools.notebooks --checar             # só confere; sai com 1 se algo estiver velho
    python -m tools.notebooks executar notebooks/05_soma_ponderada.ipynb [...]
                                                   # reexecuta num kernel novo, de cima a baixo,
                                                   # grava as saídas e atualiza a navegação

A navegação (anterior · índice · próximo) fica numa célula Markdown com a tag ``navegacao`` logo
depois do título e outra no fim. Os blocos opcionais (tag ``aprofundamento``, sob um título
"### Aprofundamento (opcional): …") ficam marcados para abrir recolhidos no JupyterLab. O mapa fica numa célula com a tag ``mapa`` no notebook 00 e entre
os marcadores ``<!-- mapa:inicio -->`` e ``<!-- mapa:fim -->`` no README; o mapa do código (notebook →
lição → testes), entre ``<!-- codigo:inicio -->`` e ``<!-- codigo:fim -->`` no README. A trilha vem de
``tools/trilha.json``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import re
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

RAIZ = Path(__file__).resolve().parent.parent
PASTA = RAIZ / "notebooks"
README = RAIZ / "README.md"
INICIO, FIM = "<!-- mapa:inicio -->", "<!-- mapa:fim -->"
INICIO_CODIGO, FIM_CODIGO = "<!-- codigo:inicio -->", "<!-- codigo:fim -->"
NOME = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")


@dataclass(frozen=True)
class Etapa:
    arquivo: str
    titulo: str
    resumo: str
    licao: str  #: o módulo da lição em helpers/licoes/ (nomeado pelo tema, não pelo número)


#: a trilha, na ordem (a mesma do DESIGN.md), é dado: um objeto por linha, com os campos de :class:`Etapa`.
#: Mora em tools/ (e não em data/, que guarda o que os notebooks leem) porque só as ferramentas e os
#: testes a leem; ``python -m tools.licao nova`` acrescenta uma etapa nela.
ARQUIVO_DA_TRILHA = Path(__file__).resolve().parent / "trilha.json"


def ler_trilha(caminho: Path = ARQUIVO_DA_TRILHA) -> list[Etapa]:
    """As etapas de ``caminho``, na ordem."""
    return [Etapa(**etapa) for etapa in json.loads(caminho.read_text(encoding="utf-8"))]


def gravar_trilha(etapas: list[Etapa], caminho: Path = ARQUIVO_DA_TRILHA) -> None:
    """Grava ``etapas`` em ``caminho``, uma por linha (um diff mostra só a etapa que mudou)."""
    linhas = ",\n".join("  " + json.dumps(asdict(e), ensure_ascii=False) for e in etapas)
    caminho.write_text("[\n" + linhas + "\n]\n", encoding="utf-8")


TRILHA: list[Etapa] = ler_trilha()


def modulo_da_licao(etapa: Etapa) -> ModuleType:
    """O módulo ``helpers.licoes.<licao>`` da etapa (os painéis, figuras e corretores do notebook)."""
    return importlib.import_module(f"helpers.licoes.{etapa.licao}")


def paineis() -> dict[str, Callable[..., Any]]:
    """``{nome: função}`` de todo ``painel_*`` definido nas lições, na ordem da trilha."""
    achados: dict[str, Callable[..., Any]] = {}
    for etapa in TRILHA:
        modulo = modulo_da_licao(etapa)
        for nome, f in inspect.getmembers(modulo, inspect.isfunction):
            # os da própria lição (num pacote, de um dos seus submódulos), não os importados de outra
            if nome.startswith("painel_") and (f.__module__ == modulo.__name__
                                               or f.__module__.startswith(modulo.__name__ + ".")):
                achados[nome] = f
    return achados


def existentes() -> list[str]:
    return sorted(p.name for p in PASTA.glob("*.ipynb"))


def _link(etapa: Etapa) -> str:
    return f"[{etapa.arquivo[:2]} · {etapa.titulo}]({etapa.arquivo})"


def navegacao(arquivo: str, rodape: bool = False) -> str:
    """O Markdown da navegação de ``arquivo`` (só liga notebooks que existem)."""
    presentes = [e for e in TRILHA if e.arquivo in existentes()]
    nomes = [e.arquivo for e in presentes]
    i = nomes.index(arquivo)
    partes = []
    partes.append(f"← anterior: {_link(presentes[i - 1])}" if i > 0 else "← anterior: —")
    partes.append(f"[índice]({TRILHA[0].arquivo})")
    partes.append(f"próximo: {_link(presentes[i + 1])} →" if i + 1 < len(presentes) else "próximo: — (fim da trilha publicada)")
    linha = " · ".join(partes)
    return ("---\n\n" + linha) if rodape else (linha + "\n\n---")


def mapa(prefixo: str = "") -> str:
    """A tabela da trilha: link para o que existe, "em breve" para o que ainda não existe."""
    linhas = ["| # | notebook | o que você leva |", "|---|---|---|"]
    ha = set(existentes())
    for e in TRILHA:
        nome = f"[{e.titulo}]({prefixo}{e.arquivo})" if e.arquivo in ha else f"{e.titulo} *(em breve)*"
        linhas.append(f"| {e.arquivo[:2]} | {nome} | {e.resumo} |")
    return "\n".join(linhas)


# --- o núcleo e o aprofundamento --------------------------------------------------------------------

#: a tag das células opcionais: um bloco começa num título "### Aprofundamento (opcional): …" e vai até o
#: próximo título do mesmo nível ou acima; todas as células do bloco levam a tag
APROFUNDAMENTO = "aprofundamento"
TITULO_APROFUNDAMENTO = re.compile(r"^(#{2,4}) Aprofundamento \(opcional\): (\S.*)$")
#: a marca do JupyterLab 4 para um título recolhido (o bloco abre fechado)
RECOLHIDO = "jp-MarkdownHeadingCollapsed"
#: o máximo de palavras na célula do título de um bloco opcional (o título e uma linha dizendo o que ele traz)
PALAVRAS_NO_TITULO = 60
#: palavras de prosa por minuto de aula: o orçamento do núcleo de cada notebook
PALAVRAS_POR_MINUTO = 40


def nivel_do_titulo(c: dict) -> int | None:
    """O nível do título com que uma célula Markdown começa (``## x`` → 2), ou ``None``."""
    if c.get("cell_type") != "markdown":
        return None
    m = re.match(r"^(#{1,6}) ", _fonte(c).lstrip())
    return len(m.group(1)) if m else None


def blocos_de_aprofundamento(cells: list[dict]) -> list[tuple[int, int, str]]:
    """``(início, fim, título)`` de cada bloco opcional: do título "Aprofundamento (opcional): …" até antes
    do próximo título de nível igual ou menor (``fim`` exclusivo)."""
    blocos = []
    for i, c in enumerate(cells):
        m = TITULO_APROFUNDAMENTO.match(_fonte(c).lstrip().split("\n", 1)[0]) if c["cell_type"] == "markdown" else None
        if not m:
            continue
        nivel, fim = len(m.group(1)), i + 1
        while fim < len(cells) and not (nivel_do_titulo(cells[fim]) or 99) <= nivel:
            fim += 1
        blocos.append((i, fim, m.group(2).strip()))
    return blocos


def problemas_de_aprofundamento(cells: list[dict]) -> list[str]:
    """O que foge da convenção dos blocos opcionais (vazio = tudo certo)."""
    erros = []
    dentro: set[int] = set()
    for inicio, fim, titulo in blocos_de_aprofundamento(cells):
        dentro |= set(range(inicio, fim))
        for j in range(inicio, fim):
            if not _tem_tag(cells[j], APROFUNDAMENTO):
                erros.append(f"célula {j}: dentro do bloco opcional «{titulo}», mas sem a tag {APROFUNDAMENTO}")
        # o título recolhe só as células de baixo: o texto do bloco não pode morar na célula do título
        if fim - inicio < 2 or palavras(cells[inicio]) > PALAVRAS_NO_TITULO:
            erros.append(f"bloco «{titulo}»: a célula do título deve ter só o título (e no máximo uma linha: até "
                         f"{PALAVRAS_NO_TITULO} palavras); o conteúdo vai nas células seguintes, que abrem recolhidas")
        if fim < len(cells) and _tem_tag(cells[fim], "navegacao"):
            erros.append(f"bloco «{titulo}»: o notebook não pode terminar num bloco opcional")
    for j, c in enumerate(cells):
        if _tem_tag(c, APROFUNDAMENTO) and j not in dentro:
            erros.append(f"célula {j}: tag {APROFUNDAMENTO} fora de um bloco que começa com "
                         "«### Aprofundamento (opcional): título»")
    return erros


def nucleo(nb: dict) -> dict:
    """Uma cópia do notebook sem as células opcionais (as de tag ``aprofundamento``)."""
    copia = json.loads(json.dumps(nb))
    copia["cells"] = [c for c in copia["cells"] if not _tem_tag(c, APROFUNDAMENTO)]
    return copia


def palavras(c: dict) -> int:
    """As palavras de prosa de uma célula Markdown, sem os blocos ``<details>`` (dicas e soluções recolhidas)."""
    if c.get("cell_type") != "markdown":
        return 0
    return len(re.findall(r"\w+", re.sub(r"<details>.*?</details>", " ", _fonte(c), flags=re.S)))


def palavras_do_nucleo(nb: dict) -> int:
    """As palavras de prosa do núcleo (células Markdown sem a tag ``aprofundamento``, fora de ``<details>``)."""
    return sum(palavras(c) for c in nucleo(nb)["cells"])


def _celula_md(fonte: str, tag: str, ident: str) -> dict:
    return {"cell_type": "markdown", "id": ident, "metadata": {"tags": [tag]}, "source": fonte.splitlines(keepends=True)}


def _fonte(c: dict) -> str:
    return "".join(c.get("source", ""))


def _tem_tag(c: dict, tag: str) -> bool:
    return tag in c.get("metadata", {}).get("tags", [])


def notebook_atualizado(caminho: Path) -> dict:
    """O notebook com navegação (e, no 00, o mapa) regenerados; não grava nada."""
    nb = json.loads(caminho.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if not _tem_tag(c, "navegacao")]
    topo = _celula_md(navegacao(caminho.name), "navegacao", "navegacao-topo")
    fim = _celula_md(navegacao(caminho.name, rodape=True), "navegacao", "navegacao-fim")
    nb["cells"] = cells[:1] + [topo] + cells[1:] + [fim]
    for inicio, _fim, _titulo in blocos_de_aprofundamento(nb["cells"]):
        nb["cells"][inicio].setdefault("metadata", {})[RECOLHIDO] = True  # o bloco abre recolhido no JupyterLab
    for c in nb["cells"]:
        if _tem_tag(c, "mapa"):
            c["source"] = ("## Mapa da trilha\n\n" + mapa()).splitlines(keepends=True)
    return nb


def _gravar(caminho: Path, nb: dict) -> None:
    caminho.write_text(json.dumps(nb, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def mapa_do_codigo() -> str:
    """A tabela notebook → lição (o módulo, ou o pacote, em helpers/licoes/) → testes (em tests/licoes/), na
    ordem da trilha."""
    linhas = ["| # | notebook | lição | testes |", "|---|---|---|---|"]
    licoes = RAIZ / "helpers" / "licoes"
    for e in TRILHA:
        licao = f"{e.licao}/" if (licoes / e.licao).is_dir() else f"{e.licao}.py"
        testes = sorted(t.name for t in (RAIZ / "tests" / "licoes").glob(f"test_{e.licao}*.py")
                        if t.stem == f"test_{e.licao}" or t.stem.startswith(f"test_{e.licao}_"))
        linhas.append(f"| {e.arquivo[:2]} | {e.titulo} | [`helpers/licoes/{licao}`](helpers/licoes/{licao}) | "
                      + (", ".join(f"`{t}`" for t in testes) or "—") + " |")
    return "\n".join(linhas)


def _entre(texto: str, inicio: str, fim: str, miolo: str) -> str:
    if inicio not in texto or fim not in texto:
        raise SystemExit(f"README.md não tem os marcadores {inicio} … {fim}")
    antes, resto = texto.split(inicio, 1)
    _, depois = resto.split(fim, 1)
    return f"{antes}{inicio}\n{miolo}\n{fim}{depois}"


def readme_atualizado() -> str:
    """O README com o mapa da trilha e, se tiver os marcadores dele, o mapa do código em dia."""
    texto = _entre(README.read_text(encoding="utf-8"), INICIO, FIM, mapa("notebooks/"))
    if INICIO_CODIGO in texto:
        texto = _entre(texto, INICIO_CODIGO, FIM_CODIGO, mapa_do_codigo())
    return texto


def problemas() -> list[str]:
    """O que está velho ou fora da convenção (vazio = tudo certo)."""
    erros = []
    nomes = existentes()
    esperados = [e.arquivo for e in TRILHA]
    for n in nomes:
        if not NOME.match(n):
            erros.append(f"{n}: nome fora do padrão NN_slug.ipynb")
        elif n not in esperados:
            erros.append(f"{n}: não está na trilha (tools/trilha.json)")
    numeros = [int(n[:2]) for n in nomes if NOME.match(n)]
    if numeros != list(range(len(numeros))):
        erros.append(f"os notebooks não estão em sequência a partir de 00: {numeros}")
    for n in nomes:
        caminho = PASTA / n
        erros += [f"{n}: {e}" for e in problemas_de_aprofundamento(json.loads(caminho.read_text(encoding="utf-8"))["cells"])]
        if json.loads(caminho.read_text(encoding="utf-8"))["cells"] != notebook_atualizado(caminho)["cells"]:
            erros.append(f"{n}: navegação ou mapa desatualizados (rode `python -m tools.notebooks`)")
    if README.exists() and README.read_text(encoding="utf-8") != readme_atualizado():
        erros.append("README.md: mapa desatualizado (rode `python -m tools.notebooks`)")
    return erros


def atualizar_tudo() -> None:
    for n in existentes():
        caminho = PASTA / n
        _gravar(caminho, notebook_atualizado(caminho))
    if README.exists():
        README.write_text(readme_atualizado(), encoding="utf-8")


def juntar_fluxos(saidas: list) -> list:
    """Junta saídas de texto seguidas do mesmo fluxo (stdout com stdout) numa só.

    O kernel às vezes parte um mesmo ``print`` em dois pedaços, ao acaso; juntá-los deixa o notebook
    gravado igual de uma execução para outra (o nbval já compara os fluxos juntados).
    """
    juntas: list = []
    for o in saidas:
        if (juntas and o.get("output_type") == "stream" and juntas[-1].get("output_type") == "stream"
                and juntas[-1].get("name") == o.get("name")):
            juntas[-1]["text"] = "".join(juntas[-1]["text"]) + "".join(o["text"])
        else:
            juntas.append(o)
    return juntas


def executar(caminho: Path, timeout: int = 600) -> None:
    """Reexecuta ``caminho`` num kernel novo, de cima a baixo, e grava as saídas.

    O kernel roda na pasta do notebook, como no nbval. Uma exceção não prevista interrompe e nada
    é gravado.
    """
    import nbformat
    from nbclient import NotebookClient

    caminho = caminho.resolve()
    nb = nbformat.read(caminho, as_version=4)
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = []
            c.execution_count = None
            c.metadata.pop("execution", None)  # carimbos de hora só sujariam os diffs
    cliente = NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False, record_timing=False,
                             resources={"metadata": {"path": str(caminho.parent)}})
    cliente.execute()
    nb.metadata.pop("widgets", None)
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = juntar_fluxos(c.outputs)
    nbformat.write(nb, caminho)
    _gravar(caminho, notebook_atualizado(caminho))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checar", action="store_true", help="só confere; não grava")
    sub = parser.add_subparsers(dest="comando")
    ex = sub.add_parser("executar", help="reexecuta notebooks num kernel novo e grava as saídas")
    ex.add_argument("arquivos", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.comando == "executar":
        # só os notebooks pedidos são regravados (quem edita outro notebook ao mesmo tempo não perde nada)
        for arq in args.arquivos:
            print(f"executando {arq} …", flush=True)
            executar(arq)
        return 0
    if args.checar:
        erros = problemas()
        for e in erros:
            print(e)
        print("tudo em dia" if not erros else f"{len(erros)} problema(s)")
        return 1 if erros else 0
    atualizar_tudo()
    print("navegação e mapas atualizados")
    return 0


if __name__ == "__main__":
    sys.exit(main())
