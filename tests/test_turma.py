"""A configuração da turma sem subir nada: o link do nbgitpuller, o limite de memória e o arquivo do hub.

O hub de verdade, no navegador, está em ``tests/hub``; aqui só o que roda em milissegundos.
"""

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from turma import limites
from turma.link import link
from turma.link import main as link_main

RAIZ = Path(__file__).resolve().parent.parent
TURMA = RAIZ / "turma"


def test_link_abre_o_notebook_na_pasta_certa():
    url = link("https://hub.escola.br/", "https://github.com/usuaria/mecanismo")
    partes = urlsplit(url)
    assert f"{partes.scheme}://{partes.netloc}{partes.path}" == "https://hub.escola.br/hub/user-redirect/git-pull"
    assert parse_qs(partes.query) == {
        "repo": ["https://github.com/usuaria/mecanismo"],
        "branch": ["main"],
        "targetpath": ["mecanismo-de-atencao"],
        "urlpath": ["lab/tree/mecanismo-de-atencao/notebooks/00_comece_aqui.ipynb"],
    }
    outro = parse_qs(urlsplit(link("http://h", "r", ramo="aula", notebook="05_soma_ponderada")).query)
    assert outro["branch"] == ["aula"]
    assert outro["urlpath"] == ["lab/tree/mecanismo-de-atencao/notebooks/05_soma_ponderada.ipynb"]


def test_link_recusa_endereco_sem_http(capsys):
    with pytest.raises(ValueError, match="http://"):
        link("hub.escola.br", "https://github.com/u/r")
    with pytest.raises(SystemExit):
        link_main(["hub.escola.br", "https://github.com/u/r"])
    assert "http://" in capsys.readouterr().err
    assert link_main(["https://hub", "https://github.com/u/r"]) == 0
    assert capsys.readouterr().out.startswith("https://hub/hub/user-redirect/git-pull?repo=")


def test_limite_de_memoria_vem_de_MEM_LIMIT():
    assert limites.limite_de_memoria({}) is None
    assert limites.limite_de_memoria({"MEM_LIMIT": "2147483648"}) == 2**31
    assert limites.limite_de_memoria({"MEM_LIMIT": "0"}) is None
    with pytest.raises(SystemExit, match="MEM_LIMIT"):
        limites.limite_de_memoria({"MEM_LIMIT": "2G"})


@pytest.mark.skipif(sys.platform == "win32", reason="limites por processo só existem no Unix")
def test_limites_aplica_o_teto_e_vira_o_programa():
    codigo = "import resource; print(resource.getrlimit(resource.RLIMIT_DATA)[0])"
    saida = subprocess.run([sys.executable, str(TURMA / "limites.py"), sys.executable, "-c", codigo],
                           env={"MEM_LIMIT": str(3 * 2**30)}, capture_output=True, text=True, timeout=60)
    assert saida.returncode == 0, saida.stderr
    assert int(saida.stdout) == 3 * 2**30
    # e um pedido acima do teto vira MemoryError no processo, sem derrubá-lo
    codigo = "try:\n    bytearray(2 * 2**30)\nexcept MemoryError:\n    print('MemoryError')"
    saida = subprocess.run([sys.executable, str(TURMA / "limites.py"), sys.executable, "-c", codigo],
                           env={"MEM_LIMIT": str(2**30)}, capture_output=True, text=True, timeout=60)
    assert saida.stdout.strip() == "MemoryError", saida.stderr


def test_configuracao_do_hub_carrega_e_liga_o_portugues():
    pytest.importorskip("jupyterhub", reason="JupyterHub não instalado: pip install -r requirements-dev.txt")
    from traitlets.config.loader import PyFileConfigLoader

    c = PyFileConfigLoader("jupyterhub_config.py", path=str(TURMA)).load_config()
    assert Path(c.Spawner.cmd[1]) == TURMA / "limites.py"
    assert Path(c.Spawner.cmd[2]).name == "jupyterhub-singleuser"
    assert c.Spawner.mem_limit == "2G"
    assert c.Spawner.default_url == "/lab"
    assert c.JupyterHub.authenticator_class == "pam" and c.LocalAuthenticator.allowed_groups == {"turma"}
    assert c.JupyterHub.spawner_class == "localprocess"
    pasta = Path(c.Spawner.environment["JUPYTER_CONFIG_PATH"])
    padroes = json.loads((pasta / "labconfig" / "default_setting_overrides.json").read_text(encoding="utf-8"))
    assert padroes["@jupyterlab/translation-extension:plugin"] == {"locale": "pt_BR"}


def test_configuracao_se_recusa_a_subir_sem_o_ambiente_completo(monkeypatch):
    pytest.importorskip("jupyterhub", reason="JupyterHub não instalado: pip install -r requirements-dev.txt")
    import importlib.util

    from traitlets.config.loader import PyFileConfigLoader

    original = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda nome, *a: None if nome == "nbgitpuller" else original(nome, *a))
    with pytest.raises(SystemExit, match="nbgitpuller: pip install -r turma/requirements.txt"):
        PyFileConfigLoader("jupyterhub_config.py", path=str(TURMA)).load_config()


def test_espera_do_hub_nao_confunde_o_404_do_proxy_com_o_hub_de_pe(tmp_path, monkeypatch):
    """Ao subir, o proxy responde 404 ("sem rota") até o hub registrar a rota dele. Quem espera o hub
    precisa de um 200; quando qualquer resposta contava, o teste do hub abria a página de login no 404."""
    import http.server
    import threading
    from types import SimpleNamespace

    monkeypatch.syspath_prepend(str(RAIZ / "tests" / "browser"))
    from _servidores import esperar_servidor

    roteiro: list[int] = []  # as próximas respostas; vazia: 404 para sempre
    dadas: list[int] = []

    class Proxy(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (nome da API do http.server)
            dadas.append(roteiro.pop(0) if roteiro else 404)
            self.send_response(dadas[-1])
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    servidor = http.server.HTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=servidor.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{servidor.server_port}/hub/api"
    vivo = SimpleNamespace(poll=lambda: None)  # o processo do servidor, sempre vivo
    log = tmp_path / "log"
    log.write_text("o log do servidor")
    try:
        roteiro[:] = [404, 404, 404, 200]
        esperar_servidor(url, vivo, log, limite_s=10)  # sem so_200: o primeiro 404 já conta
        assert dadas == [404]
        esperar_servidor(url, vivo, log, limite_s=10, so_200=True)
        assert dadas == [404, 404, 404, 200]
        with pytest.raises(RuntimeError, match="HTTP 404") as erro:  # nunca 200: falha dizendo o que viu
            esperar_servidor(url, vivo, log, limite_s=1, so_200=True)
        assert "o log do servidor" in str(erro.value)
    finally:
        servidor.shutdown()
