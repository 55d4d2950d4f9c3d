"""Toda solução publicada (o bloco "✅ Solução" dobrado de cada exercício) passa no corretor do exercício.

Para cada notebook: roda a primeira célula de código (os imports, com ``licao``), executa cada bloco de
solução e, para cada chamada ``licao.check_*(...)`` das células de código da seção de Exercícios que
usa um nome definido por esse bloco, avalia a mesma chamada — e ela precisa devolver ``True``. Uma
solução que não passa, ou um exercício corrigido cuja solução não tem chamada correspondente, falha.
"""

import ast
import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from tests._notebooks import solucoes_do_notebook

PASTA = Path(__file__).resolve().parent.parent / "notebooks"
ARQUIVOS = sorted(PASTA.glob("*.ipynb"))
CHAMADA = re.compile(r"licao\.check_\w+\(.*\)")


def _celulas(caminho: Path) -> list[dict]:
    return json.loads(caminho.read_text(encoding="utf-8"))["cells"]


def _fonte(c: dict) -> str:
    return "".join(c["source"])


def _chamadas_de_correcao(caminho: Path) -> list[str]:
    """As chamadas ``licao.check_*(...)`` das células de código da seção de Exercícios."""
    cells = _celulas(caminho)
    inicio = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and "## Exercícios" in _fonte(c))
    chamadas = []
    for c in cells[inicio:]:
        if c["cell_type"] == "code":
            chamadas += CHAMADA.findall(_fonte(c))
    return chamadas


def _nomes_definidos(codigo: str) -> set[str]:
    nomes = set()
    for no in ast.parse(codigo).body:
        if isinstance(no, (ast.FunctionDef, ast.ClassDef)):
            nomes.add(no.name)
        elif isinstance(no, ast.Assign):
            nomes |= {t.id for t in no.targets if isinstance(t, ast.Name)}
    return nomes


def _nomes_usados(chamada: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(chamada)) if isinstance(n, ast.Name)}


def _casos() -> list[tuple[Path, int]]:
    return [(p, i) for p in ARQUIVOS for i in range(len(solucoes_do_notebook(p)))]


@pytest.mark.parametrize(("caminho", "i"), _casos(), ids=[f"{p.stem}-solucao{i + 1}" for p, i in _casos()])
def test_folded_solution_passes_its_grader(caminho, i):
    bloco = solucoes_do_notebook(caminho)[i]
    definidos = _nomes_definidos(bloco)
    chamadas = [c for c in _chamadas_de_correcao(caminho) if _nomes_usados(c) & definidos]
    if not chamadas:
        pytest.skip(f"a solução {i + 1} de {caminho.name} não tem corretor (exercício para pensar)")
    imports = next(_fonte(c) for c in _celulas(caminho) if c["cell_type"] == "code")
    ambiente: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(imports, ambiente)  # noqa: S102 - o código é o do próprio notebook
        exec(bloco, ambiente)  # noqa: S102
    for chamada in chamadas:
        saida = io.StringIO()
        with contextlib.redirect_stdout(saida):
            ok = eval(chamada, ambiente)  # noqa: S307
        assert ok is True, f"{caminho.name}, solução {i + 1}: {chamada}\n{saida.getvalue()}"


@pytest.mark.parametrize("caminho", ARQUIVOS, ids=[p.stem for p in ARQUIVOS])
def test_every_graded_exercise_has_a_solution_that_reaches_its_grader(caminho):
    definidos = set().union(*(_nomes_definidos(b) for b in solucoes_do_notebook(caminho)))
    sem_solucao = [c for c in _chamadas_de_correcao(caminho) if not (_nomes_usados(c) & definidos)]
    assert not sem_solucao, f"{caminho.name}: correções sem solução publicada: {sem_solucao}"
