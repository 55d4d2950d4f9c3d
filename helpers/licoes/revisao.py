"""Lição "Revisão" (notebook ``revisao``): o diagrama do mecanismo inteiro, o quiz e o corretor do mecanismo.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import matplotlib as mpl
import numpy as np
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
from ..corretor import ERRO, OK, PENDENTE, Caso, Erro, Exercicio, SaidaOuPar, conferir, corretor_de
from ..data import carregar_quiz
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
        rotulo = "d_k" if nome[0] in "QK" else "d_v"
        _caixa(ax, 3.9, y, f"{nome}\n(n, {rotulo}) = ({n}, {d})", cor, largura=2.2)
        _flecha(ax, (2.05, y_k), (2.8, y), deslocamento=(0, 0))

    _caixa(ax, 6.85, y_z, f"escores\nz = Q Kᵀ / √d_k\n(n, n) = ({n}, {n})", CORES["destaque"], largura=2.4,
           altura=1.45)
    _flecha(ax, (5.0, y_q), (5.65, y_z + 0.3))
    _flecha(ax, (5.0, y_k), (5.65, y_z - 0.3))
    _caixa(ax, 10.8, y_z, "pesos = softmax(z)\npor linha (n, n):\ncada linha soma 1", CORES["extra"], largura=2.5,
           altura=1.45)
    _flecha(ax, (8.05, y_z), (9.55, y_z), rotulo="máscara:\n-inf antes", deslocamento=(0, 0.08))

    _caixa(ax, 10.8, 2.2, f"saída da cabeça\npesos @ V\n(n, d_v) = ({n}, {d_v})", CORES["saida"], largura=2.5,
           altura=1.45)
    _flecha(ax, (10.8, y_z - 0.73), (10.8, 2.93))
    _flecha(ax, (5.0, y_v), (9.55, 2.2), curva=0.12)
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
        try:
            resposta = float(resposta.strip().replace(",", "."))
        except ValueError:
            return None
    try:
        valor = float(resposta)
    except (TypeError, ValueError):
        return None
    return valor if math.isfinite(valor) else None

def _fmt_num(x: float) -> str:
    return f"{x:g}"


def avaliar_resposta(pergunta: Any, resposta: Any) -> tuple[str, str]:
    """Corrige uma resposta: ``(situação, mensagem)``, com situação ``"certa"``, ``"errada"`` ou ``"pendente"``.

    A mensagem diz, em português, **por que** a resposta está errada (a explicação específica da
    opção escolhida ou do valor errado reconhecido) e qual notebook rever.
    """
    cab = f"Pergunta {pergunta.numero}"
    rever = f"\n      ↪ reveja o {pergunta.revisar}."
    if resposta is None:
        return "pendente", f"{PENDENTE} {cab}: ainda não respondida."
    if pergunta.tipo == "escolha":
        letras = ", ".join(pergunta.opcoes)
        letra = _letra(resposta)
        if letra is None or letra not in pergunta.opcoes:
            return "errada", (f"{ERRO} {cab}: responda com uma das letras {letras}, como texto (entre aspas, "
                              f"por exemplo \"a\"); veio {resposta!r}.")
        if letra == pergunta.resposta:
            return "certa", f"{OK} {cab}: ({letra}) certo! {pergunta.explicacao}"
        return "errada", f"{ERRO} {cab}: ({letra}) não. {pergunta.erros[letra]}" + rever
    valor = _numero_da_resposta(resposta)
    if valor is None:
        return "errada", f"{ERRO} {cab}: a resposta é um número (por exemplo 3 ou 0.25); veio {resposta!r}."
    if abs(valor - pergunta.resposta) <= pergunta.tolerancia:
        return "certa", f"{OK} {cab}: {_fmt_num(valor)}, certo! {pergunta.explicacao}"
    for erro in pergunta.erros_numericos:
        if abs(valor - erro.valor) <= erro.tolerancia:
            return "errada", f"{ERRO} {cab}: {_fmt_num(valor)} não. {erro.explicacao}" + rever
    return "errada", f"{ERRO} {cab}: {_fmt_num(valor)} não. Dica: {pergunta.dica}" + rever

def check_quiz(respostas: Any) -> bool:
    """Corrige o quiz de revisão do notebook 10 e imprime um veredito por pergunta.

    ``respostas`` é um dicionário ``{número da pergunta: resposta}``: uma letra (``"a"``, ``"b"``, …)
    nas perguntas de escolha, um número nas numéricas, ``None`` nas que ainda não foram respondidas
    (elas aparecem como "ainda não respondida", sem erro). Cada resposta errada recebe a explicação
    do erro que leva **àquela** opção (ou àquele número) e o notebook para rever.
    Devolve ``True`` só se todas as perguntas estiverem certas.
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

def texto_do_quiz() -> str:
    """As perguntas do quiz em Markdown (para ``display(Markdown(...))`` no notebook), sem as respostas."""

    blocos = []
    for p in carregar_quiz():
        linhas = [f"**{p.numero}.** {p.enunciado} *(notebook {p.notebook})*", ""]
        if p.tipo == "escolha":
            linhas += [f"- **{letra})** {texto}" for letra, texto in p.opcoes.items()]
        else:
            linhas.append("- *Responda com um número.*")
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
