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
    """Índices das células cujas saídas guardadas mostram um widget (um painel)."""
    celulas = json.loads(caminho.read_text(encoding="utf-8"))["cells"]
    return [
        i for i, c in enumerate(celulas)
        if c["cell_type"] == "code" and any(WIDGET in o.get("data", {}) for o in c.get("outputs", []))
    ]


def _menu(pagina, rotulo: str, comando: str) -> None:
    pagina.click(f"#jp-MainMenu .lm-MenuBar-item:has-text('{rotulo}')")
    pagina.click(f".lm-Menu-item[data-command='{comando}']")


def abrir_e_rodar(pagina, servidor, caminho) -> None:
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
    # saídas guardadas fora: o que se confere a seguir é só o que este Run All produziu
    _menu(pagina, "Edit", "editmenu:clear-all")
    pagina.wait_for_function("() => document.querySelectorAll('.jp-Notebook .jp-OutputArea-output').length === 0")
    _menu(pagina, "Run", "runmenu:run-all")
    pagina.wait_for_function(_JS_TERMINOU, timeout=180_000, polling=250)


@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_roda_no_jupyterlab_e_paineis_reagem(pagina, servidor_lab, capturas, caminho):
    inicio = time.monotonic()
    try:
        abrir_e_rodar(pagina, servidor_lab, caminho)
        notebook = pagina.query_selector(".jp-NotebookPanel .jp-Notebook")
        celulas = notebook.query_selector_all(".jp-Cell")
        erros = textos_de_erro(notebook)
        assert not erros, f"{caminho.name}: saída de erro/stderr depois de Run All:\n" + "\n---\n".join(erros)

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
        todos = [i for i, c in enumerate(celulas) if c.query_selector(f".jp-Cell-outputArea :is({CONTROLES})")]
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
