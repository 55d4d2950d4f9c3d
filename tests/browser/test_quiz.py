"""O quiz clicável da revisão num navegador de verdade: no JupyterLab (depois de *Run All*) e no Voilà.

O notebook tem dois quizzes clicáveis: o curto, do núcleo (as perguntas de ``PERGUNTAS_DO_NUCLEO``), e o
resto, num bloco opcional. O teste usa o do núcleo, o primeiro da página. Em cada servidor, ele clica numa opção errada de uma pergunta de escolha e confere que aparece, na hora, o
equívoco e o notebook para rever; clica na opção certa e confere o "certo!"; escreve ``0,67`` (vírgula
decimal, arredondado até a precisão pedida) e ``131 072 bytes`` (milhares com espaço, com a unidade) nas
numéricas, tecla Enter e confere que as duas passam — e que ``131.072``, ambíguo, recebe a pergunta "ponto de
milhar ou decimal?" sem revelar nada; e confere o placar. Sem Chromium (ou sem playwright), os testes são pulados
com uma linha dizendo o que instalar; com ``CI_EXIGE_NAVEGADOR=1``, falham.
"""

from __future__ import annotations

import re
import time

import pytest
from _pagina import NOTEBOOKS, nome_captura, textos_de_erro
from _servidores import voila

from helpers.licoes.revisao import PERGUNTAS_DO_NUCLEO, selecionar_perguntas

pytestmark = pytest.mark.browser

REVISAO = next((p for p in NOTEBOOKS if p.stem.endswith("_revisao")), None)
PERGUNTAS = selecionar_perguntas(PERGUNTAS_DO_NUCLEO)  # as do quiz do núcleo
ESCOLHA = next(p for p in PERGUNTAS if p.tipo == "escolha")
DUAS_CASAS = next(p for p in PERGUNTAS if p.tipo == "numero" and p.casas == 2)
COM_UNIDADE = next(p for p in PERGUNTAS if p.tipo == "numero" and p.unidade == "KiB")

if REVISAO is None:  # pragma: no cover - a trilha sempre tem a revisão
    pytest.skip("não há notebook de revisão na trilha", allow_module_level=True)


def _quiz(pagina):
    """O quiz do núcleo: o primeiro da página."""
    return pagina.query_selector(".quiz-revisao")


def _bloco(pagina, numero: int):
    """O bloco (enunciado, controle e retorno) da pergunta ``numero`` no quiz do núcleo."""
    quiz = _quiz(pagina)
    blocos = quiz.query_selector_all(".quiz-pergunta")
    assert len(blocos) == len(PERGUNTAS), f"o quiz mostrou {len(blocos)} perguntas, esperadas {len(PERGUNTAS)}"
    bloco = quiz.query_selector(f".quiz-pergunta-{numero}")
    assert bloco is not None, f"a pergunta {numero} não está no quiz do núcleo"
    return bloco


def _esperar_texto(bloco, padrao: str, limite_s: float = 20.0) -> str:
    fim = time.monotonic() + limite_s
    texto = bloco.inner_text()
    while not re.search(padrao, texto) and time.monotonic() < fim:
        time.sleep(0.1)
        texto = bloco.inner_text()
    assert re.search(padrao, texto), f"esperava {padrao!r} no retorno da pergunta; veio:\n{texto}"
    return texto


def _clicar_opcao(bloco, letra: str) -> None:
    rotulo = bloco.query_selector(f".widget-radio-box label:has-text('{letra})')")
    assert rotulo is not None, f"não achei o botão da opção {letra})"
    rotulo.scroll_into_view_if_needed()
    rotulo.click()


def _escrever(pagina, bloco, texto: str) -> None:
    caixa = bloco.query_selector("input[type=text]")
    assert caixa is not None, "a pergunta numérica não tem caixa de texto"
    caixa.scroll_into_view_if_needed()
    caixa.click()
    caixa.fill(texto)
    pagina.keyboard.press("Enter")


def exercitar_quiz(pagina, escopo) -> None:
    """Clica e escreve respostas no quiz e confere o retorno de cada uma e o placar."""
    pagina.wait_for_selector(".quiz-revisao .quiz-pergunta", timeout=60_000)
    errada = next(iter(ESCOLHA.erros))
    bloco = _bloco(pagina, ESCOLHA.numero)
    _clicar_opcao(bloco, errada)
    texto = _esperar_texto(bloco, r"não\. Equívoco:")
    assert ESCOLHA.equivocos[errada] in texto and "reveja o" in texto, texto
    _clicar_opcao(bloco, ESCOLHA.resposta)
    _esperar_texto(bloco, r"certo!")

    bloco = _bloco(pagina, DUAS_CASAS.numero)
    _escrever(pagina, bloco, "0,67")
    _esperar_texto(bloco, r"0,67, certo!")
    _escrever(pagina, bloco, "0,5")
    _esperar_texto(bloco, r"0,5 não\. .*Equívoco:")

    bloco = _bloco(pagina, COM_UNIDADE.numero)
    _escrever(pagina, bloco, "131.072")                     # ponto de milhar ou decimal? o quiz pergunta
    texto = _esperar_texto(bloco, r"ponto de milhar")
    assert "certo" not in texto and "Equívoco" not in texto, texto
    _escrever(pagina, bloco, "131 072 bytes")               # milhares com espaço, convertidos para KiB
    _esperar_texto(bloco, r"128 KiB \(131072 bytes = 128 KiB\), certo!")

    placar = _quiz(pagina).inner_text()
    assert re.search(r"Placar: 2 de \d+ certas", placar) and "1 para rever" in placar, placar
    erros = textos_de_erro(escopo)
    assert not erros, "erro/stderr na página do quiz:\n" + "\n---\n".join(erros)


def _capturar(pagina, caminho) -> None:
    """A tela com a primeira pergunta respondida no alto (a captura de um elemento tão alto sai em branco)."""
    _bloco(pagina, ESCOLHA.numero).evaluate("(e) => e.scrollIntoView({block: 'start'})")
    time.sleep(0.3)
    pagina.screenshot(path=str(caminho))


def test_quiz_no_jupyterlab(pagina, servidor_lab, capturas):
    from test_jupyterlab import abrir_e_rodar

    try:
        abrir_e_rodar(pagina, servidor_lab, REVISAO)
        exercitar_quiz(pagina, pagina.query_selector(".jp-NotebookPanel"))
        _capturar(pagina, nome_captura(capturas, REVISAO.stem, "quiz"))
    finally:
        servidor_lab.encerrar_kernels()


def test_quiz_no_voila(pagina, capturas, tmp_path):
    with voila(tmp_path, REVISAO.name) as servidor:
        pagina.goto(f"{servidor.url}/", timeout=180_000, wait_until="load")
        exercitar_quiz(pagina, pagina.query_selector("body"))
        _capturar(pagina, nome_captura(capturas, "voila", REVISAO.stem, "quiz"))
