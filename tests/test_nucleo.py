"""O núcleo de cada notebook cabe na aula, o aprofundamento é opcional de verdade, e nenhuma previsão é entregue.

- **Orçamento:** a prosa do núcleo (células Markdown sem a tag ``aprofundamento``, fora dos ``<details>`` de dicas
  e soluções) tem no máximo 40 palavras por minuto do tempo que o guia do instrutor dá ao notebook.
- **Opcional de verdade:** os blocos opcionais seguem a convenção (título "Aprofundamento (opcional): …", todas as
  células do bloco com a tag, abrindo recolhidos), o guia lista cada um como "para casa", e o notebook sem eles
  roda de cima a baixo num kernel novo.
- **Previsões:** nada do que a página mostra antes de o estudante conferir — prosa, código, saídas gravadas — traz
  a resposta de uma previsão.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests._notebooks import secoes_do_guia
from tools import notebooks as tn

RAIZ = Path(__file__).resolve().parent.parent
GUIA = (RAIZ / "docs" / "guia_do_instrutor.md").read_text(encoding="utf-8")
ARQUIVOS = sorted(tn.PASTA.glob("*.ipynb"))
IDS = [p.stem for p in ARQUIVOS]
PREVER = re.compile(r"licao\.(prever_\w+)\(")


def _nb(caminho: Path) -> dict:
    return json.loads(caminho.read_text(encoding="utf-8"))


def minutos_do_guia() -> dict[str, int]:
    """``{"05": 30}``: o tempo de aula de cada notebook, da visão geral do guia do instrutor."""
    return {n: int(m) for n, m in re.findall(r"^\| (\d\d) · [^|]+\| (\d+) min \|", GUIA, flags=re.M)}


@pytest.mark.parametrize("caminho", ARQUIVOS, ids=IDS)
def test_core_prose_fits_the_class_slot(caminho):
    minutos = minutos_do_guia()[caminho.name[:2]]
    orcamento = tn.PALAVRAS_POR_MINUTO * minutos
    palavras = tn.palavras_do_nucleo(_nb(caminho))
    assert palavras <= orcamento, (f"{caminho.name}: o núcleo tem {palavras} palavras de prosa; a aula de {minutos} min "
                                   f"comporta {orcamento}. Leve o que é opcional para um bloco de aprofundamento.")


@pytest.mark.parametrize("caminho", ARQUIVOS, ids=IDS)
def test_optional_blocks_follow_the_convention_and_open_folded(caminho):
    cells = _nb(caminho)["cells"]
    assert tn.problemas_de_aprofundamento(cells) == []
    for inicio, _fim, titulo in tn.blocos_de_aprofundamento(cells):
        assert cells[inicio]["metadata"].get(tn.RECOLHIDO) is True, f"«{titulo}» não abre recolhido"


def test_the_convention_catches_a_stray_tag_and_an_untagged_cell():
    def md(texto, *tags):
        return {"cell_type": "markdown", "metadata": {"tags": list(tags)}, "source": texto}
    cells = [md("## 1. Um"), md("### Aprofundamento (opcional): história", "aprofundamento"),
             md("texto opcional"), md("## 2. Dois"), md("solta", "aprofundamento")]
    erros = tn.problemas_de_aprofundamento(cells)
    assert any("célula 2" in e and "sem a tag" in e for e in erros)
    assert any("célula 4" in e and "fora de um bloco" in e for e in erros)
    assert tn.blocos_de_aprofundamento(cells) == [(1, 3, "história")]
    assert tn.palavras(md("um dois <details><summary>três</summary>quatro</details>")) == 2


@pytest.mark.parametrize("numero", sorted(minutos_do_guia()))
def test_guide_lists_every_optional_block_as_homework(numero):
    etapa = next(e for e in tn.TRILHA if e.arquivo.startswith(numero))
    secao = secoes_do_guia(GUIA)[numero]
    titulos = [t for _i, _f, t in tn.blocos_de_aprofundamento(_nb(tn.PASTA / etapa.arquivo)["cells"])]
    if not titulos:
        return
    assert "**Para casa / para quem quiser.**" in secao, f"a seção {numero} do guia não diz o que fica para casa"
    para_casa = secao.split("**Para casa / para quem quiser.**", 1)[1]
    faltam = [t for t in titulos if f"«{t}»" not in para_casa]
    assert not faltam, f"o guia (seção {numero}) não lista como opcionais: {faltam}"


@pytest.mark.slow
@pytest.mark.parametrize("caminho", ARQUIVOS, ids=IDS)
def test_core_alone_runs_top_to_bottom(caminho, tmp_path):
    """Sem nenhuma célula opcional, o notebook roda inteiro num kernel novo (na pasta dele, como o nbval)."""
    pasta = tmp_path / "notebooks"
    shutil.copytree(tn.PASTA, pasta)
    nb = nbformat.reads(json.dumps(tn.nucleo(_nb(caminho))), as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(pasta)}}).execute()


# --- previsões que nada entrega ------------------------------------------------------------------

def texto_da_pagina(nb: dict) -> str:
    """Tudo o que o notebook gravado traz antes de rodar: prosa (inclusive o que está recolhido em ``<details>``:
    uma dica ou uma solução fica a um clique), código e as saídas de texto gravadas."""
    pedacos = []
    for c in nb["cells"]:
        pedacos.append("".join(c["source"]))
        for o in c.get("outputs", []):
            pedacos.append("".join(o.get("text", "")))
            for tipo in ("text/plain", "text/html", "text/markdown", "text/latex"):
                pedacos.append("".join(o.get("data", {}).get(tipo, "")))
    return "\n".join(pedacos)


def previsoes_do_notebook(caminho: Path) -> list:
    """As :class:`~helpers.corretor.Previsao` das caixas do notebook, na ordem em que aparecem."""
    etapa = next(e for e in tn.TRILHA if e.arquivo == caminho.name)
    modulo = tn.modulo_da_licao(etapa)
    return [getattr(modulo, nome).exercicio for nome in PREVER.findall(caminho.read_text(encoding="utf-8"))]


COM_PREVISAO = [p for p in ARQUIVOS if PREVER.search(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("caminho", COM_PREVISAO, ids=[p.stem for p in COM_PREVISAO])
def test_no_prediction_is_given_away_by_the_stored_page(caminho):
    pagina = texto_da_pagina(_nb(caminho))
    for prev in previsoes_do_notebook(caminho):
        pistas = prev.pistas_da_resposta()
        assert pistas, prev.nome
        achadas = [p for p in pistas if p in pagina]
        assert not achadas, f"{caminho.name}: a página entrega a resposta de «{prev.nome}» antes da previsão: {achadas}"


@pytest.mark.parametrize("caminho", COM_PREVISAO, ids=[p.stem for p in COM_PREVISAO])
def test_predictions_use_the_box_and_the_old_variable_is_gone(caminho):
    texto = caminho.read_text(encoding="utf-8")
    assert "minha_previsao" not in texto and "check_previsao" not in texto
    for prev in previsoes_do_notebook(caminho):
        # o exemplo da caixa é uma previsão legível (é o palpite que os testes de navegador digitam)
        from helpers.corretor import corrigir_previsao
        from helpers.previsao import ler_digitado
        assert corrigir_previsao(prev, ler_digitado(prev.exemplo)).erro not in ("pendente", "tipo"), prev.nome


def test_the_spoiler_check_sees_prose_code_outputs_and_folded_text():
    nb = {"cells": [
        {"cell_type": "markdown", "source": "O peso vai a 0,576.\n<details><summary>Solução</summary>0,9</details>"},
        {"cell_type": "code", "source": "x = 1", "outputs": [{"output_type": "stream", "text": "0.31"}]},
    ]}
    texto = texto_da_pagina(nb)
    assert "0,576" in texto and "0.31" in texto and "0,9" in texto
