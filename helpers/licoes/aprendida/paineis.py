"""Notebook ``atencao_aprendida``: os painéis — a vista das cabeças (no estilo do BertViz, com frase
escolhida ou digitada, e a conta q · k da cabeça escolhida numa tabela, de :mod:`.qk`) e o treino ao vivo
(botão "treinar", barra de progresso e a curva da perda crescendo enquanto o modelo aprende).
"""

from __future__ import annotations

import difflib
import html
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from ... import plots
from ...formato import decimal
from ...paineis import Painel, tabela
from ...plots import CORES
from .analise import AnaliseCabecas, acuracia, analisar_cabecas, porcento
from .figuras import (
    CORES_CABECAS,
    Miniaturas,
    VistaCabeca,
    altura_da_vista,
    desenhar_sujeito_atrator,
    layout_vista,
    papeis_da_frase,
    titulo_da_vista,
)
from .frases import ALVOS, ARTIGOS, LACUNA, N_MAX, VOCABULARIO, Frase, gerar_frases
from .qk import ContaQK, conta_qk, tabela_qk
from .rede import RECEITA_AO_VIVO, ModeloConcordancia, Receita, Treino, treinar

__all__ = ["EXEMPLOS", "DIGITADA", "PainelTreino", "PainelVistaCabecas", "ler_frase", "painel_treino",
           "painel_vista_cabecas"]

#: as frases do seletor da vista das cabeças (todas seguem o molde das frases de treino)
EXEMPLOS: tuple[str, ...] = (
    "o bolo para as meninas ___",
    "segundo as vizinhas , o livro com a carta já ___",
    "hoje a festa sem os alunos já ___",
    "eu acho que as caixas de ontem sem os meninos da escola ___",
    "por sorte , o presente lá de casa com as cartas ___",
)

#: o valor da opção "a frase digitada" no seletor de frases
DIGITADA = "digitada"

#: as frases novas que os painéis usam para medir (a semente das frases de treino é outra)
SEMENTE_MEDIDA = 2024


# ---------------------------------------------------------------------------------------------
# Uma frase digitada
# ---------------------------------------------------------------------------------------------


def ler_frase(texto: str) -> list[str]:
    """As palavras de uma frase digitada, prontas para o modelo, ou ``ValueError`` com uma mensagem em
    português que diz o que mudar (palavra desconhecida — com as parecidas que o modelo conhece —, falta
    da lacuna, frase longa demais).

    Letras maiúsculas viram minúsculas e a vírgula grudada numa palavra ("sorte,") vira uma palavra à parte.
    """
    tokens = texto.replace(",", " , ").lower().split()
    if not tokens:
        raise ValueError(f"Digite uma frase, terminando com a lacuna {LACUNA} — por exemplo: o bolo para as meninas "
                         f"{LACUNA}")
    for i, palavra in enumerate(tokens):
        if palavra not in VOCABULARIO:
            if set(palavra) == {"_"}:
                raise ValueError(f"A lacuna é escrita com três sublinhados, {LACUNA}; veio «{palavra}».")
            parecidas = difflib.get_close_matches(palavra, [p for p in VOCABULARIO if p != LACUNA], n=3, cutoff=0.6)
            sugestao = f" Parecidas que ele conhece: {', '.join(f'«{p}»' for p in parecidas)}." if parecidas else ""
            raise ValueError(
                f"A palavra «{palavra}» (posição {i}) não está no vocabulário do modelo: ele só conhece as "
                f"{len(VOCABULARIO)} palavras das frases de treino.{sugestao} Para ver todas: "
                "print(licao.VOCABULARIO)."
            )
    if tokens[-1] != LACUNA:
        raise ValueError(f"A frase precisa terminar com a lacuna {LACUNA} (três sublinhados): é nela que o modelo "
                         "escolhe a forma do predicado, «está pronto», «estão prontas»…")
    if LACUNA in tokens[:-1]:
        raise ValueError(f"A lacuna {LACUNA} aparece mais de uma vez: o modelo só preenche uma, a do fim.")
    if len(tokens) > N_MAX:
        raise ValueError(f"A frase tem {len(tokens)} palavras; o modelo aprendeu posições até {N_MAX} (a lacuna "
                         "incluída). Tire alguma coisa.")
    return tokens


# ---------------------------------------------------------------------------------------------
# A vista das cabeças
# ---------------------------------------------------------------------------------------------


def _opcoes_de_palavra(tokens: Sequence[str]) -> list[tuple[str, int]]:
    return [("todas", -1)] + [(f"{i} · {t}", i) for i, t in enumerate(tokens)]


class PainelVistaCabecas(Painel):
    """O :class:`Painel` da vista das cabeças (veja :func:`painel_vista_cabecas`).

    Quando a frase muda, as opções do seletor de palavra acompanham (a lacuna continua escolhida se
    estava) antes de uma atualização só; a caixa de texto vale ao apertar Enter: uma frase válida passa a
    ser a "frase digitada" do seletor, uma inválida vira uma mensagem embaixo da figura.
    """

    _ajustando = False

    def __init__(self, modelo: ModeloConcordancia, controles: dict[str, W.ValueWidget]):
        self.modelo = modelo
        self.tokens_digitados: list[str] = ler_frase(controles["texto"].value)
        self.erro_texto: str | None = None
        self._contas: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        fig = Figure(figsize=(10.0, altura_da_vista(N_MAX)))
        ax_vista, eixos = layout_vista(fig, modelo.n_camadas, modelo.n_cabecas)
        self.vista, self.miniaturas = VistaCabeca(ax_vista, N_MAX), Miniaturas(eixos)
        super().__init__(fig, controles, self._calcular_estado, "A vista das cabeças: para onde cada palavra olha",
                         animados=[*self.vista.animados(), *self.miniaturas.animados()],
                         lentos=[*self.vista.lentos(), *self.miniaturas.lentos()])

    # -- a frase, as contas e o desenho -----------------------------------------------------------

    def tokens(self) -> list[str]:
        """As palavras da frase mostrada agora."""
        frase = self.controles["frase"].value
        return list(self.tokens_digitados) if frase == DIGITADA else frase.split()

    def _contas_da_frase(self, tokens: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Os pesos, as probabilidades e a entrada de cada camada (para a conta q · k) de uma frase, guardados."""
        chave = tuple(tokens)
        if chave not in self._contas:
            self._contas[chave] = (self.modelo.atencao(tokens), self.modelo.probabilidades(tokens),
                                   self.modelo.entradas(tokens))
        return self._contas[chave]

    def _calcular_estado(self, v: dict[str, Any]) -> dict[str, Any]:
        tokens = self.tokens()
        c, h, i = int(v["camada"]), int(v["cabeca"]), int(v["palavra"])
        escolhida = None if i < 0 else min(i, len(tokens) - 1)
        pesos, probs, entradas = self._contas_da_frase(tokens)
        papeis = papeis_da_frase(tokens)
        self.vista.atualizar(pesos[c, h], tokens, papeis, CORES_CABECAS.get((c, h), CORES["q"]), escolhida,
                             titulo_da_vista(c, h, tokens, escolhida))
        self.miniaturas.atualizar(pesos, (c, h), escolhida)
        previsao = ALVOS[int(np.argmax(probs))]
        lacuna = len(tokens) - 1
        peso_sujeito = float(pesos[c, h, lacuna, papeis["sujeito"]].sum())
        peso_atrator = float(pesos[c, h, lacuna, papeis["atrator"]].sum())
        linhas = [("frase", html.escape(" ".join(tokens))),
                  ("o modelo escolhe", f"{previsao} (probabilidade {decimal(probs.max(), 3)})")]
        if papeis["sujeito"]:
            s = papeis["sujeito"]
            certo = ALVOS[ARTIGOS.index(tokens[s[0]])]
            linhas.append(("o sujeito (artigo + substantivo sem preposição antes)",
                           f"«{html.escape(' '.join(tokens[j] for j in s))}» → {certo} "
                           f"{'✅ o modelo concorda' if certo == previsao else '❌ o modelo erra'}"))
            # a cabeça vai pelo nome dos sliders, não como «c·h»: o texto do painel não nomeia a cabeça da
            # concordância antes da previsão da camada (os sliders, movidos, passam por ela)
            linhas.append(("peso da lacuna na cabeça escolhida",
                           f"no sujeito {decimal(peso_sujeito)}" + (f" · no atrator {decimal(peso_atrator)}"
                                                               if papeis["atrator"] else "")))
        else:
            linhas.append(("o sujeito", "não deduzi: a frase não tem exatamente um artigo + substantivo sem "
                                        "preposição antes"))
        if escolhida is not None:
            maior = int(np.argmax(pesos[c, h, escolhida]))
            linhas.append((f"«{html.escape(tokens[escolhida])}» olha mais para",
                           f"«{html.escape(tokens[maior])}» (posição {maior}, peso "
                           f"{decimal(pesos[c, h, escolhida, maior])})"))
        aviso = (f"<p style='color:#D55E00;font-size:1.15em'><b>⚠️ {html.escape(self.erro_texto)}</b> (A figura "
                 "continua na última frase válida.)</p>") if self.erro_texto else ""
        # a conta da cabeça escolhida, aberta: a query da palavra escolhida (todas: a da lacuna) contra cada key
        qk: ContaQK = conta_qk(self.modelo, tokens, c, h, lacuna if escolhida is None else escolhida, entradas)
        textos = (f"<div style='display:flex;flex-wrap:wrap;gap:0.5em 2.5em;align-items:flex-start'>"
                  f"<div>{tabela(linhas)}</div>{tabela_qk(qk)}</div>")
        return {"tokens": tokens, "pesos": pesos, "camada": c, "cabeca": h, "palavra": i,
                "linha": None if escolhida is None else pesos[c, h, escolhida], "papeis": papeis,
                "previsao": previsao, "probabilidades": probs, "peso_sujeito": peso_sujeito,
                "peso_atrator": peso_atrator, "erro": self.erro_texto, "qk": qk, "html": aviso + textos}

    # -- os controles -----------------------------------------------------------------------------

    #: a palavra escolhida enquanto o seletor de palavra ainda mostra as opções da frase anterior
    _palavra_pendente: int | None = None

    def valores(self) -> dict[str, Any]:
        v = super().valores()
        if self._palavra_pendente is not None:
            v["palavra"] = self._palavra_pendente
        return v

    def _palavra_depois(self, tokens_antes: list[str]) -> int:
        """A palavra escolhida na frase nova: a lacuna continua a lacuna; «todas» continua «todas»."""
        antes = self.controles["palavra"].value
        n = len(self.tokens())
        era_lacuna = antes == len(tokens_antes) - 1
        return -1 if antes == -1 else (n - 1 if era_lacuna or antes >= n else antes)

    def _mostrar_palavras(self, palavra: int) -> None:
        """As opções do seletor de palavra para a frase atual, com ``palavra`` escolhida (uma mensagem só)."""
        c = self.controles["palavra"]
        with c.hold_sync():
            c.options = _opcoes_de_palavra(self.tokens())
            c.value = palavra

    def _ajustar_palavras(self, tokens_antes: list[str]) -> None:
        self._mostrar_palavras(self._palavra_depois(tokens_antes))

    def _ao_mudar(self, mudanca: Any) -> None:
        if self._ajustando:
            return
        dono = getattr(mudanca, "owner", None)
        pendente = None
        self._ajustando = True
        try:
            if dono is self.controles["texto"]:
                antes = self.tokens()
                try:
                    self.tokens_digitados = ler_frase(mudanca.new)
                except ValueError as exc:
                    self.erro_texto = str(exc)
                else:
                    self.erro_texto = None
                    self.controles["frase"].value = DIGITADA
                    pendente = self._palavra_depois(antes)
            elif dono is self.controles["frase"]:
                self.erro_texto = None
                frase_antes = mudanca.old
                antes = list(self.tokens_digitados) if frase_antes == DIGITADA else str(frase_antes).split()
                pendente = self._palavra_depois(antes)
        finally:
            self._ajustando = False
        # numa frase nova, a figura vai primeiro; o seletor de palavra (que o navegador refaz, com as palavras
        # novas nas opções) vai depois dela
        self._palavra_pendente = pendente
        try:
            self.atualizar()
        finally:
            self._palavra_pendente = None
        if pendente is not None:
            self._ajustando = True
            try:
                self._mostrar_palavras(pendente)
            finally:
                self._ajustando = False

    def digitar(self, texto: str) -> dict[str, Any]:
        """O mesmo que escrever ``texto`` na caixa e apertar Enter; devolve o estado."""
        self.controles["texto"].value = texto
        return self.estado

    def definir(self, **valores: Any) -> dict[str, Any]:
        """Como :meth:`Painel.definir`, com ``texto`` e ``frase`` aplicados antes de ``palavra``; ``texto``
        inválido levanta ``ValueError`` (no painel, vira mensagem)."""
        desconhecidos = [n for n in valores if n not in self.controles]
        if desconhecidos:
            raise ValueError(f"o painel não tem o controle {desconhecidos[0]!r}; os controles são {list(self.controles)}.")
        self._ajustando = True
        try:
            antes = self.tokens()
            if "texto" in valores:
                self.tokens_digitados = ler_frase(valores["texto"])
                self.controles["texto"].value = valores.pop("texto")
                self.erro_texto = None
                valores.setdefault("frase", DIGITADA)
            if "frase" in valores:
                self.controles["frase"].value = valores.pop("frase")
            self._ajustar_palavras(antes)
            for nome, valor in valores.items():
                self.controles[nome].value = valor
        finally:
            self._ajustando = False
        return self.atualizar()


def painel_vista_cabecas(modelo: ModeloConcordancia | None = None, frase: str = EXEMPLOS[2], camada: int = 1,
                         cabeca: int = 1, palavra: int | None = None,
                         texto: str = "as cartas sem o menino daqui ___") -> PainelVistaCabecas:
    """A vista das cabeças do modelo treinado (padrão: o de ``data/``), no estilo do BertViz.

    Controles (sliders de opções, que o teclado move com as setas): ``frase`` (uma de :data:`EXEMPLOS` ou
    :data:`DIGITADA`, a da caixa de texto), ``texto`` (a
    caixa onde se digita uma frase; vale ao apertar Enter), ``camada`` e ``cabeca`` (a cabeça da vista
    grande) e ``palavra`` (só as linhas de uma palavra; ``-1`` = todas; padrão: a lacuna). À esquerda, a
    cabeça escolhida; à direita, as miniaturas de todas as cabeças. Uma palavra fora do vocabulário (ou
    uma frase sem a lacuna no fim) vira uma mensagem em português embaixo da figura, que continua na
    última frase válida.

    Estado: ``tokens``, ``pesos`` ``(n_camadas, n_cabecas, n, n)`` (cada linha soma 1), ``camada``,
    ``cabeca``, ``palavra``, ``linha`` (os pesos da palavra escolhida, ou ``None``), ``papeis``,
    ``previsao``, ``probabilidades`` ``(4,)``, ``peso_sujeito`` e ``peso_atrator`` (da lacuna, na cabeça
    escolhida), ``qk`` (a :class:`~.qk.ContaQK` da cabeça escolhida: a query da palavra escolhida — com
    ``palavra = -1``, a da lacuna —, a key de cada palavra, os escores ``q · kⱼ / √d_head`` e os pesos, que o
    painel mostra numa tabela ao lado dos outros números) e ``erro`` (a mensagem da última frase digitada
    inválida, ou ``None``).
    """
    if modelo is None:
        from .arquivo import carregar_modelo

        modelo = carregar_modelo()
    # contados a partir de 0, como licao.EXEMPLOS[i] no código (e os tokens, as camadas e as cabeças)
    opcoes_frase = [(f"exemplo {i}", f) for i, f in enumerate(EXEMPLOS)] + [("a digitada", DIGITADA)]
    if frase not in [valor for _, valor in opcoes_frase]:
        raise ValueError(f"frase precisa ser uma de EXEMPLOS ou {DIGITADA!r}; recebi {frase!r}.")
    tokens = ler_frase(texto) if frase == DIGITADA else frase.split()
    palavra = len(tokens) - 1 if palavra is None else palavra
    # sliders de opções, e não menus: no JupyterLab as setas num menu movem a célula selecionada (um atalho
    # do modo de comando), e num slider elas mudam o valor — o painel inteiro funciona pelo teclado
    estilo = {"continuous_update": True, "style": {"description_width": "initial"}, "layout": W.Layout(width="400px")}
    nomes_camada = {0: "0 (a primeira)", modelo.n_camadas - 1: f"{modelo.n_camadas - 1} (a última)"}
    controles: dict[str, W.ValueWidget] = {
        "frase": W.SelectionSlider(options=opcoes_frase, value=frase, description="frase", **estilo),
        "texto": W.Text(value=texto, description="digite uma frase (Enter)", continuous_update=False,
                        placeholder=f"palavras do vocabulário, terminando em {LACUNA}",
                        style={"description_width": "initial"}, layout=W.Layout(width="400px")),
        "camada": W.SelectionSlider(options=[(nomes_camada.get(c, str(c)), c) for c in range(modelo.n_camadas)],
                                    value=camada, description="camada", **estilo),
        "cabeca": W.SelectionSlider(options=[(str(h), h) for h in range(modelo.n_cabecas)], value=cabeca,
                                    description="cabeça", **estilo),
        "palavra": W.SelectionSlider(options=_opcoes_de_palavra(tokens), value=palavra,
                                     description="mostrar as linhas de", **estilo),
    }
    return PainelVistaCabecas(modelo, controles)


# ---------------------------------------------------------------------------------------------
# O treino ao vivo
# ---------------------------------------------------------------------------------------------


class PainelTreino(Painel):
    """O painel do treino (veja :func:`painel_treino`). O botão chama :meth:`treinar`."""

    #: segundos entre dois redesenhos da curva durante o treino (cada redesenho custa um PNG)
    INTERVALO_S = 0.25  # (0: a cada passo, como nos testes)

    def __init__(self, controles: dict[str, W.ValueWidget], receita: Receita, frases_medida: Sequence[Frase],
                 curva_inicial: tuple[str, Sequence[float]] | None = None):
        self.receita = receita
        self.frases_medida = list(frases_medida)
        self._frases_treino: list[Frase] | None = None
        #: os treinos já feitos: (nome, Treino, acurácia nas frases de medida, análise das cabeças)
        self.treinos: list[tuple[str, Treino, float, AnaliseCabecas]] = []
        # duas figuras, duas imagens: a da perda é redesenhada a cada movimento e durante o treino; a das
        # cabeças, só no fim de cada treino (e aparece depois do primeiro)
        k = plots.escala_da_fonte()
        fig = Figure(figsize=(4.6 * k, 4.2 * k))
        self.ax_perda = fig.add_axes((0.17, 0.13, 0.78, 0.77))
        self.fig_cabecas = Figure(figsize=(5.6 * k, 4.2 * k))
        self.ax_cabecas = self.fig_cabecas.add_axes((0.12, 0.15, 0.86, 0.75))
        self.imagem_cabecas = W.Image(format="png", layout=W.Layout(max_width="100%"))
        ax = self.ax_perda
        ax.axhline(np.log(4), color=CORES["neutro"], ls="--", lw=1.2, label="acaso (ln 4)")
        self._fim = ax.axvline(receita.passos, color=CORES["destaque"], ls=":", lw=1.6, label="fim do próximo treino")
        ax.set_ylim(0, 2.0)
        # o eixo x começa nos passos escolhidos (ou na curva dada, se for mais longa)
        ax.set_xlim(0, 1.02 * max(controles["passos"].value, 0 if curva_inicial is None else len(curva_inicial[1])))
        ax.set_xlabel("passo")
        ax.set_ylabel("perda (entropia cruzada)")
        ax.set_title("a perda, passo a passo")
        ax.legend(loc="upper right", frameon=False)
        self.botao = W.Button(description="treinar", icon="play", button_style="primary",
                              tooltip="treina um modelo novo com a semente e os passos escolhidos",
                              layout=W.Layout(width="160px"))
        self.progresso = W.IntProgress(value=0, min=0, max=1, description="progresso",
                                       style={"description_width": "initial"}, layout=W.Layout(width="320px"))
        self.rotulo = W.HTML("", layout=W.Layout(max_width="330px"))  # quebra a linha: a figura fica ao lado
        if curva_inicial is not None:  # desenhada antes do primeiro PNG: uma renderização só
            nome, perdas = curva_inicial
            self._nova_curva(nome).set_data(np.arange(1, len(perdas) + 1), perdas)
            self.rotulo.value = f"na figura, {nome}; clique em <b>treinar</b> para treinar um modelo novo"
        super().__init__(fig, controles, self._calcular_estado, "Treinar ao vivo: a perda cai e as cabeças se "
                                                                "especializam", animados=[self._fim])
        coluna = self.children[-2].children[0]  # a coluna dos controles, à esquerda da figura
        coluna.children = (*coluna.children, self.botao, self.progresso, self.rotulo)
        self._linha = self.children[-2]  # controles + figuras (a das cabeças entra depois do primeiro treino)
        self.botao.on_click(lambda _botao: self._treinar_pelo_botao())

    # -- o que a figura e o texto mostram ---------------------------------------------------------

    _versao = 0  # muda a cada curva nova: a figura da perda precisa de um PNG novo
    _chave_png: tuple | None = None

    def atualizar(self) -> dict[str, Any]:
        """Como :meth:`Painel.atualizar`, mas só refaz o PNG da perda quando ela mudou: a semente muda só o
        texto (ela vale para o próximo treino), e o PNG é quase todo o custo de uma atualização."""
        inicio = time.perf_counter()
        estado = self._calcular(self.valores())
        self.texto.value = estado.get("html", "")
        chave = (int(self.controles["passos"].value), self._versao)
        if chave != self._chave_png:
            self._mostrar()
            self._chave_png = chave
        self.estado = estado
        self.ultimo_tempo_ms = (time.perf_counter() - inicio) * 1000
        return estado


    def _mostrar(self) -> None:
        """Desenha a figura da perda (só a linha do fim, se nada mais mudou) e a mostra."""
        self.desenhar()
        self.imagem.value = plots.png_do_canvas(self.canvas)

    def _calcular_estado(self, v: dict[str, Any]) -> dict[str, Any]:
        p, s = int(v["passos"]), int(v["semente"])
        r = self.receita
        if self._fim.get_xdata()[0] != p:  # mexer na linha só quando ela anda: a figura não fica marcada à toa
            self._fim.set_xdata([p, p])
        # se pedirem mais passos do que o eixo x mostra, ele passa a ir até o máximo do slider, de uma vez, e não
        # encolhe: mover os passos só leva a linha do fim (um blit), e a figura inteira é redesenhada uma vez só
        if 1.02 * p > self.ax_perda.get_xlim()[1]:
            self.ax_perda.set_xlim(0, 1.02 * self.controles["passos"].max)
        linhas = [("o botão treina um modelo novo", f"semente {s}, {p} passos de Adam, lotes de {r.lote} frases "
                                                    f"(d_model = {r.d_model}, {r.n_camadas} camadas × {r.n_cabecas} "
                                                    "cabeças)")]
        ultimo = self.treinos[-1] if self.treinos else None
        if ultimo is None:
            linhas.append(("as cabeças", "aparecem ao lado da curva depois do primeiro treino"))
        else:
            nome, _treino, acc, analise = ultimo
            m = analise.medidas["sujeito"]
            c, h = np.unravel_index(int(np.argmax(m)), m.shape)
            linhas += [("último treino", nome), (f"acurácia em {len(self.frases_medida)} frases novas", porcento(acc)),
                       ("a cabeça que mais olha para o sujeito",
                        f"{c}·{h}: {decimal(m[c, h])} no sujeito, {decimal(analise.medidas['atrator'][c, h])} no atrator")]
        return {"receita": replace(r, semente=s, passos=p), "treinos": [nome for nome, *_ in self.treinos],
                "acuracia": None if ultimo is None else ultimo[2], "analise": None if ultimo is None else ultimo[3],
                "perdas": None if ultimo is None else ultimo[1].perdas, "html": tabela(linhas)}

    def _registrar(self, nome: str, treino: Treino) -> None:
        """Guarda um treino, mede-o e redesenha as barras das cabeças (uma vez por treino)."""
        analise = analisar_cabecas(treino.modelo, self.frases_medida)
        self.treinos.append((nome, treino, acuracia(treino.modelo, self.frases_medida), analise))
        desenhar_sujeito_atrator(self.ax_cabecas, analise, titulo=f"as cabeças do modelo: {nome}")
        self.imagem_cabecas.value = plots.png(self.fig_cabecas)
        if self.imagem_cabecas not in self._linha.children:
            self._linha.children = (*self._linha.children, self.imagem_cabecas)

    def _nova_curva(self, rotulo: str):
        """A curva do treino novo; a do anterior fica em cinza, e a de antes dela sai."""
        for linha in list(self.ax_perda.lines):
            if linha.get_gid() == "anterior":
                linha.remove()
            elif linha.get_gid() == "atual":
                linha.set(color=CORES["neutro"], alpha=0.6, gid="anterior", label="o treino anterior")
        (curva,) = self.ax_perda.plot([], [], color=CORES["q"], lw=1.6, gid="atual", label=rotulo)
        self.ax_perda.legend(loc="upper right", frameon=False)
        self._versao += 1
        return curva

    # -- o treino ---------------------------------------------------------------------------------

    def treinar(self) -> Treino:
        """Treina um modelo novo com a semente e os passos dos controles, mostrando o progresso (o que o
        botão faz). Devolve o :class:`~.rede.Treino`."""
        v = self.valores()
        receita = replace(self.receita, semente=int(v["semente"]), passos=int(v["passos"]))
        widgets = [self.botao, *self.controles.values()]
        for w in widgets:
            w.disabled = True
        self.botao.description = "treinando…"
        try:
            if self._frases_treino is None:
                self.rotulo.value = "gerando as frases de treino…"
                self._frases_treino = gerar_frases(receita.n_frases, semente=receita.semente_frases, conjunto="treino")
            nome = f"semente {receita.semente}, {receita.passos} passos"
            curva = self._nova_curva(nome)
            self.progresso.max, self.progresso.value = receita.passos, 0
            perdas: list[float] = []
            proximo = [0.0]  # quando redesenhar de novo (relógio de time.perf_counter)

            def ao_passo(passo: int, perda: float) -> None:
                perdas.append(perda)
                self.progresso.value = passo
                inicio = time.perf_counter()
                if inicio >= proximo[0] or passo == receita.passos:
                    curva.set_data(np.arange(1, len(perdas) + 1), perdas)
                    self.rotulo.value = f"passo {passo} de {receita.passos} · perda {decimal(perda, 3)}"
                    self._mostrar()
                    # num computador lento o PNG demora mais: o redesenho nunca passa de ~1/5 do tempo (com
                    # INTERVALO_S = 0, a cada passo)
                    gasto = time.perf_counter() - inicio
                    proximo[0] = inicio + (max(self.INTERVALO_S, 5 * gasto) if self.INTERVALO_S > 0 else 0.0)

            treino = treinar(receita, frases=self._frases_treino, ao_passo=ao_passo)
            self.rotulo.value = "medindo as cabeças em frases novas…"
            self._registrar(nome, treino)
            self.rotulo.value = f"pronto: {receita.passos} passos em {decimal(treino.segundos, 1)} s"
            self.atualizar()
            return treino
        finally:
            for w in widgets:
                w.disabled = False
            self.botao.description = "treinar"

    def _treinar_pelo_botao(self) -> None:
        try:
            self.treinar()
        except Exception as exc:  # noqa: BLE001 - no painel, um problema vira mensagem, nunca traceback
            self.rotulo.value = f"<b>⚠️ o treino parou: {html.escape(str(exc))}</b>"


def painel_treino(inicial: Treino | None = None, *, receita: Receita = RECEITA_AO_VIVO, semente: int = 0,
                  passos: int | None = None, n_frases_medida: int = 300) -> PainelTreino:
    """O treino ao vivo: um botão "treinar", uma barra de progresso e a curva da perda, que cresce
    enquanto o modelo aprende (redesenhada algumas vezes por segundo); no fim, o peso de cada cabeça no
    sujeito, no atrator e no distrator, medido em ``n_frases_medida`` frases novas.

    Controles: ``passos`` (100–1000; padrão: os de ``receita``, 400 na ``RECEITA_AO_VIVO``) e ``semente``
    (0–9: os pesos iniciais e a ordem dos lotes). ``inicial``, se dado (o treino curto do notebook), tem a sua
    curva da perda desenhada de saída, para comparar. Estado: ``receita`` (a do próximo treino), ``treinos`` (os
    nomes dos já feitos) e, do último, ``acuracia``, ``analise`` e ``perdas`` (``None`` antes do primeiro).
    """
    passos = receita.passos if passos is None else passos
    # os sliders só escolhem o próximo treino, mas a linha do fim acompanha o arrasto (como nos outros painéis)
    estilo = {"style": {"description_width": "initial"}, "layout": W.Layout(width="330px")}
    controles: dict[str, W.ValueWidget] = {
        "passos": W.IntSlider(value=passos, min=100, max=1000, step=100, description="passos", **estilo),
        "semente": W.IntSlider(value=semente, min=0, max=9, step=1, description="semente", **estilo),
    }
    curva = None if inicial is None else ("o treino curto do notebook", inicial.perdas)
    return PainelTreino(controles, receita, gerar_frases(n_frases_medida, semente=SEMENTE_MEDIDA, conjunto="avaliacao"), curva)
