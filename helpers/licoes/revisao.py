"""Lição "Revisão" (notebook ``revisao``): o diagrama do mecanismo inteiro, o quiz e o corretor do mecanismo.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from typing import Any

import ipywidgets as W
import matplotlib as mpl
import numpy as np
from IPython.display import HTML, Image
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .. import plots
from ..attention import (
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from ..corretor import (
    ERRO,
    OK,
    PENDENTE,
    Caso,
    Erro,
    Exercicio,
    NumeroAproximado,
    Previsao,
    SaidaOuPar,
    conferir,
    conferir_previsao,
    corretor_de,
)
from ..data import bate_na_precisao, carregar_quiz, casas_escritas
from ..paineis import PainelRedesenhaSoOQueMuda, slider, tabela
from ..plots import CORES, MAPA

# ---------------------------------------------------------------------------------------------
# Figuras
# ---------------------------------------------------------------------------------------------


def _caixa(ax: Axes, x: float, y: float, texto: str, cor: str, largura: float = 2.0, altura: float = 1.05,
           tracejada: bool = False) -> None:
    """Uma caixa de cantos arredondados centrada em ``(x, y)``, com ``texto`` no meio."""
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x - largura / 2, y - altura / 2), largura, altura,
                                boxstyle="round,pad=0.02,rounding_size=0.15", facecolor=mpl.colors.to_rgba(cor, 0.13),
                                edgecolor=cor, lw=2.0, ls="--" if tracejada else "-"))
    ax.text(x, y, texto, ha="center", va="center", fontsize=12, color="black", linespacing=1.35)

def _flecha(ax: Axes, de: tuple[float, float], para: tuple[float, float], rotulo: str = "",
            deslocamento: tuple[float, float] = (0.0, 0.18), cor: str = CORES["neutro"], curva: float = 0.0) -> None:
    ax.annotate("", xy=para, xytext=de, arrowprops=dict(arrowstyle="-|>", color=cor, lw=1.8, mutation_scale=16,
                                                        shrinkA=0, shrinkB=0,
                                                        connectionstyle=f"arc3,rad={curva}"))
    if rotulo:
        meio = ((de[0] + para[0]) / 2 + deslocamento[0], (de[1] + para[1]) / 2 + deslocamento[1])
        ax.text(*meio, rotulo, ha="center", va="bottom", fontsize=11, color=CORES["neutro"])

def figura_mecanismo(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike,
                     n_heads: int, cabeca: int = 0) -> Figure:
    """O mecanismo inteiro numa figura: ``X`` → ``Q, K, V`` → escores → softmax → pesos → saída de cada
    cabeça → juntar e ``W_o``, com as formas de verdade de cada passo e, embaixo, o mapa de pesos da
    ``cabeca`` escolhida (as contas vêm de :mod:`helpers.attention`).

    ``X`` ``(n, d_model)``; ``W_q``, ``W_k``, ``W_v`` ``(d_model, n_heads·d_head)``; ``W_o``
    ``(n_heads·d_head, d_out)``. Devolve a ``Figure`` do pyplot.
    """

    X = np.asarray(X, dtype=float)
    W_q, W_k, W_v, W_o = (np.asarray(w, dtype=float) for w in (W_q, W_k, W_v, W_o))
    n, d_model = X.shape
    Qh, Kh, Vh = (split_heads(X @ w, n_heads) for w in (W_q, W_k, W_v))
    saida_h, pesos = scaled_dot_product_attention(Qh, Kh, Vh)
    saida = merge_heads(saida_h) @ W_o
    referencia, _ = multi_head_attention(X, X, W_q, W_k, W_v, W_o, n_heads)
    if not np.allclose(saida, referencia):  # pragma: no cover - as duas contas são a mesma
        raise ValueError("a figura e attention.multi_head_attention discordam; confira as formas de W_q, W_k, W_v, W_o.")
    d_k, d_v, d_out = Qh.shape[-1], Vh.shape[-1], saida.shape[-1]

    fig, axes = plots.nova_figura(11.5, 5.6, pyplot=True)
    ax = axes[0, 0]
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.9)
    ax.set_xlim(0, 16)
    ax.set_ylim(0, 7)
    ax.axis("off")
    ax.set_title("O mecanismo inteiro, em cada cabeça: softmax(Q Kᵀ / √d_k) V", fontsize=14)

    y_q, y_k, y_v, y_z = 5.9, 4.4, 2.9, 5.15
    _caixa(ax, 1.1, y_k, f"X\n(n, d_model)\n= ({n}, {d_model})", CORES["neutro"], largura=1.9, altura=1.45)
    ax.text(1.1, 3.2, f"{n_heads} cabeças:\nd_k = d_model / {n_heads}", ha="center", va="top", fontsize=11,
            color=CORES["neutro"])
    for y, nome, cor, d in ((y_q, "Q = X W_q", CORES["q"], d_k), (y_k, "K = X W_k", CORES["k"], d_k),
                            (y_v, "V = X W_v", CORES["v"], d_v)):
        # a forma inteira é a que o código imprime, (n, n_heads·d); cada cabeça fica com (n, d)
        _caixa(ax, 3.9, y, f"{nome}: ({n}, {n_heads * d})\npor cabeça: ({n}, {d})", cor, largura=2.7)
        _flecha(ax, (2.05, y_k), (2.55, y), deslocamento=(0, 0))

    _caixa(ax, 6.85, y_z, f"escores\nz = Q Kᵀ / √d_k\n(n, n) = ({n}, {n})", CORES["destaque"], largura=2.4,
           altura=1.45)
    _flecha(ax, (5.25, y_q), (5.65, y_z + 0.3))
    _flecha(ax, (5.25, y_k), (5.65, y_z - 0.3))
    _caixa(ax, 10.8, y_z, "pesos = softmax(z)\npor linha (n, n):\ncada linha soma 1", CORES["extra"], largura=2.5,
           altura=1.45)
    _flecha(ax, (8.05, y_z), (9.55, y_z), rotulo="máscara:\n-inf antes", deslocamento=(0, 0.08))

    _caixa(ax, 10.8, 2.2, f"saída da cabeça\npesos @ V\n(n, d_v) = ({n}, {d_v})", CORES["saida"], largura=2.5,
           altura=1.45)
    _flecha(ax, (10.8, y_z - 0.73), (10.8, 2.93))
    _flecha(ax, (5.25, y_v), (9.55, 2.2), curva=0.12)
    _caixa(ax, 14.4, 2.2, f"juntar as cabeças\ne aplicar W_o\n(n, d_out) = ({n}, {d_out})",
           CORES["saida"], largura=2.7, altura=1.45)
    _flecha(ax, (12.05, 2.2), (12.95, 2.2))

    custos = ("custo para n tokens:  projeções ∝ n · d_model²  (linear em n)   ·   escores, softmax e pesos @ V "
              "∝ n² · d  (quadrático)\nmemória: os pesos têm n × n números por cabeça;  na geração, o KV cache guarda "
              "2 · camadas · n_kv_heads · tokens · d_head números")
    ax.text(0.2, 0.35, custos, ha="left", va="center", fontsize=11, color=CORES["neutro"], linespacing=1.5)

    # o mapa de pesos de verdade, ao lado da caixa de pesos; linhas e colunas numeradas pelo token, a
    # partir de 0 (como no código): a linha 0 é a query do token 0
    mapa = fig.add_axes((0.77, 0.465, 0.19, 0.4))
    w = pesos[cabeca]
    mapa.imshow(w, cmap=MAPA, vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            mapa.text(j, i, f"{w[i, j]:.3f}", ha="center", va="center", fontsize=13,
                      color="white" if w[i, j] < 0.5 else "black")
    mapa.set_xticks(range(n), [str(j) for j in range(n)])
    mapa.set_yticks(range(n), [str(i) for i in range(n)])
    mapa.tick_params(length=0, labelsize=12, pad=3)
    mapa.set_xlabel("key do token", fontsize=12, labelpad=2)
    mapa.yaxis.set_label_position("right")
    mapa.set_ylabel("query do token", fontsize=12, labelpad=16, rotation=270)
    mapa.grid(False)
    mapa.set_title(f"pesos da cabeça {cabeca}", fontsize=12)
    return fig

# ---------------------------------------------------------------------------------------------
# Corretores
# ---------------------------------------------------------------------------------------------


_LETRAS_SOLTAS = "()[]. )"

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
        lido = _ler_texto_numerico(resposta)
        return None if lido is None or lido[2] else lido[0]
    try:
        valor = float(resposta)
    except (TypeError, ValueError):
        return None
    return valor if math.isfinite(valor) else None

def _fmt_num(x: float) -> str:
    return f"{x:g}".replace(".", ",")


#: unidades de bytes que o quiz entende (binárias) e o fator de cada uma
_BYTES = {"b": 1, "byte": 1, "bytes": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30}
#: as decimais, que valem outra coisa: o equívoco KB = KiB tem nome
_BYTES_DECIMAIS = {"kb": 10**3, "mb": 10**6, "gb": 10**9}
#: "unidades" de uma razão ("16 vezes", "16x")
_VEZES = {"x", "×", "vezes", "vez"}
_TEXTO_NUMERICO = re.compile(r"^\s*([+-]?[\d\s\u00a0\u202f.,]*\d)\s*([^\d\s].*?)?\s*$")


def _ler_texto_numerico(texto: str) -> tuple[float, int, str] | None:
    """``"0,67"`` → ``(0.67, 2, "")``; ``"128 KiB"`` → ``(128.0, 0, "KiB")``; ``"131 072 bytes"`` →
    ``(131072.0, 0, "bytes")``; ``"1.234,5"`` → ``(1234.5, 1, "")``. Vírgula ou ponto decimal; espaços
    separam milhares; com ponto **e** vírgula, o último é o decimal. ``None`` se não for um número."""
    m = _TEXTO_NUMERICO.match(texto)
    if not m:
        return None
    numero, unidade = re.sub(r"[\s\u00a0\u202f]", "", m.group(1)), (m.group(2) or "").strip()
    if "," in numero and "." in numero:
        decimal = "," if numero.rfind(",") > numero.rfind(".") else "."
        numero = numero.replace("." if decimal == "," else ",", "").replace(",", ".")
    else:
        numero = numero.replace(",", ".")
    if numero.count(".") > 1:
        return None
    try:
        valor = float(numero)
    except ValueError:
        return None
    casas = len(numero.split(".", 1)[1]) if "." in numero else 0
    return valor, casas, unidade


def _ler_numero(pergunta: Any, resposta: Any) -> tuple[float, int, str] | str:
    """A resposta numérica na unidade que a pergunta pede: ``(valor, casas escritas, observação)``, ou o
    texto do problema (não é número, unidade que não se converte)."""
    unidade_pedida = pergunta.unidade
    if isinstance(resposta, str):
        lido = _ler_texto_numerico(resposta)
        if lido is None:
            exemplo = f"por exemplo 128 ou 128 {unidade_pedida}" if unidade_pedida else "por exemplo 3 ou 0,25"
            return f"a resposta é um número ({exemplo}); veio {resposta!r}"
        valor, casas, unidade = lido
        u = unidade.lower()
        if not u or (not unidade_pedida and u in _VEZES):
            return valor, casas, ""
        if unidade_pedida and u == unidade_pedida.lower():
            return valor, casas, ""
        if unidade_pedida.lower() in _BYTES and u in _BYTES:
            convertido = valor * _BYTES[u] / _BYTES[unidade_pedida.lower()]
            return convertido, pergunta.casas or 0, f"{_fmt_num(valor)} {unidade} = {_fmt_num(convertido)} {unidade_pedida}"
        if unidade_pedida.lower() in _BYTES and u in _BYTES_DECIMAIS:
            convertido = valor * _BYTES_DECIMAIS[u] / _BYTES[unidade_pedida.lower()]
            return convertido, max(pergunta.casas or 0, 2), (
                f"Atenção à unidade: {unidade} é decimal (1 {unidade} = {_BYTES_DECIMAIS[u]:,} bytes".replace(",", " ")
                + f"), e a pergunta pede {unidade_pedida}, que é binária (1 KiB = 1024 bytes): {_fmt_num(valor)} {unidade} "
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


def avaliar_resposta(pergunta: Any, resposta: Any) -> tuple[str, str]:
    """Corrige uma resposta: ``(situação, mensagem)``, com situação ``"certa"``, ``"errada"`` ou ``"pendente"``.

    A mensagem diz, em português, **por que** a resposta está errada — o equívoco que a opção escolhida
    (ou o valor errado reconhecido) revela e a explicação — e qual notebook rever. Nas numéricas, aceita
    vírgula decimal, o arredondamento até a precisão pedida (0,67 para 0,665…) e a unidade, quando a
    pergunta pede uma ("128 KiB", ou "131072 bytes", convertido).
    """
    cab = f"Pergunta {pergunta.numero}"
    rever = f"\n      ↪ reveja o {pergunta.revisar}."
    if resposta is None or (isinstance(resposta, str) and not resposta.strip()):
        return "pendente", f"{PENDENTE} {cab}: ainda não respondida."
    if pergunta.tipo == "escolha":
        letras = ", ".join(pergunta.opcoes)
        letra = _letra(resposta)
        if letra is None or letra not in pergunta.opcoes:
            return "errada", (f"{ERRO} {cab}: responda com uma das letras {letras}, como texto (entre aspas, "
                              f"por exemplo \"a\"); veio {resposta!r}.")
        if letra == pergunta.resposta:
            return "certa", f"{OK} {cab}: ({letra}) certo! {pergunta.explicacao}"
        equivoco = pergunta.equivocos.get(letra)
        nome = f"Equívoco: {equivoco}. " if equivoco else ""
        return "errada", f"{ERRO} {cab}: ({letra}) não. {nome}{pergunta.erros[letra]}" + rever
    lido = _ler_numero(pergunta, resposta)
    if isinstance(lido, str):
        return "errada", f"{ERRO} {cab}: {lido}."
    valor, casas, observacao = lido
    obs = f" ({observacao})" if observacao and not observacao.startswith("Atenção") else ""
    unidade = f" {pergunta.unidade}" if pergunta.unidade else ""
    if _confere(pergunta, valor, casas):
        return "certa", f"{OK} {cab}: {_fmt_num(valor)}{unidade}{obs}, certo! {pergunta.explicacao}"
    aviso = f" {observacao}." if observacao.startswith("Atenção") else ""
    for erro in pergunta.erros_numericos:
        if _bate_com_erro(erro, valor, casas):
            nome = f"Equívoco: {erro.equivoco}. " if erro.equivoco else ""
            return "errada", f"{ERRO} {cab}: {_fmt_num(valor)}{unidade}{obs} não.{aviso} {nome}{erro.explicacao}" + rever
    return "errada", f"{ERRO} {cab}: {_fmt_num(valor)}{unidade}{obs} não.{aviso} Dica: {pergunta.dica}" + rever

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
        return nomes


QUIZ = _Quiz()


@corretor_de(QUIZ)  # type: ignore[arg-type]
def check_quiz(respostas: Any) -> bool:
    """Corrige o quiz de revisão e imprime um veredito por pergunta (o caminho digitado; o clicável é
    :func:`quiz_clicavel`, com as mesmas mensagens).

    ``respostas`` é um dicionário ``{número da pergunta: resposta}``: uma letra (``"a"``, ``"b"``, …)
    nas perguntas de escolha, um número nas numéricas (``0.67``, ``"0,67"``, ``"128 KiB"``), ``None`` nas
    que ainda não foram respondidas (elas aparecem como "ainda não respondida", sem erro). Cada resposta
    errada recebe o equívoco que leva **àquela** opção (ou àquele número), a explicação e o notebook
    para rever. Devolve ``True`` só se todas as perguntas estiverem certas.
    """

    perguntas = carregar_quiz()
    if not isinstance(respostas, dict):
        print(f"{ERRO} `respostas` precisa ser um dicionário {{número da pergunta: resposta}}, como o da célula "
              f"acima; veio {type(respostas).__name__}.")
        return False
    numeros = {p.numero for p in perguntas}
    normalizadas: dict[int, Any] = {}
    estranhas = []
    for chave, valor in respostas.items():
        n = _numero_da_resposta(chave)
        if n is None or not n.is_integer() or int(n) not in numeros:
            estranhas.append(chave)
        else:
            normalizadas[int(n)] = valor
    contagem = {"certa": 0, "errada": 0, "pendente": 0}
    for p in perguntas:
        situacao, mensagem = avaliar_resposta(p, normalizadas.get(p.numero))
        contagem[situacao] += 1
        print(mensagem)
    if estranhas:
        print(f"{ERRO} Estas chaves não são números de pergunta (1 a {len(perguntas)}) e foram ignoradas: {estranhas}")
    total = len(perguntas)
    if contagem["certa"] == total and not estranhas:
        print(f"\n{OK} {total} de {total}! Você passou pelo mecanismo inteiro.")
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

    ``responder(numero, resposta)`` faz o mesmo que um clique (para testes e para quem prefere código);
    ``situacoes`` guarda ``{numero: "certa" | "errada" | "pendente"}``. O seletor ``filtro`` mostra só as
    perguntas de um notebook (para revisar um de cada vez).
    """

    def __init__(self) -> None:
        self.perguntas = carregar_quiz()
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
        fim = " Você passou pelo mecanismo inteiro!" if certas == total else ""
        self.placar.value = (f"<b>Placar: {certas} de {total} certas</b>"
                             + (f" · {erradas} para rever" if erradas else "") + fim)


def quiz_clicavel() -> QuizClicavel:
    """O quiz de revisão com botões e caixas (veja :class:`QuizClicavel`)."""
    return QuizClicavel()


def quiz_em_html() -> HTML:
    """As perguntas em texto, dobradas num ``<details>``: para quem lê sem kernel (GitHub, PDF) ou quer imprimir."""
    partes = ["<details><summary><b>As perguntas em texto</b> (para ler sem kernel ou imprimir)</summary>"]
    for p in carregar_quiz():
        partes.append(f"<p><b>{p.numero}.</b> {_html(p.enunciado)} <i>({_onde(p)})</i></p>")
        if p.tipo == "escolha":
            partes.append("<ul>" + "".join(f"<li><b>{letra})</b> {_html(op)}</li>" for letra, op in p.opcoes.items())
                          + "</ul>")
        else:
            partes.append(f"<ul><li><i>Responda com um número{' em ' + p.unidade if p.unidade else ''}.</i></li></ul>")
    partes.append("</details>")
    return HTML("\n".join(partes))

def texto_do_quiz() -> str:
    """As perguntas do quiz em Markdown (para ``display(Markdown(...))`` no notebook), sem as respostas."""

    blocos = []
    for p in carregar_quiz():
        linhas = [f"**{p.numero}.** {p.enunciado} *({_onde(p)})*", ""]
        if p.tipo == "escolha":
            linhas += [f"- **{letra})** {texto}" for letra, texto in p.opcoes.items()]
        else:
            linhas.append(f"- *Responda com um número{' em ' + p.unidade if p.unidade else ''}.*")
        blocos.append("\n".join(linhas))
    return "\n\n".join(blocos)

def _mecanismo(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, W_o: np.ndarray | None, h: int, *,
               escala: str = "d_head", eixo: int = -1, dividir: str = "certo", juntar: str = "certo",
               values: str = "V", uma_cabeca: bool = False) -> np.ndarray:
    """O mecanismo inteiro com um "defeito" escolhido (para construir os erros clássicos)."""
    n, d_model = X.shape
    d = W_q.shape[1] // h
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    if uma_cabeca:
        out = softmax(Q @ K.T / math.sqrt(d_model)) @ V
        return out @ W_o
    fator = {"d_head": 1 / math.sqrt(d), "d_model": 1 / math.sqrt(d_model), "nenhuma": 1.0, "d": 1 / d}[escala]

    def separar(M: np.ndarray) -> np.ndarray:
        return M.reshape(n, h, d).transpose(1, 0, 2) if dividir == "certo" else M.reshape(h, n, d)

    Qh, Kh, Vh = separar(Q), separar(K), separar(V)
    saidas = softmax(Qh @ np.swapaxes(Kh, -1, -2) * fator, axis=eixo) @ (Kh if values == "K" else Vh)
    junto = saidas.transpose(1, 0, 2).reshape(n, h * d) if juntar == "certo" else saidas.reshape(n, h * d)
    return junto if W_o is None else junto @ W_o


def _casos_mecanismo() -> list[Caso]:
    rng = np.random.default_rng(10)
    casos = []
    for n, d_model, h, d_out in ((3, 6, 2, 6), (5, 8, 4, 3)):
        X = rng.normal(size=(n, d_model))
        W_q, W_k, W_v = (rng.normal(size=(d_model, d_model)) / math.sqrt(d_model) for _ in range(3))  # sem saturar
        W_o = rng.normal(size=(d_model, d_out))
        casos.append(Caso(f"com X ({n}, {d_model}), n_heads = {h} e W_o ({d_model}, {d_out})",
                          {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o, "n_heads": h}))
    return casos


def _d_head(W_q: np.ndarray, n_heads: int, **_: Any) -> int:
    return W_q.shape[1] // n_heads


MECANISMO = Exercicio(
    nome="o mecanismo inteiro",
    casos=_casos_mecanismo,
    certo=lambda X, W_q, W_k, W_v, W_o, n_heads: multi_head_attention(X, X, W_q, W_k, W_v, W_o, n_heads)[0],
    formato=SaidaOuPar(),
    acerto="Correto! X → Q, K, V → cabeças (n_heads, n, d_head) → softmax(Q Kᵀ/√d_head) V em cada uma → juntar "
           "(n, n_heads·d_head) → W_o. É o mecanismo inteiro, igual a attention.multi_head_attention.",
    erros=[
        Erro("sem W_o",
             "Faltou a projeção de saída: depois de juntar as cabeças, multiplique por W_o. É ela que mistura o que cada "
             "cabeça encontrou e leva o resultado para a largura d_out.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, None, n_heads)),
        Erro("uma cabeça só",
             lambda X, W_q, n_heads, **_: f"Você fez uma cabeça só, com todas as {X.shape[1]} colunas. Com n_heads = "
                                          f"{n_heads}, divida Q, K e V em {n_heads} cabeças de d_head = "
                                          f"{_d_head(W_q, n_heads)} colunas, faça a atenção em cada uma e junte as "
                                          "saídas antes de W_o.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, uma_cabeca=True)),
        Erro("escala com d_model",
             lambda X, W_q, n_heads, **_: f"A escala de cada cabeça é 1/√d_head = 1/√{_d_head(W_q, n_heads)}, não "
                                          f"1/√d_model = 1/√{X.shape[1]}: os escores de uma cabeça são produtos "
                                          f"escalares de vetores com d_head = {_d_head(W_q, n_heads)} coordenadas.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, escala="d_model")),
        Erro("sem escala",
             "Faltou a escala: divida os escores de cada cabeça por √d_head antes da softmax.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, escala="nenhuma")),
        Erro("÷d_head em vez de ÷√d_head",
             lambda W_q, n_heads, **_: f"Você dividiu por d_head = {_d_head(W_q, n_heads)} em vez de √d_head = "
                                       f"√{_d_head(W_q, n_heads)}.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, escala="d")),
        Erro("softmax no eixo errado",
             "Softmax no eixo errado: em cada cabeça, os pesos de cada **query** (cada linha de Q Kᵀ, forma "
             "(n_heads, n, n)) devem somar 1. Use axis=-1, não axis=-2 (ou 0/1).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, eixo=-2)),
        Erro("dividir e juntar sem transpor",
             "Você dividiu em cabeças com M.reshape(n_heads, n, d_head), sem transpor, e juntou com o reshape inverso. O "
             "reshape lê os números linha por linha, então cada 'cabeça' ficou com pedaços de tokens diferentes. Faça "
             "M.reshape(n, n_heads, d_head).transpose(1, 0, 2) e, para juntar, O.transpose(1, 0, 2).reshape(n, "
             "n_heads·d_head) (notebook de várias cabeças).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, dividir="errado",
                                                                       juntar="errado")),
        Erro("dividir sem transpor",
             "A divisão em cabeças está errada: M.reshape(n_heads, n, d_head) direto mistura tokens. Separe as colunas "
             "de cada token primeiro, M.reshape(n, n_heads, d_head), e depois troque os eixos: .transpose(1, 0, 2) "
             "(notebook de várias cabeças).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, dividir="errado")),
        Erro("juntar sem transpor",
             "A divisão em cabeças está certa, mas a junção não: a saída das cabeças tem forma (n_heads, n, d_head), e "
             "O.reshape(n, n_heads·d_head) mistura tokens. Troque os eixos de volta antes: "
             "O.transpose(1, 0, 2).reshape(n, n_heads·d_head).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, juntar="errado")),
        Erro("soma das keys",
             "Você somou as **keys** ponderadas; a saída de cada cabeça é a soma ponderada dos **values** (V = X @ W_v).",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, values="K")),
    ],
    dica_de_forma="A saída tem uma linha por token, com as colunas de W_o: forma (n, d_out).",
)


@corretor_de(MECANISMO)
def check_mecanismo(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v, W_o, n_heads)``: a atenção de várias cabeças inteira, de ``X``
    ``(n, d_model)`` à saída ``(n, d_out)`` — projeções, divisão em cabeças, ``softmax(Q Kᵀ/√d_head) V``
    em cada cabeça, junção e ``W_o`` (a referência é :func:`helpers.attention.multi_head_attention`).

    A função pode devolver só a saída ou ``(saída, pesos)``. Casos: ``n = 3``, ``d_model = 6``, duas
    cabeças (``W_o`` quadrada, para que quase todo erro rode e se reconheça pelo valor) e ``n = 5``,
    ``d_model = 8``, quatro cabeças, ``W_o`` ``(8, 3)``. Reconhece cada erro de :data:`MECANISMO`.
    """
    return conferir(MECANISMO, fn)


# ---------------------------------------------------------------------------------------------
# O painel: o mecanismo inteiro, ao vivo
# ---------------------------------------------------------------------------------------------


def exemplo_da_revisao() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, W_q, W_k, W_v, W_o)`` da primeira seção do notebook: 3 tokens com ``d_model = 4``; as colunas
    0 e 1 das projeções copiam as duas primeiras coordenadas do embedding (a cabeça 0 de duas cabeças
    reproduz os Exemplos 1 e 2), as outras são sorteadas com a semente 0."""
    X = np.array([[1.0, 0.0, 0.3, -0.5], [0.0, 1.0, -0.2, 0.8], [0.5, 0.5, 0.9, 0.1]])
    rng = np.random.default_rng(0)
    copia_2 = np.eye(4, 2)
    W_q = np.hstack([copia_2, rng.normal(size=(4, 2))])
    W_k = np.hstack([copia_2, rng.normal(size=(4, 2))])
    W_v = np.hstack([10 * copia_2, rng.normal(size=(4, 2))])
    W_o = rng.normal(size=(4, 4))
    return X, W_q, W_k, W_v, W_o


def mecanismo_ao_vivo(X: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike, W_o: ArrayLike, n_heads: int,
                      q0: ArrayLike, k2: ArrayLike) -> dict[str, np.ndarray]:
    """As contas do painel: ``Q = X W_q``, ``K = X W_k``, ``V = X W_v``, com as coordenadas 0 e 1 da query do
    token 0 trocadas por ``q0`` e as da key do token 2 por ``k2``; depois, em cada cabeça,
    ``softmax(Q Kᵀ/√d_head)`` e ``pesos @ V`` (:func:`helpers.attention.scaled_dot_product_attention`), e
    as cabeças juntas vezes ``W_o``. Devolve ``Q, K, V`` ``(n, d_model)``, ``escores`` e ``pesos``
    ``(n_heads, n, n)`` e ``saida`` ``(n, d_out)``."""
    X = np.asarray(X, dtype=float)
    Q, K, V = X @ np.asarray(W_q, dtype=float), X @ np.asarray(W_k, dtype=float), X @ np.asarray(W_v, dtype=float)
    Q[0, :2] = np.asarray(q0, dtype=float)
    K[2, :2] = np.asarray(k2, dtype=float)
    Qh, Kh, Vh = (split_heads(M, n_heads) for M in (Q, K, V))
    d_head = Qh.shape[-1]
    escores = Qh @ np.swapaxes(Kh, -1, -2) / math.sqrt(d_head)
    saida_h, pesos = scaled_dot_product_attention(Qh, Kh, Vh)
    return {"Q": Q, "K": K, "V": V, "escores": escores, "pesos": pesos, "saida_h": saida_h,
            "saida": merge_heads(saida_h) @ np.asarray(W_o, dtype=float)}


#: quantas cabeças o painel pode ter (divisores de d_model = 4)
_CABECAS_PAINEL = (1, 2, 4)

#: o mapa de cores de X, Q, K, V e da saída, que têm sinal: divergente e legível por quem tem daltonismo (azul
#: para negativo, vermelho para positivo, branco no zero)
MAPA_DIVERGENTE = "RdBu_r"


def _cor_do_texto(valor: float, limite: float) -> str:
    """Texto branco sobre as cores escuras das pontas do mapa divergente, preto no resto."""
    return "white" if abs(valor) > 0.6 * limite else "black"


class FiguraMecanismoVivo:
    """A figura do painel: em cima, ``X``, ``Q``, ``K``, ``V`` (com as fronteiras das cabeças e as entradas que
    os sliders controlam contornadas); embaixo, os pesos de cada cabeça (com o escore de cada par) e a
    saída. Os artistas são criados uma vez; ``atualizar`` muda só dados e textos."""

    def __init__(self, fig: Figure, n: int, d_model: int, d_out: int, max_cabecas: int = 4):
        from matplotlib.patches import Rectangle

        base = mpl.rcParams["font.size"]  # o modo de apresentação aumenta tudo junto

        grade = fig.add_gridspec(2, max(4, max_cabecas + 1), height_ratios=(1, 1.15), hspace=0.55, wspace=0.35,
                                 left=0.04, right=0.99, top=0.9, bottom=0.05)
        self.n, self.d_model = n, d_model
        self.matrizes = {}
        for j, (nome, cor) in enumerate((("X", CORES["neutro"]), ("Q", CORES["q"]), ("K", CORES["k"]), ("V", CORES["v"]))):
            ax = fig.add_subplot(grade[0, j])
            img = ax.imshow(np.zeros((n, d_model)), cmap=MAPA_DIVERGENTE, vmin=-2, vmax=2)
            textos = [[ax.text(c, i, "", ha="center", va="center", fontsize=base - 2) for c in range(d_model)] for i in range(n)]
            ax.set_xticks(range(d_model))
            ax.set_yticks(range(n), [f"tok {i}" for i in range(n)])
            ax.tick_params(length=0, labelsize=base - 2)
            ax.grid(False)
            titulo = ax.set_title(nome, color=cor, fontsize=base)
            linhas = [ax.axvline(0.5, color="black", lw=2.5, visible=False) for _ in range(max_cabecas)]
            ax.set_xlim(-0.5, d_model - 0.5)
            ax.set_ylim(n - 0.5, -0.5)
            self.matrizes[nome] = (ax, img, textos, titulo, linhas)
        axq, axk = self.matrizes["Q"][0], self.matrizes["K"][0]
        # as entradas que os sliders controlam, contornadas (por cima das imagens: são desenhadas depois delas)
        self.destaques = [axq.add_patch(Rectangle((-0.45, -0.45), 1.9, 0.9, fill=False, ec=CORES["destaque"], lw=3)),
                          axk.add_patch(Rectangle((-0.45, 1.55), 1.9, 0.9, fill=False, ec=CORES["destaque"], lw=3))]
        self.cabecas = []
        for h in range(max_cabecas):
            ax = fig.add_subplot(grade[1, h])
            img = ax.imshow(np.zeros((n, n)), cmap=MAPA, vmin=0, vmax=1)
            textos = [[ax.text(j, i, "", ha="center", va="center", fontsize=base - 2) for j in range(n)] for i in range(n)]
            ax.set_xticks(range(n), [f"k{j}" for j in range(n)])
            ax.set_yticks(range(n), [f"q{i}" for i in range(n)])
            ax.tick_params(length=0, labelsize=base - 2)
            ax.grid(False)
            titulo = ax.set_title("", fontsize=base - 1)
            self.cabecas.append((ax, img, textos, titulo))
        ax = fig.add_subplot(grade[1, max_cabecas])
        img = ax.imshow(np.zeros((n, d_out)), cmap=MAPA_DIVERGENTE, vmin=-10, vmax=10)
        textos = [[ax.text(c, i, "", ha="center", va="center", fontsize=base - 2) for c in range(d_out)] for i in range(n)]
        ax.set_xticks(range(d_out))
        ax.set_yticks(range(n), [f"tok {i}" for i in range(n)])
        ax.tick_params(length=0, labelsize=base - 2)
        ax.grid(False)
        ax.set_title("saída = juntar · W_o", color=CORES["saida"], fontsize=base)
        self.saida = (ax, img, textos)
        self.titulo = fig.suptitle("", fontsize=base + 1)

    def artistas_dinamicos(self) -> list:
        """Tudo o que muda de um movimento para outro (o resto fica no fundo, desenhado uma vez)."""
        dinamicos: list = [self.titulo]
        for nome, (_ax, img, textos, titulo, linhas) in self.matrizes.items():
            dinamicos.append(titulo)
            if nome in ("Q", "K"):  # X e V não dependem de nenhum controle: ficam no fundo, desenhados uma vez
                dinamicos += [img, *(t for linha in textos for t in linha)]
            dinamicos += linhas  # as fronteiras das cabeças depois (por cima) das imagens
        for _ax, img, textos, titulo in self.cabecas:
            dinamicos += [img, titulo, *(t for linha in textos for t in linha)]
        _ax, img, textos = self.saida
        return dinamicos + [img, *(t for linha in textos for t in linha), *self.destaques]

    def atualizar(self, X: np.ndarray, contas: dict[str, np.ndarray], n_heads: int) -> None:
        d_head = self.d_model // n_heads
        for nome, M in (("X", X), ("Q", contas["Q"]), ("K", contas["K"]), ("V", contas["V"])):
            ax, img, textos, titulo, linhas = self.matrizes[nome]
            img.set_data(np.clip(M, -2, 2))
            for i in range(M.shape[0]):
                for c in range(M.shape[1]):
                    textos[i][c].set_text(f"{M[i, c]:.1f}")
                    textos[i][c].set_color(_cor_do_texto(M[i, c], 2.0))
            forma = f"({M.shape[0]}, {M.shape[1]})"
            titulo.set_text(nome + (f" {forma}: {n_heads} × ({M.shape[0]}, {d_head})" if nome != "X" else f" {forma}"))
            for h, linha in enumerate(linhas):  # a fronteira entre as cabeças h e h + 1
                x = (h + 1) * d_head - 0.5
                linha.set_xdata([x, x])
                linha.set_visible(nome != "X" and h < n_heads - 1)
        for h, (_ax, img, textos, titulo) in enumerate(self.cabecas):
            if h >= n_heads:  # a cabeça não existe com este n_heads: o quadro fica vazio
                img.set_data(np.full((self.n, self.n), np.nan))
                for linha in textos:
                    for t in linha:
                        t.set_text("")
                titulo.set_text(f"(não há cabeça {h})")
                continue
            w, z = contas["pesos"][h], contas["escores"][h]
            img.set_data(w)
            for i in range(self.n):
                for j in range(self.n):
                    textos[i][j].set_text(f"{w[i, j]:.2f}\n(z {z[i, j]:.1f})")
                    textos[i][j].set_color("black" if w[i, j] > 0.6 else "white")
            titulo.set_text(f"cabeça {h}: pesos (escores)")
        ax, img, textos = self.saida
        S = contas["saida"]
        img.set_data(S)
        for i in range(S.shape[0]):
            for c in range(S.shape[1]):
                textos[i][c].set_text(f"{S[i, c]:.1f}")
                textos[i][c].set_color(_cor_do_texto(S[i, c], 10.0))
        self.titulo.set_text(f"X → Q, K, V → escores → pesos (softmax) → saída, com {n_heads} cabeça"
                             f"{'s' if n_heads > 1 else ''} de d_head = {d_head}")


class PainelMecanismo(PainelRedesenhaSoOQueMuda):
    """O painel de :func:`painel_mecanismo`. A figura estática é a do estado atual sem os quadros das cabeças
    que não existem com o ``n_heads`` escolhido (no painel vivo eles ficam, vazios, prontos para 4 cabeças)."""

    figura: FiguraMecanismoVivo

    def figura_estatica(self) -> Image:
        vazios = [ax for h, (ax, *_resto) in enumerate(self.figura.cabecas) if h >= self.estado["n_heads"]]
        for ax in vazios:
            ax.set_visible(False)
        try:
            return Image(data=plots.png(self.fig), format="png")
        finally:
            for ax in vazios:
                ax.set_visible(True)


def painel_mecanismo(X: ArrayLike | None = None, W_q: ArrayLike | None = None, W_k: ArrayLike | None = None,
                     W_v: ArrayLike | None = None, W_o: ArrayLike | None = None, *, n_heads: int = 2,
                     q0: tuple[float, float] = (1.0, 0.0), k2: tuple[float, float] = (0.5, 0.5)
                     ) -> PainelMecanismo:
    """O mecanismo inteiro ao vivo, por cabeça. Sliders: as coordenadas 0 e 1 da **query do token 0**
    (``q_x``, ``q_y``), as da **key do token 2** (``k_x``, ``k_y``) e o número de cabeças (1, 2 ou 4).

    Sem argumentos, usa :func:`exemplo_da_revisao`; no estado inicial (2 cabeças, ``q = (1, 0)``,
    ``k₂ = (0.5, 0.5)``), a linha do token 0 na cabeça 0 são os pesos do Exemplo 1. Estado: ``n_heads``,
    ``d_head``, ``pesos`` ``(n_heads, n, n)``, ``escores``, ``saida`` e ``pesos_q0`` (a linha do token 0
    na cabeça 0).
    """
    padrao = exemplo_da_revisao()
    X, W_q, W_k, W_v, W_o = (np.asarray(a if a is not None else b, dtype=float)
                             for a, b in zip((X, W_q, W_k, W_v, W_o), padrao))
    fig, _ = plots.nova_figura(11.6, 5.2)  # cabe ao lado das margens do JupyterLab numa janela de 1400 px
    fig.delaxes(fig.axes[0])
    figura = FiguraMecanismoVivo(fig, X.shape[0], W_q.shape[1], W_o.shape[1])
    estilo = {"continuous_update": True, "style": {"description_width": "initial"}, "layout": W.Layout(width="320px")}
    controles = {
        "q_x": slider("query do token 0, coordenada 0", q0[0], -2.0, 2.0),
        "q_y": slider("query do token 0, coordenada 1", q0[1], -2.0, 2.0),
        "k_x": slider("key do token 2, coordenada 0", k2[0], -2.0, 2.0),
        "k_y": slider("key do token 2, coordenada 1", k2[1], -2.0, 2.0),
        "n_heads": W.SelectionSlider(options=list(_CABECAS_PAINEL), value=n_heads, description="cabeças (n_heads)",
                                     **estilo),
    }

    def calcular(v: dict[str, Any]) -> dict[str, Any]:
        h = int(v["n_heads"])
        contas = mecanismo_ao_vivo(X, W_q, W_k, W_v, W_o, h, (v["q_x"], v["q_y"]), (v["k_x"], v["k_y"]))
        figura.atualizar(X, contas, h)
        pesos_q0 = contas["pesos"][0, 0]
        html_ = tabela([
            ("cabeças", f"{h} de d_head = {W_q.shape[1] // h} (d_model = {W_q.shape[1]})"),
            ("query do token 0 (coordenadas 0 e 1)", f"({v['q_x']:.1f}, {v['q_y']:.1f})"),
            ("key do token 2 (coordenadas 0 e 1)", f"({v['k_x']:.1f}, {v['k_y']:.1f})"),
            ("pesos do token 0 na cabeça 0", ", ".join(f"{x:.3f}" for x in pesos_q0)),
            ("saída do token 0 na cabeça 0", ", ".join(f"{x:.3f}" for x in contas["saida_h"][0, 0])),
            ("saída final do token 0 (depois de W_o)", ", ".join(f"{x:.2f}" for x in contas["saida"][0])),
        ])
        return {"n_heads": h, "d_head": W_q.shape[1] // h, "pesos": contas["pesos"], "escores": contas["escores"],
                "saida": contas["saida"], "pesos_q0": pesos_q0, "html": html_}

    painel = PainelMecanismo(fig, controles, calcular, "O mecanismo inteiro, ao vivo: mexa na query, numa key e nas "
                                                       "cabeças", figura.artistas_dinamicos())
    painel.figura = figura
    return painel


# --- prever: o peso da key esticada -----------------------------------------------------------------


def _peso_k3(escala: bool = True, esticada: bool = True) -> float:
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0] if esticada else [0.5, 0.5]])
    z = K @ np.array([1.0, 0.0])
    return float(softmax(z / math.sqrt(2) if escala else z)[2])


class _NumeroNaProsa(NumeroAproximado):
    """:class:`NumeroAproximado` que se mostra com vírgula decimal (a resposta aparece numa frase em português)."""

    def mostrar(self, x: float) -> str:
        return super().mostrar(x).replace(".", ",")


PREVISAO_K3 = Previsao(
    nome="o peso da key esticada",
    certo=lambda: _peso_k3(),
    revelar="O escore de k₃ dobra (de 0,5 para 1, antes da escala), e passa a empatar com o de k₁: os dois pesos "
            "ficam em 0,401, e k₂ em 0,198. O produto escalar leva o comprimento em conta; o cosseno, não.",
    formato=_NumeroNaProsa(2),
    erros=[
        Erro("o cosseno no lugar do produto escalar",
             "Você manteve o peso de antes (0,32): esticar uma key sem mudar a direção dela não muda o cosseno, mas "
             "muda o produto escalar — o escore dobra.",
             resposta=lambda: _peso_k3(esticada=False)),
        Erro("sem a escala √d",
             "Você fez a softmax dos escores sem dividir por √2: a atenção divide por √d antes da softmax.",
             resposta=lambda: _peso_k3(escala=False)),
        Erro("o empate leva metade",
             "k₃ empata com k₁, mas k₂ continua na conta: o peso não é 1/2, os três dividem o total.",
             resposta=lambda: 0.5),
    ],
)


@corretor_de(PREVISAO_K3)
def check_previsao_k3_esticada(previsao: Any) -> bool:
    """Mostra e confere a previsão: com ``q = (1, 0)`` e as keys do Exemplo 1, esticar ``k₃`` para ``(1, 1)``
    dá a ``k₃`` o peso ``softmax((1, 0, 1)/√2)[2] ≈ 0.401``. Aceita vírgula decimal e o arredondamento em duas
    casas; reconhece cada erro de :data:`PREVISAO_K3`."""
    return conferir_previsao(PREVISAO_K3, previsao)
