"""Modo aula com Voilà: ``voila notebooks/NN_x.ipynb`` mostra a prosa e os painéis vivos, sem código.

Para cada notebook, o teste roda o comando do README (numa cópia da coleção), abre a página no
Chromium e confere: o título do notebook aparece, nenhuma célula de código mostra o código, nenhuma
saída de erro/stderr, todo painel desenhado; e mover com o teclado o primeiro controle de cada painel
muda a figura e/ou os números. A captura fica em ``capturas/voila__NN_x.png``.
"""

from __future__ import annotations

import json
import time

import pytest
from _pagina import CONTROLES, NOTEBOOKS, esperar_imagens, exercitar_controles, nome_captura, textos_de_erro
from _previsoes import e_previsao, pistas_na_pagina, prever_e_ver_a_resposta, previsoes
from _servidores import voila

pytestmark = pytest.mark.browser

WIDGET = "application/vnd.jupyter.widget-view+json"


def _celulas(caminho):
    return json.loads(caminho.read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_voila_mostra_prosa_e_paineis_sem_codigo(navegador, pagina, capturas, tmp_path, caminho):
    celulas = _celulas(caminho)
    titulo = "".join(celulas[0]["source"]).splitlines()[0].lstrip("# ").strip()
    esperados = sum(
        1 for c in celulas
        if c["cell_type"] == "code" and any(WIDGET in o.get("data", {}) for o in c.get("outputs", []))
        and not e_previsao("".join(c["source"]))
    )
    previstas = previsoes(caminho)
    fontes_de_painel = [
        "".join(c["source"]).splitlines()[0] for c in celulas
        if c["cell_type"] == "code" and "painel_" in "".join(c["source"])
    ]
    inicio = time.monotonic()
    with voila(tmp_path, caminho.name) as servidor:
        # o Voilà executa o notebook inteiro antes de terminar de enviar a página
        pagina.goto(f"{servidor.url}/", timeout=180_000, wait_until="load")
        corpo = pagina.query_selector("body")
        if esperados:
            pagina.wait_for_function(
                f"() => document.querySelectorAll('.jp-OutputArea-output:has(:is({CONTROLES}))').length >= {esperados}",
                timeout=60_000,
            )
        erros = textos_de_erro(corpo)
        assert not erros, f"{caminho.name} no Voilà: erro/stderr:\n" + "\n---\n".join(erros)

        texto = corpo.inner_text()
        assert titulo in texto, f"{caminho.name}: o título {titulo!r} não aparece no Voilà"
        # sem código: nenhum editor/área de entrada visível e nenhuma linha de célula de painel
        editores = pagina.query_selector_all(".jp-InputArea-editor, .cm-editor, .CodeMirror")
        assert not [e for e in editores if e.is_visible()], f"{caminho.name}: o Voilà mostrou código"
        for linha in fontes_de_painel:
            assert linha.strip() not in texto, f"{caminho.name}: o Voilà mostrou a célula {linha!r}"

        paineis = [
            s for s in pagina.query_selector_all(".jp-OutputArea-output")
            if s.query_selector(CONTROLES)
        ]
        # saídas aninhadas (um Output dentro de um painel) contam uma vez só: fica a mais externa
        paineis = [s for s in paineis if not s.evaluate("(e) => !!e.parentElement.closest('.jp-OutputArea-output')")]
        assert len(paineis) == esperados, f"{caminho.name}: {len(paineis)} painéis no Voilà, esperados {esperados}"

        if paineis:
            paineis[0].scroll_into_view_if_needed()
            esperar_imagens(paineis[0])
        pagina.screenshot(path=str(nome_captura(capturas, "voila", caminho.stem)))

        # na ordem do estudante, antes de mexer nos sliders. O Voilà roda o notebook inteiro: mesmo assim, nenhuma
        # resposta antes da previsão; depois, ela aparece
        entregues = pistas_na_pagina(corpo, previstas)
        assert not entregues, f"{caminho.name} no Voilà entrega respostas antes da previsão: {entregues}"
        problemas = prever_e_ver_a_resposta(pagina, corpo, previstas, f"Voilà · {caminho.name}")
        assert not problemas, "previsões no Voilà:\n" + "\n".join(problemas)
        problemas = []
        for n, painel in enumerate(paineis, 1):
            problemas += exercitar_controles(pagina, painel, f"Voilà · {caminho.name} · painel {n}", so_o_primeiro=True)
        assert not problemas, "painéis que não reagiram ao teclado no Voilà:\n" + "\n".join(problemas)
    print(f"Voilà {caminho.name}: {time.monotonic() - inicio:.1f} s")


COM_PAINEL = [p for p in NOTEBOOKS if any(
    c["cell_type"] == "code" and any(WIDGET in o.get("data", {}) for o in c.get("outputs", [])) for c in _celulas(p)
)]


@pytest.mark.skipif(not COM_PAINEL, reason="nenhum notebook com painel ainda")
def test_voila_pelo_endereco_do_servidor_jupyter(pagina, servidor_lab):
    """O endereço ``/voila/render/notebooks/...`` do próprio servidor Jupyter (o link do Binder e do JupyterHub)."""
    caminho = COM_PAINEL[-1]
    pagina.goto(f"{servidor_lab.url}/voila/render/notebooks/{caminho.name}", timeout=180_000, wait_until="load")
    painel = pagina.wait_for_selector(f".jp-OutputArea-output:has(:is({CONTROLES}))", timeout=60_000)
    # o primeiro painel pode aparecer antes dos outros: espera todos saírem de "Loading widget..."
    pagina.wait_for_function("() => !document.body.innerText.includes('Loading widget...')", timeout=60_000)
    corpo = pagina.query_selector("body")
    assert not textos_de_erro(corpo)
    assert not [e for e in pagina.query_selector_all(".jp-InputArea-editor, .cm-editor") if e.is_visible()]
    problemas = exercitar_controles(pagina, painel, f"Voilà no servidor · {caminho.name}", so_o_primeiro=True)
    assert not problemas, "\n".join(problemas)
    servidor_lab.encerrar_kernels()
