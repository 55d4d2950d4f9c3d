"""5 · Da tecla no slider à figura nova, num JupyterLab de verdade no Chromium do sistema. Cada notebook com painéis
ganha, numa cópia, o **painel-referência** (:data:`CODIGO_REFERENCIA`) no fim; depois do *Run All*, na mesma página:
a referência, cada painel e a referência de novo. Em cada slider, ``n_teclas`` setas (do ``keydown`` à figura
decodificada e ao ``src`` novo do ``<img>``) e um arrasto de 1 s (as figuras, contra as da referência).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from . import CUMPRE, INFORMATIVO, NAO_CUMPRE, RAIZ, Linha, aviso, fora_do_laco, mediana_p95

MEDICAO = "latência no navegador"
META_MEDIANA_MS, META_P95_MS, META_RAZAO, META_ARRASTO = 100.0, 150.0, 1.5, 0.8
WIDGET = "application/vnd.jupyter.widget-view+json"
REFERENCIA = "referência"

#: o painel-referência: um slider e um ``Image`` (9 × 3.6 pol., uma linha de 400 pontos, ``savefig`` a cada movimento)
CODIGO_REFERENCIA = '''\
# painel-referência do benchmark: o widget mais simples que um estudante escreveria
import io

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

fig_ref, ax_ref = plt.subplots(figsize=(9, 3.6))
plt.close(fig_ref)
x_ref = np.linspace(0, 4 * np.pi, 400)
(linha_ref,) = ax_ref.plot(x_ref, np.sin(x_ref))

def png_ref():
    buf = io.BytesIO()
    fig_ref.savefig(buf, format="png")
    return buf.getvalue()

slider_ref = widgets.FloatSlider(value=1.0, min=0.5, max=3.0, step=0.01, description="frequência")
imagem_ref = widgets.Image(value=png_ref(), format="png")

def mudou_ref(_mudanca):
    linha_ref.set_ydata(np.sin(slider_ref.value * x_ref))
    imagem_ref.value = png_ref()

slider_ref.observe(mudou_ref, names="value")
widgets.VBox([slider_ref, imagem_ref])
'''

CONFIG_LAB = {"@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "contentVisibility"}}  # o padrão

#: observadores num painel: tecla, mouse, valor do slider, ``src`` trocado e figura decodificada
_JS_INSTRUMENTAR = """(raiz) => {
  if (raiz.__bench) return true;
  const ev = [], imgs = Array.from(raiz.querySelectorAll('img'));
  if (!imgs.length) return false;
  for (const img of imgs) new MutationObserver(() => { ev.push(['src', performance.now()]);
    img.decode().then(() => ev.push(['figura', performance.now()]), () => {}); }).observe(img, {attributes: true, attributeFilter: ['src']});
  raiz.querySelectorAll('.noUi-handle').forEach((h, i) => new MutationObserver(
    () => ev.push(['valor', performance.now(), i])).observe(h, {attributes: true, attributeFilter: ['aria-valuenow']}));
  for (const [alvo, tipo, nome] of [[raiz, 'keydown', 'tecla'], [raiz, 'pointerdown', 'aperta'], [window, 'pointerup', 'solta']])
    alvo.addEventListener(tipo, (e) => ev.push([nome, e.timeStamp]), true);
  raiz.__bench = ev;
  // espera uma figura nova (se `figura`) e depois `quieto` ms sem nenhum evento, ou o limite
  raiz.__sossego = (figura, quieto, limite) => new Promise((ok) => {
    const inicio = performance.now(); let visto = ev.length, desde = inicio;
    const passo = () => { const agora = performance.now();
      if (ev.length !== visto) { visto = ev.length; desde = agora; }
      if (((!figura || ev.some((e) => e[0] === 'figura')) && agora - desde >= quieto) || agora - inicio > limite) ok();
      else setTimeout(passo, 5); };
    passo();
  });
  return true;
}"""
_JS_TIRAR = "(raiz) => raiz.__bench.splice(0, raiz.__bench.length)"


@dataclass
class Medidas:
    """O que se mediu em sliders (de um painel, de um notebook…): listas que se juntam, e um erro (ou "")."""

    teclas_ms: list[float] = field(default_factory=list)
    src_ms: list[float] = field(default_factory=list)
    figuras_arrasto: list[int] = field(default_factory=list)
    valores_arrasto: list[int] = field(default_factory=list)
    sem_figura: int = 0
    sliders: int = 0
    erro: str = ""

    def juntar(self, outra: Medidas) -> Medidas:
        for campo in fields(self):
            antes, depois = getattr(self, campo.name), getattr(outra, campo.name)
            setattr(self, campo.name, (antes or depois) if campo.name == "erro" else antes + depois)
        return self


def _tempos(eventos: Sequence[Sequence], tipo: str) -> list[float]:
    return [e[1] for e in eventos if e[0] == tipo]


def latencias_da_tecla(eventos: Sequence[Sequence]) -> tuple[float | None, float | None]:
    """(tecla → figura decodificada, tecla → ``src`` novo) em ms, dos eventos ``(tipo, ms, …)`` de um toque."""
    t0 = min(_tempos(eventos, "tecla"), default=None)
    primeiro = [min((t - t0 for t in _tempos(eventos, tipo) if t >= t0), default=None) if t0 is not None else None
                for tipo in ("figura", "src")]
    return primeiro[0], primeiro[1]


def resumo_do_arrasto(eventos: Sequence[Sequence], handle: int = 0) -> tuple[int, int] | None:
    """(figuras decodificadas entre apertar e soltar o botão, mudanças de valor do ``handle``-ésimo slider do
    painel nesse intervalo). Só contam os valores do slider arrastado: num painel em que um slider muda
    as opções de outro, o outro muda de valor sem ninguém arrastá-lo."""
    aperta, solta = _tempos(eventos, "aperta"), _tempos(eventos, "solta")
    if not aperta or not solta:
        return None
    t_a, t_s = aperta[0], solta[-1]
    figuras = sum(1 for t in _tempos(eventos, "figura") if t_a <= t <= t_s)
    valores = sum(1 for e in eventos if e[0] == "valor" and t_a <= e[1] <= t_s and (len(e) < 3 or e[2] == handle))
    return figuras, valores


def razao_do_arrasto(m: Medidas, referencia: float) -> float:
    """Figuras mostradas sobre as esperadas (por arrasto, as da referência, ou as posições por que o handle
    passou, se são menos), somando os arrastos de todos os sliders."""
    esperado = sum(max(1.0, min(referencia, float(v))) for v in m.valores_arrasto)
    return sum(m.figuras_arrasto) / esperado if esperado else float("nan")


def _sossego(raiz, figura: bool = False, quieto_ms: float = 150, limite_ms: float = 8000) -> None:
    raiz.evaluate(f"(r) => r.__sossego({str(figura).lower()}, {quieto_ms}, {limite_ms})")


def _arrastar(pagina, handle, x_ate: float, passos: int, duracao_s: float) -> None:
    """Aperta o botão no centro do ``handle`` e leva o mouse até ``x_ate`` em ``passos`` agendados para ``duracao_s``."""
    caixa = handle.bounding_box()
    x, y = caixa["x"] + caixa["width"] / 2, caixa["y"] + caixa["height"] / 2
    pagina.mouse.move(x, y)
    pagina.mouse.down()
    inicio = time.perf_counter()
    for i in range(1, passos + 1):
        time.sleep(max(0.0, inicio + duracao_s * i / passos - time.perf_counter()))
        pagina.mouse.move(x + (x_ate - x) * i / passos, y)
    pagina.mouse.up()


def medir_slider(pagina, raiz, controle, indice: int, n_teclas: int) -> Medidas:
    """``n_teclas`` setas no handle (cada uma esperando a figura e o sossego), depois um arrasto de 1 s."""
    m = Medidas(sliders=1)
    handle = controle.query_selector(".noUi-handle")
    handle.scroll_into_view_if_needed()
    handle.focus()
    _sossego(raiz)
    raiz.evaluate(_JS_TIRAR)
    direcao = "ArrowRight"
    for _ in range(n_teclas):
        valor, minimo, maximo = (float(handle.get_attribute(f"aria-value{a}")) for a in ("now", "min", "max"))
        direcao = "ArrowLeft" if valor >= maximo else "ArrowRight" if valor <= minimo else direcao
        pagina.keyboard.press(direcao)
        _sossego(raiz, figura=True, limite_ms=2000)
        figura, src = latencias_da_tecla(raiz.evaluate(_JS_TIRAR))
        if figura is None:
            m.sem_figura += 1
        else:
            m.teclas_ms.append(figura)
            m.src_ms.append(src if src is not None else figura)
    trilho = controle.query_selector(".noUi-target")
    # um slider que não muda a figura (só uma tabela) não tem o que mostrar num arrasto
    if not m.teclas_ms or trilho is None:
        return m
    caixa = trilho.bounding_box()
    _arrastar(pagina, handle, caixa["x"] - 30, passos=4, duracao_s=0.0)  # ao começo, fora da conta
    _sossego(raiz, quieto_ms=400)
    raiz.evaluate(_JS_TIRAR)
    _arrastar(pagina, handle, caixa["x"] + caixa["width"] + 30, passos=60, duracao_s=1.0)
    _sossego(raiz, quieto_ms=1000, limite_ms=10000)
    resumo = resumo_do_arrasto(raiz.evaluate(_JS_TIRAR), indice)
    if resumo is not None:
        m.figuras_arrasto.append(resumo[0])
        m.valores_arrasto.append(resumo[1])
    return m


def medir_painel(pagina, raiz, n_teclas: int) -> Medidas:
    """Todo slider do painel (a saída de uma célula)."""
    raiz.scroll_into_view_if_needed()
    sliders = raiz.query_selector_all(".widget-slider:has(.noUi-handle)") if raiz.evaluate(_JS_INSTRUMENTAR) else []
    total = Medidas()
    for indice, controle in enumerate(sliders):
        total.juntar(medir_slider(pagina, raiz, controle, indice, n_teclas))
    return total


def paineis_do_notebook(caminho: Path) -> list[tuple[int, str]]:
    """``[(índice da célula, nome)]`` das células cuja saída guardada é um painel (um widget)."""
    achados = []
    for i, c in enumerate(json.loads(caminho.read_text(encoding="utf-8"))["cells"]):
        fonte = "".join(c["source"])
        if ".prever_" in fonte or ".revelar()" in fonte:  # caixas de previsão e revelações não são painéis
            continue
        if c["cell_type"] == "code" and any(WIDGET in o.get("data", {}) for o in c.get("outputs", [])):
            nome = re.search(r"(painel_\w+)\(", fonte)
            achados.append((i, nome.group(1) if nome else f"célula {i}"))
    return achados


#: Run All terminou: a última célula (a da referência) mostra o seu slider e a figura, houve erro ou um diálogo
_JS_TERMINOU = """() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  if (document.querySelector('.jp-Dialog')) return 'dialogo';
  if (!nb || nb.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]')) return nb ? 'erro' : false;
  const saida = Array.from(nb.querySelectorAll('.jp-Cell')).pop()?.querySelector('.jp-Cell-outputArea');
  return !!(saida?.querySelector('.widget-slider') && saida.querySelector('img'));
}"""


def abrir_e_rodar(pagina, url: str, nome: str) -> None:
    """Abre ``notebooks/nome`` num workspace novo, limpa as saídas guardadas e roda tudo (*Run All*)."""
    pagina.goto(f"{url}/lab/workspaces/bench-{time.monotonic_ns()}/tree/notebooks/{nome}?reset")
    pagina.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=90_000)
    pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    aba = pagina.query_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if aba is not None:  # mais espaço para o notebook: fecha o navegador de arquivos
        aba.click()
    for rotulo, comando in (("Edit", "editmenu:clear-all"), ("Run", "runmenu:run-all")):
        pagina.click(f"#jp-MainMenu .lm-MenuBar-item:has-text('{rotulo}')")
        pagina.click(f".lm-Menu-item[data-command='{comando}']")
    # um diálogo (o kernel não respondeu a tempo e o JupyterLab pede outro) ou um erro: quem chamou tenta de novo
    if (estado := pagina.wait_for_function(_JS_TERMINOU, timeout=300_000, polling=250).json_value()) is not True:
        raise RuntimeError(f"{nome}: o Run All não terminou ({estado})")
    pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)


def _medir_tudo(notebooks: Sequence[Path], n_teclas: int, raiz: Path,
                progresso: Callable[[str], None]) -> dict[str, dict[str, Medidas]] | str:
    """``{notebook: {REFERENCIA ou painel: Medidas}}``, ou o motivo de não medir (sem Chromium, sem playwright)."""
    sys.path.insert(0, str(RAIZ / "tests" / "browser"))  # os servidores dos testes de navegador
    try:
        import _servidores
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        return f"falta o pacote Python {exc.name} (pip install -r requirements-dev.txt; o navegador é o do sistema)"
    if (chromium := _servidores.caminho_chromium()) is None:
        return "Chromium não encontrado (sudo apt-get install chromium, ou CHROMIUM=/caminho); sem `playwright install`"
    resultados: dict[str, dict[str, Medidas]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-navegador-") as tmp, sync_playwright() as p, \
            _servidores.jupyterlab(Path(tmp), configuracoes=CONFIG_LAB) as servidor:
        for pasta in ("notebooks", "data"):  # a coleção da `raiz` (o servidor copiou a deste repositório)
            shutil.rmtree(servidor.raiz / pasta, ignore_errors=True)
            shutil.copytree(raiz / pasta, servidor.raiz / pasta, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        if raiz.resolve() != RAIZ:  # o kernel roda na pasta dos notebooks: importa estes helpers antes dos instalados
            (servidor.raiz / "notebooks" / "helpers").symlink_to(raiz.resolve() / "helpers")
        navegador = p.chromium.launch(executable_path=chromium, headless=True, args=_servidores.ARGS_CHROMIUM)
        try:
            for caminho in (c for c in notebooks if paineis_do_notebook(c)):
                resultados[caminho.stem] = _medir_notebook(navegador, servidor, caminho, n_teclas, progresso)
        finally:
            navegador.close()
    return resultados


def _medir_notebook(navegador, servidor, caminho: Path, n_teclas: int,
                    progresso: Callable[[str], None]) -> dict[str, Medidas]:
    import nbformat

    copia, medidas = servidor.raiz / "notebooks" / caminho.name, {REFERENCIA: Medidas()}
    nb = nbformat.read(copia, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(CODIGO_REFERENCIA))
    nbformat.write(nb, copia)
    contexto = navegador.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1, locale="en-US")
    pagina = contexto.new_page()
    pagina.set_default_timeout(60_000)
    try:
        inicio = time.monotonic()
        for tentativa in (1, 2):  # numa máquina muito ocupada um Run All às vezes empaca: uma segunda chance
            try:
                abrir_e_rodar(pagina, servidor.url, copia.name)
                medidas[REFERENCIA].erro = ""
                break
            except Exception as exc:  # relata e, na segunda vez, segue para o próximo notebook
                pagina.screenshot(path=str(Path(tempfile.gettempdir()) / f"bench-{caminho.stem}-{tentativa}.png"))
                servidor.encerrar_kernels()
                medidas[REFERENCIA].erro = f"{type(exc).__name__}: {str(exc).splitlines()[0][:150]}"
                progresso(f"   {caminho.name} (tentativa {tentativa}): {medidas[REFERENCIA].erro}")
        if medidas[REFERENCIA].erro:
            return medidas
        celulas = pagina.query_selector_all(".jp-NotebookPanel .jp-Notebook .jp-Cell")
        ref = celulas[-1].query_selector(".jp-Cell-outputArea")
        # a referência antes e depois dos painéis: a deriva da página cai igualmente sobre os dois lados
        ordem = [(REFERENCIA, ref), *((nome, celulas[i].query_selector(".jp-Cell-outputArea"))
                                      for i, nome in paineis_do_notebook(caminho)), (REFERENCIA, ref)]
        for nome, saida in ordem:
            # longe da tela, o JupyterLab pode ainda não ter desenhado os widgets da saída (uma saída recolhida num
            # aprofundamento não rola nem aparece: fica para a conferência abaixo)
            with contextlib.suppress(Exception):
                saida.scroll_into_view_if_needed(timeout=2_000)
                saida.wait_for_selector(".widget-slider", timeout=5_000)
            if saida is None or saida.query_selector(".widget-slider") is None or not saida.is_visible():
                progresso(f"   {caminho.stem[:2]} · {nome}: painel não desenhado ou recolhido (num aprofundamento)")
                continue
            try:
                m = medir_painel(pagina, saida, n_teclas)
            except Exception as exc:  # um painel que some da página (ou não rola até ela) não derruba os outros
                m = Medidas(erro=f"{nome}: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
                progresso(f"   {caminho.stem[:2]} · {m.erro}")
            medidas.setdefault(nome, Medidas()).juntar(m)
            if m.teclas_ms:
                progresso(f"   {caminho.stem[:2]} · {nome}: mediana {statistics.median(m.teclas_ms):.0f} ms "
                          f"({len(m.teclas_ms)} teclas), arrasto {m.figuras_arrasto} figuras")
        progresso(f"   {caminho.name}: {time.monotonic() - inicio:.0f} s")
    finally:
        servidor.encerrar_kernels()
        contexto.close()
    return medidas


META = (f"mediana ≤ {META_MEDIANA_MS:.0f} ms, p95 ≤ {META_P95_MS:.0f} ms, ≤ {META_RAZAO:g}× ref; "
        f"arrasto ≥ {META_ARRASTO:.0%} da ref")


def _linha(caso: str, m: Medidas, ref: Medidas) -> Linha:
    """Uma linha: os toques e arrastos de ``m`` contra os da referência ``ref`` (medida na mesma página)."""
    if m.erro or ref.erro or not m.teclas_ms or not ref.teclas_ms:
        erro = m.erro or ref.erro or f"sem figura nova em {m.sem_figura + ref.sem_figura} teclas"
        return Linha("5", MEDICAO, caso, f"ERRO: {erro}", meta=META, veredito=NAO_CUMPRE)
    (med, p95), (ref_med, ref_p95) = mediana_p95(m.teclas_ms), mediana_p95(ref.teclas_ms)
    ref_figuras = statistics.median(ref.figuras_arrasto) if ref.figuras_arrasto else float("nan")
    arrasto = razao_do_arrasto(m, ref_figuras) if m.figuras_arrasto else float("nan")
    resultado = (f"mediana {med:.0f} ms · p95 {p95:.0f} ms ({len(m.teclas_ms)} teclas, {m.sliders} sliders"
                 + (f", {m.sem_figura} sem figura" if m.sem_figura else "")
                 + f"; até o src {statistics.median(m.src_ms):.0f} ms) · ref {ref_med:.0f} · {ref_p95:.0f} ms")
    razao = f"{med / ref_med:.2f}× ref; arrasto {arrasto:.0%} ({ref_figuras:.0f} figuras na ref)"
    ok = med <= META_MEDIANA_MS and p95 <= META_P95_MS and med <= META_RAZAO * ref_med and not arrasto < META_ARRASTO
    return Linha("5", MEDICAO, caso, resultado, razao=razao, meta=META, veredito=CUMPRE if ok else NAO_CUMPRE)


def linhas_da_medicao(resultados: dict[str, dict[str, Medidas]]) -> list[Linha]:
    """Uma linha por notebook (todos os seus painéis contra a referência da mesma página) e uma com tudo."""
    linhas, todos, todas_ref = [], Medidas(), Medidas()
    for notebook, medidas in resultados.items():
        ref, paineis = medidas.get(REFERENCIA, Medidas()), Medidas()
        for m in (m for nome, m in medidas.items() if nome != REFERENCIA):
            paineis.juntar(m)
        linhas.append(_linha(notebook, paineis, ref))
        if not (ref.erro or paineis.erro):
            todos.juntar(paineis)
            todas_ref.juntar(ref)
    if len(resultados) > 1:
        linhas.append(_linha("todos os notebooks", todos, todas_ref))
    return linhas


def medir_navegador(notebooks: Sequence[Path] | None = None, n_teclas: int = 10,
                    raiz: Path = RAIZ) -> list[Linha]:
    """A seção 5 inteira: mede (se houver Chromium) e devolve as linhas da tabela. Com ``raiz``, os notebooks e
    os ``helpers`` são os de outra cópia do repositório (o kernel os acha na pasta dos notebooks, antes dos instalados)."""
    if notebooks is None:
        notebooks = sorted((Path(raiz) / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    # a API síncrona do Playwright não roda num fio com um laço asyncio (um notebook, os testes de navegador)
    resultados = fora_do_laco(_medir_tudo, notebooks, n_teclas, Path(raiz), aviso)
    if isinstance(resultados, str):
        return [Linha("5", MEDICAO, "(não medida)", f"pulada: {resultados}", veredito=INFORMATIVO)]
    return linhas_da_medicao(resultados)
