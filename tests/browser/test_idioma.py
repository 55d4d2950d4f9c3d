"""A interface em português: o pacote de idioma pt-BR funciona com a nossa versão do JupyterLab.

O teste faz o que o README manda: *Settings › Language › Portuguese (Brazil) - Português (Brasil)*,
confirma a troca, espera o JupyterLab recarregar e confere que a página passou a ser pt-BR, que a
escolha foi gravada nas configurações do usuário (numa pasta temporária) e que itens de menu e o
navegador de arquivos aparecem em português. O pacote (4.5, com o JupyterLab 4.6) não traduz tudo:
os títulos do menu principal (File, Edit, Run…) continuam em inglês, mas boa parte dos itens dentro
deles, o navegador de arquivos e a barra de status passam para o português.
"""

from __future__ import annotations

import json
import re

import pytest
from _servidores import jupyterlab

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def servidor_idioma(navegador, tmp_path_factory):
    """Um JupyterLab só deste teste: a troca de idioma não afeta os outros testes."""
    with jupyterlab(tmp_path_factory.mktemp("idioma")) as servidor:
        yield servidor


def _abrir_menu_com(pagina, comando: str) -> None:
    """Abre o menu do menu principal que contém ``comando`` (sem depender do título traduzido)."""
    for titulo in pagina.query_selector_all("#jp-MainMenu .lm-MenuBar-item"):
        titulo.click()
        if pagina.query_selector(f".lm-Menu .lm-Menu-item[data-command='{comando}']"):
            return
        pagina.keyboard.press("Escape")
    raise AssertionError(f"nenhum menu tem o comando {comando}")


def _rotulo(pagina, comando: str) -> str:
    return pagina.inner_text(f".lm-Menu .lm-Menu-item[data-command='{comando}'] .lm-Menu-itemLabel").strip()


def test_trocar_a_interface_para_portugues(pagina, servidor_idioma):
    pagina.goto(f"{servidor_idioma.url}/lab/workspaces/idioma/tree/notebooks?reset")
    pagina.wait_for_selector("#jp-MainMenu .lm-MenuBar-item")
    pagina.wait_for_selector(".jp-DirListing-headerItem.jp-id-name")
    assert pagina.evaluate("() => document.documentElement.lang") in ("en", "en-US", "")
    _abrir_menu_com(pagina, "runmenu:run-all")
    assert _rotulo(pagina, "runmenu:run-all") == "Run All"
    pagina.keyboard.press("Escape")

    # Settings › Language › Portuguese (Brazil) - Português (Brasil)
    _abrir_menu_com(pagina, "settingeditor:open")
    pagina.hover(".lm-Menu-item[data-type='submenu']:has-text('Language')")
    opcao = pagina.wait_for_selector(".lm-Menu-item[data-command='jupyterlab-translation:pt_BR']")
    assert "Português (Brasil)" in opcao.inner_text()
    opcao.click()
    with pagina.expect_navigation(timeout=60_000):
        pagina.click(".jp-Dialog .jp-mod-accept")  # "Change and reload"
    pagina.wait_for_selector("#jp-MainMenu .lm-MenuBar-item", timeout=60_000)
    pagina.wait_for_selector(".jp-DirListing-headerItem.jp-id-name", timeout=60_000)

    assert pagina.evaluate("() => document.documentElement.lang") == "pt-BR"
    gravado = servidor_idioma.configuracoes / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings"
    texto = re.sub(r"^\s*//.*$", "", gravado.read_text(encoding="utf-8"), flags=re.M)  # o arquivo tem comentários
    assert json.loads(texto)["locale"] == "pt_BR"
    assert pagina.inner_text(".jp-DirListing-headerItem.jp-id-name").strip() == "Nome"
    _abrir_menu_com(pagina, "runmenu:run-all")
    assert _rotulo(pagina, "runmenu:run-all") == "Executar todos"
    pagina.keyboard.press("Escape")
    _abrir_menu_com(pagina, "filebrowser:toggle-main")  # o menu View
    pagina.hover(".lm-Menu-item[data-type='submenu']:has-text('Aparência')")
    item = pagina.wait_for_selector(".lm-Menu-item[data-command='application:toggle-presentation-mode']")
    assert item.inner_text().strip() == "Modo de apresentação"


def test_portugues_como_padrao_de_um_jupyterhub(pagina, tmp_path):
    """O ``overrides.json`` que o README sugere para um JupyterHub abre tudo em português, sem clique."""
    padrao = {"@jupyterlab/translation-extension:plugin": {"locale": "pt_BR"}}
    with jupyterlab(tmp_path, sobrescritas=padrao) as servidor:
        pagina.goto(f"{servidor.url}/lab/workspaces/hub/tree/notebooks?reset")
        pagina.wait_for_selector(".jp-DirListing-headerItem.jp-id-name", timeout=60_000)
        assert pagina.evaluate("() => document.documentElement.lang") == "pt-BR"
        assert pagina.inner_text(".jp-DirListing-headerItem.jp-id-name").strip() == "Nome"
