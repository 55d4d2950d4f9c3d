"""O que os testes de navegador fazem numa página: esperar, ler painéis e mexer nos controles.

Os painéis são descobertos de forma genérica: todo controle (slider, caixa de seleção) renderizado
numa saída de célula (JupyterLab) ou na página do Voilà. Um "retrato" do painel é o texto que ele
mostra (sem os próprios controles) mais um resumo SHA-256 de cada imagem (o PNG da figura); depois
de mover um controle com o teclado, o retrato tem de mudar.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]
#: os notebooks da trilha (a cobertura cresce sozinha quando um notebook novo chega)
NOTEBOOKS = sorted((RAIZ / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: capturas de tela (ignorada pelo git)
CAPTURAS = RAIZ / "capturas"

#: seletor dos controles que os testes movem com o teclado
CONTROLES = ".widget-slider, .widget-dropdown, .widget-checkbox"

#: texto de erro de uma saída (exceções e stderr usam este tipo MIME no JupyterLab e no Voilà)
STDERR = '[data-mime-type="application/vnd.jupyter.stderr"]'

#: o que um widget mostra quando não consegue se desenhar
SINAIS_DE_WIDGET_QUEBRADO = ("Error displaying widget", "Loading widget...", "Failed to load model class",
                             "Could not render")

_JS_RETRATO = """
async (raiz) => {
  const clone = raiz.cloneNode(true);
  clone.querySelectorAll(__CONTROLES__).forEach((e) => e.remove());
  const imagens = [];
  for (const img of raiz.querySelectorAll('img')) {
    if (!img.src) { imagens.push(''); continue; }
    const dados = await (await fetch(img.src)).arrayBuffer();
    const resumo = await crypto.subtle.digest('SHA-256', dados);
    imagens.push(Array.from(new Uint8Array(resumo)).map((b) => b.toString(16).padStart(2, '0')).join(''));
  }
  return {texto: clone.textContent.replace(/\\s+/g, ' ').trim(), imagens};
}
""".replace("__CONTROLES__", json.dumps(CONTROLES))

_JS_IMAGENS_PRONTAS = """
(raiz) => Array.from(raiz.querySelectorAll('img')).every((img) => img.complete && img.naturalWidth > 0)
"""


_JS_CORTADAS = """
(raiz) => {
  const caixa = raiz.getBoundingClientRect();
  return Array.from(raiz.querySelectorAll('img'))
    .map((img) => [img.getBoundingClientRect(), img.naturalWidth])
    .filter(([r]) => r.right > caixa.right + 1 || r.left < caixa.left - 1)
    .map(([r, largura]) => `imagem de ${largura} px vai de x=${Math.round(r.left)} a ${Math.round(r.right)}, `
                           + `mas a área visível do painel vai de ${Math.round(caixa.left)} a ${Math.round(caixa.right)}`);
}
"""


def imagens_cortadas(raiz) -> list[str]:
    """Imagens do painel que passam da borda da área de saída (ficam cortadas na tela)."""
    return raiz.evaluate(_JS_CORTADAS)


#: o trilho mais curto que um slider pode ter: com menos, as dezenas de posições de um slider ficam a um pixel
#: umas das outras e a mão não acerta nenhuma (o painel da revisão já teve 16 px para 41 posições)
TRILHO_MINIMO_PX = 120

_JS_TRILHOS = """
(raiz) => Array.from(raiz.querySelectorAll('.widget-slider')).map((c) => {
  const t = c.querySelector('.noUi-target') || c.querySelector('.noUi-base');
  const r = c.querySelector('.widget-label');
  return [r ? r.textContent.trim() : '', t ? t.getBoundingClientRect().width : 0];
})
"""


def trilhos_curtos(raiz, minimo: float = TRILHO_MINIMO_PX) -> list[str]:
    """Sliders do painel com trilho mais curto que ``minimo`` px (a descrição come o espaço dele)."""
    return [f"{descricao!r}: trilho de {largura:.0f} px" for descricao, largura in raiz.evaluate(_JS_TRILHOS)
            if largura < minimo]


def retrato(raiz) -> dict:
    """O que o painel mostra agora: texto (sem os controles) e o resumo de cada imagem."""
    return raiz.evaluate(_JS_RETRATO)


def esperar_imagens(raiz, limite_s: float = 20.0) -> None:
    fim = time.monotonic() + limite_s
    while not raiz.evaluate(_JS_IMAGENS_PRONTAS):
        if time.monotonic() > fim:
            raise AssertionError("as imagens do painel não carregaram")
        time.sleep(0.1)


def textos_de_erro(escopo) -> list[str]:
    """Textos de saídas de erro/stderr e de widgets que não se desenharam, dentro de ``escopo``."""
    erros = [e.inner_text()[:2000] for e in escopo.query_selector_all(STDERR)]
    erros += [e.inner_text()[:500] for e in escopo.query_selector_all(".widget-error, .jupyter-widgets-error-widget")]
    texto = escopo.inner_text() if hasattr(escopo, "inner_text") else ""
    erros += [f"widget quebrado: {s!r}" for s in SINAIS_DE_WIDGET_QUEBRADO if s in texto]
    return erros


def _valor(controle) -> str:
    return controle.evaluate(
        """(c) => {
          const h = c.querySelector('.noUi-handle');
          const r = c.querySelector('.widget-readout');
          if (h) return [h.getAttribute('aria-valuenow'), r ? r.textContent.trim() : ''].join(' · ');
          const s = c.querySelector('select');
          if (s) return s.value;
          const x = c.querySelector('input[type=checkbox]');
          if (x) return String(x.checked);
          return '';
        }"""
    )


def _descricao(controle) -> str:
    rotulo = controle.query_selector(".widget-label")
    return (rotulo.inner_text().strip() if rotulo else "") or controle.get_attribute("class")


def mover_com_teclado(pagina, controle) -> tuple[str, str]:
    """Move ``controle`` um passo com o teclado (como um estudante faria) e devolve (antes, depois)."""
    antes = _valor(controle)
    handle = controle.query_selector(".noUi-handle")
    if handle is not None:
        handle.scroll_into_view_if_needed()
        handle.focus()
        no_maximo = handle.evaluate(
            "(h) => parseFloat(h.getAttribute('aria-valuenow')) >= parseFloat(h.getAttribute('aria-valuemax'))"
        )
        pagina.keyboard.press("ArrowLeft" if no_maximo else "ArrowRight")
    elif (select := controle.query_selector("select")) is not None:
        select.focus()
        ultimo = select.evaluate("(s) => s.selectedIndex >= s.options.length - 1")
        pagina.keyboard.press("ArrowUp" if ultimo else "ArrowDown")
    elif (caixa := controle.query_selector("input[type=checkbox]")) is not None:
        caixa.focus()
        pagina.keyboard.press("Space")
    fim = time.monotonic() + 5
    depois = _valor(controle)
    while depois == antes and time.monotonic() < fim:
        time.sleep(0.05)
        depois = _valor(controle)
    return antes, depois


def retrato_estavel(raiz, quieto_s: float = 0.4, limite_s: float = 10.0) -> dict:
    """O retrato depois que o painel parou de mudar por ``quieto_s`` segundos."""
    esperar_imagens(raiz)
    atual = retrato(raiz)
    desde = time.monotonic()
    fim = desde + limite_s
    while time.monotonic() - desde < quieto_s and time.monotonic() < fim:
        time.sleep(0.1)
        novo = retrato(raiz)
        if novo != atual:
            atual, desde = novo, time.monotonic()
    return atual


def exercitar_controles(pagina, raiz, nome: str, limite_s: float = 15.0, so_o_primeiro: bool = False) -> list[str]:
    """Move cada controle do painel ``raiz`` (ou só o primeiro) com o teclado e confere que a figura
    e/ou os números mudam. Devolve uma lista de problemas (vazia quando tudo reage).
    """
    problemas = []
    controles = raiz.query_selector_all(CONTROLES)[: 1 if so_o_primeiro else None]
    if not controles:
        return [f"{nome}: nenhum controle (slider) renderizado"]
    for controle in controles:
        descricao = _descricao(controle)
        antes = retrato_estavel(raiz)
        valor_antes, valor_depois = mover_com_teclado(pagina, controle)
        if valor_antes == valor_depois:
            problemas.append(f"{nome} · {descricao!r}: o teclado não moveu o controle (valor {valor_antes})")
            continue
        fim = time.monotonic() + limite_s
        depois = retrato(raiz)
        while depois == antes and time.monotonic() < fim:
            time.sleep(0.1)
            depois = retrato(raiz)
        if depois == antes:
            problemas.append(
                f"{nome} · {descricao!r}: movido de {valor_antes} para {valor_depois}, "
                f"mas nem a figura nem os números mudaram em {limite_s:.0f} s"
            )
    return problemas


def nome_captura(pasta: Path, *partes: str) -> Path:
    return pasta / (re.sub(r"[^\w.-]+", "_", "__".join(partes)) + ".png")
