"""O notebook da atenção aprendida no JupyterLab e no Voilà: o que o teste genérico não faz.

O teste genérico move todo slider, menu e caixa de seleção de todo painel. Aqui: apertar o botão
**treinar** do painel de treino (a barra de progresso vai até o fim, a figura com a curva da perda muda
e o botão volta a ficar disponível) e digitar na caixa de texto da vista das cabeças uma palavra que o
modelo não conhece (aparece a mensagem em português, nunca um traceback) e depois uma frase válida.
"""

from __future__ import annotations

import time

import pytest
from _pagina import NOTEBOOKS, esperar_imagens, retrato, retrato_estavel, textos_de_erro
from _servidores import voila
from test_jupyterlab import abrir_e_rodar

pytestmark = pytest.mark.browser

NOTEBOOK = next((p for p in NOTEBOOKS if p.stem.endswith("_atencao_aprendida")), None)

_JS_BARRA = """
(raiz) => {
  const barra = raiz.querySelector('.widget-progress .progress-bar, .widget-hprogress .progress-bar');
  return barra ? parseFloat(barra.style.width || '0') : -1;
}
"""


def _painel_com(pagina, texto: str):
    """A área de saída (JupyterLab) ou a saída do Voilà que contém o botão/controle com ``texto``."""
    for saida in pagina.query_selector_all(".jp-OutputArea-output"):
        if saida.query_selector(".jupyter-widgets") and texto in saida.inner_text():
            return saida
    raise AssertionError(f"nenhum painel com {texto!r} na página")


def _reduzir_passos(pagina, painel) -> None:
    """Leva o slider «passos» ao mínimo (100) com o teclado, para o treino do teste ser curto."""
    controle = next(c for c in painel.query_selector_all(".widget-slider") if "passos" in c.inner_text())
    handle = controle.query_selector(".noUi-handle")
    handle.focus()
    for _ in range(10):
        pagina.keyboard.press("ArrowLeft")
    fim = time.monotonic() + 10
    while handle.get_attribute("aria-valuenow") not in ("100", "100.00") and time.monotonic() < fim:
        time.sleep(0.1)
    assert float(handle.get_attribute("aria-valuenow")) == 100, handle.get_attribute("aria-valuenow")


def _treinar_e_conferir(pagina, painel, limite_s: float = 180.0) -> None:
    _reduzir_passos(pagina, painel)
    antes = retrato_estavel(painel)
    botao = painel.query_selector("button:has-text('treinar')")
    assert botao is not None and botao.is_enabled()
    botao.click()
    # durante o treino o botão fica desabilitado; no fim, a barra está cheia e ele volta
    fim = time.monotonic() + limite_s
    vistos = set()
    while time.monotonic() < fim:
        vistos.add(round(painel.evaluate(_JS_BARRA)))
        if "pronto:" in painel.inner_text() and botao.is_enabled():
            break
        time.sleep(0.2)
    else:
        raise AssertionError(f"o treino não terminou em {limite_s:.0f} s (barra: {sorted(vistos)})")
    assert painel.evaluate(_JS_BARRA) == 100, painel.evaluate(_JS_BARRA)
    assert len(vistos) >= 2, f"a barra de progresso não andou: {sorted(vistos)}"
    esperar_imagens(painel)
    depois = retrato(painel)
    assert depois["imagens"] != antes["imagens"], "a figura (curva da perda e cabeças) não mudou depois do treino"
    texto = painel.inner_text()
    assert "acurácia em 300 frases novas" in texto and "semente 0, 100 passos" in texto, texto
    assert not textos_de_erro(painel)


def _digitar_e_conferir(pagina, painel) -> None:
    caixa = painel.query_selector(".widget-text input")
    assert caixa is not None
    antes = retrato_estavel(painel)
    caixa.fill("o carro para as meninas ___")
    caixa.press("Enter")
    pagina.wait_for_function("(e) => e.innerText.includes('não está no vocabulário')", arg=painel, timeout=20_000)
    texto = painel.inner_text()
    assert "«carro»" in texto and "Traceback" not in texto and not textos_de_erro(painel), texto
    assert retrato(painel)["imagens"] == antes["imagens"]  # a figura continua na última frase válida
    caixa.fill("as cartas com o menino ___")
    caixa.press("Enter")
    pagina.wait_for_function("(e) => e.innerText.includes('as cartas com o menino')", arg=painel, timeout=20_000)
    esperar_imagens(painel)
    fim = time.monotonic() + 10
    while retrato(painel)["imagens"] == antes["imagens"] and time.monotonic() < fim:
        time.sleep(0.1)
    assert retrato(painel)["imagens"] != antes["imagens"], "a figura não mudou com a frase digitada"
    assert "não está no vocabulário" not in painel.inner_text()


@pytest.mark.skipif(NOTEBOOK is None, reason="o notebook da atenção aprendida não está na trilha")
def test_jupyterlab_botao_treinar_e_frase_digitada(pagina, servidor_lab):
    try:
        abrir_e_rodar(pagina, servidor_lab, NOTEBOOK)
        notebook = pagina.query_selector(".jp-NotebookPanel .jp-Notebook")
        assert not textos_de_erro(notebook)
        _treinar_e_conferir(pagina, _painel_com(pagina, "treinar"))
        _digitar_e_conferir(pagina, _painel_com(pagina, "digite uma frase"))
        assert not textos_de_erro(notebook)
    finally:
        servidor_lab.encerrar_kernels()


@pytest.mark.skipif(NOTEBOOK is None, reason="o notebook da atenção aprendida não está na trilha")
def test_voila_botao_treinar(navegador, pagina, tmp_path):
    with voila(tmp_path, NOTEBOOK.name) as servidor:
        pagina.goto(f"{servidor.url}/", timeout=180_000, wait_until="load")
        pagina.wait_for_selector("button:has-text('treinar')", timeout=60_000)
        _treinar_e_conferir(pagina, _painel_com(pagina, "treinar"))
        _digitar_e_conferir(pagina, _painel_com(pagina, "digite uma frase"))
        assert not textos_de_erro(pagina.query_selector("body"))
