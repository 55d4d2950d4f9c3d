"""A conta q · k da vista das cabeças (notebook da atenção aprendida) no JupyterLab e no Voilà.

Escolher uma cabeça (e depois uma camada) com o teclado, como um estudante: a tabela da conta q · k tem de
passar a ser a da cabeça escolhida — o teste espera a página mudar, sem pausas fixas —, os pesos dela somam 1
(os valores inteiros, guardados em ``data-valor``, e os mostrados, dentro do arredondamento) e a palavra que
ela marca com o maior peso é a da linha mais grossa da vista, que o painel escreve em «… olha mais para»
(feita com ``modelo.atencao``, não com a conta da tabela).
"""

from __future__ import annotations

import re

import pytest
from _pagina import NOTEBOOKS, mover_com_teclado, textos_de_erro
from _servidores import voila
from test_jupyterlab import abrir_e_rodar

pytestmark = pytest.mark.browser

NOTEBOOK = next((p for p in NOTEBOOKS if p.stem.endswith("_atencao_aprendida")), None)

#: o que a tabela da conta mostra agora (``None`` se ela não está na página)
_JS_CONTA = """
(raiz) => {
  const t = raiz.querySelector('.conta-qk');
  if (!t) return null;
  const linhas = Array.from(t.querySelectorAll('tr.qk-linha'));
  const celula = (l, classe) => l.querySelector(classe);
  return {
    camada: Number(t.dataset.camada), cabeca: Number(t.dataset.cabeca), posicao: Number(t.dataset.posicao),
    tokens: linhas.map((l) => l.children[1].textContent.trim()),
    pesos: linhas.map((l) => Number(celula(l, '.qk-peso').dataset.valor)),
    mostrados: linhas.map((l) => celula(l, '.qk-peso').textContent.trim()),
    maior: linhas.filter((l) => l.dataset.maior === '1').map((l) => Number(l.dataset.posicao)),
    assinatura: linhas.map((l) => celula(l, '.qk-peso').dataset.valor).join(' '),
  };
}
"""

#: a tabela já é a de ``campo = valor`` e os pesos dela não são mais os de ``antes`` (a assinatura)
_JS_MUDOU = """
([raiz, campo, valor, antes]) => {
  const t = raiz.querySelector('.conta-qk');
  if (!t || Number(t.dataset[campo]) !== valor) return false;
  const pesos = Array.from(t.querySelectorAll('.qk-peso')).map((c) => c.dataset.valor).join(' ');
  return pesos !== antes;
}
"""


def _painel_da_vista(pagina):
    for saida in pagina.query_selector_all(".jp-OutputArea-output"):
        if saida.query_selector(".jupyter-widgets") and saida.query_selector(".conta-qk"):
            return saida
    raise AssertionError("nenhum painel com a tabela da conta q · k na página (a vista das cabeças)")


def _slider(painel, descricao: str):
    for controle in painel.query_selector_all(".widget-slider"):
        rotulo = controle.query_selector(".widget-label")
        if rotulo is not None and rotulo.inner_text().strip() == descricao:
            return controle
    raise AssertionError(f"a vista das cabeças não tem o slider {descricao!r}")


def _conferir_conta(painel) -> dict:
    """A tabela lida na página: pesos que somam 1 e o maior peso na palavra da linha mais grossa da vista."""
    conta = painel.evaluate(_JS_CONTA)
    assert conta is not None and conta["pesos"], "a tabela da conta q · k sumiu"
    n = len(conta["pesos"])
    assert len(conta["tokens"]) == n and conta["tokens"][-1] == "___", conta["tokens"]
    assert sum(conta["pesos"]) == pytest.approx(1.0, abs=1e-9), conta["pesos"]
    mostrados = [float(m.replace(",", ".")) for m in conta["mostrados"]]
    assert sum(mostrados) == pytest.approx(1.0, abs=0.0005 * n + 1e-9), conta["mostrados"]
    maior = max(range(n), key=lambda j: conta["pesos"][j])
    assert conta["maior"] == [maior], (conta["maior"], conta["pesos"])
    # a linha mais grossa da vista, que o painel escreve a partir da atenção do modelo
    vista = re.search(r"«([^»]+)»\s*olha mais para\s*«([^»]+)» \(posição (\d+)", painel.inner_text())
    assert vista is not None, painel.inner_text()
    quem, para_quem, posicao = vista.group(1), vista.group(2), int(vista.group(3))
    assert conta["tokens"][conta["posicao"]] == quem, (conta["tokens"], conta["posicao"], quem)
    assert (posicao, conta["tokens"][posicao]) == (maior, para_quem), (conta, vista.group(0))
    return conta


def _escolher_e_conferir(pagina, painel, descricao: str, campo: str) -> None:
    """Move o slider ``descricao`` um passo com o teclado, espera a tabela mudar para o valor novo e a confere."""
    antes = painel.evaluate(_JS_CONTA)
    valor_antes, valor_depois = mover_com_teclado(pagina, _slider(painel, descricao))
    assert valor_antes != valor_depois, f"o teclado não moveu o slider {descricao!r} ({valor_antes})"
    novo = int(float(valor_depois.split(" · ")[0]))  # o índice da opção = a camada ou a cabeça
    pagina.wait_for_function(_JS_MUDOU, arg=[painel, campo, novo, antes["assinatura"]], timeout=20_000)
    depois = _conferir_conta(painel)
    assert depois[campo] == novo and depois["assinatura"] != antes["assinatura"], (antes, depois)


def _conferir_painel(pagina) -> None:
    painel = _painel_da_vista(pagina)
    _conferir_conta(painel)  # o estado inicial
    _escolher_e_conferir(pagina, painel, "cabeça", "cabeca")
    _escolher_e_conferir(pagina, painel, "camada", "camada")
    assert not textos_de_erro(painel)


@pytest.mark.skipif(NOTEBOOK is None, reason="o notebook da atenção aprendida não está na trilha")
def test_jupyterlab_conta_qk_acompanha_a_cabeca(pagina, servidor_lab):
    try:
        abrir_e_rodar(pagina, servidor_lab, NOTEBOOK)
        notebook = pagina.query_selector(".jp-NotebookPanel .jp-Notebook")
        pagina.wait_for_selector(".conta-qk", timeout=60_000)
        _conferir_painel(pagina)
        assert not textos_de_erro(notebook)
    finally:
        servidor_lab.encerrar_kernels()


@pytest.mark.skipif(NOTEBOOK is None, reason="o notebook da atenção aprendida não está na trilha")
def test_voila_conta_qk_acompanha_a_cabeca(navegador, pagina, tmp_path):
    with voila(tmp_path, NOTEBOOK.name) as servidor:
        pagina.goto(f"{servidor.url}/", timeout=180_000, wait_until="load")
        pagina.wait_for_selector(".conta-qk", timeout=60_000)
        _conferir_painel(pagina)
        assert not textos_de_erro(pagina.query_selector("body"))
