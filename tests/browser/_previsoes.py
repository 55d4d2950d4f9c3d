"""As previsões no navegador: nada na página entrega a resposta antes da conferência; depois dela, a resposta aparece.

Usado pelos testes do JupyterLab (notebook aberto como está gravado, depois de *Run All*) e do Voilà. As pistas de
cada previsão (os textos que entregariam a resposta) vêm da própria :class:`~helpers.corretor.Previsao` da lição.
"""

from __future__ import annotations

import importlib
import re
import time
from pathlib import Path

from helpers.previsao import CLASSE_CAIXA, CLASSE_REVELACAO

PREVER = re.compile(r"licao\.(prever_\w+)\(")

#: o texto que a página mostra: sem o conteúdo dos ``<details>`` fechados (dicas, soluções), sem o que está
#: digitado em caixas de texto (o palpite do próprio teste) e sem a fonte escondida das células de texto
_JS_TEXTO = """
(raiz) => {
  const copia = raiz.cloneNode(true);
  copia.querySelectorAll('details:not([open])').forEach((d) => {
    Array.from(d.childNodes).forEach((n) => { if (!(n.nodeType === 1 && n.tagName === 'SUMMARY')) n.remove(); });
  });
  copia.querySelectorAll('input, textarea').forEach((e) => e.remove());
  // a fonte crua das células de texto fica num editor escondido; o que se lê é o Markdown renderizado
  copia.querySelectorAll('.jp-MarkdownCell .jp-InputArea-editor').forEach((e) => e.remove());
  return copia.textContent;
}
"""


def previsoes(caminho: Path) -> list:
    """As :class:`~helpers.corretor.Previsao` das caixas do notebook, na ordem da página."""
    texto = caminho.read_text(encoding="utf-8")
    nomes = PREVER.findall(texto)
    if not nomes:
        return []
    licao = re.search(r"from helpers\.licoes import (\w+) as licao", texto).group(1)
    modulo = importlib.import_module(f"helpers.licoes.{licao}")
    return [getattr(modulo, nome).exercicio for nome in nomes]


def texto_visivel(raiz) -> str:
    return raiz.evaluate(_JS_TEXTO)


def pistas_na_pagina(raiz, previstas: list) -> list[str]:
    """``"previsão «x»: pista"`` para cada pista de ``previstas`` que a página já mostra."""
    texto = texto_visivel(raiz)
    return [f"previsão «{p.nome}»: {pista!r}" for p in previstas for pista in p.pistas_da_resposta() if pista in texto]


def prever_e_ver_a_resposta(pagina, raiz, previstas: list, nome: str, limite_s: float = 30.0) -> list[str]:
    """Em cada caixa, na ordem: confere que nenhuma pista dela está na página, digita o exemplo da previsão, clica
    em «Conferir» e espera a resposta aparecer (uma pista dela na página). Devolve os problemas."""
    problemas = []
    caixas = raiz.query_selector_all(f".{CLASSE_CAIXA}")
    if len(caixas) != len(previstas):
        return [f"{nome}: {len(caixas)} caixas de previsão na página, esperadas {len(previstas)}"]
    for caixa, prev in zip(caixas, previstas):
        if not caixa.is_visible():  # num aprofundamento recolhido (JupyterLab): o Voilà, que mostra tudo, confere
            continue
        antes = [pista for pista in prev.pistas_da_resposta() if pista in texto_visivel(raiz)]
        if antes:
            problemas.append(f"{nome} · «{prev.nome}»: a resposta já estava na página antes da previsão: {antes}")
            continue
        caixa.scroll_into_view_if_needed()
        caixa.query_selector("input").fill(prev.exemplo)
        caixa.query_selector("button").click()
        fim = time.monotonic() + limite_s
        while time.monotonic() < fim:
            texto = texto_visivel(raiz)
            if any(pista in texto for pista in prev.pistas_da_resposta()):
                break
            time.sleep(0.1)
        else:
            problemas.append(f"{nome} · «{prev.nome}»: depois de conferir «{prev.exemplo}», nenhuma pista da resposta "
                             f"apareceu em {limite_s:.0f} s ({prev.pistas_da_resposta()})")
    # conferidas todas as previsões, nenhuma revelação continua trancada (cada uma chega numa mensagem do kernel:
    # espera até todas chegarem)
    js = (f"(r) => Array.from(r.querySelectorAll('.{CLASSE_REVELACAO} > :first-child'))"
          ".filter((e) => e.offsetParent !== null).length")
    fim = time.monotonic() + limite_s
    trancadas = raiz.evaluate(js)
    while trancadas and time.monotonic() < fim:
        time.sleep(0.1)
        trancadas = raiz.evaluate(js)
    if trancadas:
        problemas.append(f"{nome}: {trancadas} revelações continuam trancadas depois de todas as previsões")
    return problemas


def e_previsao(fonte: str) -> bool:
    """A célula cria uma caixa de previsão ou uma revelação (widgets que não são painéis)."""
    return bool(PREVER.search(fonte)) or ".revelar()" in fonte
