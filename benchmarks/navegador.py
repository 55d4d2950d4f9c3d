"""5 · Latência no navegador: da tecla no slider à figura nova na página, num JupyterLab de verdade.

A medição 1 cronometra um movimento dentro do Python. O estudante não mora lá: entre a tecla e a
figura nova há o navegador, o servidor, o kernel, as mensagens dos widgets e a decodificação da
imagem. Aqui tudo isso entra na conta, no Chromium do sistema (dirigido pelo ``playwright``, a mesma
maquinaria dos testes de navegador; nenhum navegador é baixado), num JupyterLab com as configurações
padrão de quem instala a coleção.

Para cada notebook da trilha: abre uma cópia, roda tudo (*Run All*) e, em cada painel (toda célula
cuja saída guardada é um widget), em cada slider:

- **tecla**: foca o handle do slider e aperta uma seta (``n_teclas`` vezes, esperando a resposta e
  um instante de sossego entre uma e outra); o tempo vai do evento ``keydown`` até a nova imagem da
  figura estar decodificada (``img.decode()``) — o momento em que ela pode aparecer na tela. O texto
  com os números é cronometrado à parte (informativo);
- **arrasto**: leva o handle ao começo do trilho e o arrasta com o mouse até o fim em 60 passos
  agendados para um segundo (cada passo espera o navegador aceitar o movimento, então o arrasto dura
  mais quando o navegador está ocupado: a duração medida vai para a tabela); conta quantas figuras novas foram decodificadas durante o arrasto (das que foram
  trocadas por outra antes de decodificar, nenhuma conta) e quanto tempo a figura continua mudando
  depois de soltar o botão (0 se a última já tinha chegado).

O **painel-referência** — um slider e um ``Image`` com uma figura do matplotlib do mesmo tamanho
(9 × 3.6 pol. a 100 dpi) com uma linha só, escrito do jeito mais simples (``savefig`` a cada
movimento) — é acrescentado ao fim de cada notebook (na cópia) e medido do mesmo jeito, na mesma
página: é o piso do que a ida e volta de um widget custa nesta máquina. Cada painel é relatado como
razão sobre ele. No arrasto, um slider com poucas posições não pode mostrar mais figuras que
posições: o esperado é o menor entre a referência e o número de posições por que o handle passou.

Sem Chromium (ou sem o pacote ``playwright``) a medição vira uma linha dizendo o que falta.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import CUMPRE, INFORMATIVO, NAO_CUMPRE, Linha, fora_do_laco, mediana_p95

RAIZ = Path(__file__).resolve().parent.parent
PASTA_TESTES = RAIZ / "tests" / "browser"

MEDICAO = "latência no navegador"
META_MEDIANA_MS = 100.0
META_P95_MS = 150.0
META_RAZAO = 1.5
META_ARRASTO = 0.8
META_ASSENTAR_MS = 150.0
WIDGET = "application/vnd.jupyter.widget-view+json"

#: o painel-referência (acrescentado ao fim de cada notebook, na cópia do servidor)
CODIGO_REFERENCIA = '''\
# painel-referência do benchmark (python -m benchmarks --navegador): um slider e a figura num Image
import io as _io

import ipywidgets as _W
import matplotlib as _mpl
import matplotlib.style  # noqa: F401
import numpy as _np
from matplotlib.figure import Figure as _Figure

with _mpl.style.context("default"):
    _fig_ref = _Figure(figsize=(9, 3.6), dpi=100)
    _ax_ref = _fig_ref.subplots()
    _x_ref = _np.linspace(0, 4 * _np.pi, 400)
    _linha_ref, = _ax_ref.plot(_x_ref, _np.sin(_x_ref))


def _png_ref():
    with _mpl.style.context("default"):
        buf = _io.BytesIO()
        _fig_ref.savefig(buf, format="png")
    return buf.getvalue()


_slider_ref = _W.FloatSlider(value=1.0, min=0.5, max=3.0, step=0.01, description="frequência",
                             continuous_update=True)
_imagem_ref = _W.Image(value=_png_ref(), format="png")


def _mudou_ref(_mudanca):
    _linha_ref.set_ydata(_np.sin(_slider_ref.value * _x_ref))
    _imagem_ref.value = _png_ref()


_slider_ref.observe(_mudou_ref, names="value")
_W.VBox([_slider_ref, _imagem_ref])
'''
NOME_REFERENCIA = "painel-referência"

#: as configurações do JupyterLab: as padrão, menos o salvamento automático e as notícias
CONFIG_LAB = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}

#: instala num painel (a área de saída) os observadores: tecla, mouse, valor do slider, imagem e texto
_JS_INSTRUMENTAR = """
(raiz) => {
  if (raiz.__bench) return true;
  const CONTROLES = '.widget-slider, .widget-dropdown, .widget-checkbox';
  const ev = [];
  const imgs = Array.from(raiz.querySelectorAll('img'));
  if (!imgs.length) return false;
  for (const img of imgs) {
    new MutationObserver(() => {
      ev.push(['src', performance.now()]);
      img.decode().then(() => ev.push(['figura', performance.now()]), () => ev.push(['descartada', performance.now()]));
    }).observe(img, {attributes: true, attributeFilter: ['src']});
  }
  for (const t of raiz.querySelectorAll('.widget-html')) {
    if (t.closest(CONTROLES)) continue;
    new MutationObserver(() => ev.push(['texto', performance.now()])).observe(
      t, {childList: true, subtree: true, characterData: true});
  }
  raiz.querySelectorAll('.noUi-handle').forEach((h, i) => {
    new MutationObserver(() => ev.push(['valor', performance.now(), i])).observe(
      h, {attributes: true, attributeFilter: ['aria-valuenow']});
  });
  raiz.addEventListener('keydown', (e) => ev.push(['tecla', e.timeStamp]), true);
  raiz.addEventListener('pointerdown', (e) => ev.push(['aperta', e.timeStamp]), true);
  window.addEventListener('pointerup', (e) => ev.push(['solta', e.timeStamp]), true);
  raiz.__bench = ev;
  // espera até haver `figuras` figuras (e `textos` textos) novas, ou o limite; devolve os eventos
  raiz.__esperar = (figuras, textos, limite) => new Promise((ok) => {
    const inicio = performance.now();
    const passo = () => {
      const f = ev.filter((e) => e[0] === 'figura').length, t = ev.filter((e) => e[0] === 'texto').length;
      if ((f >= figuras && t >= textos) || performance.now() - inicio > limite) ok(ev.length);
      else setTimeout(passo, 5);
    };
    passo();
  });
  // espera o painel ficar `quieto` ms sem nenhum evento (ou o limite)
  raiz.__sossego = (quieto, limite) => new Promise((ok) => {
    const inicio = performance.now();
    let visto = ev.length, desde = performance.now();
    const passo = () => {
      if (ev.length !== visto) { visto = ev.length; desde = performance.now(); }
      if (performance.now() - desde >= quieto || performance.now() - inicio > limite) ok(ev.length);
      else setTimeout(passo, 10);
    };
    passo();
  });
  return true;
}
"""
_JS_TIRAR = "(raiz) => raiz.__bench.splice(0, raiz.__bench.length)"


@dataclass
class Medidas:
    """O que se mediu num slider (ou, somadas, num painel inteiro)."""

    teclas_ms: list[float] = field(default_factory=list)
    textos_ms: list[float] = field(default_factory=list)
    sem_figura: int = 0
    figuras_arrasto: list[int] = field(default_factory=list)
    valores_arrasto: list[int] = field(default_factory=list)
    assentar_ms: list[float] = field(default_factory=list)
    duracoes_arrasto_ms: list[float] = field(default_factory=list)
    sliders: int = 0

    def juntar(self, outra: Medidas) -> Medidas:
        for nome in ("teclas_ms", "textos_ms", "figuras_arrasto", "valores_arrasto", "assentar_ms",
                     "duracoes_arrasto_ms"):
            getattr(self, nome).extend(getattr(outra, nome))
        self.sem_figura += outra.sem_figura
        self.sliders += outra.sliders
        return self


# ---------------------------------------------------------------------------------------------
# As contas (puras: testadas sem navegador)
# ---------------------------------------------------------------------------------------------


def _tempos(eventos: Sequence[Sequence], tipo: str) -> list[float]:
    return [e[1] for e in eventos if e[0] == tipo]


def latencias_da_tecla(eventos: Sequence[Sequence]) -> tuple[float | None, float | None]:
    """(tecla → figura decodificada, tecla → texto) em ms, a partir dos eventos ``(tipo, ms, …)`` de um toque."""
    teclas = _tempos(eventos, "tecla")
    if not teclas:
        return None, None
    t0 = teclas[0]
    figuras = [t for t in _tempos(eventos, "figura") if t >= t0]
    textos = [t for t in _tempos(eventos, "texto") if t >= t0]
    return (min(figuras) - t0 if figuras else None), (min(textos) - t0 if textos else None)


def resumo_do_arrasto(eventos: Sequence[Sequence], handle: int = 0) -> tuple[int, int, float] | None:
    """(figuras decodificadas durante o arrasto, mudanças de valor do slider arrastado — o ``handle``-ésimo
    do painel — durante o arrasto, ms de assentamento), a partir dos eventos ``(tipo, ms, …)``.

    Só contam os valores do slider arrastado: num painel em que um slider muda as opções de outro (o das
    cabeças), o outro também muda de valor, sem ninguém arrastá-lo.
    """
    aperta, solta = _tempos(eventos, "aperta"), _tempos(eventos, "solta")
    if not aperta or not solta:
        return None
    t_a, t_s = aperta[0], solta[-1]
    figuras = _tempos(eventos, "figura")
    valores = [e[1] for e in eventos if e[0] == "valor" and t_a <= e[1] <= t_s and (len(e) < 3 or e[2] == handle)]
    depois = [t for t in figuras if t > t_s]
    return (sum(1 for t in figuras if t_a <= t <= t_s), len(valores), (max(depois) - t_s) if depois else 0.0)


def duracao_do_arrasto(eventos: Sequence[Sequence]) -> float | None:
    """Quanto o arrasto durou de verdade (ms, do botão apertado ao solto): os 60 passos são agendados para
    1 s, mas cada um espera o navegador aceitar o movimento, e um navegador ocupado estica o arrasto."""
    aperta, solta = _tempos(eventos, "aperta"), _tempos(eventos, "solta")
    return solta[-1] - aperta[0] if aperta and solta else None


def esperado_no_arrasto(referencia: float, valores: int) -> float:
    """Quantas figuras um painel deveria mostrar num arrasto: as da referência, ou as posições do slider."""
    return max(1.0, min(referencia, float(valores)))


def razao_do_arrasto(m: Medidas, referencia: float) -> float:
    """Figuras mostradas sobre as esperadas, somando os arrastos de todos os sliders do painel."""
    esperado = sum(esperado_no_arrasto(referencia, v) for v in m.valores_arrasto)
    return sum(m.figuras_arrasto) / esperado if esperado else float("nan")


# ---------------------------------------------------------------------------------------------
# Na página
# ---------------------------------------------------------------------------------------------


def _esperar(raiz, figuras: int, textos: int, limite_ms: float) -> None:
    raiz.evaluate(f"(r) => r.__esperar({figuras}, {textos}, {limite_ms})")


def _sossego(raiz, quieto_ms: float = 150, limite_ms: float = 8000) -> None:
    raiz.evaluate(f"(r) => r.__sossego({quieto_ms}, {limite_ms})")


def medir_teclas(pagina, raiz, handle, n: int, tem_texto: bool) -> Medidas:
    """``n`` toques de seta no handle, cada um esperando a figura nova (e o texto) e o sossego."""
    m = Medidas()
    handle.scroll_into_view_if_needed()
    handle.focus()
    _sossego(raiz)
    raiz.evaluate(_JS_TIRAR)
    direcao = "ArrowRight"
    for _ in range(n):
        valor, minimo, maximo = (float(handle.get_attribute(a)) for a in ("aria-valuenow", "aria-valuemin",
                                                                           "aria-valuemax"))
        if valor >= maximo:
            direcao = "ArrowLeft"
        elif valor <= minimo:
            direcao = "ArrowRight"
        pagina.keyboard.press(direcao)
        _esperar(raiz, 1, 1 if tem_texto else 0, 2000)
        _sossego(raiz)
        figura, texto = latencias_da_tecla(raiz.evaluate(_JS_TIRAR))
        if figura is None:
            m.sem_figura += 1
        else:
            m.teclas_ms.append(figura)
        if texto is not None:
            m.textos_ms.append(texto)
    return m


def medir_arrasto(pagina, raiz, controle, duracao_s: float = 1.0, passos: int = 60, indice: int = 0) -> Medidas:
    """Leva o handle ao começo do trilho e o arrasta até o fim em ``duracao_s`` segundos (``indice``: a
    posição do slider entre os do painel)."""
    m = Medidas()
    trilho = controle.query_selector(".noUi-target") or controle.query_selector(".noUi-base")
    handle = controle.query_selector(".noUi-handle")
    if trilho is None or handle is None:
        return m
    handle.scroll_into_view_if_needed()
    caixa, h = trilho.bounding_box(), handle.bounding_box()
    y = h["y"] + h["height"] / 2
    x_ini, x_fim = caixa["x"], caixa["x"] + caixa["width"]
    # ao começo do trilho, fora da medida
    pagina.mouse.move(h["x"] + h["width"] / 2, y)
    pagina.mouse.down()
    pagina.mouse.move(x_ini - 30, y, steps=4)
    pagina.mouse.up()
    _sossego(raiz, 400)
    raiz.evaluate(_JS_TIRAR)
    h = handle.bounding_box()
    pagina.mouse.move(h["x"] + h["width"] / 2, y)
    pagina.mouse.down()
    inicio = time.perf_counter()
    for i in range(1, passos + 1):
        espera = inicio + duracao_s * i / passos - time.perf_counter()
        if espera > 0:
            time.sleep(espera)
        pagina.mouse.move(x_ini + (x_fim - x_ini + 30) * i / passos, y)
    pagina.mouse.up()
    _sossego(raiz, 1000, 10000)
    eventos = raiz.evaluate(_JS_TIRAR)
    resumo = resumo_do_arrasto(eventos, indice)
    duracao = duracao_do_arrasto(eventos)
    if duracao is not None:
        m.duracoes_arrasto_ms.append(duracao)
    if resumo is not None:
        figuras, valores, assentar = resumo
        m.figuras_arrasto.append(figuras)
        m.valores_arrasto.append(valores)
        m.assentar_ms.append(assentar)
    return m


def medir_painel(pagina, raiz, n_teclas: int, arrastar: bool = True) -> Medidas:
    """Todo slider do painel: ``n_teclas`` toques e um arrasto."""
    raiz.scroll_into_view_if_needed()
    if not raiz.evaluate(_JS_INSTRUMENTAR):
        return Medidas()
    tem_texto = raiz.evaluate(
        "(r) => Array.from(r.querySelectorAll('.widget-html')).some((e) => !e.closest('.widget-slider'))")
    total = Medidas()
    indice = 0
    for controle in raiz.query_selector_all(".widget-slider"):
        handle = controle.query_selector(".noUi-handle")
        if handle is None:
            continue
        m = medir_teclas(pagina, raiz, handle, n_teclas, tem_texto)
        # um slider que não muda a figura (só o texto, como a semente do painel do treino) não tem o que
        # mostrar durante um arrasto: ele não entra na conta das figuras do arrasto
        if arrastar and m.teclas_ms:
            m.juntar(medir_arrasto(pagina, raiz, controle, indice=indice))
        indice += 1
        m.sliders = 1
        total.juntar(m)
    return total


def paineis_do_notebook(caminho: Path) -> list[tuple[int, str]]:
    """``[(índice da célula, nome)]`` das células cuja saída guardada é um painel (um widget)."""
    celulas = json.loads(caminho.read_text(encoding="utf-8"))["cells"]
    achados = []
    for i, c in enumerate(celulas):
        fonte = "".join(c["source"])
        if ".prever_" in fonte or ".revelar()" in fonte:  # caixas de previsão e revelações não são painéis
            continue
        if c["cell_type"] == "code" and any(WIDGET in o.get("data", {}) for o in c.get("outputs", [])):
            nome = re.search(r"\.(painel_\w+\([^)]*\))", fonte) or re.search(r"painel_\w+", fonte)
            achados.append((i, nome.group(1) if nome and nome.groups() else nome.group(0) if nome else f"célula {i}"))
    return achados


#: Run All terminou: a última célula (a da referência) mostra o seu slider, ou uma saída de erro apareceu
_JS_TERMINOU = """
() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  if (!nb) return false;
  if (nb.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]')) return 'erro';
  const celulas = nb.querySelectorAll('.jp-Cell');
  const ultima = celulas[celulas.length - 1];
  return !!(ultima && ultima.querySelector('.jp-Cell-outputArea .widget-slider')
            && ultima.querySelector('.jp-Cell-outputArea img'));
}
"""


def abrir_e_rodar(pagina, url: str, nome: str) -> None:
    """Abre ``notebooks/nome`` num workspace novo, limpa as saídas guardadas e roda tudo (*Run All*)."""
    espaco = f"bench-{Path(nome).stem}-{time.monotonic_ns()}"
    pagina.goto(f"{url}/lab/workspaces/{espaco}/tree/notebooks/{nome}?reset")
    pagina.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=90_000)
    pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    aba = pagina.query_selector(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if aba is not None:  # mais espaço para o notebook: fecha o navegador de arquivos
        aba.click()
    for rotulo, comando in (("Edit", "editmenu:clear-all"), ("Run", "runmenu:run-all")):
        pagina.click(f"#jp-MainMenu .lm-MenuBar-item:has-text('{rotulo}')")
        pagina.click(f".lm-Menu-item[data-command='{comando}']")
    estado = pagina.wait_for_function(_JS_TERMINOU, timeout=300_000, polling=250).json_value()
    if estado == "erro":
        raise RuntimeError(f"{nome}: uma célula deu erro no Run All")
    pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)


def acrescentar_referencia(caminho: Path) -> None:
    """Acrescenta a célula do painel-referência ao notebook ``caminho`` (a cópia do servidor)."""
    import nbformat

    nb = nbformat.read(caminho, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(CODIGO_REFERENCIA))
    nbformat.write(nb, caminho)


def _aviso(texto: str) -> None:
    print(texto, file=sys.stderr, flush=True)


def _importar_maquinaria():
    """Os servidores e a página dos testes de navegador (``tests/browser``), ou o motivo de não poder."""
    if str(PASTA_TESTES) not in sys.path:
        sys.path.insert(0, str(PASTA_TESTES))
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        return None, "falta o pacote Python playwright (pip install -r requirements-dev.txt; o navegador é o do sistema)"
    import _servidores

    chromium = _servidores.caminho_chromium()
    if chromium is None:
        return None, ("Chromium não encontrado (sudo apt-get install chromium, ou CHROMIUM=/caminho); "
                      "não é preciso `playwright install`")
    return chromium, ""


def medir_tudo(notebooks: Sequence[Path], n_teclas: int, arrastar: bool = True,
               progresso: Callable[[str], None] = _aviso) -> dict[str, Medidas] | str:
    """Mede todo painel de cada notebook e a referência; devolve ``{nome: Medidas}`` ou o motivo de não medir.

    A API síncrona do Playwright não roda num fio com um laço asyncio (um notebook, ou os testes de
    navegador abertos no mesmo processo): aí a medição vai para um fio próprio.
    """
    return fora_do_laco(_medir_tudo, notebooks, n_teclas, arrastar, progresso)


def _medir_tudo(notebooks: Sequence[Path], n_teclas: int, arrastar: bool,
                progresso: Callable[[str], None]) -> dict[str, Medidas] | str:
    chromium, motivo = _importar_maquinaria()
    if chromium is None:
        return motivo
    import _servidores
    from playwright.sync_api import sync_playwright

    resultados: dict[str, Medidas] = {NOME_REFERENCIA: Medidas()}
    with tempfile.TemporaryDirectory(prefix="bench-navegador-") as tmp, sync_playwright() as p:
        navegador = p.chromium.launch(executable_path=chromium, headless=True, args=_servidores.ARGS_CHROMIUM)
        try:
            antes, _servidores.CONFIG_LAB = _servidores.CONFIG_LAB, CONFIG_LAB
            try:
                servidor_cm = _servidores.jupyterlab(Path(tmp))
                servidor = servidor_cm.__enter__()
            finally:
                _servidores.CONFIG_LAB = antes
            try:
                for caminho in notebooks:
                    esperados = paineis_do_notebook(caminho)
                    if not esperados:
                        continue
                    copia = servidor.raiz / "notebooks" / caminho.name
                    acrescentar_referencia(copia)
                    contexto = navegador.new_context(viewport={"width": 1400, "height": 1000},
                                                     device_scale_factor=1, locale="en-US")
                    pagina = contexto.new_page()
                    pagina.set_default_timeout(60_000)
                    try:
                        inicio = time.monotonic()
                        abrir_e_rodar(pagina, servidor.url, copia.name)
                        celulas = pagina.query_selector_all(".jp-NotebookPanel .jp-Notebook .jp-Cell")
                        saidas = [(nome, celulas[i].query_selector(".jp-Cell-outputArea")) for i, nome in esperados]
                        saidas.append((NOME_REFERENCIA, celulas[-1].query_selector(".jp-Cell-outputArea")))
                        # a referência primeiro, depois os painéis: o mesmo ruído cai sobre todos
                        for nome, saida in [saidas[-1], *saidas[:-1]]:
                            if saida is None or saida.query_selector(".widget-slider") is None:
                                progresso(f"   {caminho.stem} · {nome}: painel não desenhado")
                                continue
                            # a referência leva o dobro de toques: é o denominador de todas as razões
                            n = 2 * n_teclas if nome == NOME_REFERENCIA else n_teclas
                            m = medir_painel(pagina, saida, n, arrastar)
                            chave = nome if nome == NOME_REFERENCIA else f"{caminho.stem[:2]} · {nome}"
                            resultados.setdefault(chave, Medidas()).juntar(m)
                            if m.teclas_ms:
                                progresso(f"   {caminho.stem[:2]} · {nome}: mediana "
                                          f"{statistics.median(m.teclas_ms):.0f} ms ({len(m.teclas_ms)} teclas)"
                                          + (f", arrasto {m.figuras_arrasto} figuras" if m.figuras_arrasto else ""))
                        progresso(f"   {caminho.name}: {time.monotonic() - inicio:.0f} s")
                    finally:
                        servidor.encerrar_kernels()
                        contexto.close()
            finally:
                servidor_cm.__exit__(None, None, None)
        finally:
            navegador.close()
    return resultados


# ---------------------------------------------------------------------------------------------
# As linhas da tabela
# ---------------------------------------------------------------------------------------------

NOTA = (
    "5 · JupyterLab (configurações padrão) no Chromium do sistema, headless, janela de 1400 × 1000; cada notebook "
    "numa cópia, depois de Run All. Tecla: seta no handle de cada slider; do keydown até a figura nova "
    "decodificada (`img.decode()`); \"texto\" é o mesmo até os números mudarem. Arrasto: do começo ao fim do "
    "trilho em 60 passos agendados para 1 s (cada passo espera o navegador aceitar o movimento: a duração medida, "
    "a mediana dos arrastos, vem em cada linha); figuras = decodificadas durante o arrasto, esperado = o menor entre a referência e as "
    "posições por que o handle passou; assenta = quanto a figura ainda muda depois de soltar. A referência é um "
    "slider + `Image` com uma figura 9 × 3.6 pol. a 100 dpi de uma linha (`savefig` a cada movimento), no fim de "
    "cada notebook, medida na mesma página antes dos painéis dele."
)


def _meta_painel() -> str:
    return (f"mediana ≤ {META_MEDIANA_MS:.0f} ms e ≤ {META_RAZAO:g}× ref; arrasto ≥ {META_ARRASTO:.0%} da ref, "
            f"assenta ≤ {META_ASSENTAR_MS:.0f} ms")


def _segundos(duracoes_ms: Sequence[float]) -> str:
    """" em 1.4 s" (a mediana das durações medidas de um arrasto), ou nada se não há medida."""
    return f" em {statistics.median(duracoes_ms) / 1000:.1f} s" if duracoes_ms else ""


def linhas_da_medicao(resultados: dict[str, Medidas]) -> list[Linha]:
    """As linhas da tabela: a referência, uma por painel e uma com todos os toques de todos os painéis."""
    ref = resultados.get(NOME_REFERENCIA, Medidas())
    if not ref.teclas_ms:
        return [Linha("5", MEDICAO, NOME_REFERENCIA, "ERRO: a referência não foi medida", veredito=NAO_CUMPRE)]
    ref_mediana, ref_p95 = mediana_p95(ref.teclas_ms)
    ref_figuras = statistics.median(ref.figuras_arrasto) if ref.figuras_arrasto else float("nan")
    ref_assentar = statistics.median(ref.assentar_ms) if ref.assentar_ms else float("nan")
    ref_duracao = _segundos(ref.duracoes_arrasto_ms)
    linhas = [Linha(
        "5", MEDICAO, f"{NOME_REFERENCIA} (1 slider + Image de 9 × 3.6 pol., 1 linha)",
        f"tecla: mediana {ref_mediana:.0f} ms · p95 {ref_p95:.0f} ms ({len(ref.teclas_ms)} teclas) · "
        f"arrasto: {ref_figuras:.0f} figuras{ref_duracao}, assenta {ref_assentar:.0f} ms",
        razao="1.00× ref", veredito=INFORMATIVO, nota=NOTA)]
    todos: list[float] = []
    for nome, m in resultados.items():
        if nome == NOME_REFERENCIA:
            continue
        if not m.teclas_ms and not m.sliders:  # um widget sem sliders (o quiz clicável): não é um painel
            continue
        if not m.teclas_ms:
            linhas.append(Linha("5", MEDICAO, nome, f"ERRO: nenhuma figura nova em {m.sem_figura} teclas",
                                meta=_meta_painel(), veredito=NAO_CUMPRE))
            continue
        todos += m.teclas_ms
        mediana, p95 = mediana_p95(m.teclas_ms)
        texto = f"; texto {statistics.median(m.textos_ms):.0f} ms" if m.textos_ms else ""
        sem = f"; {m.sem_figura} sem figura nova" if m.sem_figura else ""
        resultado = (f"tecla: mediana {mediana:.0f} ms · p95 {p95:.0f} ms ({len(m.teclas_ms)} teclas em "
                     f"{m.sliders} sliders{texto}{sem})")
        ok = mediana <= META_MEDIANA_MS and mediana <= META_RAZAO * ref_mediana
        razao = f"{mediana / ref_mediana:.2f}× ref"
        if m.figuras_arrasto:
            r_arrasto = razao_do_arrasto(m, ref_figuras)
            assentar = max(m.assentar_ms)
            resultado += (f" · arrasto: {statistics.median(m.figuras_arrasto):.0f} figuras"
                          f"{_segundos(m.duracoes_arrasto_ms)} (de {statistics.median(m.valores_arrasto):.0f} "
                          f"posições), assenta ≤ {assentar:.0f} ms")
            razao += f"; arrasto {r_arrasto:.0%}"
            ok = ok and r_arrasto >= META_ARRASTO and assentar <= META_ASSENTAR_MS
        linhas.append(Linha("5", MEDICAO, nome, resultado, razao=razao, meta=_meta_painel(),
                            veredito=CUMPRE if ok else NAO_CUMPRE, nota=NOTA))
    if todos:
        mediana, p95 = mediana_p95(todos)
        ok = mediana <= META_MEDIANA_MS and p95 <= META_P95_MS
        linhas.append(Linha(
            "5", MEDICAO, "todos os sliders de todos os painéis",
            f"tecla: mediana {mediana:.0f} ms · p95 {p95:.0f} ms ({len(todos)} teclas)",
            razao=f"{mediana / ref_mediana:.2f}× ref", meta=f"mediana ≤ {META_MEDIANA_MS:.0f} ms, "
            f"p95 ≤ {META_P95_MS:.0f} ms", veredito=CUMPRE if ok else NAO_CUMPRE, nota=NOTA))
    return linhas


def medir_navegador(notebooks: Sequence[Path] | None = None, n_teclas: int = 8, arrastar: bool = True) -> list[Linha]:
    """A seção 5 inteira: mede (se houver Chromium) e devolve as linhas da tabela."""
    if notebooks is None:
        notebooks = sorted((RAIZ / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    resultados = medir_tudo(notebooks, n_teclas, arrastar)
    if isinstance(resultados, str):
        return [Linha("5", MEDICAO, "(não medida)", f"pulada: {resultados}", veredito=INFORMATIVO)]
    return linhas_da_medicao(resultados)


if __name__ == "__main__":  # python -m benchmarks.navegador [NN_x.ipynb …]: só esta medição, para explorar
    from . import tabela_markdown

    nomes = sys.argv[1:]
    escolhidos = [RAIZ / "notebooks" / n for n in nomes] if nomes else None
    print(tabela_markdown(medir_navegador(escolhidos)))
