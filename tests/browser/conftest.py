"""Testes num navegador de verdade: um JupyterLab (e um Voilà) de verdade, dirigidos pelo Chromium.

Estes testes sobem, eles mesmos, um servidor JupyterLab em 127.0.0.1 (porta livre, sem token), com
pastas temporárias de configuração, runtime, workspaces, configurações do usuário e dados, e uma
**cópia** de ``notebooks/`` e ``data/`` (o salvamento automático do JupyterLab nunca toca os arquivos
do repositório nem a pasta pessoal de quem roda). O servidor é encerrado no fim da sessão, mesmo
quando um teste falha.

O navegador é o Chromium do sistema (``/usr/bin/chromium``, ou o caminho em ``CHROMIUM``), dirigido
pelo pacote Python ``playwright`` — nenhum navegador é baixado. Sem Chromium ou sem playwright os
testes são pulados com uma linha dizendo como instalar; com ``CI_EXIGE_NAVEGADOR=1`` (a CI) eles
falham em vez de pular.

As capturas de tela vão para ``capturas/`` na raiz do repositório (ignorada pelo git).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _pagina import CAPTURAS
from _servidores import ARGS_CHROMIUM, caminho_chromium, jupyterlab, playwright_da_sessao, sem_navegador


@pytest.fixture(scope="session")
def navegador():
    """O Chromium do sistema, headless, aberto uma vez por sessão."""
    chromium = caminho_chromium()
    if chromium is None:
        sem_navegador("testes de navegador: Chromium não encontrado — instale com `sudo apt-get install chromium` "
                       "(ou aponte CHROMIUM=/caminho/do/chromium); não é preciso `playwright install`")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        sem_navegador("testes de navegador: falta o pacote Python playwright — instale com "
                       "`pip install -r requirements-dev.txt` (o navegador é o Chromium do sistema)")
    browser = playwright_da_sessao().chromium.launch(executable_path=chromium, headless=True, args=ARGS_CHROMIUM)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(scope="session")
def servidor_lab(navegador, tmp_path_factory):
    """Um JupyterLab de verdade sobre uma cópia da coleção, em pastas temporárias; sempre encerrado."""
    with jupyterlab(tmp_path_factory.mktemp("jupyterlab")) as servidor:
        yield servidor


@pytest.fixture
def pagina(navegador):
    """Uma aba nova, num contexto novo (sem cookies nem armazenamento de outros testes)."""
    contexto = navegador.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1, locale="en-US")
    page = contexto.new_page()
    page.set_default_timeout(30_000)
    try:
        yield page
    finally:
        contexto.close()


@pytest.fixture(scope="session")
def capturas() -> Path:
    CAPTURAS.mkdir(exist_ok=True)
    return CAPTURAS
