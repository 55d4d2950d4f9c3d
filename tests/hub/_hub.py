"""O hub do teste da turma: JupyterHub com a configuração da turma, o repositório de origem e utilidades.

Usado por ``conftest.py`` (as fixtures) e pelos testes de ``tests/hub``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

# os utilitários dos testes de navegador (esperar, ler painéis, mover controles, subir servidores)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))

from _pagina import RAIZ  # noqa: E402
from _servidores import CONFIG_LAB, caminho_chromium, encerrar, esperar_servidor, porta_livre  # noqa: E402

#: a configuração que o instrutor usa (a base do hub do teste)
CONFIG_DA_TURMA = RAIZ / "turma" / "jupyterhub_config.py"
#: a senha descartável de todos os estudantes do teste
SENHA = "senha-descartavel-do-teste"
#: o nome do repositório "remoto" (a pasta que cada estudante recebe vem do link)
NOME_DO_REPOSITORIO = "mecanismo-de-atencao"

CAMADA_DO_TESTE = '''\
# Camada só do teste, por cima da configuração da turma (carregada primeiro, sem mudanças).
load_subconfig({config!r})

# contas: qualquer nome com a senha descartável (no lugar das contas do Linux)
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = {senha!r}
c.Authenticator.allow_all = True

# spawner: os servidores dos estudantes rodam no usuário do teste, cada um com a sua pasta pessoal
# temporária (no lugar de uma conta Linux por estudante)
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {casas!r} + "/{{username}}"
if {root!r}:
    c.Spawner.args = ["--allow-root"]

# portas livres, só em 127.0.0.1
c.JupyterHub.bind_url = "http://127.0.0.1:{porta}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{porta_hub}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{porta_proxy}"
'''

#: configurações do JupyterLab de cada estudante do teste: todas as células no DOM e nada de salvar
#: sozinho (o teste decide quando salvar). O idioma NÃO entra aqui: vem da configuração da turma.
CONFIG_LAB_DO_ESTUDANTE = {
    nome: valor for nome, valor in CONFIG_LAB.items() if "notification" not in nome
}


def git(*args: str, cwd: Path) -> str:
    """Roda git (sem a configuração global de quem roda o teste) e devolve a saída."""
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", LANG="C")
    resultado = subprocess.run(["git", "-c", "user.name=Instrutora", "-c", "user.email=instrutora@turma.invalid",
                                *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    if resultado.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} falhou em {cwd}:\n{resultado.stdout}{resultado.stderr}")
    return resultado.stdout.strip()


def proxy_do_hub() -> str | None:
    """O configurable-http-proxy que a configuração da turma vai usar (ao lado do Python, ou no PATH)."""
    ao_lado = Path(sys.executable).with_name("configurable-http-proxy")
    return str(ao_lado) if ao_lado.exists() else shutil.which("configurable-http-proxy")


def falta_para_o_hub() -> str | None:
    if caminho_chromium() is None:
        return ("teste do hub: Chromium não encontrado — instale com `sudo apt-get install chromium` "
                "(ou aponte CHROMIUM=/caminho/do/chromium); não é preciso `playwright install`")
    faltam = [p for p, m in (("playwright", "playwright"), ("jupyterhub", "jupyterhub"),
                             ("nbgitpuller", "nbgitpuller")) if importlib.util.find_spec(m) is None]
    if faltam:
        return (f"teste do hub: falta {', '.join(faltam)} — instale com `pip install -r requirements-dev.txt` "
                "(inclui turma/requirements.txt)")
    if proxy_do_hub() is None:
        return ("teste do hub: falta o proxy do JupyterHub — instale com "
                "`npm install -g --prefix .venv configurable-http-proxy@5.0` (com o ambiente ativado)")
    return None


@dataclass
class Origem:
    """O repositório "remoto" da coleção (um repositório git local, servido como ``file://``)."""

    pasta: Path
    commits: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.pasta.as_uri()

    def commit(self, mensagem: str) -> str:
        git("add", "-A", cwd=self.pasta)
        git("commit", "-q", "-m", mensagem, cwd=self.pasta)
        self.commits.append(git("rev-parse", "HEAD", cwd=self.pasta))
        return self.commits[-1]




def criar_origem(pasta: Path) -> Origem:
    """Um repositório git novo em ``pasta`` com a coleção como está na árvore de trabalho (arquivos
    versionados e os novos ainda não ignorados), num commit no ramo ``main``."""
    pasta.mkdir(parents=True)
    arquivos = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=RAIZ).split("\0")
    for nome in filter(None, arquivos):
        de = RAIZ / nome
        if de.is_file():
            para = pasta / nome
            para.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(de, para)
    git("init", "-q", "-b", "main", cwd=pasta)
    repo = Origem(pasta)
    repo.commit("A coleção, como está na árvore de trabalho")
    return repo

@dataclass
class Hub:
    url: str
    casas: Path
    log: Path

    def casa(self, nome: str) -> Path:
        return self.casas / nome

    def copia(self, nome: str) -> Path:
        """A cópia da coleção na pasta pessoal do estudante."""
        return self.casa(nome) / NOME_DO_REPOSITORIO

    def preparar_casa(self, nome: str) -> Path:
        """Cria a pasta pessoal com as configurações do JupyterLab do teste (antes do primeiro login)."""
        casa = self.casa(nome)
        pasta = casa / ".jupyter" / "lab" / "user-settings"
        for arquivo, valor in CONFIG_LAB_DO_ESTUDANTE.items():
            destino = pasta / arquivo
            destino.parent.mkdir(parents=True, exist_ok=True)
            destino.write_text(json.dumps(valor), encoding="utf-8")
        return casa

    def ultimas_linhas_do_log(self, n: int = 60) -> str:
        return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-n:])


@contextlib.contextmanager
def jupyterhub(base: Path):
    """JupyterHub com a configuração da turma + a camada do teste; sempre encerrado (com os servidores)."""
    casas = base / "casas"
    casas.mkdir()
    porta, porta_hub, porta_proxy = porta_livre(), porta_livre(), porta_livre()
    camada = base / "jupyterhub_config_teste.py"
    camada.write_text(CAMADA_DO_TESTE.format(
        config=str(CONFIG_DA_TURMA), senha=SENHA, casas=str(casas), root=hasattr(os, "geteuid") and os.geteuid() == 0,
        porta=porta, porta_hub=porta_hub, porta_proxy=porta_proxy,
    ), encoding="utf-8")
    env = dict(os.environ)
    # o PATH com o ambiente do teste na frente (o proxy e o git-pull vêm dele)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    for variavel in ("JUPYTER_CONFIG_DIR", "JUPYTER_CONFIG_PATH", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
                     "JUPYTERHUB_API_TOKEN", "JUPYTER_TOKEN"):
        env.pop(variavel, None)
    env["PYTHONUNBUFFERED"] = "1"
    log = base / "jupyterhub.log"
    url = f"http://127.0.0.1:{porta}"
    with open(log, "w") as saida:
        processo = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(camada)], cwd=base, env=env,
                                    stdout=saida, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # o proxy sobe antes e responde 404 até o hub registrar a rota dele: só um 200 é o hub de pé
        esperar_servidor(f"{url}/hub/api", processo, log, limite_s=120, so_200=True)
        yield Hub(url, casas, log)
    finally:
        encerrar(processo)
        encerrar_restos(casas)


def encerrar_restos(casas: Path, limite_s: float = 10.0) -> list[int]:
    """Encerra o que o hub do teste possa ter deixado para trás: servidores e kernels dos estudantes.

    Os servidores dos estudantes rodam em sessões próprias (não morrem com o grupo do hub); se o hub
    não conseguir pará-los a tempo, sobram. Aqui: todo processo cuja pasta pessoal (HOME) ou pasta de
    trabalho fica dentro de ``casas`` recebe SIGTERM e, se não sair, SIGKILL. Devolve os pids.
    """
    import psutil

    alvo = str(casas)
    restos = []
    for p in psutil.process_iter():
        try:
            if p.pid == os.getpid():
                continue
            if p.environ().get("HOME", "").startswith(alvo) or p.cwd().startswith(alvo):
                restos.append(p)
        except (psutil.Error, OSError):
            continue
    for p in restos:
        with contextlib.suppress(psutil.Error):
            p.terminate()
    _, vivos = psutil.wait_procs(restos, timeout=limite_s)
    for p in vivos:
        with contextlib.suppress(psutil.Error):
            p.kill()
    psutil.wait_procs(vivos, timeout=limite_s)
    return [p.pid for p in restos]


def hub_api(hub: Hub, caminho: str) -> dict:
    with urllib.request.urlopen(f"{hub.url}/hub/api{caminho}", timeout=10) as r:
        return json.loads(r.read().decode())


def esperar(condicao, limite_s: float, descricao: str, intervalo: float = 0.2):
    """Espera ``condicao()`` ser verdadeira (e a devolve) ou falha dizendo o que não aconteceu."""
    fim = time.monotonic() + limite_s
    while True:
        valor = condicao()
        if valor:
            return valor
        if time.monotonic() > fim:
            raise AssertionError(f"em {limite_s:.0f} s, não aconteceu: {descricao}")
        time.sleep(intervalo)
