"""O quiz de revisão (notebook ``revisao``): ler a resposta (letra, número com vírgula ou ponto, unidade de
bytes), corrigir com o equívoco que ela revela (:func:`corrigir_resposta`, um :class:`~helpers.corretor.Veredito`
como o dos outros corretores; :func:`avaliar_resposta` é a mesma correção como ``(situação, mensagem)``), o
corretor digitado :func:`check_quiz`, o quiz clicável e as perguntas em texto (HTML e Markdown).

O notebook usa o quiz em duas partes: no núcleo, :data:`PERGUNTAS_DO_NUCLEO` (uma pergunta por etapa da
trilha, fora as que repetem os equívocos da seção 3); num bloco opcional, :data:`PERGUNTAS_OPCIONAIS`. Cada
função aceita ``perguntas=`` (os números, na numeração do quiz inteiro); sem ele, vale o quiz inteiro."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable
from typing import Any

import ipywidgets as W
from IPython.display import HTML

from ...corretor import ERRO, OK, PENDENTE, Veredito, corretor_de
from ...data import bate_na_precisao, carregar_quiz, casas_escritas
from ...formato import milhares
from ...respostas import RespostaInvalida, ler_numero, tupla_da_virgula, unidade_de_memoria

_LETRAS_SOLTAS = "()[]. )"

#: as perguntas do quiz curto do núcleo: uma por etapa (01, 04, 06, 07, 08, 09, 10), sem as que repetem um
#: equívoco da seção 3 (2 = equívoco 1, 4 = equívoco 4, 6 = equívoco 2, 8 = equívoco 5)
PERGUNTAS_DO_NUCLEO: tuple[int, ...] = (1, 5, 7, 10, 12, 13, 19)
#: as outras, no bloco opcional "o resto do quiz"
PERGUNTAS_OPCIONAIS: tuple[int, ...] = tuple(n for n in range(1, 20) if n not in PERGUNTAS_DO_NUCLEO)


def selecionar_perguntas(perguntas: Iterable[int] | None = None) -> tuple[Any, ...]:
    """As perguntas do quiz com os números pedidos (na ordem do quiz), ou todas com ``None``.

    Levanta ``ValueError`` (em português) para um número que não é de pergunta, uma lista vazia ou algo que
    não seja uma lista de números."""
    todas = carregar_quiz()
    if perguntas is None:
        return todas
    if isinstance(perguntas, (str, bytes)) or not isinstance(perguntas, Iterable):
        raise ValueError(f"`perguntas` deve ser uma lista de números de pergunta, como [1, 5, 7]; veio {perguntas!r}.")
    pedidas = list(perguntas)
    existentes = {p.numero for p in todas}
    estranhas = [n for n in pedidas if isinstance(n, bool) or not isinstance(n, int) or n not in existentes]
    if estranhas or not pedidas:
        raise ValueError(f"`perguntas` deve listar números de pergunta de 1 a {len(todas)}, como [1, 5, 7]; "
                         + (f"estes não são: {estranhas}." if estranhas else "veio uma lista vazia."))
    return tuple(p for p in todas if p.numero in set(pedidas))


def _letra(resposta: Any) -> str | None:
    """``"b"``, ``"B"``, ``" b) "``, ``"(b)"`` → ``"b"``; qualquer outra coisa → ``None``."""
    if not isinstance(resposta, str):
        return None
    letra = resposta.strip().strip(_LETRAS_SOLTAS).strip().lower()
    return letra if len(letra) == 1 and letra.isalpha() else None

def _numero_da_resposta(resposta: Any) -> float | None:
    """Um número (``16``, ``16.0``, ``np.float64(16)``, ``"16"``, ``"0,665"``) → ``float``; senão ``None``."""
    if isinstance(resposta, bool):
        return None
    if isinstance(resposta, str):
        try:
            lido = _ler_texto_numerico(resposta)
        except RespostaInvalida:
            return None
        return None if lido is None or lido[2] else lido[0]
    try:
        valor = float(resposta)
    except (TypeError, ValueError):
        return None
    return valor if math.isfinite(valor) else None

def _fmt_num(x: float) -> str:
    return f"{x:g}".replace(".", ",")


#: "unidades" de uma razão ("16 vezes", "16x")
_VEZES = {"x", "×", "vezes", "vez"}


def _ler_texto_numerico(texto: str) -> tuple[float, int, str] | None:
    """``"0,67"`` → ``(0.67, 2, "")``; ``"128 KiB"`` → ``(128.0, 0, "KiB")``; ``"131 072 bytes"`` →
    ``(131072.0, 0, "bytes")``: o leitor de números da coleção (:func:`helpers.respostas.ler_numero`).
    ``None`` se não for um número; levanta :class:`RespostaInvalida` se for ambíguo ("4.160")."""
    lido = ler_numero(texto)
    return None if lido is None else (lido.valor, lido.casas, lido.unidade)


#: os equívocos que o quiz reconhece em qualquer pergunta numérica (fora os de cada pergunta, nos dados)
MENOS_CASAS = "arredondou com menos casas que as pedidas"
CORTOU = "cortou as casas em vez de arredondar"
KB_DECIMAL = "unidade decimal no lugar da binária (KB ≠ KiB)"
KB_BITS = "b minúsculo é bit (kb ≠ KiB)"
OUTRA_UNIDADE = "o número certo, noutra unidade"
EQUIVOCOS_GERAIS = (MENOS_CASAS, CORTOU, KB_DECIMAL, KB_BITS, OUTRA_UNIDADE)


def _numero_certo_noutra_unidade(pergunta: Any, resposta: Any) -> str | None:
    """Se a resposta escreve o número certo com outra unidade de bytes que a pedida ("128 MiB" quando a resposta é
    128 KiB), a explicação; senão ``None``. Convertido, esse número bate por acaso com outros erros (128 MiB são
    131 072 KiB, o número de **bytes**), e o diagnóstico deles seria falso: o que houve foi a unidade."""
    if not isinstance(resposta, str) or not pergunta.unidade:
        return None
    try:
        lido = _ler_texto_numerico(resposta)
    except RespostaInvalida:
        return None
    if lido is None or not lido[2] or lido[2].lower() == pergunta.unidade.lower():
        return None
    valor, casas, unidade = lido
    # KB, MB e kb têm os seus equívocos (decimal no lugar de binária, bit no lugar de byte), mais precisos que este
    escrita = unidade_de_memoria(unidade)
    if escrita is None or escrita.familia != "binaria" or not _confere(pergunta, valor, casas):
        return None
    return (f"{_fmt_num(valor)} é o número certo, mas em {pergunta.unidade}, não em {unidade}: a pergunta pede "
            f"{pergunta.unidade}, e {_fmt_num(valor)} {unidade} é outra quantidade de memória. Escreva "
            f"{_fmt_num(valor)} {pergunta.unidade} (ou só {_fmt_num(valor)}).")


def _ler_numero(pergunta: Any, resposta: Any) -> tuple[float, int, str] | str:
    """A resposta numérica na unidade que a pergunta pede: ``(valor, casas escritas, observação)``, ou o
    texto do problema de formato (não é número, número ambíguo como "4.160", ``0,67`` escrito em Python — que
    vira a tupla ``(0, 67)`` —, unidade que não se converte). Uma observação que começa com "Atenção" é um
    equívoco de unidade (:data:`KB_DECIMAL`, :data:`KB_BITS`)."""
    unidade_pedida = pergunta.unidade
    if (explicacao := tupla_da_virgula(resposta)) is not None:
        return explicacao
    if isinstance(resposta, str):
        try:
            lido = _ler_texto_numerico(resposta)
        except RespostaInvalida as ambiguo:
            return str(ambiguo)
        if lido is None:
            exemplo = f"por exemplo 128 ou 128 {unidade_pedida}" if unidade_pedida else "por exemplo 3 ou 0,25"
            return f"a resposta é um número ({exemplo}); veio {resposta!r}"
        valor, casas, unidade = lido
        u = unidade.lower()
        if not u or (not unidade_pedida and u in _VEZES):
            return valor, casas, ""
        if unidade_pedida and u == unidade_pedida.lower():
            return valor, casas, ""
        # memória: o leitor da coleção sabe quantos bytes vale cada unidade (helpers.respostas.unidade_de_memoria)
        memoria_pedida, memoria_escrita = unidade_de_memoria(unidade_pedida), unidade_de_memoria(unidade)
        if memoria_pedida is not None and memoria_pedida.familia == "binaria" and memoria_escrita is not None:
            convertido = valor * memoria_escrita.bytes / memoria_pedida.bytes
            if memoria_escrita.familia == "binaria":
                return (convertido, pergunta.casas or 0,
                        f"{_fmt_num(valor)} {unidade} = {_fmt_num(convertido)} {unidade_pedida}")
            if memoria_escrita.familia == "bits":
                return convertido, max(pergunta.casas or 0, 2), (
                    f"Atenção à unidade: {unidade}, com b minúsculo, costuma querer dizer "
                    f"{ {'k': 'kilobits', 'm': 'megabits', 'g': 'gigabits'}[u[0]] } (1 byte = 8 bits), e a pergunta "
                    f"pede {unidade_pedida}, em bytes (1 KiB = 1024 bytes): {_fmt_num(valor)} {unidade} "
                    f"= {_fmt_num(round(convertido, 3))} {unidade_pedida}")
            return convertido, max(pergunta.casas or 0, 2), (
                f"Atenção à unidade: {unidade} é decimal (1 {unidade} = {milhares(memoria_escrita.bytes)} bytes), e a "
                f"pergunta pede {unidade_pedida}, que é binária (1 KiB = 1024 bytes): {_fmt_num(valor)} {unidade} "
                f"= {_fmt_num(round(convertido, 3))} {unidade_pedida}")
        pedida = f"a pergunta pede {unidade_pedida}" if unidade_pedida else "a pergunta pede só o número"
        return f"não entendi a unidade {unidade!r}: {pedida}"
    if isinstance(resposta, bool):
        return f"a resposta é um número; veio {resposta!r}"
    try:
        valor = float(resposta)
    except (TypeError, ValueError):
        return f"a resposta é um número (por exemplo 3 ou 0,25); veio {resposta!r}"
    if not math.isfinite(valor):
        return f"a resposta é um número finito; veio {resposta!r}"
    return valor, casas_escritas(resposta), ""


def _confere(pergunta: Any, valor: float, casas: int) -> bool:
    if pergunta.casas is None:
        return abs(valor - pergunta.resposta) <= pergunta.tolerancia
    return bate_na_precisao(valor, pergunta.resposta, pergunta.casas, casas)


def _bate_com_erro(erro: Any, valor: float, casas: int) -> bool:
    if erro.casas is None:
        return abs(valor - erro.valor) <= erro.tolerancia
    return bate_na_precisao(valor, erro.valor, erro.casas, casas)


def _quase(pergunta: Any, valor: float, casas: int) -> tuple[str, str]:
    """Se ``valor`` é a resposta arredondada com menos casas que as pedidas, ou cortada em vez de
    arredondada, ``(equívoco, aviso)`` — a ideia estava certa; senão ``("", "")``."""
    if pergunta.casas is None or pergunta.casas == 0 or casas > pergunta.casas:
        return "", ""
    certo = float(pergunta.resposta)
    fator = 10 ** casas
    arredondado = math.floor(certo * fator + 0.5) / fator
    cortado = math.floor(certo * fator) / fator
    mostrar = _fmt_num(float(f"{certo:.{pergunta.casas + 1}f}")) + "…"
    pedido = _fmt_num(math.floor(certo * 10 ** pergunta.casas + 0.5) / 10 ** pergunta.casas)
    nome = {1: "uma casa", 2: "duas casas", 3: "três casas"}.get(pergunta.casas, f"{pergunta.casas} casas")
    if casas < pergunta.casas and math.isclose(valor, arredondado, abs_tol=1e-9):
        return MENOS_CASAS, (f"Quase: a ideia está certa, mas a pergunta pede {nome} decimais. Arredonde para "
                             f"{nome}: {mostrar} → {pedido}.")
    if not math.isclose(arredondado, cortado, abs_tol=1e-9) and math.isclose(valor, cortado, abs_tol=1e-9):
        return CORTOU, (f"Quase: a ideia está certa, mas você cortou as casas em vez de arredondar. Com {nome}: "
                        f"{mostrar} → {pedido}.")
    return "", ""


def corrigir_resposta(pergunta: Any, resposta: Any) -> Veredito:
    """Corrige uma resposta e devolve o :class:`~helpers.corretor.Veredito`, como os outros corretores da coleção.

    ``erro`` é ``None`` (certa), ``"pendente"`` (sem resposta), ``"tipo"`` (um problema de formato: uma letra que
    não é opção, um texto que não é número, um número ambíguo como "4.160", ``0,67`` escrito em Python — a tupla
    ``(0, 67)`` —, uma unidade desconhecida; nada é revelado), o **equívoco** que a opção escolhida ou o valor
    errado revela (os dos dados, ou um de :data:`EQUIVOCOS_GERAIS`), ou ``"valor"`` (um número que nenhum equívoco
    explica: a mensagem traz a dica). A mensagem diz, em português, **por que** a resposta está errada e qual
    notebook rever. Nas numéricas, aceita vírgula decimal, milhares com espaço ("131 072"), o arredondamento até a
    precisão pedida (0,67 para 0,665…) e a unidade, quando a pergunta pede uma ("128 KiB", ou "131072 bytes",
    convertido). O leitor de números é o da coleção (:func:`helpers.respostas.ler_numero`).
    """
    cab = f"Pergunta {pergunta.numero}"
    rever = f"\n      ↪ reveja o {pergunta.revisar}."
    if resposta is None or (isinstance(resposta, str) and not resposta.strip()):
        return Veredito(False, f"{PENDENTE} {cab}: ainda não respondida.", "pendente")
    if pergunta.tipo == "escolha":
        letras = ", ".join(pergunta.opcoes)
        letra = _letra(resposta)
        if letra is None or letra not in pergunta.opcoes:
            return Veredito(False, f"{ERRO} {cab}: responda com uma das letras {letras}, como texto (entre aspas, "
                                   f"por exemplo \"a\"); veio {resposta!r}.", "tipo")
        if letra == pergunta.resposta:
            return Veredito(True, f"{OK} {cab}: ({letra}) certo! {pergunta.explicacao}")
        equivoco = pergunta.equivocos.get(letra)
        nome = f"Equívoco: {equivoco}. " if equivoco else ""
        return Veredito(False, f"{ERRO} {cab}: ({letra}) não. {nome}{pergunta.erros[letra]}" + rever,
                        equivoco or "valor")
    lido = _ler_numero(pergunta, resposta)
    if isinstance(lido, str):
        return Veredito(False, f"{ERRO} {cab}: {lido}.", "tipo")
    if (noutra := _numero_certo_noutra_unidade(pergunta, resposta)) is not None:
        return Veredito(False, f"{ERRO} {cab}: {resposta.strip()} não. Equívoco: {OUTRA_UNIDADE}. {noutra}" + rever,
                        OUTRA_UNIDADE)
    valor, casas, observacao = lido
    obs = f" ({observacao})" if observacao and not observacao.startswith("Atenção") else ""
    unidade = f" {pergunta.unidade}" if pergunta.unidade else ""
    if _confere(pergunta, valor, casas):
        return Veredito(True, f"{OK} {cab}: {_fmt_num(valor)}{unidade}{obs}, certo! {pergunta.explicacao}")
    aviso = f" {observacao}." if observacao.startswith("Atenção") else ""
    for erro in pergunta.erros_numericos:
        if _bate_com_erro(erro, valor, casas):
            nome = f"Equívoco: {erro.equivoco}. " if erro.equivoco else ""
            return Veredito(False, f"{ERRO} {cab}: {_fmt_num(valor)}{unidade}{obs} não.{aviso} {nome}{erro.explicacao}"
                                   + rever, erro.equivoco or "valor")
    if aviso:  # o número só está errado por causa da unidade: é esse o equívoco
        equivoco = KB_BITS if "b minúsculo" in observacao else KB_DECIMAL
        return Veredito(False, f"{ERRO} {cab}: {_fmt_num(valor)}{unidade} não.{aviso} Equívoco: {equivoco}." + rever,
                        equivoco)
    equivoco, quase = _quase(pergunta, valor, casas) if not observacao else ("", "")
    if quase:
        return Veredito(False, f"{ERRO} {cab}: {_fmt_num(valor)}{unidade} não. {quase}", equivoco)
    return Veredito(False, f"{ERRO} {cab}: {_fmt_num(valor)}{unidade}{obs} não. Dica. {pergunta.dica}" + rever,
                    "valor")


def avaliar_resposta(pergunta: Any, resposta: Any) -> tuple[str, str]:
    """Corrige uma resposta: ``(situação, mensagem)``, com situação ``"certa"``, ``"errada"`` ou ``"pendente"``
    (a mensagem e o diagnóstico são os de :func:`corrigir_resposta`; um problema de formato conta como
    "errada": a resposta precisa ser reescrita)."""
    veredito = corrigir_resposta(pergunta, resposta)
    situacao = "certa" if veredito.ok else "pendente" if veredito.erro == "pendente" else "errada"
    return situacao, veredito.mensagem

class _Quiz:
    """O quiz visto como um exercício, para o guia do instrutor: o nome e os equívocos que ele reconhece
    (os das opções erradas e dos valores errados conhecidos, na ordem das perguntas, sem repetir)."""

    nome = "o quiz de revisão"

    def nomes_dos_erros(self) -> list[str]:
        nomes: list[str] = []
        for p in carregar_quiz():
            novos = list(p.equivocos.values()) if p.tipo == "escolha" else [e.equivoco for e in p.erros_numericos]
            for n in novos:
                if n and n not in nomes:  # sem repetir, nem dentro da mesma pergunta
                    nomes.append(n)
        return nomes + [n for n in EQUIVOCOS_GERAIS if n not in nomes]


QUIZ = _Quiz()


@corretor_de(QUIZ)  # type: ignore[arg-type]
def check_quiz(respostas: Any, perguntas: Iterable[int] | None = None) -> bool:
    """Corrige o quiz de revisão e imprime um veredito por pergunta (o caminho digitado; o clicável é
    :func:`quiz_clicavel`, com as mesmas mensagens).

    ``respostas`` é um dicionário ``{número da pergunta: resposta}``: uma letra (``"a"``, ``"b"``, …)
    nas perguntas de escolha, um número nas numéricas (``0.67``, ``"0,67"``, ``"128 KiB"``), ``None`` nas
    que ainda não foram respondidas (elas aparecem como "ainda não respondida", sem erro). Cada resposta
    errada recebe o equívoco que leva **àquela** opção (ou àquele número), a explicação e o notebook
    para rever. Devolve ``True`` só se todas as perguntas estiverem certas.

    ``perguntas`` (os números, como ``[1, 5, 7]``) corrige só essa parte do quiz; sem ele, o quiz inteiro.
    """

    escolhidas = selecionar_perguntas(perguntas)
    inteiro = len(escolhidas) == len(carregar_quiz())
    if not isinstance(respostas, dict):
        print(f"{ERRO} `respostas` precisa ser um dicionário {{número da pergunta: resposta}}, como o da célula "
              f"acima; veio {type(respostas).__name__}.")
        return False
    todas = {p.numero for p in carregar_quiz()}
    numeros = {p.numero for p in escolhidas}
    normalizadas: dict[int, Any] = {}
    estranhas, de_fora = [], []
    for chave, valor in respostas.items():
        n = _numero_da_resposta(chave)
        if n is None or not n.is_integer() or int(n) not in todas:
            estranhas.append(chave)
        elif int(n) not in numeros:
            de_fora.append(int(n))
        else:
            normalizadas[int(n)] = valor
    contagem = {"certa": 0, "errada": 0, "pendente": 0}
    for p in escolhidas:
        situacao, mensagem = avaliar_resposta(p, normalizadas.get(p.numero))
        contagem[situacao] += 1
        print(mensagem)
    if estranhas:
        print(f"{ERRO} Estas chaves não são números de pergunta (1 a {len(todas)}) e foram ignoradas: {estranhas}")
    if de_fora:
        print(f"(As perguntas {sorted(de_fora)} não fazem parte desta correção, que vai só das perguntas "
              f"{sorted(numeros)}; para corrigir o quiz inteiro, rode licao.check_quiz(respostas).)")
    total = len(escolhidas)
    if contagem["certa"] == total and not estranhas:
        fim = " Você passou pelo mecanismo inteiro." if inteiro else ""
        print(f"\n{OK} {total} de {total}!{fim}")
        return True
    partes = [f"{contagem['certa']} de {total} certas"]
    if contagem["errada"]:
        partes.append(f"{contagem['errada']} para rever")
    if contagem["pendente"]:
        partes.append(f"{contagem['pendente']} ainda não respondidas")
    print("\nResultado: " + "; ".join(partes) + ".")
    return False


# --- o quiz clicável ---------------------------------------------------------------------------------


def _html(texto: str) -> str:
    """Texto do quiz (com **negrito** e quebras de linha) em HTML seguro."""
    seguro = html.escape(texto)
    seguro = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", seguro)
    return seguro.replace("\n", "<br>")


def _onde(p: Any) -> str:
    return f"notebook {p.notebook}" if p.notebook[:1].isdigit() else f"notebook «{p.notebook.capitalize()}»"


def _onde_curto(notebook: str) -> str:
    return f"notebook {notebook}" if notebook[:1].isdigit() else f"notebook «{notebook.capitalize()}»"


class QuizClicavel(W.VBox):
    """O quiz de revisão com widgets: um botão de rádio por letra nas perguntas de escolha e uma caixa de
    texto (Enter ou o botão "Conferir") nas numéricas. Cada resposta recebe na hora o veredito de
    :func:`avaliar_resposta` — o equívoco, a explicação e o notebook para rever —, e o placar embaixo
    soma as certas. Funciona igual no JupyterLab e no Voilà.

    ``perguntas`` (os números, como ``[1, 5, 7]``) mostra só essa parte do quiz, com a numeração do quiz
    inteiro; sem ele, todas. ``responder(numero, resposta)`` faz o mesmo que um clique (para testes e para
    quem prefere código); ``situacoes`` guarda ``{numero: "certa" | "errada" | "pendente"}``. O seletor
    ``filtro`` mostra só as perguntas de um notebook (para revisar um de cada vez).
    """

    def __init__(self, perguntas: Iterable[int] | None = None) -> None:
        self.perguntas = selecionar_perguntas(perguntas)
        self.inteiro = len(self.perguntas) == len(carregar_quiz())
        self.situacoes: dict[int, str] = {p.numero: "pendente" for p in self.perguntas}
        self.controles: dict[int, W.Widget] = {}
        self.retornos: dict[int, W.HTML] = {}
        self.placar = W.HTML()
        self.blocos: dict[int, W.VBox] = {}
        notebooks = list(dict.fromkeys(p.notebook for p in self.perguntas))
        # um slider (e não um menu): o teclado o move igual no JupyterLab e no Voilà
        self.filtro = W.SelectionSlider(options=[("todas", "todos")] + [(nb if nb[:1].isdigit() else nb.split()[-1], nb)
                                                                        for nb in notebooks],
                                        value="todos", description="mostrar as perguntas do notebook:",
                                        continuous_update=True, style={"description_width": "initial"},
                                        layout=W.Layout(width="520px"))
        self.mostrando = W.HTML()
        self.filtro.observe(lambda _m: self._filtrar(), names="value")
        blocos: list[W.Widget] = [W.HTML(
            "<b>Quiz de revisão.</b> Clique numa letra ou escreva o número (vírgula ou ponto; com a unidade, se a "
            "pergunta pedir uma) e tecle Enter: a resposta é corrigida na hora. Para revisar um notebook só, escolha-o "
            "no slider <i>mostrar as perguntas do notebook</i>."), W.HBox([self.filtro, self.mostrando])]
        for p in self.perguntas:
            texto = f"<b>{p.numero}.</b> {_html(p.enunciado)} <i>({_onde(p)})</i>"
            if p.tipo == "escolha":
                texto += "<ul style='margin:4px 0'>" + "".join(
                    f"<li style='list-style:none'><b>{letra})</b> {_html(op)}</li>" for letra, op in p.opcoes.items()
                ) + "</ul>"
                controle = W.RadioButtons(options=[(f"{letra})", letra) for letra in p.opcoes], value=None,
                                          description="sua resposta:", style={"description_width": "initial"},
                                          layout=W.Layout(width="auto"))
                controle.observe(lambda mudanca, n=p.numero: self.responder(n, mudanca["new"]), names="value")
                linha: W.Widget = controle
            else:
                dica = f"um número em {p.unidade}" if p.unidade else "um número"
                controle = W.Text(placeholder=dica, description="sua resposta:", continuous_update=False,
                                  style={"description_width": "initial"}, layout=W.Layout(width="320px"))
                controle.observe(lambda mudanca, n=p.numero: self.responder(n, mudanca["new"]), names="value")
                botao = W.Button(description="Conferir", layout=W.Layout(width="auto"))
                botao.on_click(lambda _b, n=p.numero, c=controle: self.responder(n, c.value))
                linha = W.HBox([controle, botao])
            retorno = W.HTML(layout=W.Layout(margin="0 0 0 8px"))
            self.controles[p.numero] = controle
            self.retornos[p.numero] = retorno
            bloco = W.VBox([W.HTML(texto), linha, retorno], layout=W.Layout(margin="0 0 14px 0"))
            bloco.add_class("quiz-pergunta")
            bloco.add_class(f"quiz-pergunta-{p.numero}")
            self.blocos[p.numero] = bloco
            blocos.append(bloco)
        blocos.append(self.placar)
        super().__init__(blocos)
        self.add_class("quiz-revisao")
        self._placar()
        self._filtrar()

    def _filtrar(self) -> None:
        """Mostra só as perguntas do notebook escolhido em ``filtro`` (ou todas)."""
        escolha = self.filtro.value
        visiveis = 0
        for p in self.perguntas:
            mostrar = escolha == "todos" or p.notebook == escolha
            self.blocos[p.numero].layout.display = None if mostrar else "none"
            visiveis += mostrar
        qual = "" if escolha == "todos" else f", {_onde_curto(escolha)}"
        self.mostrando.value = f"&nbsp;mostrando {visiveis} de {len(self.perguntas)} perguntas{qual}"

    def responder(self, numero: int, resposta: Any) -> str:
        """Corrige ``resposta`` na pergunta ``numero``, mostra o veredito e devolve a situação."""
        p = next(q for q in self.perguntas if q.numero == numero)
        situacao, mensagem = avaliar_resposta(p, resposta)
        if situacao == "pendente":
            mensagem = ""
        cor = {"certa": "#1b7a3d", "errada": "#b3261e"}.get(situacao, "inherit")
        self.retornos[numero].value = f"<div style='color:{cor}'>{_html(mensagem)}</div>" if mensagem else ""
        self.situacoes[numero] = situacao
        self._placar()
        return situacao

    def _placar(self) -> None:
        certas = sum(s == "certa" for s in self.situacoes.values())
        erradas = sum(s == "errada" for s in self.situacoes.values())
        total = len(self.perguntas)
        fim = (" Você passou pelo mecanismo inteiro!" if self.inteiro else " Todas certas!") if certas == total else ""
        self.placar.value = (f"<b>Placar: {certas} de {total} certas</b>"
                             + (f" · {erradas} para rever" if erradas else "") + fim)


def quiz_clicavel(perguntas: Iterable[int] | None = None) -> QuizClicavel:
    """O quiz de revisão com botões e caixas (veja :class:`QuizClicavel`); ``perguntas`` escolhe uma parte."""
    return QuizClicavel(perguntas)


def quiz_em_html(perguntas: Iterable[int] | None = None) -> HTML:
    """As perguntas em texto, dobradas num ``<details>``: para quem lê sem kernel (GitHub, PDF) ou quer imprimir.
    ``perguntas`` (os números) escolhe uma parte do quiz; sem ele, todas."""
    partes = ["<details><summary><b>As perguntas em texto</b> (para ler sem kernel ou imprimir)</summary>"]
    for p in selecionar_perguntas(perguntas):
        partes.append(f"<p><b>{p.numero}.</b> {_html(p.enunciado)} <i>({_onde(p)})</i></p>")
        if p.tipo == "escolha":
            partes.append("<ul>" + "".join(f"<li><b>{letra})</b> {_html(op)}</li>" for letra, op in p.opcoes.items())
                          + "</ul>")
        else:
            partes.append(f"<ul><li><i>Responda com um número{' em ' + p.unidade if p.unidade else ''}.</i></li></ul>")
    partes.append("</details>")
    return HTML("\n".join(partes))

def texto_do_quiz(perguntas: Iterable[int] | None = None) -> str:
    """As perguntas do quiz em Markdown (para ``display(Markdown(...))`` no notebook), sem as respostas;
    ``perguntas`` (os números) escolhe uma parte do quiz."""

    blocos = []
    for p in selecionar_perguntas(perguntas):
        linhas = [f"**{p.numero}.** {p.enunciado} *({_onde(p)})*", ""]
        if p.tipo == "escolha":
            linhas += [f"- **{letra})** {texto}" for letra, texto in p.opcoes.items()]
        else:
            linhas.append(f"- *Responda com um número{' em ' + p.unidade if p.unidade else ''}.*")
        blocos.append("\n".join(linhas))
    return "\n\n".join(blocos)
