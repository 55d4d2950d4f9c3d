"""Estrutura dos notebooks: nomes em sequência, seções obrigatórias, navegação em dia, saídas limpas."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import notebooks as tn

PASTA = Path(__file__).resolve().parent.parent / "notebooks"
ARQUIVOS = sorted(PASTA.glob("*.ipynb"))
NBCHECK = Path(__file__).resolve().parent.parent.parent / "shared" / "tools" / "nbcheck.py"


def _nb(caminho):
    return json.loads(caminho.read_text(encoding="utf-8"))


def _fonte(c):
    return "".join(c.get("source", ""))


def _tags(c):
    return set(c.get("metadata", {}).get("tags", []))


def test_there_are_notebooks_in_sequence():
    assert ARQUIVOS, "nenhum notebook em notebooks/"
    nomes = [p.name for p in ARQUIVOS]
    assert all(tn.NOME.match(n) for n in nomes), nomes
    assert [int(n[:2]) for n in nomes] == list(range(len(nomes)))
    assert nomes == [e.arquivo for e in tn.TRILHA[: len(nomes)]]


def test_navigation_and_maps_are_current():
    assert tn.problemas() == []


@pytest.mark.parametrize("caminho", ARQUIVOS, ids=[p.stem for p in ARQUIVOS])
def test_required_sections(caminho):
    cells = _nb(caminho)["cells"]
    assert cells[0]["cell_type"] == "markdown" and _fonte(cells[0]).startswith(f"# {caminho.name[:2]} · ")
    titulos = [ln for c in cells if c["cell_type"] == "markdown" for ln in _fonte(c).splitlines() if ln.startswith("## ")]
    assert "## Objetivos" in titulos
    assert any(t.startswith("## Resumo") for t in titulos)
    assert any(t.startswith("## Exercícios") for t in titulos)
    numeradas = [t for t in titulos if re.match(r"## \d+\. ", t)]
    assert [int(re.match(r"## (\d+)\.", t).group(1)) for t in numeradas] == list(range(1, len(numeradas) + 1))
    assert len(numeradas) >= 2
    # navegação no topo (logo após o título) e no fim
    assert "navegacao" in _tags(cells[1]) and "navegacao" in _tags(cells[-1])


@pytest.mark.parametrize("caminho", ARQUIVOS, ids=[p.stem for p in ARQUIVOS])
def test_outputs_clean_and_in_order(caminho):
    cells = [c for c in _nb(caminho)["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1)), "reexecute num kernel novo"
    for c in cells:
        fonte = _fonte(c).rstrip()
        assert fonte, "célula de código vazia"
        assert not fonte.splitlines()[-1].rstrip().endswith(";"), fonte
        for o in c["outputs"]:
            assert o["output_type"] != "error", o
            assert not (o["output_type"] == "stream" and o["name"] == "stderr"), o
            texto = "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
            assert not re.search(r"at 0x[0-9a-f]{6,}", texto), texto
            assert "Warning" not in texto, texto


@pytest.mark.parametrize("caminho", ARQUIVOS, ids=[p.stem for p in ARQUIVOS])
def test_dashboards_tagged_and_followed_by_static_figure(caminho):
    cells = [c for c in _nb(caminho)["cells"] if c["cell_type"] == "code"]
    for i, c in enumerate(cells):
        if re.search(r"licao\.painel_\w+\(", _fonte(c)) or re.search(r"\binteract\w*\(", _fonte(c)):
            assert "nbval-ignore-output" in _tags(c), _fonte(c)
            seguinte = _fonte(cells[i + 1]) if i + 1 < len(cells) else ""
            assert "figura_estatica()" in seguinte, f"falta a figura estática depois de: {_fonte(c)}"
            # sem kernel, a figura e os números dela: a imagem e depois as tabelas em HTML (que o nbval confere)
            saidas = [o.get("data", {}) for o in cells[i + 1]["outputs"]]
            assert [sorted(d) for d in saidas][-2:] == [["image/png", "text/plain"], ["text/html", "text/plain"]], saidas
            assert "<table" in "".join(saidas[-1]["text/html"]), _fonte(c)


@pytest.mark.parametrize("caminho", ARQUIVOS, ids=[p.stem for p in ARQUIVOS])
def test_exercises_have_checker_hint_and_solution(caminho):
    cells = _nb(caminho)["cells"]
    inicio = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and "## Exercícios" in _fonte(c))
    resto = cells[inicio:]
    codigo = "\n".join(_fonte(c) for c in resto if c["cell_type"] == "code")
    texto = "\n".join(_fonte(c) for c in resto if c["cell_type"] == "markdown")
    assert "NotImplementedError" in codigo, "falta o esqueleto do exercício"
    assert re.search(r"licao\.check_\w+\(", codigo), "falta a célula de correção"
    assert "Dica" in texto and "Solução" in texto and "<details>" in texto


def test_staleness_is_detected(tmp_path, monkeypatch):
    pasta = tmp_path / "notebooks"
    shutil.copytree(PASTA, pasta)
    readme = tmp_path / "README.md"
    shutil.copy(tn.README, readme)
    monkeypatch.setattr(tn, "PASTA", pasta)
    monkeypatch.setattr(tn, "README", readme)
    assert tn.problemas() == []
    alvo = pasta / ARQUIVOS[0].name
    nb = _nb(alvo)
    nb["cells"][1]["source"] = ["← anterior: [um link velho](xx.ipynb)"]
    alvo.write_text(json.dumps(nb), encoding="utf-8")
    readme.write_text(readme.read_text(encoding="utf-8").replace("| 00 |", "| 0 |"), encoding="utf-8")
    erros = tn.problemas()
    assert any(ARQUIVOS[0].name in e and "navegação" in e for e in erros)
    assert any("README.md" in e for e in erros)
    tn.atualizar_tudo()
    assert tn.problemas() == []


@pytest.mark.skipif(not NBCHECK.exists(), reason="../shared/tools/nbcheck.py não está ao lado do repositório")
def test_shared_nbcheck_is_clean():
    r = subprocess.run([sys.executable, str(NBCHECK), str(PASTA)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_helpers_importable_from_anywhere(tmp_path):
    # o pacote é instalado em modo editável (requirements.txt: `-e .`): nada de sys.path no notebook
    r = subprocess.run([sys.executable, "-c", "import helpers.attention, helpers.licoes.softmax; print('ok')"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.stdout.strip() == "ok", r.stderr


@pytest.mark.slow
def test_nbconvert_execute_from_repo_root(tmp_path):
    # como um estudante rodaria `jupyter nbconvert --execute` a partir da raiz do repositório
    raiz = PASTA.parent
    saida = tmp_path / "00.ipynb"
    r = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
         str(PASTA / "00_comece_aqui.ipynb"), "--output", str(saida)],
        cwd=raiz, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    nb = json.loads(saida.read_text(encoding="utf-8"))
    saidas = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert saidas and not any(o["output_type"] == "error" for o in saidas)


def test_map_rows_do_not_break_markdown_tables():
    # um "|" solto no título ou no resumo partiria a linha da tabela do mapa (README e notebook 00)
    for etapa in tn.TRILHA:
        assert "|" not in etapa.titulo + etapa.resumo, etapa
    linhas = tn.mapa().splitlines()
    assert all(linha.count("|") == 4 for linha in linhas), linhas


def test_one_notebook_one_lesson_module_one_test_file_one_guide_section():
    raiz = PASTA.parent
    guia = (raiz / "docs" / "guia_do_instrutor.md").read_text(encoding="utf-8")
    secoes = re.findall(r"^## (\d\d) · (.+)$", guia, flags=re.M)
    assert secoes == [(e.arquivo[:2], e.titulo) for e in tn.TRILHA], "o guia precisa de uma seção por notebook, na ordem"
    pasta_licoes = raiz / "helpers" / "licoes"
    licoes = sorted([p.stem for p in pasta_licoes.glob("*.py") if p.stem != "__init__"]
                    + [p.name for p in pasta_licoes.iterdir() if (p / "__init__.py").exists()])  # módulo ou pacote
    assert sorted(e.licao for e in tn.TRILHA) == licoes, "cada notebook tem o seu módulo em helpers/licoes/, e só"
    for etapa in tn.TRILHA:
        assert (raiz / "tests" / "licoes" / f"test_{etapa.licao}.py").exists(), etapa.licao
        modulo = tn.modulo_da_licao(etapa)
        slug = etapa.arquivo[3:-6]  # sem o número: renumerar a trilha não mexe nas lições
        assert f"``{slug}``" in (modulo.__doc__ or ""), f"a docstring de {modulo.__name__} deve nomear o notebook {slug}"
        # o notebook importa a sua lição, e só ela, como `licao`
        fontes = "\n".join(_fonte(c) for c in _nb(PASTA / etapa.arquivo)["cells"] if c["cell_type"] == "code")
        assert re.findall(r"from helpers\.licoes import (\w+) as licao", fontes) == [etapa.licao], etapa.arquivo


def test_consecutive_stream_outputs_are_joined():
    saidas = [{"output_type": "stream", "name": "stdout", "text": "a\n"},
              {"output_type": "stream", "name": "stdout", "text": ["b\n"]},
              {"output_type": "stream", "name": "stderr", "text": "c\n"},
              {"output_type": "display_data", "data": {}},
              {"output_type": "stream", "name": "stdout", "text": "d\n"}]
    juntas = tn.juntar_fluxos(saidas)
    assert [o.get("name") for o in juntas] == ["stdout", "stderr", None, "stdout"]
    assert juntas[0]["text"] == "a\nb\n"


def test_readme_is_one_screen_for_a_student_and_its_links_resolve():
    """O README serve o estudante: o que é, os dois comandos, o mapa; o resto mora em docs/ e é ligado dele."""
    raiz = PASTA.parent
    readme = (raiz / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    primeira_tela = readme.split("## Para quem ensina", 1)[0]
    assert "## Dois comandos" in primeira_tela and "<!-- mapa:inicio -->" in primeira_tela
    for pagina in ("docs/guia_do_instrutor.md", "docs/apresentar.md", "docs/turma.md", "docs/desempenho.md",
                   "docs/contribuir.md"):
        assert f"]({pagina})" in readme, pagina
    for md in [raiz / "README.md", *sorted((raiz / "docs").glob("*.md"))]:
        for alvo in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", md.read_text(encoding="utf-8")):
            assert (md.parent / alvo).exists(), f"{md.name}: link quebrado para {alvo}"
