"""O comando que cria uma lição nova: tudo o que ele escreve segue as convenções e a trilha fica em dia."""

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests._notebooks import solucoes_do_notebook
from tools import licao

RAIZ = Path(__file__).resolve().parent.parent


def _copia(tmp_path: Path) -> Path:
    raiz = tmp_path / "repo"
    for pasta in ("notebooks", "docs", "tools"):
        shutil.copytree(RAIZ / pasta, raiz / pasta, ignore=shutil.ignore_patterns("__pycache__"))
    (raiz / "helpers" / "licoes").mkdir(parents=True)
    shutil.copy(RAIZ / "README.md", raiz / "README.md")
    return raiz


def _modulo(caminho: Path, nome: str):
    spec = importlib.util.spec_from_file_location(nome, caminho)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[nome] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("posicao", ["fim", "meio"])
def test_new_lesson_follows_the_conventions(tmp_path, posicao, monkeypatch):
    raiz = _copia(tmp_path)
    antes = sorted(p.name for p in (raiz / "notebooks").glob("*.ipynb"))
    numero = len(antes) if posicao == "fim" else 5
    slug = f"{numero:02d}_atencao_esparsa"
    avisos = licao.nova(raiz, slug, "Atenção esparsa", "padrões fixos de esparsidade e o que custam", "esparsa")

    depois = sorted(p.name for p in (raiz / "notebooks").glob("*.ipynb"))
    assert len(depois) == len(antes) + 1 and f"{slug}.ipynb" in depois
    assert [int(n[:2]) for n in depois] == list(range(len(depois)))
    if posicao == "meio":
        assert "06_soma_ponderada.ipynb" in depois and "05_soma_ponderada.ipynb" not in depois
        assert any("05_soma_ponderada.ipynb virou 06_soma_ponderada.ipynb" in a for a in avisos)
    # a etapa nova entra na trilha, que é dado (tools/trilha.json); nenhum código Python é reescrito
    assert (raiz / "tools" / "notebooks.py").read_bytes() == (RAIZ / "tools" / "notebooks.py").read_bytes()
    trilha = json.loads((raiz / "tools" / "trilha.json").read_text(encoding="utf-8"))
    assert trilha[numero] == {"arquivo": f"{slug}.ipynb", "titulo": "Atenção esparsa",
                              "resumo": "padrões fixos de esparsidade e o que custam", "licao": "esparsa"}
    # a trilha lida pela cópia de tools/notebooks.py conhece a lição, e a navegação/mapas ficam em dia
    tn = _modulo(raiz / "tools" / "notebooks.py", "tn_copia")
    assert [e.arquivo for e in tn.TRILHA] == depois
    assert tn.TRILHA[numero].licao == "esparsa"
    tn.atualizar_tudo()
    assert tn.problemas() == []
    # o guia tem uma seção por notebook, na ordem da trilha
    guia = (raiz / "docs" / "guia_do_instrutor.md").read_text(encoding="utf-8")
    secoes = re.findall(r"^## (\d\d) · (.+)$", guia, flags=re.M)
    assert [(e.arquivo[:2], e.titulo) for e in tn.TRILHA] == secoes
    # o notebook tem as seções obrigatórias e um exercício com esqueleto, correção, dicas e solução
    nb = json.loads((raiz / "notebooks" / f"{slug}.ipynb").read_text(encoding="utf-8"))
    texto = "\n".join("".join(c["source"]) for c in nb["cells"])
    for trecho in (f"# {slug[:2]} · Atenção esparsa", "## Objetivos", "## 1. ", "## 2. ", "## Resumo", "## Exercícios",
                   "NotImplementedError", "licao.check_dobro(dobro)", "Dica 1", "Dica 2", "✅ Solução"):
        assert trecho in texto, trecho
    # o corretor de exemplo aceita a solução publicada e dá nome ao erro
    mod = _modulo(raiz / "helpers" / "licoes" / "esparsa.py", "helpers.licoes.esparsa")
    ambiente = {"np": __import__("numpy")}
    exec(solucoes_do_notebook(raiz / "notebooks" / f"{slug}.ipynb")[0], ambiente)  # noqa: S102
    from helpers.corretor import corrigir

    assert corrigir(mod.DOBRO, ambiente["dobro"]).ok
    assert corrigir(mod.DOBRO, lambda x: x + 2).erro == "somou 2"
    assert (raiz / "tests" / "licoes" / "test_esparsa.py").exists()


def test_bad_names_are_refused(tmp_path):
    raiz = _copia(tmp_path)
    with pytest.raises(SystemExit, match="NN_nome"):
        licao.nova(raiz, "esparsa", "T", "R", "esparsa")
    with pytest.raises(SystemExit, match="próximo número livre"):
        licao.nova(raiz, "40_esparsa", "T", "R", "esparsa")
    with pytest.raises(SystemExit, match=r"'\|'"):
        licao.nova(raiz, "05_esparsa", "A | B", "R", "esparsa")


def test_a_lesson_that_exists_as_a_module_or_a_package_is_refused(tmp_path):
    raiz = _copia(tmp_path)
    (raiz / "helpers" / "licoes" / "esparsa.py").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"esparsa\.py"):
        licao.nova(raiz, "05_esparsa", "T", "R", "esparsa")
    (raiz / "helpers" / "licoes" / "cabecas").mkdir()
    with pytest.raises(SystemExit, match="pacote"):
        licao.nova(raiz, "05_cabecas", "T", "R", "cabecas")
