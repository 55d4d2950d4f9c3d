"""Cada notebook no JupyterLab de verdade: Run All sem erros, painéis desenhados e reagindo ao teclado.

Para cada notebook: abre num workspace novo, limpa as saídas guardadas, roda tudo pelo menu
(*Run › Run All Cells*), espera o kernel ficar ocioso e confere que nenhuma saída de erro ou stderr
apareceu e que todo painel (toda célula cuja saída guardada é um widget) desenhou seus sliders. Depois
move cada controle de cada painel com o teclado e exige que a figura e/ou os números mudem. Uma
captura de tela do notebook e de cada painel vai para ``capturas/``.
"""

from __future__ import annotations

import json
import time

import pytest
from _pagina import (
    CONTROLES,
    NOTEBOOKS,
    STDERR,
    esperar_imagens,
    exercitar_controles,
    imagens_cortadas,
    nome_captura,
    textos_de_erro,
    trilhos_curtos,
)
from _previsoes import e_previsao, pistas_na_pagina, prever_e_ver_a_resposta, previsoes

pytestmark = pytest.mark.browser

WIDGET = "application/vnd.jupyter.widget-view+json"

#: Run All terminou: kernel ocioso, nenhum "[*]" e todas as células numeradas (ou um erro parou a execução)
_JS_TERMINOU = """
() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!nb) return false;
  const indicador = nb.querySelector('.jp-Notebook-ExecutionIndicator');
  if (!indicador || indicador.getAttribute('data-status') !== 'idle') return false;
  const prompts = Array.from(nb.querySelectorAll('.jp-CodeCell .jp-InputPrompt')).map((p) => p.textContent.trim());
  if (prompts.some((p) => p.includes('*'))) return false;
  const erro = nb.querySelector('__STDERR__');
  return erro !== null || prompts.every((p) => /^\\[\\d+\\]:$/.test(p));
}
""".replace("__STDERR__", STDERR)


def _paineis_esperados(caminho) -> list[int]:
    """Índices das células cujas saídas guardadas mostram um widget que é um painel (não uma caixa de previsão)."""
    celulas = json.loads(caminho.read_text(encoding="utf-8"))["cells"]
    return [
        i for i, c in enumerate(celulas)
        if c["cell_type"] == "code" and any(WIDGET in o.get("data", {}) for o in c.get("outputs", []))
        and not e_previsao("".join(c["source"]))
        and "aprofundamento" not in c["metadata"].get("tags", [])  # recolhidos no JupyterLab (o Voilà os mostra)
    ]


def _blocos_abertos(notebook) -> list[str]:
    """Títulos de blocos "Aprofundamento (opcional)" cuja primeira célula está à vista (deviam abrir recolhidos)."""
    return notebook.evaluate(
        """(nb) => {
          const cells = Array.from(nb.querySelectorAll('.jp-Cell'));
          const abertos = [];
          cells.forEach((c, i) => {
            const h = c.querySelector('.jp-MarkdownOutput :is(h2, h3, h4)');
            if (h && h.textContent.includes('Aprofundamento (opcional)') && i + 1 < cells.length
                && cells[i + 1].offsetParent !== null) abertos.push(h.textContent.trim());
          });
          return abertos;
        }"""
    )


def _menu(pagina, rotulo: str, comando: str) -> None:
    pagina.click(f"#jp-MainMenu .lm-MenuBar-item:has-text('{rotulo}')")
    pagina.click(f".lm-Menu-item[data-command='{comando}']")


def abrir_e_rodar(pagina, servidor, caminho, ao_abrir=None) -> None:
    """Abre o notebook gravado, chama ``ao_abrir(notebook)`` (se houver) antes de mexer em nada, limpa as saídas
    e roda tudo pelo menu."""
    espaco = f"teste-{caminho.stem}-{time.monotonic_ns()}"
    pagina.goto(f"{servidor.url}/lab/workspaces/{espaco}/tree/notebooks/{caminho.name}?reset")
    pagina.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=90_000)
    # antes de o arquivo carregar, o notebook pode aparecer com uma única célula de código vazia
    pagina.wait_for_function("() => document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell').length > 1",
                             timeout=90_000)
    pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    # mais espaço para o notebook: fecha a barra lateral (o navegador de arquivos)
    aba = pagina.query_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if aba is not None:
        aba.click()
    if ao_abrir is not None:
        ao_abrir(pagina.query_selector(".jp-NotebookPanel .jp-Notebook"))
    # saídas guardadas fora: o que se confere a seguir é só o que este Run All produziu
    _menu(pagina, "Edit", "editmenu:clear-all")
    pagina.wait_for_function("() => document.querySelectorAll('.jp-Notebook .jp-OutputArea-output').length === 0")
    _menu(pagina, "Run", "runmenu:run-all")
    pagina.wait_for_function(_JS_TERMINOU, timeout=180_000, polling=250)


@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_roda_no_jupyterlab_e_paineis_reagem(pagina, servidor_lab, capturas, caminho):
    inicio = time.monotonic()
    previstas = previsoes(caminho)
    abertos: list[str] = []

    def como_esta_gravado(notebook) -> None:
        # aberto como está gravado: nenhuma resposta de previsão na página, e os aprofundamentos recolhidos
        pagina.wait_for_function("() => document.querySelectorAll('.jp-Notebook .jp-MarkdownOutput').length > 0")
        entregues = pistas_na_pagina(notebook, previstas)
        assert not entregues, f"{caminho.name} aberto no JupyterLab entrega respostas antes da previsão: {entregues}"
        abertos.extend(_blocos_abertos(notebook))

    try:
        abrir_e_rodar(pagina, servidor_lab, caminho, ao_abrir=como_esta_gravado)
        assert not abertos, f"{caminho.name}: blocos opcionais que não abriram recolhidos: {abertos}"
        notebook = pagina.query_selector(".jp-NotebookPanel .jp-Notebook")
        celulas = notebook.query_selector_all(".jp-Cell")
        erros = textos_de_erro(notebook)
        assert not erros, f"{caminho.name}: saída de erro/stderr depois de Run All:\n" + "\n---\n".join(erros)

        # as previsões, na ordem do estudante (prever antes de mexer nos sliders: um painel movido pode mostrar a
        # resposta, como o do 11 com a key esticada): depois de Run All, nada entregue; cada caixa conferida revela a sua
        problemas = prever_e_ver_a_resposta(pagina, notebook, previstas, caminho.name)
        assert not problemas, "previsões no JupyterLab:\n" + "\n".join(problemas)

        esperados = _paineis_esperados(caminho)
        paineis = []
        for i in esperados:
            saida = celulas[i].query_selector(".jp-Cell-outputArea")
            assert saida is not None and saida.query_selector(".jupyter-widgets"), (
                f"{caminho.name}: o painel da célula {i} não foi desenhado"
            )
            assert saida.query_selector(CONTROLES), f"{caminho.name}: o painel da célula {i} não tem sliders"
            paineis.append((i, saida))
        # nenhum painel fora das células esperadas passa sem ser testado
        todos = [i for i, c in enumerate(celulas)
                 if c.is_visible() and c.query_selector(f".jp-Cell-outputArea :is({CONTROLES})")]
        assert todos == esperados, f"{caminho.name}: painéis nas células {todos}, esperados em {esperados}"

        # a captura do notebook: com o primeiro painel na tela, se houver
        if paineis:
            paineis[0][1].evaluate("(e) => e.closest('.jp-Cell').scrollIntoView({block: 'start'})")
            esperar_imagens(paineis[0][1])
            time.sleep(0.3)
        pagina.screenshot(path=str(nome_captura(capturas, caminho.stem)))
        for n, (_i, saida) in enumerate(paineis, 1):
            esperar_imagens(saida)
            saida.screenshot(path=str(nome_captura(capturas, caminho.stem, f"painel{n}")))

        # legível: numa janela de 1400 px (barra lateral fechada) nenhuma figura de painel sai da tela
        cortadas = [f"painel {n}: {c}" for n, (_i, saida) in enumerate(paineis, 1) for c in imagens_cortadas(saida)]
        assert not cortadas, f"{caminho.name}: figura de painel cortada na borda direita:\n" + "\n".join(cortadas)
        # e arrastável: a descrição de um slider não come o trilho dele
        curtos = [f"painel {n}: {c}" for n, (_i, saida) in enumerate(paineis, 1) for c in trilhos_curtos(saida)]
        assert not curtos, f"{caminho.name}: sliders com trilho curto demais para arrastar:\n" + "\n".join(curtos)

        problemas = []
        for n, (_i, saida) in enumerate(paineis, 1):
            problemas += exercitar_controles(pagina, saida, f"{caminho.name} · painel {n}")
        assert not problemas, "painéis que não reagiram ao teclado:\n" + "\n".join(problemas)
        erros = textos_de_erro(notebook)
        assert not erros, f"{caminho.name}: erro depois de mover os sliders:\n" + "\n---\n".join(erros)
    finally:
        servidor_lab.encerrar_kernels()
        print(f"{caminho.name}: {time.monotonic() - inicio:.1f} s no navegador")
