"""Corretores dos exercícios: cada um roda a função do estudante em casos pequenos, compara com a
referência de :mod:`helpers.attention`, imprime um veredito em português e devolve ``True``/``False``.

O veredito tenta dar nome ao erro a partir do *comportamento* da função (por exemplo: "dividiu por d
em vez de √d", "softmax no eixo errado", "máscara aplicada depois da softmax"), para que a mensagem
ensine alguma coisa. Uma função ainda não feita (``raise NotImplementedError`` ou que devolve
``None``) recebe um aviso amigável, e o notebook continua rodando.

Uso típico num notebook::

    ok = check_softmax(minha_softmax)
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .attention import scaled_dot_product_attention, softmax

OK = "✅"
ERRO = "❌"
PENDENTE = "⏳"


@dataclass(frozen=True)
class Veredito:
    """O resultado de uma checagem: ``ok`` e a mensagem em português mostrada ao estudante."""

    ok: bool
    mensagem: str


class _NaoImplementado(Exception):
    """A função do estudante ainda é o esqueleto."""


class _Excecao(Exception):
    """A função do estudante levantou uma exceção inesperada."""

    def __init__(self, original: BaseException, caso: str):
        super().__init__(str(original))
        self.original = original
        self.caso = caso


def rodar_checagem(checar: Callable[[], Veredito], nome: str) -> bool:
    """Roda ``checar``, imprime o veredito e devolve ``ok``; trata o esqueleto e as exceções."""
    try:
        veredito = checar()
    except _NaoImplementado:
        veredito = Veredito(
            False,
            f"{PENDENTE} `{nome}` ainda não foi implementada. Complete a função na célula acima, "
            "rode-a de novo e depois rode esta célula. (O resto do notebook funciona mesmo assim.)",
        )
    except _Excecao as exc:
        orig = exc.original
        veredito = Veredito(
            False,
            f"{ERRO} `{nome}` levantou {type(orig).__name__} {exc.caso}: {orig}\n"
            + _explica_excecao(orig),
        )
    print(veredito.mensagem)
    return veredito.ok


def _explica_excecao(exc: BaseException) -> str:
    texto = str(exc)
    if "matmul" in texto or "shapes" in texto or "aligned" in texto or "broadcast" in texto:
        return (
            "Dica: isso é um erro de forma num produto de matrizes. Os escores são q @ Kᵀ "
            "(forma (n_q, d) @ (d, n_k) = (n_q, n_k)) e a saída é pesos @ V ((n_q, n_k) @ (n_k, d_v)). "
            "Confira se você transpôs K e se a ordem dos fatores está certa."
        )
    return "Dica: leia a mensagem acima, corrija a função e rode as duas células de novo."


def _chamar(fn: Callable[..., Any], caso: str, *args: Any, **kwargs: Any) -> Any:
    """Chama a função do estudante; converte esqueleto/exceções nos tipos acima."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # overflow em exp vira resultado, não aviso
            with np.errstate(all="ignore"):
                resultado = fn(*args, **kwargs)
    except NotImplementedError as exc:
        raise _NaoImplementado from exc
    except Exception as exc:  # noqa: BLE001 - o erro é do estudante e vira explicação
        raise _Excecao(exc, caso) from exc
    if resultado is None:
        raise _NaoImplementado
    return resultado


def _array(x: Any) -> np.ndarray | None:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None
    return arr


def _perto(a: np.ndarray | None, b: np.ndarray, tol: float = 1e-6) -> bool:
    return a is not None and a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol))


def _fmt(x: np.ndarray) -> str:
    return np.array2string(np.asarray(x, dtype=float), precision=4, suppress_small=True, separator=", ")


# ---------------------------------------------------------------------------------------------
# softmax
# ---------------------------------------------------------------------------------------------


def check_softmax(fn: Callable[[np.ndarray], Any]) -> bool:
    """Confere uma softmax ``fn(x)`` ao longo do **último** eixo.

    Casos: um vetor pequeno, uma matriz ``(2, 3)`` (cada linha deve somar 1), escores enormes
    (``[1000, 1001, 1002]``, que estouram ``exp`` sem subtrair o máximo) e escores negativos.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_softmax(fn), nome)


def _veredito_softmax(fn: Callable[[np.ndarray], Any]) -> Veredito:
    x1 = np.array([1.0, 2.0, 3.0])
    r1 = softmax(x1)
    y1 = _array(_chamar(fn, "com x = [1., 2., 3.]", x1.copy()))
    if y1 is None or y1.shape != x1.shape:
        forma = None if y1 is None else y1.shape
        return Veredito(False, f"{ERRO} Para x de forma {x1.shape} a saída deveria ter a mesma forma; veio {forma}.")
    if not _perto(y1, r1):
        if _perto(y1, x1 / x1.sum()):
            return Veredito(
                False,
                f"{ERRO} Você normalizou x diretamente (x / soma(x)), sem exponenciar. A softmax usa "
                "exp(x) / soma(exp(x)): a exponencial garante pesos positivos mesmo com escores negativos.",
            )
        if np.all(np.isfinite(y1)) and float(np.sum(y1)) > 0 and _perto(y1 / np.sum(y1), r1):
            return Veredito(
                False,
                f"{ERRO} Os pesos têm as proporções certas, mas você esqueceu de dividir pela soma: "
                f"para x = [1, 2, 3] eles somam {float(np.sum(y1)):.4f}, e precisam somar 1.",
            )
        if not math.isclose(float(np.sum(y1)), 1.0, rel_tol=1e-6):
            return Veredito(
                False,
                f"{ERRO} Os pesos não somam 1 (para x = [1, 2, 3] a soma deu {float(np.sum(y1)):.4f}). "
                "Divida exp(x) pela soma de exp(x).",
            )
        return Veredito(False, f"{ERRO} Para x = [1, 2, 3] esperava {_fmt(r1)}, veio {_fmt(y1)}.")

    x2 = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])
    r2 = softmax(x2, axis=-1)
    y2 = _array(_chamar(fn, "com uma matriz (2, 3)", x2.copy()))
    if y2 is None or y2.shape != x2.shape:
        forma = None if y2 is None else y2.shape
        return Veredito(False, f"{ERRO} Para x de forma {x2.shape} a saída deveria ter a mesma forma; veio {forma}.")
    if not _perto(y2, r2):
        if _perto(y2, softmax(x2, axis=0)):
            return Veredito(
                False,
                f"{ERRO} Softmax calculada no eixo errado: numa matriz (2, 3) as **colunas** da sua saída somam 1, "
                "mas cada **linha** (o último eixo) é que deve virar uma distribuição. Use axis=-1 e "
                "keepdims=True nas reduções (max e sum).",
            )
        if math.isclose(float(np.sum(y2)), 1.0, rel_tol=1e-6):
            return Veredito(
                False,
                f"{ERRO} Você normalizou pela soma da matriz inteira: a matriz toda soma 1, mas cada linha "
                "deveria somar 1. Some só ao longo do último eixo (axis=-1, keepdims=True).",
            )
        return Veredito(
            False,
            f"{ERRO} Numa matriz (2, 3) cada linha deveria somar 1 e valer {_fmt(r2)}; veio {_fmt(y2)}. "
            "Calcule máximo e soma por linha (axis=-1, keepdims=True).",
        )

    x3 = np.array([1000.0, 1001.0, 1002.0])
    y3 = _array(_chamar(fn, "com escores grandes [1000, 1001, 1002]", x3.copy()))
    if y3 is None or not np.all(np.isfinite(y3)):
        return Veredito(
            False,
            f"{ERRO} Com escores grandes ([1000, 1001, 1002]) a saída tem NaN ou inf: exp(1000) estoura o "
            "float64. Subtraia o máximo antes de exponenciar — softmax(x) = softmax(x - max(x)), "
            "e aí exp nunca passa de 1.",
        )
    if not _perto(y3, softmax(x3)):
        return Veredito(False, f"{ERRO} Com escores grandes esperava {_fmt(softmax(x3))}, veio {_fmt(y3)}.")

    x4 = np.array([-3.0, -1.0, -2.0])
    y4 = _array(_chamar(fn, "com escores negativos", x4.copy()))
    if not _perto(y4, softmax(x4)):
        return Veredito(False, f"{ERRO} Com escores negativos esperava {_fmt(softmax(x4))}, veio {_fmt(y4)}.")
    return Veredito(
        True,
        f"{OK} Correto! Sua softmax é estável (escores de 1000 não estouram), trabalha no último eixo "
        "e produz pesos positivos que somam 1.",
    )


# ---------------------------------------------------------------------------------------------
# atenção
# ---------------------------------------------------------------------------------------------


def _aceita_mascara(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "mask" in params or "mascara" in params


def _saida(resultado: Any) -> np.ndarray | None:
    """Aceita ``output`` ou ``(output, weights)``."""
    if isinstance(resultado, tuple) and len(resultado) == 2:
        resultado = resultado[0]
    return _array(resultado)


def _variantes(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None) -> list[tuple[np.ndarray, str]]:
    """Saídas de implementações erradas conhecidas, cada uma com a explicação do erro."""
    d = q.shape[-1]
    scores = q @ k.T
    out: list[tuple[np.ndarray, str]] = []

    def pesos_para(s: np.ndarray) -> np.ndarray:
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        return softmax(s, axis=-1)

    out.append((pesos_para(scores) @ v, "Você esqueceu de escalar: os escores q·k devem ser divididos por √d antes da softmax."))
    out.append((pesos_para(scores / d) @ v, f"Você dividiu por d = {d} em vez de √d = √{d} ≈ {math.sqrt(d):.3g}: a escala é 1/√d."))
    out.append((pesos_para(scores * math.sqrt(d)) @ v, "Você multiplicou por √d em vez de dividir."))
    out.append((pesos_para(scores / math.sqrt(d)) @ k, "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values** (V)."))
    raw = scores / math.sqrt(d)
    if mask is not None:
        raw = np.where(mask, raw, 0.0)
    out.append((raw @ v, "Faltou a softmax: os escores escalados precisam virar pesos positivos que somam 1."))
    if q.ndim == 2 and q.shape[0] > 1:
        s = scores / math.sqrt(d)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        out.append((
            softmax(s, axis=0) @ v,
            "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha de q Kᵀ) devem somar 1, "
            "então a softmax age sobre o último eixo (as keys), não sobre as queries.",
        ))
    if mask is not None:
        w = softmax(scores / math.sqrt(d), axis=-1) * mask
        out.append((
            w @ v,
            "Máscara aplicada depois da softmax: zerar os pesos proibidos depois de normalizar deixa "
            "linhas que não somam 1 (e a posição proibida já influenciou o denominador). Aplique a "
            "máscara nos **escores**, trocando-os por -inf, e só então aplique a softmax.",
        ))
        inv = np.where(mask, -np.inf, scores / math.sqrt(d))
        out.append((
            softmax(inv, axis=-1) @ v,
            "Máscara invertida: True significa **pode olhar** (a convenção do PyTorch); você bloqueou as "
            "posições permitidas e liberou as proibidas.",
        ))
    if q.ndim == 2 and k.shape[0] == q.shape[1]:
        out.append((
            softmax(q @ k / math.sqrt(d), axis=-1) @ v,
            "Você multiplicou q @ K sem transpor K. Os escores são q @ Kᵀ: cada query com cada key.",
        ))
    return out


def _casos_atencao(rng: np.random.Generator) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    q = np.array([1.0, 0.0])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    v = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    casos = [("no exemplo resolvido (q (2,), K (3, 2), V (3, 2))", q, k, v)]
    q2 = rng.normal(size=4)
    k2 = rng.normal(size=(3, 4)) * 2.0
    v2 = rng.normal(size=(3, 2))
    casos.append(("com uma query de d = 4 (q (4,), K (3, 4), V (3, 2))", q2, k2, v2))
    return casos


def check_attention(fn: Callable[..., Any], *, varias_queries: bool = False) -> bool:
    """Confere uma atenção por produto escalar escalado ``fn(q, K, V)``.

    A função pode devolver só a saída ou ``(saída, pesos)``. Casos: o exemplo resolvido do texto
    (uma query 2-D contra três keys) e uma query com ``d = 4`` (onde dividir por ``d`` e por ``√d``
    dão resultados diferentes). Com ``varias_queries=True`` exige também uma matriz de queries
    ``q`` ``(n_q, d)``, o que permite reconhecer a softmax no eixo errado. Se a assinatura tiver um
    parâmetro ``mask`` (ou ``mascara``; booleano, ``True`` = pode olhar), confere a máscara —
    inclusive o erro clássico de aplicá-la depois da softmax (isso exige várias queries).
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_atencao(fn, varias_queries or _aceita_mascara(fn)), nome)


def _comparar_atencao(fn: Callable[..., Any], caso: str, q: np.ndarray, k: np.ndarray, v: np.ndarray,
                      mask: np.ndarray | None = None) -> Veredito | None:
    kwargs = {} if mask is None else {_nome_mascara(fn): mask.copy()}
    ref, _ = scaled_dot_product_attention(q, k, v, mask)
    y = _saida(_chamar(fn, caso, q.copy(), k.copy(), v.copy(), **kwargs))
    if _perto(y, ref):
        return None
    if y is not None and y.shape != ref.shape:
        return Veredito(
            False,
            f"{ERRO} {caso[0].upper() + caso[1:]}: a saída deveria ter forma {ref.shape} (uma linha por query, "
            f"com d_v colunas), mas veio {y.shape}. Os pesos (n_q, n_k) multiplicam V (n_k, d_v).",
        )
    for errado, explicacao in _variantes(q, k, v, mask):
        if _perto(y, errado):
            return Veredito(False, f"{ERRO} {explicacao}")
    return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava {_fmt(ref)}, veio {_fmt(y)}.")


def _nome_mascara(fn: Callable[..., Any]) -> str:
    return "mask" if "mask" in inspect.signature(fn).parameters else "mascara"


def _veredito_atencao(fn: Callable[..., Any], varias_queries: bool) -> Veredito:
    rng = np.random.default_rng(7)
    for caso, q, k, v in _casos_atencao(rng):
        falha = _comparar_atencao(fn, caso, q, k, v)
        if falha:
            return falha
    partes = ["Escores q·Kᵀ, escala 1/√d, softmax sobre as keys e soma ponderada dos values."]
    if varias_queries:
        qm = rng.normal(size=(2, 4))
        km = rng.normal(size=(3, 4)) * 2.0
        vm = rng.normal(size=(3, 2))
        falha = _comparar_atencao(fn, "com duas queries (q (2, 4), K (3, 4), V (3, 2))", qm, km, vm)
        if falha:
            return falha
        partes.append("Funciona para várias queries de uma vez (q de forma (n_q, d)).")
    if _aceita_mascara(fn):
        q4 = rng.normal(size=(3, 4))
        k4 = rng.normal(size=(4, 4)) * 2.0
        v4 = rng.normal(size=(4, 3))
        mask = np.tri(3, 4, dtype=bool)
        falha = _comparar_atencao(fn, "com uma máscara causal (q (3, 4), K (4, 4), V (4, 3))", q4, k4, v4, mask)
        if falha:
            return falha
        partes.append("A máscara está certa: -inf nos escores proibidos antes da softmax.")
    return Veredito(True, f"{OK} Correto! " + " ".join(partes))


# === 00 · produto escalar (primeiro exercício) ==================================================


def check_produto_escalar(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, k)`` = produto escalar ``Σ qᵢ kᵢ`` de dois vetores 1-D (um número).

    Reconhece: produto elemento a elemento sem a soma, soma dos vetores em vez dos produtos,
    produto das somas, e o uso de só uma coordenada.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_produto_escalar(fn), nome)


def _veredito_produto_escalar(fn: Callable[[np.ndarray, np.ndarray], Any]) -> Veredito:
    casos = [
        (np.array([1.0, 0.0]), np.array([0.5, 0.5])),
        (np.array([2.0, -1.0, 3.0]), np.array([1.0, 4.0, -2.0])),
        (np.array([3.0, 4.0]), np.array([-4.0, 3.0])),
    ]
    for q, k in casos:
        caso = f"com q = {q.tolist()} e k = {k.tolist()}"
        y = _array(_chamar(fn, caso, q.copy(), k.copy()))
        certo = float(q @ k)
        if y is not None and y.shape == () and math.isclose(float(y), certo, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if y is not None and y.shape == q.shape and np.allclose(y, q * k):
            return Veredito(False, f"{ERRO} Você multiplicou coordenada a coordenada ({_fmt(q * k)}), mas "
                                   "esqueceu de **somar** os produtos: q·k = q₁k₁ + q₂k₂ + … é um único número.")
        if y is not None and y.shape == q.shape and np.allclose(y, q + k):
            return Veredito(False, f"{ERRO} Você somou os vetores (q + k). O produto escalar multiplica as "
                                   "coordenadas correspondentes e soma os produtos.")
        if y is not None and y.shape == () and math.isclose(float(y), float(q.sum() * k.sum())):
            return Veredito(False, f"{ERRO} Você multiplicou as somas (Σq)(Σk). O certo é somar os produtos "
                                   "de cada par de coordenadas: Σ qᵢkᵢ.")
        if y is not None and y.shape == () and math.isclose(float(y), float(q[0] * k[0])):
            return Veredito(False, f"{ERRO} Você usou só a primeira coordenada. Some os produtos de **todas** "
                                   "as coordenadas (um laço ou np.sum(q * k)).")
        if y is not None and y.shape != ():
            return Veredito(False, f"{ERRO} {caso}: o produto escalar é um único número, mas veio um array de forma {y.shape}.")
        return Veredito(False, f"{ERRO} {caso}: esperava {certo:g}, veio {_fmt(y) if y is not None else y}.")
    return Veredito(True, f"{OK} Correto! q·k = Σ qᵢkᵢ. Repare no último caso: q = (3, 4) e k = (-4, 3) "
                          "são perpendiculares e o produto deu 0.")


# === 01 · gargalo recorrente ===================================================================


def check_passo_rnn(fn: Callable[..., Any]) -> bool:
    """Confere um passo de RNN ``fn(h, x, W_h, W_x, b)`` = ``tanh(W_h h + W_x x + b)``, forma ``(n,)``.

    Casos: o exemplo pequeno do notebook (``n = 2``, ``d = 3``, ``x`` *one-hot*) e um caso
    aleatório (``n = 3``, ``d = 4``). Reconhece: faltou o ``tanh``; outra não linearidade (sigmoide,
    ReLU); ``tanh`` só em parte da soma; faltou o viés ``b``; faltou o estado anterior (``W_h h``)
    ou a entrada (``W_x x``); ``W_h`` transposta (ou ``h @ W_h``); somou o ``h`` antigo;
    ``*`` em vez de ``@``; e as matrizes trocadas (o erro de forma é explicado).
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_passo_rnn(fn), nome)


def _casos_passo_rnn() -> list[tuple[str, tuple[np.ndarray, ...]]]:
    h = np.array([0.5, -1.0])
    x = np.array([0.0, 1.0, 0.0])
    W_h = np.array([[0.5, -0.2], [0.3, 0.8]])
    W_x = np.array([[1.0, -1.0, 0.5], [0.0, 2.0, -0.5]])
    b = np.array([0.1, -0.1])
    rng = np.random.default_rng(11)
    aleatorio = (rng.normal(size=3), rng.normal(size=4), rng.normal(size=(3, 3)), rng.normal(size=(3, 4)),
                 rng.normal(size=3))
    return [
        ("no exemplo pequeno (n = 2, d = 3)", (h, x, W_h, W_x, b)),
        ("num caso aleatório (n = 3, d = 4)", aleatorio),
    ]


def _variantes_passo_rnn(h: np.ndarray, x: np.ndarray, W_h: np.ndarray, W_x: np.ndarray,
                         b: np.ndarray) -> list[tuple[np.ndarray, str]]:
    pre = W_h @ h + W_x @ x + b
    return [
        (pre, "Faltou o tanh: W_h h + W_x x + b é só a soma; o novo estado é tanh(dessa soma). O tanh "
              "mantém cada número entre -1 e 1 — sem ele, o estado pode crescer sem limite passo após passo."),
        (1 / (1 + np.exp(-pre)), "Você usou a sigmoide, 1/(1 + e^(-z)), no lugar do tanh. As duas têm forma de S, "
                                  "mas a sigmoide vai de 0 a 1 e o tanh de -1 a 1 (o estado pode ser negativo)."),
        (np.maximum(pre, 0), "Você usou ReLU, max(0, z), no lugar do tanh."),
        (np.tanh(W_h @ h + W_x @ x), "Faltou o viés b: some b antes do tanh — tanh(W_h h + W_x x + b)."),
        (np.tanh(W_h @ h + W_x @ x) + b, "O viés b ficou fora do tanh: ele entra na soma, antes — tanh(W_h h + W_x x + b)."),
        (np.tanh(W_h @ h) + W_x @ x + b, "O tanh ficou só em W_h h: ele se aplica à soma inteira, "
                                           "tanh(W_h h + W_x x + b)."),
        (np.tanh(W_x @ x + b), "Faltou o estado anterior: sem W_h h o passo ignora tudo o que veio antes — "
                                "não há memória nenhuma. O novo estado depende de h e de x."),
        (np.tanh(W_h @ h + b), "Faltou a entrada: sem W_x x o token atual nunca entra no estado."),
        (np.tanh(W_h.T @ h + W_x @ x + b), "W_h entrou transposta (por exemplo h @ W_h): a convenção aqui é "
                                             "matriz @ vetor, W_h @ h, em que a linha i de W_h diz como o "
                                             "novo h[i] depende do estado antigo."),
        (h + np.tanh(pre), "Você somou o estado antigo ao resultado (h + tanh(…)). Na RNN simples o novo "
                           "estado é só tanh(W_h h + W_x x + b) — ele substitui o antigo."),
    ]


def _explica_forma_rnn(fn: Callable[..., Any], exc: _Excecao) -> Veredito:
    """Um erro de forma: confere num caso quadrado (n = d) se as matrizes foram trocadas."""
    n = 2
    rng = np.random.default_rng(5)
    h, x, W_h, W_x, b = rng.normal(size=n), rng.normal(size=n), rng.normal(size=(n, n)), rng.normal(size=(n, n)), rng.normal(size=n)
    formas = ("Lembre as formas: h (n,), x (d,), W_h (n, n), W_x (n, d), b (n,). W_h multiplica o estado "
              "(W_h @ h: (n, n) @ (n,) → (n,)) e W_x multiplica o token (W_x @ x: (n, d) @ (d,) → (n,)).")
    try:
        y = _array(_chamar(fn, "num caso quadrado (n = d = 2)", h, x, W_h, W_x, b))
    except (_Excecao, _NaoImplementado):
        y = None
    if _perto(y, np.tanh(W_x @ h + W_h @ x + b)):
        return Veredito(False, f"{ERRO} Você trocou as matrizes: usou W_x com o estado h e W_h com o token x. "
                               f"No exemplo (n = 2, d = 3) isso nem roda — numpy reclamou: {exc.original}. "
                               + formas)
    if _perto(y, np.tanh(h @ W_h + x @ W_x + b)):
        return Veredito(False, f"{ERRO} Você escreveu o vetor à esquerda (h @ W_h, x @ W_x), a convenção de "
                               f"vetor-linha. Aqui a matriz vem à esquerda: W_h @ h e W_x @ x. No exemplo "
                               f"(n = 2, d = 3) numpy reclamou: {exc.original}. " + formas)
    return Veredito(False, f"{ERRO} Erro de forma {exc.caso}: {exc.original}\n" + formas
                    + " Confira qual matriz multiplica qual vetor e a ordem dos fatores (matriz @ vetor).")


def _veredito_passo_rnn(fn: Callable[..., Any]) -> Veredito:
    for caso, args in _casos_passo_rnn():
        h, x, W_h, W_x, b = args
        certo = np.tanh(W_h @ h + W_x @ x + b)
        try:
            y = _array(_chamar(fn, caso, *(a.copy() for a in args)))
        except _Excecao as exc:
            texto = str(exc.original)
            if isinstance(exc.original, ValueError) and any(
                    p in texto for p in ("matmul", "shapes", "aligned", "broadcast", "mismatch")):
                return _explica_forma_rnn(fn, exc)
            raise
        if _perto(y, certo):
            continue
        n = h.shape[0]
        if y is not None and y.shape == (n, n):
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: h_novo veio com forma {y.shape}, mas "
                                   f"deveria ser ({n},), o mesmo tamanho de h. Você usou * (elemento a elemento) "
                                   "em vez de @ (produto matriz-vetor)?")
        if y is None or y.shape != (n,):
            forma = None if y is None else y.shape
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: h_novo deveria ter forma ({n},) — o "
                                   f"mesmo tamanho de h, sempre —, mas veio {forma}.")
        for errado, explicacao in _variantes_passo_rnn(h, x, W_h, W_x, b):
            if _perto(y, errado):
                return Veredito(False, f"{ERRO} {explicacao}")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava {_fmt(certo)}, veio {_fmt(y)}.")
    h, x, W_h, W_x, b = _casos_passo_rnn()[0][1]
    return Veredito(True, f"{OK} Correto! h_novo = tanh(W_h h + W_x x + b). No exemplo pequeno: "
                          f"{_fmt(np.tanh(W_h @ h + W_x @ x + b))} — ainda 2 números, como o h de antes.")


# === 02 · produto escalar =======================================================================


def check_escores(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, K)``: os escores ``q·kᵢ`` de uma query ``(d,)`` contra as keys ``K`` ``(n, d)``,
    todos de uma vez, num vetor ``(n,)`` na ordem das keys.

    Reconhece: produto elemento a elemento sem a soma, soma no eixo errado, soma de tudo num número
    só, ``q @ K`` sem transpor (o erro de forma e, com ``K`` quadrada, o resultado silenciosamente
    errado), cosseno no lugar do produto escalar, keys ou query normalizadas, valor absoluto e
    escores devolvidos já ordenados.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_escores(fn), nome)


def _casos_escores() -> list[tuple[str, np.ndarray, np.ndarray]]:
    return [
        ("com q (3,) e K (4, 3)", np.array([2.0, 0.0, 1.0]),
         np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0], [3.0, 0.0, 1.0], [-1.0, 1.0, 2.0]])),
        ("com q (2,) e K (2, 2), uma K quadrada", np.array([1.0, 2.0]), np.array([[3.0, 1.0], [0.0, 2.0]])),
        ("no exemplo da seção 4: q = (1, 0), keys (1, 0), (0, 1) e (0.5, 0.5)", np.array([1.0, 0.0]),
         np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])),
    ]


def _erros_escores(q: np.ndarray, K: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """Saídas de implementações erradas conhecidas de ``escores``, cada uma com a explicação."""
    certo = K @ q
    nq, nk = np.linalg.norm(q), np.linalg.norm(K, axis=1)
    erros: list[tuple[np.ndarray, str]] = [
        (q * K, "Você multiplicou coordenada a coordenada (q * K dá uma matriz (n, d)), mas esqueceu de "
                "**somar** os produtos de cada key: some ao longo do último eixo, np.sum(q * K, axis=-1), "
                "ou use K @ q."),
        (np.sum(q * K, axis=0), "Você somou no eixo errado: np.sum(q * K, axis=0) soma as keys entre si, "
                                "coordenada por coordenada, e dá um vetor (d,). Cada escore é a soma ao longo "
                                "das coordenadas de uma key: axis=-1 (ou K @ q)."),
        (np.array(np.sum(q * K)), "Você somou tudo num número só (a soma de todos os escores). Queremos um "
                                  "escore por key: um vetor (n,), com q·kᵢ na posição i."),
        (certo / (nq * nk), "Você calculou o **cosseno** (q·k dividido por |q||k|), não o produto escalar. "
                            "A atenção usa q·k puro: o comprimento dos vetores também conta."),
        (certo / nk, "Você normalizou as keys (dividiu cada kᵢ por |kᵢ|) antes do produto. Use as keys como "
                     "vieram: uma key mais longa deve dar um escore maior."),
        (certo / nq, "Você normalizou a query (dividiu q por |q|) antes do produto. Use q como veio: o "
                     "comprimento de q multiplica todos os escores, e isso importa para a softmax."),
        (np.abs(certo), "Você tirou o valor absoluto: uma key que aponta para o lado oposto de q tem escore "
                        "**negativo**, e isso é informação (ela casa pior que uma key perpendicular, de escore 0)."),
        (np.sort(certo)[::-1], "Você devolveu os escores já ordenados. A posição i do resultado deve ser o "
                               "escore da key i (na ordem das linhas de K); ordenar é outro passo (np.argsort)."),
        (np.sort(certo), "Você devolveu os escores ordenados. A posição i do resultado deve ser o escore da "
                         "key i (na ordem das linhas de K); ordenar é outro passo (np.argsort)."),
    ]
    if K.shape[0] == K.shape[1]:
        erros.append((q @ K, "Você calculou q @ K sem transpor. Com K quadrada isso roda, mas combina as "
                             "**linhas** de K usando os números de q como pesos; não compara q com cada key. "
                             "Cada key é uma linha de K: use K @ q (ou q @ K.T)."))
    return erros


def _erro_de_forma_q_k(exc: _Excecao, q: np.ndarray, K: np.ndarray) -> Veredito | None:
    """``q @ K`` com ``K`` ``(n, d)`` e ``n != d`` levanta um erro de forma: explica qual."""
    texto = str(exc.original)
    if not ("matmul" in texto or "shapes" in texto or "aligned" in texto or "broadcast" in texto):
        return None
    n, d = K.shape
    return Veredito(
        False,
        f"{ERRO} Erro de forma {exc.caso}: {type(exc.original).__name__}: {texto}\n"
        f"Aqui q tem forma ({d},) e K tem forma ({n}, {d}): **uma key por linha**. q @ K tentaria casar as "
        f"{d} coordenadas de q com as {n} linhas de K, e isso não fecha. Para comparar q com cada linha, "
        f"use K @ q ((n, d) @ (d,) = (n,)) ou q @ K.T ((d,) @ (d, n) = (n,)).",
    )


def _veredito_escores(fn: Callable[[np.ndarray, np.ndarray], Any]) -> Veredito:
    for caso, q, K in _casos_escores():
        try:
            y = _array(_chamar(fn, caso, q.copy(), K.copy()))
        except _Excecao as exc:
            explicado = _erro_de_forma_q_k(exc, q, K)
            if explicado:
                return explicado
            raise
        certo = K @ q
        if _perto(y, certo):
            continue
        for errado, explicacao in _erros_escores(q, K):
            if _perto(y, np.asarray(errado, dtype=float)):
                return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}: esperava {_fmt(certo)}, veio {_fmt(y)}.)")
        forma = None if y is None else y.shape
        if forma != certo.shape:
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava um vetor de forma {certo.shape} "
                                   f"(um escore por key), veio forma {forma}.")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava {_fmt(certo)}, veio {_fmt(y)}.")
    return Veredito(True, f"{OK} Correto! Os escores são K @ q: um produto escalar por linha de K, na ordem das keys. "
                          "No exemplo da seção 4 eles dão (1, 0, 0.5): k₁ em 1º lugar, k₃ em 2º, k₂ em 3º.")



# === 03 · escala √d ============================================================================


def check_escores_escalados(fn: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Confere ``fn(q, K)`` = ``K @ q / √d``: os escores de uma query ``(d,)`` contra as keys
    ``K`` ``(n, d)``, divididos pela raiz da dimensão ``d`` (o comprimento de cada vetor).

    Reconhece: sem escala, dividir por ``d``, multiplicar por ``√d``, dividir por ``d/2`` (a
    precedência de ``d ** 1/2``), dividir pela raiz do **número de keys**, a softmax já aplicada e, com
    a escala certa, os erros do produto escalar de :func:`check_escores`.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_escores_escalados(fn), nome)


def _casos_escores_escalados() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(16)
    return [
        ("com d = 16 (q (16,), K (3, 16))", rng.normal(size=16).round(1), rng.normal(size=(3, 16)).round(1)),
        ("no exemplo do notebook 02 (d = 2: q = (1, 0), keys (1, 0), (0, 1) e (0.5, 0.5))", np.array([1.0, 0.0]),
         np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])),
    ]


def _erros_escala(q: np.ndarray, K: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """Saídas de escalas erradas conhecidas, cada uma com a explicação."""
    s = K @ q
    n, d = K.shape
    r = math.sqrt(d)
    return [
        (s, f"Faltou a escala: você devolveu os escores q·kᵢ crus. Divida por √d (aqui √{d} ≈ {r:.3g}), "
            "senão a variância dos escores cresce com d e a softmax satura."),
        (s / d, f"Você dividiu por d = {d} em vez de √d = √{d} ≈ {r:.3g}. Dividir por d encolhe demais: a "
                "variância vira 1/d e, com d grande, todos os escores ficam perto de 0 (pesos quase uniformes)."),
        (s * r, f"Você multiplicou por √d em vez de dividir: os escores ficaram {d} vezes maiores que o certo."),
        (s / (d / 2), f"Você dividiu por d/2 = {d / 2:g}. Cuidado com a precedência: d ** 1/2 é (d ** 1) / 2, "
                      "não a raiz. Use np.sqrt(d) ou d ** 0.5."),
        (s / (2 * d), f"Você dividiu por 2d = {2 * d}. Cuidado com a precedência: em K @ q / d ** 1/2 o Python "
                      "calcula d ** 1 primeiro e depois divide da esquerda para a direita, ((K @ q) / d) / 2. "
                      "A raiz é np.sqrt(d) ou d ** 0.5 (com parênteses: K @ q / d ** 0.5)."),
        (s / math.sqrt(n), f"Você dividiu pela raiz do **número de keys** (n = {n}), não da dimensão. O d da "
                           f"escala é o tamanho de cada vetor: K.shape[1] (ou len(q)) = {d}."),
        (softmax(s / r), "Você já aplicou a softmax. Aqui queremos só os escores escalados, K @ q / √d; a "
                         "softmax é o passo seguinte (notebook 04)."),
    ]


def _veredito_escores_escalados(fn: Callable[[np.ndarray, np.ndarray], Any]) -> Veredito:
    for caso, q, K in _casos_escores_escalados():
        d = K.shape[1]
        try:
            y = _array(_chamar(fn, caso, q.copy(), K.copy()))
        except _Excecao as exc:
            explicado = _erro_de_forma_q_k(exc, q, K)
            if explicado:
                return explicado
            raise
        certo = K @ q / math.sqrt(d)
        if _perto(y, certo):
            continue
        for errado, explicacao in _erros_escala(q, K):
            if _perto(y, errado):
                return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}: esperava {_fmt(certo)}, veio {_fmt(y)}.)")
        for errado, explicacao in _erros_escores(q, K):
            if _perto(y, np.asarray(errado, dtype=float) / math.sqrt(d)):
                return Veredito(False, f"{ERRO} A divisão por √d está lá, mas os escores antes dela não estão certos. "
                                       f"{explicacao}")
        forma = None if y is None else y.shape
        if forma != certo.shape:
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava um vetor de forma {certo.shape} "
                                   f"(um escore por key), veio forma {forma}.")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava {_fmt(certo)}, veio {_fmt(y)}.")
    return Veredito(True, f"{OK} Correto! Escores escalados = K @ q / √d. No exemplo do notebook 02 (d = 2, √2 ≈ 1.414) "
                          "eles dão (0.707, 0, 0.354): os números que vão para a softmax (os do Exemplo 1).")



# === 04 · softmax ==============================================================================


def check_jacobiano_softmax(fn: Callable[[np.ndarray], Any]) -> bool:
    """Confere ``fn(z)`` = o jacobiano da softmax no vetor de escores ``z`` (1-D, tamanho ``n``).

    A resposta é a matriz ``(n, n)`` com ``J[i, j] = ∂sᵢ/∂zⱼ = sᵢ(δᵢⱼ − sⱼ)``, onde
    ``s = softmax(z)``; em forma matricial, ``diag(s) − s sᵀ``. Casos: os escores do exemplo
    resolvido, quatro escores com um negativo e escores enormes (``[1000, 1001, 999]``, que
    exigem uma softmax estável por dentro). Reconhece: só a diagonal (um vetor ``s(1 − s)``),
    sem o termo ``−sᵢsⱼ``, sem o ``δᵢⱼ``, sinal trocado, sem o fator ``sᵢ``, ``sᵢ`` no lugar de
    ``sⱼ`` e os escores ``z`` no lugar dos pesos ``s``.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_jacobiano_softmax(fn), nome)


def _variantes_jacobiano(z: np.ndarray, s: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """Jacobianos de implementações erradas conhecidas, cada um com a explicação do erro."""
    n = s.size
    eye = np.eye(n)
    return [
        (np.diag(s), "Faltou o termo −sᵢsⱼ: você devolveu só diag(s). Fora da diagonal o jacobiano não é 0 — "
                     "aumentar um escore **tira** peso dos outros (J[i, j] = −sᵢsⱼ para i ≠ j)."),
        (-np.outer(s, s), "Faltou o δᵢⱼ: na diagonal J[i, i] = sᵢ(1 − sᵢ), não −sᵢ². Some diag(s) a −s sᵀ."),
        (np.outer(s, s) - np.diag(s), "Sinal trocado: você calculou s sᵀ − diag(s). Aumentar zᵢ **aumenta** sᵢ, "
                                      "então a diagonal é positiva: J = diag(s) − s sᵀ."),
        (eye - s[None, :], "Faltou multiplicar por sᵢ: você calculou δᵢⱼ − sⱼ. O certo é sᵢ(δᵢⱼ − sⱼ), "
                           "ou seja, cada linha i multiplicada por sᵢ."),
        (s[:, None] * (eye - s[:, None]), "Você usou sᵢ onde deveria estar sⱼ: J[i, j] = sᵢ(δᵢⱼ − sⱼ), com o "
                                          "índice da **coluna** no segundo s. Em numpy: np.diag(s) - np.outer(s, s)."),
        (np.diag(z) - np.outer(z, z), "Você usou os escores z no lugar dos pesos s. Primeiro calcule "
                                      "s = softmax(z); o jacobiano é diag(s) − s sᵀ."),
    ]


def _veredito_jacobiano_softmax(fn: Callable[[np.ndarray], Any]) -> Veredito:
    casos = [
        ("com os escores do exemplo z = [0.707, 0, 0.354]", np.array([0.707, 0.0, 0.354])),
        ("com z = [2, -1, 0.5, 0]", np.array([2.0, -1.0, 0.5, 0.0])),
    ]
    for caso, z in casos:
        titulo_caso = caso[0].upper() + caso[1:]
        s = softmax(z)
        ref = np.diag(s) - np.outer(s, s)
        y = _array(_chamar(fn, caso, z.copy()))
        if _perto(y, ref):
            continue
        if y is not None and y.shape == s.shape:
            if _perto(y, s * (1 - s)):
                return Veredito(False, f"{ERRO} Você devolveu só a diagonal, sᵢ(1 − sᵢ), como um vetor {y.shape}. "
                                       f"O jacobiano é uma matriz ({s.size}, {s.size}): cada escore zⱼ mexe em "
                                       "**todos** os pesos sᵢ. Fora da diagonal, J[i, j] = −sᵢsⱼ.")
            return Veredito(False, f"{ERRO} {titulo_caso}: o jacobiano é uma matriz ({s.size}, {s.size}) — uma linha por "
                                   f"peso sᵢ, uma coluna por escore zⱼ —, mas veio um array de forma {y.shape}.")
        if y is not None and y.shape != ref.shape:
            return Veredito(False, f"{ERRO} {titulo_caso}: esperava uma matriz de forma {ref.shape}, veio {y.shape}.")
        for errado, explicacao in _variantes_jacobiano(z, s):
            if _perto(y, errado):
                return Veredito(False, f"{ERRO} {explicacao}")
        return Veredito(False, f"{ERRO} {titulo_caso}: esperava\n{_fmt(ref)}\nveio\n{_fmt(y)}")

    z3 = np.array([1000.0, 1001.0, 999.0])
    s3 = softmax(z3)
    ref3 = np.diag(s3) - np.outer(s3, s3)
    y3 = _array(_chamar(fn, "com escores grandes [1000, 1001, 999]", z3.copy()))
    if y3 is None or y3.shape != ref3.shape or not np.all(np.isfinite(y3)):
        return Veredito(False, f"{ERRO} Com escores grandes ([1000, 1001, 999]) o jacobiano saiu com NaN ou inf: "
                               "exp(1000) estoura. Calcule s com uma softmax estável (subtraindo o máximo) antes "
                               "de montar a matriz.")
    if not _perto(y3, ref3):
        return Veredito(False, f"{ERRO} Com escores grandes esperava\n{_fmt(ref3)}\nveio\n{_fmt(y3)}")
    return Veredito(True, f"{OK} Correto! J = diag(s) − s sᵀ: positivo na diagonal, negativo fora dela e simétrico. "
                          "Cada coluna soma 0 (os pesos sempre somam 1) e cada linha também (somar a mesma "
                          "constante a todos os escores não muda os pesos).")


# === 06 · projeções Q, K, V ============================================================================


# === 07 · máscaras e atenção cruzada ============================================================================


# === 08 · várias cabeças ============================================================================


# === 09 · custo quadrático ============================================================================


# === 10 · revisão ============================================================================
