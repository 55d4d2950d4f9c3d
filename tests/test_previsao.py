"""A caixa de previsão: ler o que se digita, travar na primeira previsão legível e revelar só depois."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbclient import NotebookClient

from helpers.corretor import Erro, Previsao, corrigir_previsao
from helpers.previsao import TEXTO_CAIXA, TEXTO_REVELACAO, caixa, ler_digitado
from helpers.respostas import NumeroAproximado

PREV = Previsao(nome="teste", certo=0.576, revelar="Explicação.", formato=NumeroAproximado(2), exemplo="0,5",
                erros=[Erro("dobrou", "Dobrou o peso.", resposta=lambda: 0.91)])


@pytest.mark.parametrize("texto, valor", [
    ("0,576", 0.576), ("0.576", 0.576), (" -3 ", -3), ("-0,5", -0.5), ("1 024", 1024), ("16", 16), ("+2,5", 2.5),
    ("", None), ("   ", None), ("k2", "k2"), ("(2, 3, 6)", "(2, 3, 6)"), ("0,5,1", "0,5,1"),
])
def test_ler_digitado(texto, valor):
    lido = ler_digitado(texto)
    assert lido == valor and type(lido) is type(valor)


def test_empty_or_unreadable_prediction_does_not_reveal_nor_lock():
    c = caixa(PREV)
    assert c.conferir("") is False and not c.conferida
    assert "0,576" not in c.mensagem.value and "caixa" in c.mensagem.value
    assert c.conferir("muito") is False and not c.conferida
    assert "0,576" not in c.mensagem.value and "0.576" not in c.mensagem.value
    assert not c.entrada.disabled


def test_first_readable_prediction_locks_and_reveals():
    c = caixa(PREV)
    assert c.conferir("0,91") is False and c.conferida
    assert "Dobrou o peso." in c.mensagem.value and "0,576" in c.mensagem.value
    assert c.entrada.disabled and c.botao.disabled
    # a segunda previsão não muda nada: a primeira é a que vale
    assert c.conferir("0,576") is False and "Dobrou" in c.mensagem.value


def test_right_prediction_typed_the_brazilian_way():
    c = caixa(PREV)
    assert c.conferir("0,58") is True and "previu certo" in c.mensagem.value


def test_button_click_grades_the_text_box():
    c = caixa(PREV)
    c.entrada.value = "0,576"
    c.botao.click()
    assert c.conferida and c.veredito.ok


def test_a_number_typed_for_a_text_answer_is_read_as_text():
    from helpers.respostas import Texto
    c = caixa(Previsao(nome="nome", certo="2", revelar="R.", formato=Texto(), exemplo="1"))
    assert c.conferir("2") is True and c.conferida


def test_static_text_of_the_box_says_what_to_do():
    assert caixa(PREV)._repr_mimebundle_()["text/plain"] == TEXTO_CAIXA


def test_pistas_default_to_the_answer_with_comma_and_point():
    assert PREV.pistas_da_resposta() == ["0,576", "0.576"]
    assert corrigir_previsao(PREV, None).erro == "pendente"


_CELULAS = [
    "from helpers.corretor import Previsao\n"
    "from helpers.previsao import caixa\n"
    "import matplotlib.pyplot as plt\n"
    "p = caixa(Previsao(nome='t', certo=0.576, revelar='R.'))\n"
    "p",
    "with p.revelar():\n"
    "    print('a resposta é 0.576')\n"
    "    fig, ax = plt.subplots()\n"
    "    ax.set_title('0.576')",
    "import sys\nprint(len(p._revelacoes[0].lugar.outputs), len(p._revelacoes[0].saidas))",
    "p.conferir('0,6')\nprint(len(p._revelacoes[0].lugar.outputs))",
    "with p.revelar():\n    print('depois: 0.576')\nprint(len(p._revelacoes[1].lugar.outputs))",
]


def _executar(celulas: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in celulas])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    return nb


def test_reveal_runs_in_the_kernel_but_stays_off_the_page_until_the_prediction():
    nb = _executar(_CELULAS)
    caixa_, revelar, antes, depois, outra = nb.cells
    assert [o["data"]["text/plain"] for o in caixa_.outputs] == [TEXTO_CAIXA]
    # o bloco rodou (a figura e o texto ficaram guardados), mas a célula só mostra o aviso
    assert [o.get("data", {}).get("text/plain") for o in revelar.outputs] == [TEXTO_REVELACAO]
    assert "0.576" not in json.dumps(revelar.outputs)
    saidas, guardadas = antes.outputs[0]["text"].split()
    assert (saidas, guardadas) == ("0", "2")  # texto + figura guardados, nada na página
    assert depois.outputs[0]["text"].strip() == "2"  # conferida: vão para a página
    # um bloco rodado depois da previsão já aparece
    assert outra.outputs[-1]["text"].strip() == "1"


def test_an_error_inside_the_reveal_is_not_hidden():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from helpers.corretor import Previsao\nfrom helpers.previsao import caixa\n"
        "p = caixa(Previsao(nome='t', certo=1.0, revelar='R.'))\n"
        "with p.revelar():\n    1 / 0")])
    with pytest.raises(Exception, match="ZeroDivisionError"):
        NotebookClient(nb, timeout=120, kernel_name="python3").execute()
