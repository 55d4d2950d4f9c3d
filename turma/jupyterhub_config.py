# Configuração do JupyterHub para uma turma usando a coleção "Mecanismo de Atenção".
#
# Um servidor pequeno (por exemplo, 2 núcleos e 24 GB) para uma turma: cada estudante entra com a
# sua conta, ganha o seu próprio JupyterLab (em português) e recebe a sua cópia da coleção pelo link
# do nbgitpuller (gerado por `python turma/link.py`). A página docs/turma.md
# explica a instalação passo a passo e quantos estudantes cabem no servidor.
#
# Como iniciar (na pasta onde o hub guarda o seu estado: banco de dados e segredo dos cookies):
#
#     /opt/mecanismo-de-atencao/.venv/bin/jupyterhub -f /opt/mecanismo-de-atencao/turma/jupyterhub_config.py
#
# O ambiente dos estudantes é o mesmo ambiente Python que roda o hub: nele estão instalados a
# coleção (`pip install -r requirements.txt`, que instala o pacote `helpers`), o JupyterLab com o
# pacote de idioma pt-BR, o JupyterHub e o nbgitpuller (`pip install -r turma/requirements.txt`) e,
# pelo npm, o proxy do JupyterHub (configurable-http-proxy).
#
# O teste `tests/hub` sobe um JupyterHub de verdade a partir deste arquivo; por cima dele, troca só
# o que um teste não pode usar: as contas (uma senha descartável em vez das contas do Linux), o
# spawner (tudo no usuário que roda o teste, com pastas pessoais temporárias) e as portas.

import importlib.util
import shutil
import sys
from importlib import metadata
from pathlib import Path

c = get_config()  # noqa: F821 — o JupyterHub define get_config() ao ler este arquivo

#: a pasta deste arquivo (turma/), com limites.py e as configurações do JupyterLab
TURMA = Path(__file__).resolve().parent
#: o Python do ambiente do hub e dos estudantes (onde a coleção está instalada)
PYTHON = Path(sys.executable)


# --- O ambiente dos estudantes tem tudo? ---------------------------------------------------------
# Melhor o hub se recusar a subir com uma mensagem clara do que cada estudante descobrir, já na aula,
# que falta um pacote.

def _falta(modulo: str, pacote: str) -> str | None:
    return None if importlib.util.find_spec(modulo) else pacote


_faltando = [f for f in (
    _falta("helpers", "a coleção (pacote helpers): pip install -r requirements.txt"),
    _falta("nbgitpuller", "nbgitpuller: pip install -r turma/requirements.txt"),
    _falta("jupyterlab", "JupyterLab: pip install -r requirements.txt"),
    _falta("ipywidgets", "ipywidgets: pip install -r requirements.txt"),
) if f]
try:
    metadata.version("jupyterlab-language-pack-pt-BR")
except metadata.PackageNotFoundError:
    _faltando.append("o pacote de idioma pt-BR: pip install -r requirements.txt")
if not PYTHON.with_name("jupyterhub-singleuser").exists():
    _faltando.append("jupyterhub-singleuser: pip install -r turma/requirements.txt")
if _faltando:
    raise SystemExit(
        "jupyterhub_config.py: o ambiente dos estudantes (" + str(PYTHON) + ") não está completo. Falta:\n  - "
        + "\n  - ".join(_faltando)
        + "\nRode os comandos acima da pasta do repositório, com o ambiente ativado, e inicie o hub de novo."
    )


# --- Endereço ------------------------------------------------------------------------------------
# O hub atende na porta 8000 de todos os endereços da máquina. Numa rede que não é só sua, use HTTPS:
# aponte c.JupyterHub.ssl_cert e c.JupyterHub.ssl_key para o certificado do servidor (e a porta 443),
# ou ponha o hub atrás de um proxy reverso que já tenha HTTPS.
c.JupyterHub.bind_url = "http://:8000"

# O proxy do JupyterHub (configurable-http-proxy, do npm): o que foi instalado no ambiente do hub
# (npm install -g --prefix <ambiente>), se houver; senão, o que estiver no PATH.
_proxy = PYTHON.with_name("configurable-http-proxy")
if _proxy.exists():
    c.ConfigurableHTTPProxy.command = [str(_proxy)]
elif shutil.which("configurable-http-proxy") is None:
    raise SystemExit(
        "jupyterhub_config.py: falta o proxy do JupyterHub. Com o ambiente ativado, na pasta do repositório:\n"
        "  npm install -g --prefix .venv configurable-http-proxy@5.0"
    )


# --- Contas --------------------------------------------------------------------------------------
# Cada estudante entra com uma conta Linux do servidor (usuário e senha do sistema, via PAM) que
# pertença ao grupo "turma". Quem não está no grupo não entra.
c.JupyterHub.authenticator_class = "pam"
c.LocalAuthenticator.allowed_groups = {"turma"}
# Quem pode ver e parar os servidores dos estudantes pelo painel de administração (/hub/admin):
# c.Authenticator.admin_users = {"professora"}


# --- O servidor de cada estudante ----------------------------------------------------------------
# Cada estudante ganha um processo próprio, rodando com a sua conta Linux, na sua pasta pessoal.
c.JupyterHub.spawner_class = "localprocess"
# O servidor do estudante sobe pelo limites.py, que aplica o limite de memória abaixo a cada
# processo do estudante (o servidor e cada kernel).
c.Spawner.cmd = [str(PYTHON), str(TURMA / "limites.py"), str(PYTHON.with_name("jupyterhub-singleuser"))]
# Cada processo do estudante (cada kernel) pode pedir até 2 GB; uma célula que passar disso recebe
# um MemoryError, e o kernel continua vivo. O maior notebook da coleção usa bem menos que isso; veja
# a tabela "Quantos estudantes cabem" em docs/turma.md.
c.Spawner.mem_limit = "2G"
# Abre o JupyterLab (o link do nbgitpuller leva direto ao notebook 00).
c.Spawner.default_url = "/lab"
# Com a turma inteira entrando ao mesmo tempo, um servidor de 2 núcleos demora mais para subir
# cada JupyterLab: tempo de sobra antes de desistir (em segundos).
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 120
# Configurações do JupyterLab para todos (turma/jupyter/labconfig/default_setting_overrides.json):
# a interface em português do Brasil e nenhum aviso de notícias ou de atualizações. Cada estudante
# ainda pode trocar o idioma em Settings › Language.
c.Spawner.environment = {"JUPYTER_CONFIG_PATH": str(TURMA / "jupyter")}
