"""Servidores dos testes de navegador: JupyterLab e Voilà de verdade, isolados em pastas temporárias.

Cada servidor roda numa **cópia** de ``notebooks/`` e ``data/`` (o salvamento automático do JupyterLab
nunca toca os arquivos do repositório), com configuração, runtime, workspaces, configurações do
usuário, dados do Jupyter e pasta do IPython temporários (nada na pasta pessoal), num grupo de
processos próprio que é sempre encerrado (SIGTERM, depois SIGKILL), mesmo quando um teste falha.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from _pagina import RAIZ

ARGS_CHROMIUM = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
#: configurações do JupyterLab gravadas na pasta temporária do usuário (nada na pasta pessoal)
CONFIG_LAB = {
    # todas as células no DOM (sem virtualização): o teste enxerga todos os painéis
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # nada de salvar por cima da cópia enquanto o teste roda
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    # sem o aviso de notícias (que cobriria a captura de tela) e sem acesso à rede
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def caminho_chromium() -> str | None:
    """O executável do Chromium: ``$CHROMIUM`` (se definida, só ela), ``/usr/bin/chromium`` ou o do PATH."""
    if os.environ.get("CHROMIUM"):
        candidatos = [os.environ["CHROMIUM"]]
    else:
        candidatos = ["/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")]
    for c in candidatos:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    return None


_PLAYWRIGHT = None


def playwright_da_sessao():
    """A instância do Playwright (API síncrona) deste processo, criada na primeira chamada.

    Os testes de navegador e os do hub (``tests/hub``) usam a mesma: duas instâncias da API síncrona
    ao mesmo tempo, na mesma thread, não funcionam. É encerrada quando o processo termina.
    """
    global _PLAYWRIGHT
    if _PLAYWRIGHT is None:
        from playwright.sync_api import sync_playwright

        _PLAYWRIGHT = sync_playwright().start()
        atexit.register(_parar_playwright)
    return _PLAYWRIGHT


def _parar_playwright() -> None:
    global _PLAYWRIGHT
    if _PLAYWRIGHT is not None:
        with contextlib.suppress(Exception):
            _PLAYWRIGHT.stop()
        _PLAYWRIGHT = None


def sem_navegador(motivo: str) -> None:
    if os.environ.get("CI_EXIGE_NAVEGADOR"):
        pytest.fail(f"{motivo} (CI_EXIGE_NAVEGADOR está definida: na CI os testes de navegador não podem ser pulados)")
    pytest.skip(motivo)


def porta_livre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str, timeout: float = 5.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read().decode())


def esperar_servidor(url: str, processo: subprocess.Popen, log: Path, limite_s: float = 90.0,
                     so_200: bool = False) -> None:
    """Espera ``url`` responder. Qualquer resposta HTTP (mesmo 403/404) conta como "de pé", a menos que
    ``so_200``: atrás de um proxy, um 404/503 pode vir do proxy antes de o servidor de verdade ter rota."""
    fim = time.monotonic() + limite_s
    ultima = "nenhuma resposta"
    while time.monotonic() < fim:
        if processo.poll() is not None:
            raise RuntimeError(f"o servidor terminou com código {processo.returncode}:\n{log.read_text()[-3000:]}")
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except urllib.error.HTTPError as erro:
            if not so_200:
                return  # respondeu (mesmo que com 403/404): o servidor está de pé
            ultima = f"HTTP {erro.code}"
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"o servidor não ficou pronto em {limite_s:.0f} s ({url}: {ultima}):\n{log.read_text()[-3000:]}")


def encerrar(processo: subprocess.Popen) -> None:
    """Encerra o grupo de processos do servidor (e seus kernels): SIGTERM, depois SIGKILL."""
    if processo.poll() is not None:
        return
    try:
        os.killpg(processo.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        processo.wait(timeout=15)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(processo.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        processo.wait(timeout=10)


def ambiente_isolado(base: Path) -> dict[str, str]:
    """Variáveis que mandam o Jupyter (e o IPython do kernel) usar só pastas temporárias."""
    pastas = {
        "JUPYTER_CONFIG_DIR": base / "config",
        "JUPYTER_RUNTIME_DIR": base / "runtime",
        "JUPYTER_DATA_DIR": base / "data",
        "JUPYTERLAB_WORKSPACES_DIR": base / "workspaces",
        "JUPYTERLAB_SETTINGS_DIR": base / "settings",
        "IPYTHONDIR": base / "ipython",
    }
    for p in pastas.values():
        p.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update({k: str(v) for k, v in pastas.items()})
    env.pop("JUPYTER_TOKEN", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def copiar_colecao(destino: Path) -> None:
    """Copia ``notebooks/`` e ``data/`` (os notebooks leem ``../data``) para a pasta do servidor."""
    for nome in ("notebooks", "data"):
        origem = RAIZ / nome
        if origem.is_dir():
            shutil.copytree(origem, destino / nome, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))


class Servidor:
    def __init__(self, url: str, raiz: Path, configuracoes: Path):
        self.url = url.rstrip("/")
        self.raiz = raiz
        self.configuracoes = configuracoes

    def encerrar_kernels(self) -> None:
        """Desliga todos os kernels (cada teste começa com um kernel novo e a memória não acumula)."""
        try:
            sessoes = _get_json(f"{self.url}/api/sessions")
            for s in sessoes:
                req = urllib.request.Request(f"{self.url}/api/sessions/{s['id']}", method="DELETE")
                urllib.request.urlopen(req, timeout=10).read()
            for k in _get_json(f"{self.url}/api/kernels"):
                req = urllib.request.Request(f"{self.url}/api/kernels/{k['id']}", method="DELETE")
                urllib.request.urlopen(req, timeout=10).read()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass


def gravar_configuracoes(pasta: Path, extra: dict[str, dict] | None = None) -> None:
    for nome, valor in {**CONFIG_LAB, **(extra or {})}.items():
        arquivo = pasta / nome
        arquivo.parent.mkdir(parents=True, exist_ok=True)
        arquivo.write_text(json.dumps(valor), encoding="utf-8")


@contextlib.contextmanager
def rodando(comando: list[str], base: Path, env: dict[str, str], cwd: Path, espera: str):
    """Roda ``comando`` num grupo de processos próprio, espera ``espera`` responder e sempre encerra."""
    log = base / "servidor.log"
    with open(log, "w") as saida:
        processo = subprocess.Popen(comando, cwd=cwd, env=env, stdout=saida, stderr=subprocess.STDOUT,
                                    start_new_session=True)
    try:
        esperar_servidor(espera, processo, log)
        yield processo
    finally:
        encerrar(processo)


@contextlib.contextmanager
def jupyterlab(base: Path, configuracoes: dict[str, dict] | None = None, sobrescritas: dict | None = None):
    """Um JupyterLab sobre uma cópia da coleção em ``base``, só com pastas temporárias.

    ``configuracoes``: arquivos de configuração do usuário (caminho relativo → conteúdo);
    ``sobrescritas``: o ``overrides.json`` dos padrões do servidor (o que um JupyterHub usaria).
    """
    raiz = base / "raiz"
    raiz.mkdir()
    copiar_colecao(raiz)
    env = ambiente_isolado(base)
    pasta_config = Path(env["JUPYTERLAB_SETTINGS_DIR"])
    gravar_configuracoes(pasta_config, configuracoes)
    porta = porta_livre()
    comando = [
        sys.executable, "-m", "jupyterlab", "--no-browser",
        "--ip=127.0.0.1", f"--port={porta}", "--port-retries=0",
        "--IdentityProvider.token=", "--ServerApp.password=",
        f"--ServerApp.root_dir={raiz}",
        f"--LabApp.user_settings_dir={pasta_config}",
        f"--LabApp.workspaces_dir={env['JUPYTERLAB_WORKSPACES_DIR']}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--ServerApp.disable_check_xsrf=True",
    ]
    if sobrescritas is not None:
        pasta_app = base / "app_settings"
        pasta_app.mkdir()
        (pasta_app / "overrides.json").write_text(json.dumps(sobrescritas), encoding="utf-8")
        comando.append(f"--LabApp.app_settings_dir={pasta_app}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        comando.append("--allow-root")
    url = f"http://127.0.0.1:{porta}"
    with rodando(comando, base, env, raiz, f"{url}/api/status"):
        yield Servidor(url, raiz, pasta_config)


@contextlib.contextmanager
def voila(base: Path, notebook: str):
    """``voila notebooks/NN_x.ipynb`` (o comando do README) sobre uma cópia da coleção em ``base``."""
    raiz = base / "raiz"
    raiz.mkdir()
    copiar_colecao(raiz)
    env = ambiente_isolado(base)
    porta = porta_livre()
    comando = [
        sys.executable, "-m", "voila", f"notebooks/{notebook}", "--no-browser",
        f"--port={porta}", "--Voila.port_retries=0", "--Voila.ip=127.0.0.1",
    ]
    url = f"http://127.0.0.1:{porta}"
    with rodando(comando, base, env, raiz, f"{url}/voila/static/"):
        yield Servidor(url, raiz, base)
