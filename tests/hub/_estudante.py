"""Um estudante no navegador: entra no hub, segue o link do nbgitpuller, roda, mexe, edita e salva.

Tudo pela interface, como uma pessoa faria: formulário de login, link, menus (achados pelo comando,
não pelo título, que pode estar traduzido), teclado nos sliders e no editor.
"""

from __future__ import annotations

import time
from pathlib import Path

from _hub import NOME_DO_REPOSITORIO, SENHA, Hub, esperar
from _pagina import CONTROLES, STDERR, esperar_imagens, exercitar_controles, nome_captura, textos_de_erro
from playwright.sync_api import Error as PlaywrightError

#: Run All terminou: kernel ocioso, nenhum "[*]" e todas as células numeradas (ou um erro parou a execução)
JS_TERMINOU = """
() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!nb) return false;
  const indicador = nb.querySelector('.jp-Notebook-ExecutionIndicator');
  if (!indicador || indicador.getAttribute('data-status') !== 'idle') return false;
  const prompts = Array.from(nb.querySelectorAll('.jp-CodeCell .jp-InputPrompt')).map((p) => p.textContent.trim());
  if (prompts.some((p) => p.includes('*'))) return false;
  const erro = nb.querySelector('__STDERR__');
  return erro !== null || prompts.every((p) => /^\\[\\d+\\]:$/.test(p));
}
""".replace("__STDERR__", STDERR)


#: o notebook visível já mostra o arquivo (todo notebook da coleção tem mais de uma célula)
JS_CARREGOU = "() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell').length > 1"


class Estudante:
    def __init__(self, nome: str, hub: Hub, navegador, capturas: Path):
        self.nome = nome
        self.hub = hub
        self.capturas = capturas
        hub.preparar_casa(nome)
        # o navegador em inglês: se a interface aparecer em português, foi a configuração da turma
        self.contexto = navegador.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1,
                                              locale="en-US")
        self.pagina = self.contexto.new_page()
        self.pagina.set_default_timeout(60_000)
        self.pagina.on("dialog", lambda d: d.accept())  # "sair da página?" ao seguir o link de novo

    # --- caminhos -------------------------------------------------------------------------------

    @property
    def copia(self) -> Path:
        return self.hub.copia(self.nome)

    def url_do_notebook(self, notebook: str) -> str:
        return f"{self.hub.url}/user/{self.nome}/lab/tree/{NOME_DO_REPOSITORIO}/notebooks/{notebook}"

    # --- o que o estudante faz ------------------------------------------------------------------

    def entrar(self) -> None:
        """Login com usuário e senha; espera o JupyterLab do estudante subir."""
        resposta = self.pagina.goto(f"{self.hub.url}/hub/login")
        if resposta is None or resposta.status != 200:
            self._falhou_ao_entrar(f"a página de login respondeu {resposta.status if resposta else 'nada'}")
        try:
            self.pagina.fill("#username_input", self.nome, timeout=30_000)
            self.pagina.fill("#password_input", SENHA)
            self.pagina.click("#login_submit")
            self.pagina.wait_for_url(f"**/user/{self.nome}/lab**", timeout=180_000)
        except PlaywrightError as erro:
            self._falhou_ao_entrar(f"o login não chegou ao JupyterLab ({erro.message.splitlines()[0]})")

    def _falhou_ao_entrar(self, o_que: str) -> None:
        """Falha dizendo o que se via: a página (endereço, começo do texto, captura) e o fim do log do hub."""
        try:
            texto = self.pagina.inner_text("body")[:500]
        except PlaywrightError:
            texto = "(sem texto)"
        captura = self.capturar("FALHA_login")
        raise AssertionError(f"{self.nome}: {o_que}; na tela ({self.pagina.url}): {texto!r}; captura em {captura}\n"
                             f"fim do log do hub:\n{self.hub.ultimas_linhas_do_log()}")

    def seguir_link(self, link: str, notebook: str = "00_comece_aqui.ipynb") -> None:
        """Segue o link do nbgitpuller e espera o notebook abrir, com o kernel pronto."""
        self.pagina.goto(link)
        self.pagina.wait_for_url(self.url_do_notebook(notebook), timeout=180_000)
        self.esperar_notebook()

    def abrir(self, notebook: str) -> None:
        self.pagina.goto(self.url_do_notebook(notebook))
        self.esperar_notebook()

    def esperar_notebook(self) -> None:
        self.pagina.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=120_000)
        # antes de o arquivo carregar, o notebook pode aparecer com uma única célula de código vazia
        self.pagina.wait_for_function(JS_CARREGOU, timeout=120_000, polling=200)
        # com dois notebooks abertos há dois indicadores, e o da aba escondida fica invisível
        self.pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']:visible", timeout=120_000)

    def comando(self, comando: str) -> None:
        """Clica no item de menu de ``comando`` (procura em cada menu do menu principal)."""
        for titulo in self.pagina.query_selector_all("#jp-MainMenu .lm-MenuBar-item"):
            self._abrir_menu(titulo)
            item = self.pagina.query_selector(f".lm-Menu .lm-Menu-item[data-command='{comando}']")
            if item is not None:
                item.click()
                return
            self.pagina.keyboard.press("Escape")
        raise AssertionError(f"nenhum menu do JupyterLab tem o comando {comando}")

    def _abrir_menu(self, titulo) -> None:
        """Clica num título do menu principal até o menu dele aparecer: numa máquina ocupada, ele chega muitos
        quadros depois do clique, e um clique que chega com outro menu ainda aberto o fecha em vez de abrir."""
        for _tentativa in range(4):
            titulo.click()
            try:
                self.pagina.wait_for_selector(".lm-Menu .lm-Menu-item", state="visible", timeout=20_000)
                return
            except PlaywrightError:
                self.pagina.keyboard.press("Escape")
        raise AssertionError("o menu do JupyterLab não abriu em 4 cliques")

    def rodar_tudo(self, limite_s: float = 180) -> None:
        """*Run › Run All Cells* e espera terminar (clica de novo se a execução não começar)."""
        antes = self._prompts()
        # numa máquina ocupada, o servidor pode levar bem mais que alguns segundos para começar a executar
        for _tentativa in range(3):
            self.comando("runmenu:run-all")
            try:
                esperar(lambda: self._prompts() != antes, 45, "o Run All começar", intervalo=0.1)
                break
            except AssertionError:
                continue
        try:
            self.pagina.wait_for_function(JS_TERMINOU, timeout=limite_s * 1000, polling=250)
        except PlaywrightError as erro:
            captura = self.capturar("FALHA_run_all")
            estado = self.pagina.evaluate(
                "() => Array.from(document.querySelectorAll('.jp-Notebook-ExecutionIndicator'))"
                ".map((i) => i.getAttribute('data-status'))"
            )
            raise AssertionError(f"{self.nome}: o Run All não terminou em {limite_s:.0f} s (prompts {self._prompts()}, "
                                 f"kernel {estado}, aba {self.pagina.url}); captura em {captura}") from erro

    def _prompts(self) -> list[str]:
        return self.pagina.evaluate(
            "() => Array.from(document.querySelectorAll("
            "'.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')).map((p) => p.textContent.trim())"
        )

    def notebook(self):
        return self.pagina.query_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")

    def celulas(self):
        return self.notebook().query_selector_all(".jp-Cell")

    def primeira_celula(self, contendo: str, limite_s: float = 30) -> str:
        """O texto da primeira célula, depois que ela mostra ``contendo``.

        Logo depois de abrir, o JupyterLab pode mostrar por um instante um notebook com uma única célula
        de código vazia, antes de carregar o arquivo: espera o conteúdo de verdade chegar.
        """
        def texto():
            try:
                celulas = self.celulas()
                return celulas[0].inner_text() if celulas else ""
            except PlaywrightError:  # a célula saiu do DOM enquanto o notebook era redesenhado
                return ""

        esperar(lambda: contendo in texto(), limite_s, f"a primeira célula mostrar {contendo!r}", intervalo=0.3)
        return texto()

    def celula_com(self, texto: str, limite_s: float = 30):
        """A célula cujo texto (código ou markdown) contém ``texto``.

        O JupyterLab só desenha o editor de uma célula quando ela aparece na tela, e pode redesenhar o
        notebook logo depois de abri-lo: procura de novo (rolando por todas as células) até achar.
        """
        def procurar():
            for rolar in (False, True):
                try:
                    for celula in self.celulas():
                        if rolar:
                            celula.scroll_into_view_if_needed()
                        if texto in (celula.inner_text() or ""):
                            return celula
                except PlaywrightError:  # a célula saiu do DOM enquanto o notebook era redesenhado
                    time.sleep(0.3)
            return None

        return esperar(procurar, limite_s, f"uma célula com {texto!r}", intervalo=0.5)

    def erros(self) -> list[str]:
        return textos_de_erro(self.notebook())

    def paineis(self):
        """As áreas de saída que têm controles (os painéis), na ordem do notebook."""
        return [saida for saida in self.notebook().query_selector_all(".jp-Cell-outputArea")
                if saida.query_selector(CONTROLES)]

    def mover_slider(self, painel, nome: str) -> list[str]:
        """Move o primeiro controle de ``painel`` com o teclado; devolve os problemas (vazia se a figura mudou)."""
        esperar_imagens(painel)
        return exercitar_controles(self.pagina, painel, nome, so_o_primeiro=True)

    def editar_celula(self, contendo: str, novo_codigo: str) -> None:
        """Troca todo o código da célula que contém ``contendo`` por ``novo_codigo`` (pelo editor)."""
        celula = self.celula_com(contendo)
        celula.scroll_into_view_if_needed()
        editor = celula.query_selector(".cm-content")
        editor.click()
        self.pagina.keyboard.press("Control+a")
        self.pagina.keyboard.insert_text(novo_codigo)
        self.pagina.keyboard.press("Escape")
        esperar(lambda: novo_codigo.splitlines()[-1].strip() in celula.inner_text(), 10,
                "o código novo aparecer na célula")

    def dialogo(self, limite_s: float = 60) -> str:
        """Espera um diálogo do JupyterLab e devolve o texto dele."""
        return self.pagina.wait_for_selector(".jp-Dialog", timeout=limite_s * 1000).inner_text()

    def fechar_dialogo(self) -> None:
        """Clica no botão principal do diálogo (o último: OK, Fechar…) e espera ele sumir."""
        self.pagina.query_selector_all(".jp-Dialog .jp-Dialog-footer button")[-1].click()
        self.pagina.wait_for_selector(".jp-Dialog", state="detached", timeout=30_000)

    def salvar(self) -> None:
        """*File › Save* e espera a aba deixar de marcar alterações não salvas."""
        self.comando("docmanager:save")
        self.pagina.wait_for_selector(".lm-TabBar-tab.jp-mod-current:not(.jp-mod-dirty)", timeout=30_000)

    def api(self, caminho: str):
        """GET na API do servidor do estudante (``/user/<nome>/<caminho>``), com o cookie e o XSRF dele."""
        return self.pagina.evaluate(
            """async (url) => {
                 // o servidor do estudante exige o cabeçalho XSRF também nos GET da API
                 const m = document.cookie.match(/(?:^|; )_xsrf=([^;]*)/);
                 const cabecalhos = m ? {'X-XSRFToken': decodeURIComponent(m[1])} : {};
                 return (await fetch(url, {headers: cabecalhos})).json();
               }""",
            f"/user/{self.nome}/{caminho.lstrip('/')}",
        )

    def capturar(self, *partes: str, elemento=None) -> Path:
        caminho = nome_captura(self.capturas, "hub", self.nome, *partes)
        (elemento or self.pagina).screenshot(path=str(caminho))
        return caminho

    def fechar(self) -> None:
        self.contexto.close()
