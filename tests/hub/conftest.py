"""Uma turma de verdade: JupyterHub + nbgitpuller + Chromium, tudo em pastas temporárias.

O hub sobe a partir de ``turma/jupyterhub_config.py`` (a configuração que o instrutor usa) e, por cima
dela, de uma camada só do teste (``_hub.CAMADA_DO_TESTE``) que troca apenas o que um teste não pode
usar: as contas (uma senha descartável no lugar das contas do Linux), o spawner (os servidores dos
estudantes rodam no usuário do teste, com pastas pessoais temporárias) e as portas (livres, em
127.0.0.1). O repositório que os estudantes sincronizam é um repositório git local (``file://``)
montado pelo teste a partir da árvore de trabalho.

Sem Chromium, sem playwright, sem JupyterHub/nbgitpuller ou sem o proxy (configurable-http-proxy),
os testes são pulados com uma linha dizendo o que instalar; com ``CI_EXIGE_NAVEGADOR=1`` (a CI),
falham em vez de pular.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _hub import NOME_DO_REPOSITORIO, Origem, criar_origem, falta_para_o_hub, jupyterhub
from _pagina import CAPTURAS
from _servidores import ARGS_CHROMIUM, caminho_chromium, playwright_da_sessao, sem_navegador


@pytest.fixture(scope="session")
def navegador_do_hub():
    """O Chromium do sistema, headless; antes, confere tudo o que o teste do hub precisa."""
    motivo = falta_para_o_hub()
    if motivo:
        sem_navegador(motivo)
    # o mesmo Playwright dos testes de navegador (tests/browser): dois ao mesmo tempo não funcionam
    browser = playwright_da_sessao().chromium.launch(executable_path=caminho_chromium(), headless=True,
                                                     args=ARGS_CHROMIUM)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(scope="session")
def origem(tmp_path_factory) -> Origem:
    """O repositório "remoto" da coleção, feito a partir da árvore de trabalho."""
    return criar_origem(tmp_path_factory.mktemp("origem") / NOME_DO_REPOSITORIO)


@pytest.fixture(scope="session")
def hub(navegador_do_hub, tmp_path_factory):
    """O JupyterHub da turma, de pé durante a sessão de testes; sempre encerrado com os servidores."""
    with jupyterhub(tmp_path_factory.mktemp("jupyterhub")) as h:
        yield h


@pytest.fixture(scope="session")
def capturas() -> Path:
    CAPTURAS.mkdir(exist_ok=True)
    return CAPTURAS
