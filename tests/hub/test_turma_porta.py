"""O que dá errado numa aula, e o que o estudante vê: links ruins, memória, disco e kernel que morre.

Para cada caso, o teste confere o que o JupyterHub, o nbgitpuller e o JupyterLab fazem de bom (uma
mensagem na tela; o trabalho já salvo continua no disco) e registra, nas asserções e nos comentários,
o que eles **não** fazem — a página docs/turma.md conta isso ao instrutor.

- links ruins: repositório que não existe, um texto que não é endereço, link sem repositório, ramo
  que não existe, e o link de **outro** repositório (na cópia que já existe e numa pasta nova);
- uma célula que pede memória demais (o limite por processo da configuração da turma);
- um kernel que morre com o painel na tela;
- uma célula que enche o disco (uma pasta pessoal num tmpfs pequeno, montado pelo teste).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request

import psutil
import pytest
from _estudante import Estudante
from _hub import NOME_DO_REPOSITORIO, esperar, git
from _pagina import retrato, retrato_estavel

from turma.link import link

pytestmark = [pytest.mark.slow, pytest.mark.hub]

ESQUELETO = 'raise NotImplementedError("complete aqui")'
NOTEBOOK = "notebooks/00_comece_aqui.ipynb"


def solucao(nome: str) -> str:
    return f"def produto_escalar(q, k):\n    # resolvido por {nome}\n    return float(np.sum(q * k))"


def retrato_da_copia(pasta) -> dict[str, str]:
    """SHA-256 de cada arquivo da cópia (fora .git e os pontos de restauração do JupyterLab)."""
    resumo = {}
    for caminho in sorted(pasta.rglob("*")):
        partes = caminho.relative_to(pasta).parts
        if caminho.is_file() and ".git" not in partes and ".ipynb_checkpoints" not in partes:
            resumo[str(caminho.relative_to(pasta))] = hashlib.sha256(caminho.read_bytes()).hexdigest()
    return resumo


def escrever_notebook(caminho, celulas: list[str]) -> None:
    """Um notebook de rascunho do estudante (as células que ele digitaria)."""
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
                   "source": fonte} for i, fonte in enumerate(celulas)],
        "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    caminho.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


def pagina_do_nbgitpuller(estudante: Estudante, endereco: str) -> str:
    """Segue um link do nbgitpuller que deve falhar; devolve o texto da página de erro."""
    pagina = estudante.pagina
    pagina.goto(endereco)
    pagina.wait_for_function(
        "() => (document.querySelector('#status-panel-title')?.textContent || '').includes('Error')",
        timeout=60_000,
    )
    pagina.wait_for_selector("#container-error:not(.hidden)")
    return pagina.inner_text("body")


@pytest.fixture(scope="module")
def estudantes(hub, navegador_do_hub, capturas):
    criados: list[Estudante] = []

    def novo(nome: str) -> Estudante:
        e = Estudante(nome, hub, navegador_do_hub, capturas)
        criados.append(e)
        return e

    try:
        yield novo
    finally:
        for e in criados:
            e.fechar()


@pytest.fixture(scope="module")
def outro_repositorio(tmp_path_factory):
    """Um repositório git que não é a coleção (o link "estrangeiro"), com o ramo main."""
    pasta = tmp_path_factory.mktemp("outro") / "outro-curso"
    pasta.mkdir()
    (pasta / "LEIA-ME-DO-OUTRO-CURSO.md").write_text("# Outro curso\n", encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=pasta)
    git("add", "-A", cwd=pasta)
    git("commit", "-q", "-m", "outro curso", cwd=pasta)
    return pasta


@pytest.fixture(scope="module")
def eva(hub, origem, estudantes):
    """Eva, com a sua cópia e o exercício resolvido e salvo (o trabalho que nada pode apagar)."""
    e = estudantes("eva")
    e.entrar()
    e.seguir_link(link(hub.url, origem.url))
    e.editar_celula(ESQUELETO, solucao("Eva"))
    e.salvar()
    assert "resolvido por Eva" in (e.copia / NOTEBOOK).read_text(encoding="utf-8")
    return e


def test_links_ruins_mostram_um_erro_e_nao_tocam_na_copia(hub, origem, eva, outro_repositorio, tmp_path):
    antes = retrato_da_copia(eva.copia)

    # 1. um repositório que não existe
    texto = pagina_do_nbgitpuller(eva, link(hub.url, (tmp_path / "nao-existe").as_uri()))
    assert "Remote content unavailable" in texto and "Proceed without syncing" in texto
    eva.capturar("link_repositorio_inexistente")
    # "Proceed without syncing" leva ao JupyterLab da estudante, sem sincronizar nada
    eva.pagina.click("#recovery-link a")
    eva.pagina.wait_for_url(f"**/user/{eva.nome}/**")

    # 2. um texto que não é endereço de repositório
    texto = pagina_do_nbgitpuller(eva, link(hub.url, "isto não é um repositório"))
    assert "Remote content unavailable" in texto

    # 3. um ramo que não existe
    texto = pagina_do_nbgitpuller(eva, link(hub.url, origem.url, ramo="ramo-que-nao-existe"))
    assert "Branch does not exist" in texto and "ramo-que-nao-existe" in texto
    eva.capturar("link_ramo_inexistente")

    # 4. um link sem o repositório: o servidor responde 400 (uma página de erro genérica, em inglês)
    resposta = eva.pagina.goto(f"{hub.url}/hub/user-redirect/git-pull?branch=main")
    assert resposta.status == 400
    assert "repo" in eva.pagina.inner_text("body")
    eva.capturar("link_sem_repositorio")

    # 5. o link de OUTRO repositório, com a mesma pasta de destino: o nbgitpuller não confere se a
    #    cópia veio daquele endereço; sincroniza a cópia com a origem dela (a coleção) e segue sem erro
    eva.seguir_link(link(hub.url, outro_repositorio.as_uri()))
    assert not (eva.copia / "LEIA-ME-DO-OUTRO-CURSO.md").exists()
    assert git("remote", "get-url", "origin", cwd=eva.copia) == origem.url

    depois = retrato_da_copia(eva.copia)
    assert depois == antes, "um link ruim mudou arquivos da cópia: " + ", ".join(
        sorted(k for k in set(antes) | set(depois) if antes.get(k) != depois.get(k)))
    assert "resolvido por Eva" in (eva.copia / NOTEBOOK).read_text(encoding="utf-8")


def test_link_de_outro_repositorio_numa_copia_nova_prende_a_pasta(hub, origem, estudantes, outro_repositorio):
    """Um estudante que segue primeiro um link errado fica com a pasta ligada ao repositório errado."""
    davi = estudantes("davi")
    davi.entrar()
    errado = link(hub.url, outro_repositorio.as_uri())
    davi.pagina.goto(errado)
    davi.pagina.wait_for_url(davi.url_do_notebook("00_comece_aqui.ipynb"), timeout=120_000)
    assert (davi.copia / "LEIA-ME-DO-OUTRO-CURSO.md").exists()
    # o JupyterLab avisa que o notebook não existe nessa pasta
    texto = davi.dialogo()
    assert "Não foi possível encontrar o caminho" in texto and "00_comece_aqui.ipynb" in texto, texto
    davi.capturar("link_de_outro_repositorio")
    davi.fechar_dialogo()

    # o link certo, depois, não conserta: a pasta continua presa à origem errada
    certo = link(hub.url, origem.url)
    davi.pagina.goto(certo)
    davi.pagina.wait_for_url(davi.url_do_notebook("00_comece_aqui.ipynb"), timeout=120_000)
    assert git("remote", "get-url", "origin", cwd=davi.copia) == outro_repositorio.as_uri()
    assert not (davi.copia / NOTEBOOK).exists()

    # o remédio: renomear a pasta (pelo navegador de arquivos, ou aqui pelo disco) e seguir o link certo
    davi.copia.rename(davi.copia.with_name(NOME_DO_REPOSITORIO + "-errado"))
    davi.seguir_link(certo)
    assert git("remote", "get-url", "origin", cwd=davi.copia) == origem.url
    assert (davi.copia / NOTEBOOK).exists()


def test_celula_que_pede_memoria_demais_recebe_memoryerror_e_o_kernel_vive(eva):
    """O limite por processo da configuração da turma (c.Spawner.mem_limit) vira MemoryError na célula."""
    escrever_notebook(eva.copia / "notebooks" / "rascunho_memoria.ipynb", [
        "from helpers.licoes import produto_escalar\n\npainel = produto_escalar.painel_produto_escalar()\npainel",
        "import numpy as np\n\n# 4 GiB: mais que o limite de 2 GB por processo da configuração da turma\n"
        "grande = np.empty(4 * 1024**3 // 8)",
        "print('o kernel continua vivo')",
    ])
    eva.abrir("rascunho_memoria.ipynb")
    eva.rodar_tudo()
    erros = "\n".join(eva.erros())
    assert "MemoryError" in erros, f"esperava um MemoryError na célula; saídas de erro:\n{erros}"
    eva.capturar("memoria_esgotada", elemento=eva.notebook())
    # o kernel não morreu: ocioso, e o painel de antes continua reagindo
    assert eva.pagina.query_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']:visible")
    problemas = eva.mover_slider(eva.paineis()[0], "eva · rascunho_memoria")
    assert not problemas, "\n".join(problemas)
    # e o trabalho salvo continua lá
    assert "resolvido por Eva" in (eva.copia / NOTEBOOK).read_text(encoding="utf-8")


def _processo_do_kernel(estudante: Estudante, notebook: str) -> psutil.Process | None:
    """O processo do kernel ligado a ``notebook`` (pela API de sessões do servidor do estudante)."""
    sessoes = estudante.api("api/sessions")
    assert isinstance(sessoes, list), f"a API de sessões respondeu {sessoes}"
    ids = [s["kernel"]["id"] for s in sessoes if s["path"].endswith(notebook)]
    if not ids:
        return None
    for p in psutil.process_iter(["cmdline"]):
        if any(f"kernel-{ids[0]}.json" in a for a in (p.info["cmdline"] or [])):
            return p
    return None


def test_kernel_que_morre_com_o_painel_na_tela(eva):
    eva.abrir("00_comece_aqui.ipynb")
    eva.rodar_tudo()
    painel = eva.paineis()[0]
    salvo = (eva.copia / NOTEBOOK).read_bytes()
    # uma edição ainda não salva (só no navegador) quando o kernel morre
    eva.editar_celula("resolvido por Eva", solucao("Eva, sem salvar"))

    # o kernel morre (como quando o Linux o mata por falta de memória)
    kernel = esperar(lambda: _processo_do_kernel(eva, "00_comece_aqui.ipynb"), 30, "achar o processo do kernel")
    kernel.send_signal(signal.SIGKILL)

    # o JupyterLab avisa e reinicia o kernel sozinho (o aviso ainda sai em inglês: o pacote pt-BR tem a
    # tradução, mas o JupyterLab 4.6 não a usa neste diálogo)
    texto = eva.dialogo()
    assert ("appears to have died" in texto or "morreu" in texto) and "00_comece_aqui.ipynb" in texto, texto
    eva.capturar("kernel_morreu")
    eva.fechar_dialogo()
    eva.pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']:visible", timeout=60_000)

    # o painel continua na tela, mas morto: o slider se move e a figura NÃO muda (sem aviso nenhum)
    antes = retrato_estavel(painel)
    handle = painel.query_selector(".noUi-handle")
    handle.focus()
    eva.pagina.keyboard.press("ArrowLeft")
    time.sleep(3)
    assert retrato(painel) == antes, "o painel reagiu depois da morte do kernel (o comportamento mudou?)"
    # nada do que estava salvo mudou, e a edição não salva continua no navegador
    assert (eva.copia / NOTEBOOK).read_bytes() == salvo
    assert "resolvido por Eva, sem salvar" in eva.celula_com("def produto_escalar").inner_text()
    # Run All de novo traz o painel de volta; salvar grava a edição que estava só no navegador
    eva.rodar_tudo()
    problemas = eva.mover_slider(eva.paineis()[0], "eva · depois de reiniciar")
    assert not problemas, "\n".join(problemas)
    eva.salvar()
    assert "resolvido por Eva, sem salvar" in (eva.copia / NOTEBOOK).read_text(encoding="utf-8")


def _montar_tmpfs(pasta, tamanho: str) -> str | None:
    """Monta um tmpfs pequeno em ``pasta``; devolve o motivo se não der (sem root, num contêiner…)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "precisa de root para montar um tmpfs"
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={tamanho},mode=0755", "tmpfs", str(pasta)],
                       capture_output=True, text=True)
    return None if r.returncode == 0 else f"mount falhou: {r.stderr.strip()}"


@pytest.fixture
def casa_pequena(hub):
    """A pasta pessoal da Carla num disco de 40 MB (um tmpfs), desmontada no fim."""
    casa = hub.casa("carla")
    casa.mkdir(parents=True)
    motivo = _montar_tmpfs(casa, "40m")
    if motivo:
        pytest.skip(f"disco cheio: {motivo}")
    try:
        yield casa
    finally:
        subprocess.run(["umount", "-l", str(casa)], capture_output=True)


def test_disco_cheio_a_celula_avisa_e_o_notebook_salvo_nao_se_perde(hub, origem, estudantes, casa_pequena):
    carla = estudantes("carla")
    carla.entrar()
    carla.seguir_link(link(hub.url, origem.url))
    carla.editar_celula(ESQUELETO, solucao("Carla"))
    carla.salvar()
    salvo = (carla.copia / NOTEBOOK).read_text(encoding="utf-8")
    assert "resolvido por Carla" in salvo

    escrever_notebook(carla.copia / "notebooks" / "rascunho_disco.ipynb", [
        "bloco = b'0' * 2**20\nwith open('enche_o_disco.bin', 'wb') as f:\n    while True:\n        f.write(bloco)",
    ])
    carla.abrir("rascunho_disco.ipynb")
    carla.rodar_tudo()
    erros = "\n".join(carla.erros())
    assert "No space left on device" in erros, f"esperava o erro de disco cheio na célula:\n{erros}"
    carla.capturar("disco_cheio_na_celula", elemento=carla.notebook())

    # com o disco cheio, salvar falha com um aviso na tela, e o notebook salvo antes fica intacto
    carla.abrir("00_comece_aqui.ipynb")
    carla.editar_celula("resolvido por Carla", solucao("Carla, de novo"))
    carla.comando("docmanager:save")
    texto = carla.dialogo()
    assert "Erro ao Salvar" in texto and "No space left on device" in texto, texto
    carla.capturar("disco_cheio_ao_salvar")
    carla.fechar_dialogo()
    assert (carla.copia / NOTEBOOK).read_text(encoding="utf-8") == salvo
    json.loads(salvo)  # continua um notebook válido

    # apagado o arquivo grande, salvar volta a funcionar (a edição estava só no navegador, e não se perdeu)
    (carla.copia / "notebooks" / "enche_o_disco.bin").unlink()
    carla.salvar()
    assert "resolvido por Carla, de novo" in (carla.copia / NOTEBOOK).read_text(encoding="utf-8")


def test_link_sem_login_pede_login(hub, origem):
    """Quem segue o link sem estar logado cai no login do hub (e volta ao link depois)."""
    try:
        with urllib.request.urlopen(link(hub.url, origem.url), timeout=10) as r:
            final = r.geturl()
    except urllib.error.HTTPError as erro:
        final = erro.geturl()
    assert "/hub/login" in final
