"""Fumaça dos benchmarks: cada medição em tamanho mínimo roda e produz linhas bem formadas.

Não há asserções de tempo (o benchmark relata, não reprova): só estrutura, contas e o README.
"""

import re

import numpy as np
import pytest

import benchmarks
from benchmarks import CUMPRE, INFORMATIVO, NAO_CUMPRE, Linha, blocos, latencia, navegador, notebooks, vazao
from benchmarks import __main__ as cli

VEREDITOS = {CUMPRE, NAO_CUMPRE, INFORMATIVO}


def _celulas(linha_md):
    """As células de uma linha de tabela Markdown (respeitando ``\\|``)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", linha_md.strip())[1:-1]]


def _confere(linhas, secao):
    assert linhas
    for lin in linhas:
        assert isinstance(lin, Linha) and lin.secao == secao
        assert lin.caso and lin.resultado and lin.veredito in VEREDITOS
        assert "ERRO" not in lin.resultado, lin.resultado


def test_every_dashboard_moves_from_min_to_max():
    """Todo painel_* abre sem argumentos e aceita cada controle nos extremos (2 movimentos: mínimo e máximo)."""
    from tools.notebooks import paineis

    nomes = list(paineis())
    assert "painel_produto_escalar" in nomes and all(n.startswith("painel_") for n in nomes)
    linhas = latencia.medir_latencia(n_movimentos=2)
    assert [lin.caso for lin in linhas] == nomes
    _confere(linhas, "1")
    for lin in linhas:
        assert re.search(r"mediana \d+ ms · p95 \d+ ms", lin.resultado), lin.resultado
        assert lin.razao.endswith("ms)") and "× completo" in lin.razao


def test_slider_moves_cover_the_range():
    import ipywidgets as W

    valores = []
    s = W.FloatSlider(value=0.3, min=-1.0, max=1.0, step=0.1)
    s.observe(lambda m: valores.append(m["new"]), names="value")
    for acao in latencia.movimentos(s, 5):
        acao()
    assert valores[0] == pytest.approx(-1.0) and valores[-1] == pytest.approx(1.0) and len(valores) == 5
    escolha = W.SelectionSlider(options=[2, 4, 8], value=4)
    indices = []
    escolha.observe(lambda m: indices.append(m["new"]), names="value")
    for acao in latencia.movimentos(escolha, 4):
        acao()
    assert len(indices) == 4 and all(a != b for a, b in zip(indices, indices[1:], strict=False))
    caixa = W.Checkbox(value=False)
    for acao in latencia.movimentos(caixa, 3):
        acao()
    assert caixa.value is True
    assert latencia.movimentos(W.Text(value="x"), 3) is None


@pytest.mark.slow
def test_one_notebook_against_the_baseline_and_a_failing_one(tmp_path):
    import nbformat

    quebrado = notebooks.notebook_base()
    quebrado.cells.append(nbformat.v4.new_code_cell("1 / 0"))
    caminho_quebrado = tmp_path / "99_quebrado.ipynb"
    nbformat.write(quebrado, caminho_quebrado)
    arquivo = notebooks.PASTA / "00_comece_aqui.ipynb"
    antes = arquivo.read_bytes()
    linhas = notebooks.medir_notebooks([arquivo, caminho_quebrado], rodadas_base=1, rodadas=1)
    assert arquivo.read_bytes() == antes  # o notebook do repositório não muda
    assert [lin.caso for lin in linhas] == ["notebook-base (imports + 1 figura)", "00_comece_aqui.ipynb",
                                            "99_quebrado.ipynb", "coleção inteira (2 notebooks)"]
    _confere(linhas[:2], "2")
    assert re.fullmatch(r"\d+\.\d+× base", linhas[1].razao)
    assert re.fullmatch(r"\d+\.\d s \(células \d+\.\d s\)", linhas[1].resultado)
    # um notebook que quebra vira uma linha de erro legível (sem as cores do terminal), e a medição segue
    assert linhas[2].veredito == NAO_CUMPRE and "ZeroDivisionError" in linhas[2].resultado
    assert "\x1b" not in linhas[2].resultado


def test_throughput_rows_and_flop_counts():
    assert vazao.flops_atencao(256, 64, 8) == 4 * 256**2 * 64 * 8
    assert vazao.flops_multi_head(256, 64, 8) == 8 * 256 * 512**2 + 4 * 256**2 * 512
    linhas = vazao.medir_vazao(ns=(32,), tipos=(np.float32, np.float64), n_heads=2, d_head=8, rodadas=1)
    _confere(linhas, "3")
    assert len(linhas) == 2 * 3
    rapidos = [lin for lin in linhas if lin.caso.startswith("caminho rápido")]
    assert len(rapidos) == 2 and all("× a velocidade da referência" in lin.razao for lin in rapidos)
    for lin in linhas:
        assert "GFLOP/s" in lin.resultado and ("× teto (" in lin.razao or lin in rapidos)
    assert all(lin.veredito == INFORMATIVO for lin in linhas)  # n < 1024: informativo
    assert any("float32" in lin.caso for lin in linhas)


def test_blockwise_rows_measure_memory_and_time_and_catch_a_wrong_answer():
    linhas = blocos.medir_blocos(ns=(256, 1024), rodadas=1, n_meta_memoria=1024)
    _confere(linhas, "4")
    assert len(linhas) == 2 and all("pico extra" in lin.resultado and "memória 1/" in lin.razao for lin in linhas)
    # em n = 1024 a exata guarda 1024² pesos (8 MiB); a por blocos, só alguns blocos
    assert int(re.search(r"memória 1/(\d+)", linhas[1].razao).group(1)) >= 2
    assert "memória ≤ 1/20" in linhas[1].meta and "memória" not in linhas[0].meta  # a meta de memória só em n grande
    # uma implementação que erra a saída não cumpre, por mais rápida que seja
    (errada,) = blocos.medir_blocos(ns=(256,), rodadas=1, blockwise=lambda q, k, v: np.zeros_like(v))
    assert errada.veredito == NAO_CUMPRE and "maior diferença da exata" in errada.resultado


def test_tracemalloc_peak_counts_numpy_allocations():
    assert blocos.pico_extra(lambda: np.ones(1_000_000)) >= 8_000_000
    assert blocos.pico_extra(lambda: None) < 100_000


def test_table_and_report_structure():
    linhas = [
        Linha("1", "latência do slider", "painel_x", "mediana 10 ms", "1.0× só PNG", "≤ 50 ms", CUMPRE),
        Linha("3", "vazão", "caso | com barra", "1 GFLOP/s", "0.40× teto", "≥ 0.5× teto", NAO_CUMPRE),
        Linha("4", "blocos", "blockwise_attention", "pico 1 MiB"),
    ]
    tabela = benchmarks.tabela_markdown(linhas).splitlines()
    assert len(tabela) == 2 + len(linhas)
    assert _celulas(tabela[0]) == list(benchmarks.COLUNAS[:-1]) + [""]
    assert set(tabela[1]) <= {"|", "-"}
    assert all(len(_celulas(t)) == len(benchmarks.COLUNAS) for t in tabela)
    assert _celulas(tabela[3])[2] == "caso \\| com barra"
    assert benchmarks.resumo_metas(linhas) == "metas cumpridas: 1 de 2; não cumpridas: 3 · caso | com barra"
    texto = benchmarks.relatorio("desempenho", maquina="máquina: teste", carga_inicio="1.0 / 2.0", carga_fim="3.0 / 4.0",
                                 minutos="1.5", tabela=benchmarks.tabela_markdown(linhas),
                                 metas=benchmarks.resumo_metas(linhas))
    assert texto.startswith("Medido em ") and "\nmáquina: teste\n" in texto and "| 4 " in texto
    assert "1.0 / 2.0 no início, 3.0 / 4.0 no fim · medição completa em 1.5 min" in texto
    assert "\nmetas cumpridas: 1 de 2; não cumpridas: 3 · caso | com barra\n" in texto and "$" not in texto
    with pytest.raises(KeyError):  # um campo do modelo que ninguém preencheu não passa em silêncio
        benchmarks.relatorio("desempenho", maquina="x")
    assert "numpy" in benchmarks.linha_maquina() and "BLAS" in benchmarks.linha_maquina()


def test_median_and_p95():
    assert benchmarks.mediana_p95([5, 1, 3]) == (3, pytest.approx(4.8))
    med, p95 = benchmarks.mediana_p95(list(range(1, 101)))
    assert med == 50.5 and p95 == pytest.approx(95.05)


def test_only_the_marked_region_of_the_page_changes(tmp_path):
    pagina = tmp_path / "desempenho.md"
    pagina.write_text("# t\n\nantes\n<!-- desempenho:inicio -->\n(velho)\n<!-- desempenho:fim -->\ndepois\n"
                      "<!-- turma:inicio -->\nfica\n<!-- turma:fim -->\n", encoding="utf-8")
    benchmarks.gravar_na_pagina("| a |\n|---|\n", pagina, "desempenho")
    assert pagina.read_text(encoding="utf-8") == ("# t\n\nantes\n<!-- desempenho:inicio -->\n| a |\n|---|\n"
                                                  "<!-- desempenho:fim -->\ndepois\n<!-- turma:inicio -->\nfica\n"
                                                  "<!-- turma:fim -->\n")
    pagina.write_text("sem marcadores", encoding="utf-8")
    with pytest.raises(SystemExit):
        benchmarks.gravar_na_pagina("x", pagina, "desempenho")


def test_cli_rejects_bad_options(tmp_path):
    for opcoes in (["--so", "7"], ["--readme", "--rapido"], ["--readme", "--so", "5"],
                   ["--readme", "--raiz", str(tmp_path)], ["--turma", "--rapido", "--readme"]):
        with pytest.raises(SystemExit):
            cli.main(opcoes)


def test_browser_key_and_drag_arithmetic():
    """As contas da medição no navegador, a partir dos eventos que a página registra (tempos em ms)."""
    toque = [("tecla", 10.0), ("valor", 30.0, 0), ("src", 60.0), ("figura", 75.0), ("src", 190.0), ("figura", 200.0)]
    assert navegador.latencias_da_tecla(toque) == (65.0, 50.0)
    assert navegador.latencias_da_tecla([("figura", 5.0)]) == (None, None)
    assert navegador.latencias_da_tecla([("tecla", 1.0), ("src", 9.0)]) == (None, 8.0)
    arrasto = [("aperta", 0.0), ("valor", 10.0, 0), ("figura", 50.0), ("valor", 20.0, 0), ("src", 60.0),
               ("figura", 90.0), ("valor", 900.0, 0), ("solta", 1000.0), ("figura", 1080.0), ("valor", 1100.0, 0)]
    assert navegador.resumo_do_arrasto(arrasto) == (2, 3)  # nem a figura nem o valor depois de soltar
    # só contam os valores do slider arrastado (outro slider do painel pode mudar junto)
    dois = [("aperta", 0.0), ("valor", 1.0, 0), ("valor", 2.0, 1), ("valor", 3.0, 1), ("solta", 9.0)]
    assert navegador.resumo_do_arrasto(dois, handle=1) == (0, 2)
    assert navegador.resumo_do_arrasto(dois, handle=0) == (0, 1)
    assert navegador.resumo_do_arrasto([("figura", 5.0)]) is None
    # um slider com poucas posições não pode mostrar mais figuras que posições: 8 de 10 e 3 de 3
    m = navegador.Medidas(figuras_arrasto=[8, 3], valores_arrasto=[40, 3])
    assert navegador.razao_do_arrasto(m, 10) == pytest.approx(11 / 13)


def _medidas(ms, figuras, valores=40, p95=None):
    teclas = [ms] * 9 + [p95 or ms]
    return navegador.Medidas(teclas_ms=teclas, src_ms=[t - 5 for t in teclas], figuras_arrasto=[figuras],
                             valores_arrasto=[valores], sliders=1)


def test_browser_rows_compare_each_notebook_with_the_reference_of_its_page():
    ref = navegador.REFERENCIA
    resultados = {
        "00_bom": {ref: _medidas(50.0, 10), "painel_a": _medidas(60.0, 9), "painel_b": _medidas(70.0, 10)},
        "01_lento_contra_a_ref": {ref: _medidas(40.0, 10), "painel": _medidas(90.0, 9)},  # ≤ 100 ms, mas 2.25×
        "02_arrasto_pobre": {ref: _medidas(100.0, 10), "painel": _medidas(60.0, 5)},
        "03_cauda_longa": {ref: _medidas(100.0, 10), "painel": _medidas(60.0, 10, p95=900.0)},
        "04_quebrado": {ref: navegador.Medidas(erro="TimeoutError: o Run All não terminou")},
    }
    linhas = navegador.linhas_da_medicao(resultados)
    bom, lento, arrasto, cauda, quebrado, todos = linhas
    _confere([bom], "5")
    assert bom.veredito == CUMPRE and bom.razao.startswith("1.30× ref; arrasto 95% (10 figuras na ref)")
    assert bom.resultado.startswith("mediana 65 ms · p95 70 ms (20 teclas, 2 sliders; até o src 60 ms) · ref 50")
    assert lento.veredito == NAO_CUMPRE and lento.razao.startswith("2.25× ref")
    assert arrasto.veredito == NAO_CUMPRE and "arrasto 50%" in arrasto.razao
    assert cauda.veredito == NAO_CUMPRE and "p95 " in cauda.resultado  # a mediana passa; a cauda, não
    assert quebrado.veredito == NAO_CUMPRE and quebrado.resultado == "ERRO: TimeoutError: o Run All não terminou"
    # o total junta os toques de todos os notebooks medidos (não o quebrado), cada lado com os seus
    assert todos.caso == "todos os notebooks" and "(50 teclas, 5 sliders" in todos.resultado
    assert benchmarks.tabela_markdown(linhas).count("\n") == len(linhas) + 1


def test_browser_section_is_one_line_without_chromium(monkeypatch):
    monkeypatch.setenv("CHROMIUM", "/caminho/que/nao/existe")
    (linha,) = navegador.medir_navegador()
    assert linha.secao == "5" and linha.veredito == INFORMATIVO
    assert linha.resultado.startswith("pulada: Chromium não encontrado")


def test_browser_finds_the_dashboards_and_the_reference_is_a_plain_widget():
    achados = {p.stem[:2]: navegador.paineis_do_notebook(p) for p in sorted(notebooks.PASTA.glob("[0-9][0-9]_*.ipynb"))}
    assert [nome for _, nome in achados["05"]] == ["painel_soma_ponderada", "painel_soma_ponderada_values"]
    assert all(".prever_" not in nome for lista in achados.values() for _, nome in lista)
    import matplotlib

    matplotlib.use("Agg")
    ns: dict = {}
    exec(navegador.CODIGO_REFERENCIA, ns)  # o código da referência roda como um estudante o escreveria
    antes = ns["imagem_ref"].value
    ns["slider_ref"].value = 2.0
    assert ns["imagem_ref"].value != antes and bytes(ns["imagem_ref"].value).startswith(b"\x89PNG")
    assert ns["fig_ref"].get_size_inches().tolist() == [9.0, 3.6] and len(ns["linha_ref"].get_xdata()) == 400
    assert "helpers" not in navegador.CODIGO_REFERENCIA and "savefig" in navegador.CODIGO_REFERENCIA


@pytest.mark.browser
def test_browser_benchmark_measures_a_notebook():
    """A medição de verdade, pequena: um notebook, dois toques por slider e um arrasto."""
    import os

    linhas = navegador.medir_navegador([notebooks.PASTA / "05_soma_ponderada.ipynb"], n_teclas=2)
    if linhas[0].caso == "(não medida)":
        if os.environ.get("CI_EXIGE_NAVEGADOR"):
            pytest.fail(linhas[0].resultado)
        pytest.skip(linhas[0].resultado)
    _confere(linhas, "5")
    (linha,) = linhas
    assert linha.caso == "05_soma_ponderada" and re.search(r"\(\d+ teclas, \d+ sliders", linha.resultado)
    assert re.search(r"× ref; arrasto \d+%", linha.razao)


def test_best_of_interleaves_and_spreads_rounds_in_time():
    ordem = []
    tempos = benchmarks.melhor_de({"a": lambda: ordem.append("a"), "b": lambda: ordem.append("b")}, 3)
    assert ordem == ["a", "b"] * 3 and set(tempos) == {"a", "b"} and all(t >= 0 for t in tempos.values())
    ordem.clear()
    benchmarks.melhor_de({"a": lambda: ordem.append("a")}, 1, minimo_s=0.05, maximo_rodadas=10_000)
    assert len(ordem) > 1  # continuou até somar 0.05 s


def test_fora_do_laco_runs_asyncio_code_from_inside_a_running_loop():
    """Num notebook (ou com a API síncrona do Playwright aberta) já há um laço: asyncio.run direto falharia."""
    import asyncio

    async def dentro_de_um_laco():
        corrotina = asyncio.sleep(0)
        with pytest.raises(RuntimeError):
            asyncio.run(corrotina)
        corrotina.close()
        return benchmarks.fora_do_laco(asyncio.run, asyncio.sleep(0, result=7))

    from concurrent.futures import ThreadPoolExecutor

    # o laço de fora num fio novo: o fio principal pode já ter um (o do Playwright dos testes de navegador)
    with ThreadPoolExecutor(max_workers=1) as fio:
        assert fio.submit(asyncio.run, dentro_de_um_laco()).result() == 7
    assert benchmarks.fora_do_laco(lambda a, b: a + b, 2, 3) == 5  # sem laço: no próprio fio
