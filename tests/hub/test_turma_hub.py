"""Uma turma inteira num JupyterHub: dois estudantes, o link do nbgitpuller e uma atualização do repositório.

O caminho de uma aula, de ponta a ponta, no Chromium:

1. Ana e Bruno entram no hub (usuário e senha), cada um segue o link do nbgitpuller gerado por
   ``turma/link.py`` e recebe **a sua própria cópia** do repositório, aberta no notebook 00, com a
   interface em português (vinda da configuração da turma, não do navegador);
2. cada um roda o notebook (*Run All*), move um slider com o teclado e vê a figura mudar;
3. Ana resolve o exercício (edita uma célula) e salva; o repositório recebe um commit novo; Ana segue o
   link de novo e recebe o commit **sem perder a edição**; a cópia do Bruno não muda.

Cada passo é conferido na tela e no disco; as capturas vão para ``capturas/hub__*.png``.
"""

from __future__ import annotations

import json

import pytest
from _estudante import Estudante
from _hub import git

from turma.link import link

pytestmark = [pytest.mark.slow, pytest.mark.hub]

NOTEBOOK = "notebooks/00_comece_aqui.ipynb"
#: o esqueleto do exercício 1 do notebook 00 (a célula que a Ana resolve)
ESQUELETO = 'raise NotImplementedError("complete aqui")'
SOLUCAO_DA_ANA = (
    "def produto_escalar(q, k):\n"
    "    # resolvido pela Ana, na aula\n"
    "    return float(sum(a * b for a, b in zip(q, k)))"
)
MARCA_DA_ANA = "resolvido pela Ana, na aula"
#: o que a instrutora acrescenta ao notebook 00 no commit novo (no texto de abertura)
AVISO = "Aviso da turma: hoje vamos até o notebook 05. "
#: a linha do esqueleto que a instrutora reescreve no mesmo commit (a Ana já tinha trocado a célula toda)
COMENTARIO_DO_ESQUELETO = "# q e k: vetores 1-D de mesmo tamanho; devolva um único número"
DICA_NOVA = "# q e k: vetores 1-D de mesmo tamanho; some q[i] * k[i] e devolva um número"


def fontes(caminho) -> list[str]:
    """O código/texto de cada célula de um notebook no disco."""
    return ["".join(c["source"]) for c in json.loads(caminho.read_text(encoding="utf-8"))["cells"]]


@pytest.fixture(scope="module")
def turma(hub, origem, navegador_do_hub, capturas):
    """Ana e Bruno, cada um com o seu navegador (contexto próprio: cookies próprios)."""
    estudantes = {nome: Estudante(nome, hub, navegador_do_hub, capturas) for nome in ("ana", "bruno")}
    try:
        yield estudantes
    finally:
        for e in estudantes.values():
            e.fechar()


def _painel_reage(estudante: Estudante) -> None:
    paineis = estudante.paineis()
    assert paineis, f"{estudante.nome}: nenhum painel (slider) desenhado depois de Run All"
    painel = paineis[0]
    painel.evaluate("(e) => e.closest('.jp-Cell').scrollIntoView({block: 'start'})")
    problemas = estudante.mover_slider(painel, f"{estudante.nome} · notebook 00")
    assert not problemas, "\n".join(problemas)
    estudante.capturar("00_painel_depois_do_slider")


def test_cada_estudante_recebe_a_sua_copia_e_o_painel_reage(hub, origem, turma):
    endereco = link(hub.url, origem.url)
    for nome, estudante in turma.items():
        estudante.entrar()
        estudante.seguir_link(endereco)
        pagina = estudante.pagina
        # a cópia é dele, na pasta pessoal dele, no commit do repositório
        assert pagina.url == estudante.url_do_notebook("00_comece_aqui.ipynb")
        assert (estudante.copia / ".git").is_dir(), f"{nome}: o nbgitpuller não clonou em {estudante.copia}"
        assert git("rev-parse", "HEAD", cwd=estudante.copia) == origem.commits[-1]
        assert fontes(estudante.copia / NOTEBOOK) == fontes(origem.pasta / NOTEBOOK)
        # a interface em português veio da configuração da turma (o navegador está em inglês)
        assert pagina.evaluate("() => document.documentElement.lang") == "pt-BR"
        assert pagina.inner_text(".jp-DirListing-headerItem.jp-id-name").strip() == "Nome"
        # os padrões da turma (turma/jupyter/labconfig) chegam ao JupyterLab do estudante
        idioma = estudante.api("lab/api/settings/@jupyterlab/translation-extension:plugin")
        assert idioma["schema"]["properties"]["locale"]["default"] == "pt_BR"
        avisos = estudante.api("lab/api/settings/@jupyterlab/apputils-extension:notification")["schema"]["properties"]
        assert avisos["fetchNews"]["default"] == "false" and avisos["checkForUpdates"]["default"] is False
        estudante.capturar("00_aberto_pelo_link")

        estudante.rodar_tudo()
        erros = estudante.erros()
        assert not erros, f"{nome}: erro/stderr depois de Run All:\n" + "\n---\n".join(erros)
        _painel_reage(estudante)

    copias = [e.copia.resolve() for e in turma.values()]
    assert len(set(copias)) == len(copias), f"as cópias deviam ser pastas diferentes: {copias}"
    assert all(hub.casas.resolve() in c.parents for c in copias)


def test_edicao_salva_sobrevive_ao_commit_novo_e_a_copia_do_outro_nao_muda(hub, origem, turma):
    ana, bruno = turma["ana"], turma["bruno"]
    commit_inicial = origem.commits[-1]
    if not (bruno.copia / NOTEBOOK).exists():
        pytest.fail("a cópia do Bruno não existe: este teste continua o anterior, que a cria pelo link")
    bruno_antes = fontes(bruno.copia / NOTEBOOK)

    # Ana resolve o exercício 1 e salva
    ana.abrir("00_comece_aqui.ipynb")
    ana.editar_celula(ESQUELETO, SOLUCAO_DA_ANA)
    ana.salvar()
    salvo = fontes(ana.copia / NOTEBOOK)
    assert any(MARCA_DA_ANA in f for f in salvo), "a edição da Ana não foi gravada no disco"
    ana.capturar("01_exercicio_salvo")

    # a instrutora publica um commit novo no notebook 00: um aviso no texto de abertura (longe da edição
    # da Ana) e uma dica nova no esqueleto do exercício (nas mesmas linhas que a Ana trocou)
    arquivo = origem.pasta / NOTEBOOK
    texto = arquivo.read_text(encoding="utf-8")
    assert texto.count("Bem-vindo!") == 1 and texto.count(COMENTARIO_DO_ESQUELETO) == 1
    texto = texto.replace("Bem-vindo!", AVISO + "Bem-vindo!")
    arquivo.write_text(texto.replace(COMENTARIO_DO_ESQUELETO, DICA_NOVA), encoding="utf-8")
    novo = origem.commit("Aviso da turma e dica nova no exercício 1 do notebook 00")

    # Ana segue o mesmo link de novo
    ana.seguir_link(link(hub.url, origem.url))
    git("merge-base", "--is-ancestor", novo, "HEAD", cwd=ana.copia)  # falha se o commit novo não chegou
    depois = fontes(ana.copia / NOTEBOOK)
    assert any(AVISO in f for f in depois), "o aviso do commit novo não chegou à cópia da Ana"
    assert any(MARCA_DA_ANA in f for f in depois), "a edição da Ana se perdeu ao sincronizar"
    assert not any(ESQUELETO in f for f in depois)
    # onde as duas mudanças caem nas mesmas linhas, a versão da estudante ganha, sem aviso: a dica nova
    # da instrutora não chega a quem já tinha mexido na célula (o nbgitpuller faz merge com -Xours)
    assert not any(DICA_NOVA in f for f in depois)
    json.loads((ana.copia / NOTEBOOK).read_text(encoding="utf-8"))  # o merge deixou um notebook válido
    # e na tela: o aviso no topo e a solução dela no exercício
    assert AVISO.strip() in ana.primeira_celula("Bem-vindo!")
    ana.capturar("02_depois_do_commit_novo")
    exercicio = ana.celula_com("def produto_escalar")
    assert MARCA_DA_ANA in exercicio.inner_text()
    exercicio.scroll_into_view_if_needed()
    ana.capturar("02_exercicio_dela_depois_do_commit_novo")

    # a cópia do Bruno não mudou: mesmo commit, mesmas células
    assert git("rev-parse", "HEAD", cwd=bruno.copia) == commit_inicial
    assert fontes(bruno.copia / NOTEBOOK) == bruno_antes
    bruno.abrir("00_comece_aqui.ipynb")
    assert AVISO.strip() not in bruno.primeira_celula("Bem-vindo!")
    assert any(COMENTARIO_DO_ESQUELETO in f for f in fontes(bruno.copia / NOTEBOOK))
    assert ESQUELETO in bruno.celula_com("def produto_escalar").inner_text()
    bruno.capturar("03_copia_intacta")
