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

    A função pode devolver só a saída ou ``(saída, pesos)``. Casos: o Exemplo 1 da trilha
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


def check_projecoes(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v)`` = ``(X @ W_q, X @ W_k, X @ W_v)``.

    ``X`` tem forma ``(n, d_model)`` (um token por linha) e cada ``W`` tem forma ``(d_model, d)``.
    Casos: um quadrado (``n = d_model = d = 4``, onde quase todo erro roda e se reconhece pelo valor) e
    um retangular (``X`` ``(5, 4)``, ``W_q`` e ``W_k`` ``(4, 3)``, ``W_v`` ``(4, 2)``, onde vários
    erros viram erro de forma). Reconhece: ``W @ X`` no lugar de ``X @ W`` (e o erro de forma que ele
    causa), pesos transpostos (``X @ W.T``), o resultado transposto (``(X @ W).T``), ``*`` no lugar
    de ``@``, a mesma matriz usada para mais de um papel, K e V (ou Q e K) trocados de lugar e uma
    resposta que não é um trio ``(Q, K, V)``.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_projecoes(fn), nome)


_PAPEIS = ("Q", "K", "V")
_MATRIZES = ("W_q", "W_k", "W_v")


def _casos_projecoes() -> list[tuple[str, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    quadrado = (
        np.array([[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 1.0, 0.0], [2.0, -1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 3.0]]),
        (np.array([[1.0, 2.0, 0.0, 0.0], [0.0, 1.0, -1.0, 0.0], [3.0, 0.0, 1.0, 1.0], [0.0, 0.0, 2.0, -1.0]]),
         np.array([[0.0, 1.0, 1.0, 0.0], [2.0, 0.0, 0.0, 1.0], [0.0, -1.0, 1.0, 2.0], [1.0, 0.0, 0.0, 1.0]]),
         np.array([[2.0, 0.0, -1.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 3.0, 0.0, 1.0], [0.0, 1.0, 2.0, 0.0]])),
    )
    rng = np.random.default_rng(6)
    retangular = (
        rng.integers(-2, 3, size=(5, 4)).astype(float),
        (rng.integers(-2, 3, size=(4, 3)).astype(float), rng.integers(-2, 3, size=(4, 3)).astype(float),
         rng.integers(-2, 3, size=(4, 2)).astype(float)),
    )
    return [
        ("com X (4, 4) e as três W (4, 4)", quadrado[0], quadrado[1]),
        ("com X (5, 4), W_q e W_k (4, 3) e W_v (4, 2)", retangular[0], retangular[1]),
    ]


def _candidatos_projecao(X: np.ndarray, Ws: tuple[np.ndarray, ...]) -> list[tuple[str, int, np.ndarray]]:
    """Tudo o que um componente da resposta pode ter sido: ``(forma do erro, índice da W, valor)``.

    ``forma`` é ``"certo"`` (``X @ W``), ``"W @ X"``, ``"X @ W.T"``, ``"(X @ W).T"`` ou ``"X * W"``;
    os que não rodam com essas formas ficam de fora.
    """
    saida = []
    for j, W in enumerate(Ws):
        saida.append(("certo", j, X @ W))
        for forma, conta in (("W @ X", lambda W=W: W @ X), ("X @ W.T", lambda W=W: X @ W.T),
                             ("(X @ W).T", lambda W=W: (X @ W).T), ("X * W", lambda W=W: X * W)):
            try:
                saida.append((forma, j, conta()))
            except ValueError:
                pass
    return saida


_EXPLICA_FORMA = {
    "W @ X": ("Você calculou **W @ X** em vez de **X @ W**. Cada token é uma **linha** de X, de forma "
              "(n, d_model), e W tem forma (d_model, d): a conta que fecha é X @ W = (n, d_model) @ (d_model, d) "
              "= (n, d), uma linha por token. W @ X só roda por acaso quando as formas são quadradas; com X "
              "(5, 4) e W_q (4, 3) dá erro de forma, porque (4, 3) @ (5, 4) tenta casar 3 colunas com 5 linhas."),
    "X @ W.T": ("Você transpôs as matrizes de pesos (X @ W.T). Aqui W já vem com forma (d_model, d): uma linha "
                "por coordenada do embedding, uma coluna por coordenada da projeção. Use X @ W direto. Com W_q "
                "de forma (4, 3), X @ W_q.T nem roda: (5, 4) @ (3, 4) não fecha."),
    "(X @ W).T": ("Você devolveu a transposta: (X @ W).T tem forma (d, n), um token por **coluna**. A convenção é "
                  "um token por **linha**: Q[i] é a query do token i, forma (n, d). Tire o .T (ou não escreva "
                  "W.T @ X.T)."),
    "X * W": ("Você usou * (produto elemento a elemento) em vez de @ (produto de matrizes). Cada coordenada da "
              "query é uma **soma** de produtos: Q[i, c] = Σⱼ X[i, j]·W_q[j, c]. Isso é X @ W_q."),
}


def _erro_de_forma_projecao(exc: _Excecao, X: np.ndarray, Ws: tuple[np.ndarray, ...]) -> Veredito | None:
    texto = str(exc.original)
    if not ("matmul" in texto or "shapes" in texto or "aligned" in texto or "broadcast" in texto):
        return None
    formas = ", ".join(f"{m} {W.shape}" for m, W in zip(_MATRIZES, Ws))
    return Veredito(
        False,
        f"{ERRO} Erro de forma {exc.caso}: {type(exc.original).__name__}: {texto}\n"
        f"Aqui X tem forma {X.shape} (um token por linha, d_model = {X.shape[1]}) e {formas}. A conta que "
        f"fecha é X @ W: ({X.shape[0]}, {X.shape[1]}) @ ({X.shape[1]}, d) = ({X.shape[0]}, d). Trocar a ordem "
        "(W @ X) ou transpor W (X @ W.T) não fecha quando as formas não são quadradas.",
    )


def _trio(resultado: Any) -> list[np.ndarray | None] | None:
    if isinstance(resultado, np.ndarray) or not isinstance(resultado, (tuple, list)) or len(resultado) != 3:
        return None
    return [_array(r) for r in resultado]


def _diagnostico_projecoes(resposta: list[np.ndarray | None], X: np.ndarray,
                           Ws: tuple[np.ndarray, ...]) -> tuple[str, str] | None:
    """Nomeia o erro a partir do que cada componente da resposta foi: ``(tipo, explicação)``, ou
    ``None`` se não reconhecer. O tipo é uma chave de :data:`_EXPLICA_FORMA` ou ``"papeis"``."""
    candidatos = _candidatos_projecao(X, Ws)
    achados: list[tuple[str, int] | None] = []
    for r in resposta:
        achado = next(((forma, j) for forma, j, valor in candidatos if _perto(r, valor)), None)
        achados.append(achado)
    if any(a is None for a in achados):
        return None
    erradas = sorted({forma for forma, _ in achados} - {"certo"})
    if erradas:
        return erradas[0], _EXPLICA_FORMA[erradas[0]]
    indices = [j for _, j in achados]
    if indices == [0, 2, 1]:
        return "papeis", ("K e V estão trocados: você devolveu (Q, V, K). A ordem é (Q, K, V): K = X @ W_k (para ser "
                          "comparada com as queries) e V = X @ W_v (o conteúdo que sai). Trocados, os pesos "
                          "passariam a ser calculados com os values.")
    if indices == [1, 0, 2]:
        return "papeis", ("Q e K estão trocados: você devolveu (K, Q, V). A ordem é (Q, K, V): Q = X @ W_q e "
                          "K = X @ W_k.")
    if len(set(indices)) == 1:
        return "papeis", (f"Você usou a mesma matriz ({_MATRIZES[indices[0]]}) para as três projeções: Q, K e V "
                          "saíram iguais. Cada papel tem a sua matriz: Q = X @ W_q, K = X @ W_k, V = X @ W_v. "
                          "(A seção 4 mostra o que dá errado quando os três são o mesmo vetor.)")
    if len(set(indices)) == 2:
        repetida = next(j for j in indices if indices.count(j) > 1)
        papeis = [p for p, j in zip(_PAPEIS, indices) if j == repetida]
        return "papeis", (f"{' e '.join(papeis)} foram calculados com a mesma matriz, {_MATRIZES[repetida]}. Cada "
                          "papel tem a sua: Q = X @ W_q, K = X @ W_k, V = X @ W_v (olhe se não sobrou um "
                          "copiar-e-colar).")
    return "papeis", ("Os três resultados estão certos, mas na ordem errada: devolva (Q, K, V), com Q = X @ W_q, "
                      "K = X @ W_k e V = X @ W_v.")


def _veredito_projecoes(fn: Callable[..., Any]) -> Veredito:
    troca_de_ordem = None  # W @ X que rodou no caso quadrado: o retangular mostra o erro de forma
    for caso, X, Ws in _casos_projecoes():
        titulo = caso[0].upper() + caso[1:]
        try:
            resultado = _chamar(fn, caso, X.copy(), *(W.copy() for W in Ws))
        except _Excecao as exc:
            if troca_de_ordem:
                return Veredito(False, f"{ERRO} {troca_de_ordem}\n(Foi o que aconteceu {exc.caso}: "
                                       f"{type(exc.original).__name__}: {exc.original})")
            explicado = _erro_de_forma_projecao(exc, X, Ws)
            if explicado:
                return explicado
            raise
        resposta = _trio(resultado)
        if resposta is None:
            tamanho = f" de tamanho {len(resultado)}" if isinstance(resultado, (tuple, list)) else ""
            return Veredito(False, f"{ERRO} {titulo}: a função deve devolver **três** matrizes, (Q, K, V), nessa "
                                   f"ordem; veio {type(resultado).__name__}{tamanho}.")
        certo = [X @ W for W in Ws]
        if all(_perto(r, c) for r, c in zip(resposta, certo)):
            continue
        diagnostico = _diagnostico_projecoes(resposta, X, Ws)
        if diagnostico and diagnostico[0] == "W @ X" and troca_de_ordem is None:
            troca_de_ordem = diagnostico[1]
            continue
        if diagnostico:
            return Veredito(False, f"{ERRO} {diagnostico[1]}\n(Isso apareceu {caso}.)")
        for papel, r, c in zip(_PAPEIS, resposta, certo):
            if not _perto(r, c):
                forma = None if r is None else r.shape
                if forma != c.shape:
                    return Veredito(False, f"{ERRO} {titulo}: {papel} deveria ter forma {c.shape} (um token por "
                                           f"linha), mas veio {forma}.")
                return Veredito(False, f"{ERRO} {titulo}: {papel} deveria ser\n{_fmt(c)}\nmas veio\n{_fmt(r)}")
    if troca_de_ordem:
        return Veredito(False, f"{ERRO} {troca_de_ordem}")
    return Veredito(True, f"{OK} Correto! Q = X @ W_q, K = X @ W_k e V = X @ W_v: uma linha por token, e cada "
                          "papel com a sua matriz. Com X (5, 4), W_q (4, 3) e W_v (4, 2), Q sai (5, 3) e V sai (5, 2).")


def check_autoatencao(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v)`` = ``(saídas, pesos)``: a autoatenção inteira de uma frase.

    ``Q, K, V = X @ W_q, X @ W_k, X @ W_v``; ``pesos = softmax(Q Kᵀ / √d_k)`` em cada linha;
    ``saídas = pesos @ V``. Casos: ``X`` ``(5, 4)`` com as três ``W`` ``(4, 3)`` (``d_model = 4`` e
    ``d_k = 3`` diferentes de propósito; quase todo erro roda e se reconhece pelo valor), ``X`` ``(6, 4)``
    com ``W_v`` ``(4, 2)`` (``d_v ≠ d_k``) e o primeiro caso com ``X`` multiplicado por 30 (escores
    enormes: a softmax precisa ser estável). Reconhece: escala por ``√d_model`` em vez de ``√d_k``, sem
    escala, por ``d_k``, vezes ``√d_k``, softmax no eixo errado, sem softmax, keys somadas no lugar dos
    values, ``X`` no lugar de ``V`` (ou de Q, K e V), K e V trocados, Q e K trocados, ``W_q`` usada
    também para K, erros de forma (``W @ X``, ``Q @ K`` sem transpor), softmax instável, só a saída
    devolvida, o par na ordem trocada e os pesos transpostos.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_autoatencao(fn), nome)


def _casos_autoatencao() -> list[tuple[str, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    rng = np.random.default_rng(60)
    X1 = rng.integers(-2, 3, size=(5, 4)).astype(float)
    Ws1 = tuple(rng.integers(-2, 3, size=(4, 3)).astype(float) * 0.5 for _ in range(3))
    X2 = rng.normal(size=(6, 4))
    Ws2 = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)))
    return [
        ("com X (5, 4) e as três W (4, 3)", X1, Ws1),
        ("com X (6, 4), W_q e W_k (4, 3) e W_v (4, 2)", X2, Ws2),
        ("com escores enormes (o primeiro X multiplicado por 30)", 30.0 * X1, Ws1),
    ]


def _variantes_autoatencao(X: np.ndarray, Ws: tuple[np.ndarray, ...]) -> list[tuple[np.ndarray, str]]:
    """Saídas de implementações erradas conhecidas da autoatenção, cada uma com a explicação."""
    W_q, W_k, W_v = Ws
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d_k, d_model = K.shape[-1], X.shape[-1]
    z = Q @ K.T
    r = math.sqrt(d_k)
    return [
        (softmax(z / math.sqrt(d_model)) @ V,
         f"Você dividiu os escores por √d_model = √{d_model} = {math.sqrt(d_model):.3g}, o tamanho dos embeddings. "
         f"A escala usa o tamanho das queries e keys **depois** da projeção: √d_k = √{d_k} ≈ {r:.3g}. Pegue "
         "d_k de K.shape[-1] (ou W_k.shape[1]), não de X.shape[1]."),
        (softmax(z) @ V, "Você esqueceu de escalar: os escores Q Kᵀ devem ser divididos por √d_k antes da softmax."),
        (softmax(z / d_k) @ V, f"Você dividiu por d_k = {d_k} em vez de √d_k ≈ {r:.3g}: a escala é 1/√d_k."),
        (softmax(z * r) @ V, "Você multiplicou por √d_k em vez de dividir."),
        (softmax(z / r, axis=0) @ V,
         "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha de Q Kᵀ) devem somar 1, então "
         "a softmax age sobre o último eixo (axis=-1, as keys), não sobre as queries (as colunas)."),
        ((z / r) @ V, "Faltou a softmax: os escores escalados precisam virar pesos positivos que somam 1 em cada linha."),
        (softmax(z / r) @ K,
         "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values**: pesos @ V, com V = X @ W_v."),
        (softmax(z / r) @ X,
         "Você misturou os embeddings X em vez dos values: a saída é pesos @ V, com V = X @ W_v (por isso ela "
         "tem d_v colunas, não d_model)."),
        (softmax(X @ X.T / math.sqrt(d_model)) @ X,
         "Você usou os embeddings X direto nos três papéis, sem as projeções. Primeiro Q = X @ W_q, K = X @ W_k "
         "e V = X @ W_v; depois a atenção com Q, K e V (a seção 4 mostra por que as projeções fazem falta)."),
        (softmax(Q @ V.T / r) @ K,
         "K e V estão trocados: os escores foram calculados com X @ W_v e a mistura com X @ W_k. K = X @ W_k "
         "entra nos escores (Q Kᵀ); V = X @ W_v é o conteúdo que sai."),
        (softmax(K @ Q.T / r) @ V,
         "Q e K estão trocados: você calculou K Qᵀ, e os escores ficaram transpostos (a linha i virou a coluna i). "
         "A linha i deve ser a query do token i contra todas as keys: Q Kᵀ, com Q = X @ W_q e K = X @ W_k."),
        (softmax(Q @ Q.T / r) @ V,
         "K foi calculado com W_q: os escores saíram Q Qᵀ (e simétricos). Cada papel tem a sua matriz: "
         "K = X @ W_k."),
    ]


def _erro_de_forma_autoatencao(exc: _Excecao, X: np.ndarray, Ws: tuple[np.ndarray, ...]) -> Veredito | None:
    texto = str(exc.original)
    if not ("matmul" in texto or "shapes" in texto or "aligned" in texto or "broadcast" in texto):
        return None
    n, d_model = X.shape
    d_k, d_v = Ws[1].shape[1], Ws[2].shape[1]
    return Veredito(
        False,
        f"{ERRO} Erro de forma {exc.caso}: {type(exc.original).__name__}: {texto}\n"
        f"Siga as formas: X ({n}, {d_model}) @ W_q ({d_model}, {d_k}) = Q ({n}, {d_k}), e o mesmo para K; "
        f"V = X @ W_v é ({n}, {d_v}). Os escores são Q @ K.T: ({n}, {d_k}) @ ({d_k}, {n}) = ({n}, {n}); a saída "
        f"é pesos @ V: ({n}, {n}) @ ({n}, {d_v}) = ({n}, {d_v}). Confira a ordem X @ W (não W @ X), o .T de K "
        "e se K e V não foram trocados.",
    )


def _veredito_autoatencao(fn: Callable[..., Any]) -> Veredito:
    for caso, X, Ws in _casos_autoatencao():
        titulo = caso[0].upper() + caso[1:]
        Q, K, V = (X @ W for W in Ws)
        ref_saida, ref_pesos = scaled_dot_product_attention(Q, K, V)
        try:
            resultado = _chamar(fn, caso, X.copy(), *(W.copy() for W in Ws))
        except _Excecao as exc:
            explicado = _erro_de_forma_autoatencao(exc, X, Ws)
            if explicado:
                return explicado
            raise
        if not (isinstance(resultado, (tuple, list)) and len(resultado) == 2):
            if _perto(_array(resultado), ref_saida):
                return Veredito(False, f"{ERRO} As saídas estão certas, mas a função deve devolver o **par** "
                                       "(saídas, pesos): return pesos @ V, pesos.")
            tamanho = f" de tamanho {len(resultado)}" if isinstance(resultado, (tuple, list)) else ""
            return Veredito(False, f"{ERRO} {titulo}: a função deve devolver o par (saídas, pesos); veio "
                                   f"{type(resultado).__name__}{tamanho}.")
        saida, pesos = (_array(r) for r in resultado)
        if _perto(saida, ref_pesos) and _perto(pesos, ref_saida):
            return Veredito(False, f"{ERRO} Os números estão certos, mas o par veio na ordem trocada: devolva "
                                   "(saídas, pesos), nessa ordem.")
        if saida is not None and saida.shape == ref_saida.shape and not np.all(np.isfinite(saida)):
            return Veredito(False, f"{ERRO} {titulo}, a saída tem NaN ou inf: exp de escores grandes estoura o "
                                   "float64. Subtraia o máximo de cada linha antes de exponenciar: "
                                   "escores - escores.max(axis=-1, keepdims=True).")
        if not _perto(saida, ref_saida):
            for errado, explicacao in _variantes_autoatencao(X, Ws):
                if _perto(saida, errado):
                    return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}.)")
            if saida is None or saida.shape != ref_saida.shape:
                forma = None if saida is None else saida.shape
                return Veredito(False, f"{ERRO} {titulo}: as saídas deveriam ter forma {ref_saida.shape} (uma "
                                       f"linha por token, d_v = {ref_saida.shape[1]} colunas), mas vieram {forma}. "
                                       "A saída é pesos @ V, com V = X @ W_v.")
            return Veredito(False, f"{ERRO} {titulo}: as saídas deveriam ser\n{_fmt(ref_saida)}\nmas vieram\n"
                                   f"{_fmt(saida)}")
        if not _perto(pesos, ref_pesos):
            if _perto(pesos, ref_pesos.T):
                return Veredito(False, f"{ERRO} As saídas estão certas, mas os pesos vieram transpostos: a linha i "
                                       "deve ser a da query i (cada **linha** soma 1).")
            return Veredito(False, f"{ERRO} {titulo}: as saídas estão certas, mas os pesos deveriam ser a matriz "
                                   f"{ref_pesos.shape} usada nelas,\n{_fmt(ref_pesos)}\nmas vieram\n"
                                   f"{_fmt(pesos) if pesos is not None else None}")
    return Veredito(True, f"{OK} Correto! Projeções Q = X @ W_q, K = X @ W_k, V = X @ W_v, escores Q Kᵀ / √d_k "
                          "(d_k = 3, não d_model = 4), softmax estável em cada linha e saídas pesos @ V: é a "
                          "autoatenção de uma frase inteira, sem laço.")


# === 07 · máscaras e atenção cruzada ============================================================================


def _como_array(y: Any) -> np.ndarray:
    """``np.asarray(y)``; listas irregulares viram um array de objetos (com a forma que der)."""
    try:
        return np.asarray(y)
    except (TypeError, ValueError):
        arr = np.empty(1, dtype=object)
        arr[0] = y
        return arr


def _bool_ou_none(y: Any) -> np.ndarray | None:
    """``y`` como array booleano se ele só tem 0/1 (ou True/False); senão ``None``."""
    try:
        arr = np.asarray(y)
    except (TypeError, ValueError):
        return None
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind in "iuf" and np.isin(arr, (0, 1)).all():
        return arr.astype(bool)
    return None


def _aviso_dtype(arr: np.ndarray, exemplo: str) -> str:
    return (f"O padrão de True/False está certo, mas a máscara tem dtype {arr.dtype}, e ela precisa ser "
            f"**booleana** ({exemplo}). Com números, ~mask não inverte a máscara (em inteiros, ~1 vale -2 e "
            "~0 vale -1, e os dois contam como True), np.where(mask, …) trata qualquer número diferente de 0 "
            "como True, e "
            "attention.scaled_dot_product_attention recusa máscaras que não sejam bool.")


def _aditiva(y: Any, certo: np.ndarray) -> bool:
    """``y`` é a versão aditiva da máscara certa (0 onde pode olhar, -inf ou muito negativo onde não)?"""
    try:
        arr = np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.shape == certo.shape and bool(np.all(arr[certo] == 0)) and bool(np.all(arr[~certo] < -1e3))


def check_mascara_causal(fn: Callable[[int], Any]) -> bool:
    """Confere ``fn(n)`` = a máscara causal ``(n, n)`` booleana: ``True`` onde a query ``i`` pode olhar
    para a key ``j``, isto é, ``j <= i`` (o triângulo de baixo, com a diagonal).

    Reconhece: triângulo de cima (``np.triu``), a convenção invertida (``True`` = bloqueado), a
    diagonal excluída, um passo a mais (cada token vê o seguinte), só a diagonal, tudo liberado,
    forma errada, máscara aditiva (0/−inf) e números (0/1) no lugar de booleanos.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_mascara_causal(fn), nome)


def _variantes_causal(n: int) -> list[tuple[np.ndarray, str]]:
    um = np.ones((n, n), dtype=bool)
    return [
        (np.triu(um), "Você pegou o triângulo de **cima** (j ≥ i): assim cada token olha para si e para o "
                      "**futuro**, exatamente o que a máscara deveria impedir. A query i pode ver as keys "
                      "j ≤ i: o triângulo de baixo (np.tril ou np.tri)."),
        (np.triu(um, k=1), "Máscara invertida: você marcou com True as posições **proibidas** (o futuro, j > i). "
                           "Algumas bibliotecas usam essa convenção, mas aqui (como no "
                           "scaled_dot_product_attention do PyTorch) True quer dizer **pode olhar**. Inverta "
                           "com ~mask ou use np.tri(n, dtype=bool)."),
        (np.tri(n, k=-1, dtype=bool), "A diagonal ficou de fora: cada token também pode olhar para **si "
                                      "mesmo** (j = i). Sem a diagonal, o primeiro token não teria nada para ver. "
                                      "Use np.tri(n, dtype=bool) (k=0, o padrão), não k=-1."),
        (np.tri(n, k=1, dtype=bool), "Um passo a mais: com k=1 cada token vê também o token **seguinte** — "
                                     "justamente o que ele deveria prever. Use k=0 (o padrão de np.tri)."),
        (np.eye(n, dtype=bool), "Só a diagonal: cada token veria apenas a si mesmo. Ele pode olhar para si "
                                "**e para todo o passado** (j ≤ i)."),
        (um, "Tudo True: isso não bloqueia nada (é a atenção sem máscara). Só o passado e o próprio token "
             "podem ficar liberados."),
        (~um, "Tudo False: nenhuma query poderia olhar para nada."),
        (np.fliplr(np.tri(n, dtype=bool)), "O triângulo ficou espelhado (virado da esquerda para a direita). "
                                           "Na linha i, as colunas liberadas são 0, 1, …, i."),
    ]


def _veredito_mascara_causal(fn: Callable[[int], Any]) -> Veredito:
    for n in (4, 6):
        caso = f"com n = {n}"
        y = _chamar(fn, caso, n)
        certo = np.tri(n, dtype=bool)
        arr = _como_array(y)
        if arr.shape != certo.shape:
            dica = ""
            if arr.size == certo.size:
                dica = f" Ela tem os {certo.size} elementos, só que arrumados em outra forma; use uma matriz (n, n)."
            elif arr.ndim == 2 and arr.shape[0] == arr.shape[1]:
                dica = " Confira o tamanho: uma linha por query e uma coluna por key, n de cada."
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]} a máscara deveria ter forma {certo.shape} "
                                   f"(uma linha por query, uma coluna por key), mas veio {arr.shape}.{dica}")
        if _aditiva(y, certo):
            return Veredito(False, f"{ERRO} Você devolveu a máscara **aditiva** (0 onde pode olhar, -inf onde não): "
                                   "ela serve para somar aos escores, mas aqui queremos a máscara booleana "
                                   "(True = pode olhar), a que se passa como mask=.")
        b = _bool_ou_none(y)
        if b is None:
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]} a máscara deveria ser booleana (True/False); "
                                   f"veio um array de dtype {arr.dtype} com valores {np.unique(arr)[:5]}.")
        if np.array_equal(b, certo):
            if arr.dtype != np.bool_:
                return Veredito(False, f"{ERRO} {_aviso_dtype(arr, 'np.tri(n, dtype=bool) ou .astype(bool)')}")
            continue
        for errado, explicacao in _variantes_causal(n):
            if np.array_equal(b, errado):
                return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}: esperava\n"
                                       f"{certo.astype(int)}\nveio\n{b.astype(int)})")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]} esperava (1 = True)\n{certo.astype(int)}\n"
                               f"veio\n{b.astype(int)}")
    return Veredito(True, f"{OK} Correto! Máscara causal (n, n) booleana: a linha i libera as colunas 0, …, i "
                          "(o passado e o próprio token) e bloqueia o futuro.")


def check_mascara_padding(fn: Callable[[np.ndarray, int], Any]) -> bool:
    """Confere ``fn(lengths, n)`` = a máscara de padding ``(b, 1, n)`` booleana, com
    ``mask[b, 0, j] = j < lengths[b]`` (``True`` = token de verdade, pode olhar).

    Reconhece: erro de um na comparação (``<=`` ou ``< lengths - 1``), máscara invertida (``True`` no
    padding), falta do eixo do meio (forma ``(b, n)``), queries mascaradas no lugar das keys (forma
    ``(b, n, 1)``), a matriz cheia ``(b, n, n)``, comparação sem alinhar os eixos (erro de broadcasting)
    e números (0/1) no lugar de booleanos.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_mascara_padding(fn), nome)


def _variantes_padding(lengths: np.ndarray, n: int) -> list[tuple[np.ndarray, str]]:
    j = np.arange(n)[None, :]
    L = lengths[:, None]
    return [
        ((j <= L)[:, None, :], "Erro de um: com j <= lengths, a posição lengths[b] também fica liberada — e ela já "
                               "é o primeiro <pad> (as posições começam em 0: uma frase de 3 tokens ocupa 0, 1 "
                               "e 2). Use j < lengths."),
        ((j < L - 1)[:, None, :], "Erro de um: com j < lengths - 1 o **último token de verdade** ficou bloqueado. "
                                  "Uma frase de 3 tokens ocupa as posições 0, 1 e 2: libere j < lengths."),
        ((j >= L)[:, None, :], "Máscara invertida: você marcou com True o **padding**. Aqui True quer dizer "
                               "**pode olhar** (token de verdade): mask[b, 0, j] = j < lengths[b]."),
        ((j < n - L)[:, None, :], "Você liberou as primeiras n - lengths posições: isso seria o padding à "
                                  "**esquerda**, ao contrário. Aqui os tokens de verdade vêm primeiro e o padding "
                                  "no fim: libere j < lengths[b]."),
    ]


def _veredito_mascara_padding(fn: Callable[[np.ndarray, int], Any]) -> Veredito:
    casos = [(np.array([3, 5, 1]), 5), (np.array([2, 4]), 6)]
    for lengths, n in casos:
        b = len(lengths)
        caso = f"com lengths = {lengths.tolist()} e n = {n}"
        titulo = caso[0].upper() + caso[1:]
        try:
            y = _chamar(fn, caso, lengths.copy(), n)
        except _Excecao as exc:
            if "broadcast" in str(exc.original):
                return Veredito(False, f"{ERRO} {titulo} deu erro de broadcasting: {exc.original}\n"
                                       f"np.arange(n) tem forma ({n},) e lengths tem forma ({b},): comparar os dois "
                                       "direto não faz uma tabela. Ponha cada um num eixo: "
                                       "np.arange(n)[None, :] < lengths[:, None] dá (b, n); depois acrescente o eixo "
                                       "do meio com [:, None, :].")
            raise
        certo = (np.arange(n)[None, :] < lengths[:, None])[:, None, :]
        arr = _como_array(y)
        bb = _bool_ou_none(y)
        if bb is None:
            if _aditiva(y, certo):
                return Veredito(False, f"{ERRO} Você devolveu a máscara **aditiva** (0/-inf). Aqui queremos a "
                                       "booleana (True = token de verdade), a que se passa como mask=.")
            return Veredito(False, f"{ERRO} {titulo} a máscara deveria ser booleana (True/False); veio um array "
                                   f"de dtype {arr.dtype}.")
        if bb.shape != certo.shape:
            if bb.shape == (b, n) and np.array_equal(bb, certo[:, 0, :]):
                return Veredito(False, f"{ERRO} Os valores estão certos, mas faltou o **eixo do meio**: a forma deveria "
                                       f"ser (b, 1, n) = {certo.shape}, e veio (b, n) = {bb.shape}. Os escores têm "
                                       "forma (b, n_q, n) e o numpy alinha as formas pela direita: uma máscara (b, n) "
                                       "seria lida como (n_q, n). Se b ≠ n_q, isso dá erro de forma; se por acaso "
                                       "b = n_q, é pior: roda sem erro, usando a frase i para a **query** i. "
                                       "Acrescente o eixo com mask[:, None, :].")
            if bb.shape == (b, n, 1) and np.array_equal(bb[:, :, 0], certo[:, 0, :]):
                return Veredito(False, f"{ERRO} Forma (b, n, 1) = {bb.shape}: assim a máscara vale para as **linhas** "
                                       "(as queries), não para as colunas (as keys). O que precisa sumir são as "
                                       "colunas do <pad>, para que ninguém olhe para ele: use a forma (b, 1, n).")
            if bb.shape == (b, n, n) and np.array_equal(bb, np.broadcast_to(certo, (b, n, n))):
                return Veredito(False, f"{ERRO} A matriz (b, n, n) que você montou funciona, mas repete a mesma linha "
                                       f"n vezes. Devolva a forma (b, 1, n) = {certo.shape}: o broadcasting estende "
                                       "o eixo do meio para todas as queries de graça.")
            return Veredito(False, f"{ERRO} {titulo} a máscara deveria ter forma (b, 1, n) = {certo.shape}; veio "
                                   f"{bb.shape}.")
        if np.array_equal(bb, certo):
            if arr.dtype != np.bool_:
                return Veredito(False, f"{ERRO} {_aviso_dtype(arr, 'a comparação j < lengths já dá bool')}")
            continue
        for errado, explicacao in _variantes_padding(lengths, n):
            if np.array_equal(bb, errado):
                return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}: esperava\n"
                                       f"{certo[:, 0, :].astype(int)}\nveio\n{bb[:, 0, :].astype(int)})")
        return Veredito(False, f"{ERRO} {titulo} esperava (1 = True, uma linha por frase)\n{certo[:, 0, :].astype(int)}\n"
                               f"veio\n{bb[:, 0, :].astype(int)}")
    return Veredito(True, f"{OK} Correto! mask[b, 0, j] = j < lengths[b]: forma (b, 1, n), booleana, True nos "
                          "tokens de verdade. O eixo do meio faz a mesma máscara valer para todas as queries.")


# === 08 · várias cabeças ============================================================================


def _matriz_rotulada(n: int, largura: int) -> np.ndarray:
    """``x[i, c] = 10·i + c`` (n ≤ 9, largura ≤ 10): a dezena é o token, a unidade é a coluna."""
    return (10 * np.arange(n)[:, None] + np.arange(largura)[None, :]).astype(float)


def check_dividir_cabecas(fn: Callable[[np.ndarray, int], Any]) -> bool:
    """Confere ``fn(x, n_heads)``: ``(n, n_heads·d_head)`` → ``(n_heads, n, d_head)``, com a cabeça ``h``
    recebendo as colunas ``h·d_head : (h+1)·d_head`` de cada token.

    Casos: ``x[i, c] = 10·i + c`` (a dezena é o token, a unidade é a coluna) com ``n = 3``,
    ``n_heads = 2``, ``d_head = 4`` e com ``n = 5``, ``n_heads = 4``, ``d_head = 2``. Reconhece:
    ``reshape`` direto para ``(n_heads, n, d_head)`` sem transpor (mistura tokens), faltou a
    transposição (forma ``(n, n_heads, d_head)``), colunas intercaladas (a cabeça ``h`` com as colunas
    ``h, h + n_heads, …``), cabeças em ordem trocada, cada cabeça transposta ``(d_head, n)`` e
    ``n_heads`` trocado com ``d_head``.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_dividir_cabecas(fn), nome)


def _variantes_dividir(x: np.ndarray, h: int) -> list[tuple[np.ndarray, str]]:
    n, largura = x.shape
    d = largura // h
    certo = x.reshape(n, h, d).transpose(1, 0, 2)
    erros = [
        (x.reshape(h, n, d),
         f"Você fez x.reshape(n_heads, n, d_head) direto, sem transpor. O reshape lê os números na ordem da "
         f"memória (linha por linha), então a 'cabeça 0' ficou com as {n * d} primeiras entradas de x — pedaços "
         "de tokens diferentes empilhados, e não as mesmas colunas de todos os tokens. Primeiro separe as colunas "
         "de cada token, x.reshape(n, n_heads, d_head), e só então troque os dois primeiros eixos: "
         ".transpose(1, 0, 2)."),
        (x.reshape(n, h, d),
         f"Faltou a transposição: x.reshape(n, n_heads, d_head) separa as colunas certas, mas a forma é "
         f"(n, n_heads, d_head) = {(n, h, d)}. Para cada cabeça ser uma atenção independente, o eixo das cabeças "
         "vem primeiro: .transpose(1, 0, 2) → (n_heads, n, d_head)."),
        (x.reshape(n, d, h).transpose(2, 0, 1),
         "Colunas intercaladas: a cabeça h ficou com as colunas h, h + n_heads, h + 2·n_heads, … Cada cabeça "
         "recebe um bloco **contíguo** de d_head colunas: a cabeça 0 as colunas 0 … d_head−1, a cabeça 1 as "
         "seguintes. Use x.reshape(n, n_heads, d_head) (não (n, d_head, n_heads))."),
        (certo[::-1],
         "As cabeças saíram em ordem invertida: a cabeça 0 deve ficar com as **primeiras** d_head colunas, a "
         "cabeça 1 com as seguintes, e assim por diante."),
        (certo.transpose(0, 2, 1),
         f"Cada cabeça saiu transposta, com forma (d_head, n) = {(d, n)}: as colunas de x.reshape(n, n_heads, "
         "d_head) estão certas, mas a ordem dos eixos ficou (n_heads, d_head, n). Use .transpose(1, 0, 2): "
         "cada cabeça é uma matriz (n, d_head), um token por linha, como q, k e v da atenção."),
        (x.reshape(n, d, h).transpose(1, 0, 2),
         f"Você trocou n_heads e d_head: o resultado tem {d} 'cabeças' de {h} colunas. Com n_heads = {h}, cada "
         f"cabeça tem d_head = largura / n_heads = {largura} / {h} = {d} colunas."),
        (certo.reshape(h, n * d),
         "Cada cabeça virou uma linha achatada; ela deve ser uma matriz (n, d_head), um token por linha."),
    ]
    if n % h == 0:
        erros.append((np.stack(np.split(x, h, axis=0)),
                      "Você dividiu as **linhas** (os tokens) entre as cabeças, e não as colunas: cada cabeça deve "
                      "ver **todos** os tokens, cada um com só d_head das colunas. Divida o último eixo: "
                      "x.reshape(n, n_heads, d_head).transpose(1, 0, 2) (ou np.split(x, n_heads, axis=1))."))
    return erros


def _fmt_rotulada(x: np.ndarray) -> str:
    """Uma matriz de ``_matriz_rotulada`` sem casas decimais (``[[ 0  1  2] [10 11 12]]``), se for inteira."""
    x = np.asarray(x, dtype=float)
    if np.all(np.isfinite(x)) and np.array_equal(x, np.round(x)):
        return np.array2string(x.astype(int), separator=" ")
    return _fmt(x)


def _veredito_dividir_cabecas(fn: Callable[[np.ndarray, int], Any]) -> Veredito:
    casos = [(4, 2, 3), (3, 2, 4), (5, 4, 2)]
    for n, h, d in casos:
        x = _matriz_rotulada(n, h * d)
        caso = f"com x (n = {n}, largura = {h * d}) e n_heads = {h}"
        certo = x.reshape(n, h, d).transpose(1, 0, 2)
        y = _array(_chamar(fn, caso, x.copy(), h))
        if y is not None and y.shape == certo.shape and np.array_equal(y, certo):
            continue
        for errado, explicacao in _variantes_dividir(x, h):
            if y is not None and y.shape == errado.shape and np.array_equal(y, errado):
                return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}; cada entrada de x vale "
                                       f"10·token + coluna, então a sua cabeça 0 é\n{_fmt_rotulada(y[0])}\ne deveria ser\n"
                                       f"{_fmt_rotulada(certo[0])}.)")
        if y is None or y.shape != certo.shape:
            forma = None if y is None else y.shape
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: a saída deveria ter forma (n_heads, n, d_head) "
                                   f"= {certo.shape}, mas veio {forma}.")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: cada entrada de x vale 10·token + coluna. "
                               f"Esperava a cabeça 0 =\n{_fmt_rotulada(certo[0])}\nveio\n{_fmt_rotulada(y[0])}")
    return Veredito(True, f"{OK} Correto! (n, n_heads·d_head) → reshape (n, n_heads, d_head) → transpose (n_heads, n, "
                          "d_head): a cabeça h fica com as colunas h·d_head … (h+1)·d_head − 1 de cada token, e "
                          "nenhum token se mistura com outro.")


def check_cabeca_kv(fn: Callable[[int, int, int], Any]) -> bool:
    """Confere ``fn(h, n_heads, n_kv_heads)`` = a cabeça de key/value usada pela query ``h`` na atenção
    com keys/values agrupadas (GQA): ``h // (n_heads // n_kv_heads)``, grupos de queries **consecutivas**.

    Casos: ``(8, 2)``, ``(8, 4)``, ``(6, 3)``, ``(8, 8)`` (MHA) e ``(8, 1)`` (MQA), todas as queries.
    Reconhece: ``h % n_kv_heads`` (grupos intercalados), ``h // n_kv_heads`` (dividiu pelo número de
    cabeças de key/value em vez do tamanho do grupo), índices começando em 1 e o tamanho do grupo no
    lugar do índice.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_cabeca_kv(fn), nome)


def _veredito_cabeca_kv(fn: Callable[[int, int, int], Any]) -> Veredito:
    for n_h, n_kv in ((8, 2), (6, 3), (8, 4), (8, 8), (8, 1)):
        grupo = n_h // n_kv
        certo = [h // grupo for h in range(n_h)]
        caso = f"com n_heads = {n_h} e n_kv_heads = {n_kv}"
        obtido = []
        for h in range(n_h):
            y = _chamar(fn, f"{caso} (query h = {h})", h, n_h, n_kv)
            try:
                obtido.append(int(y) if float(y) == int(y) else float(y))
            except (TypeError, ValueError, OverflowError):
                return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}, query h = {h}: a resposta deve ser um "
                                       f"número inteiro (o índice da cabeça de key/value), mas veio {y!r}.")
        if obtido == certo:
            continue
        tabela = f"\n  query h : {list(range(n_h))}\n  certo   : {certo}\n  sua     : {obtido}"
        if obtido == [h % n_kv for h in range(n_h)]:
            msg = ("Você usou h % n_kv_heads: os grupos ficaram intercalados (queries 0, 2, 4, … numa key/value e "
                   "1, 3, 5, … na outra). A convenção é de queries **consecutivas**: o grupo g são as queries "
                   "g·grupo … (g+1)·grupo − 1, com grupo = n_heads // n_kv_heads; o índice é h // grupo.")
        elif obtido == [h // n_kv for h in range(n_h)]:
            msg = ("Você dividiu h pelo número de cabeças de key/value (h // n_kv_heads). O divisor é o **tamanho "
                   "do grupo**, quantas queries compartilham cada key/value: grupo = n_heads // n_kv_heads, e a "
                   "resposta é h // grupo (nunca passa de n_kv_heads − 1).")
        elif obtido == [c + 1 for c in certo]:
            msg = "Os índices começam em 1; em Python (e aqui) a primeira cabeça de key/value é a 0: use h // grupo."
        elif np.allclose(obtido, [h / grupo for h in range(n_h)]):
            msg = ("Você usou a divisão comum (h / grupo), que dá frações como 0.25 e 0.5. O índice de uma cabeça é "
                   "inteiro: use a divisão inteira, h // grupo, que joga fora o resto.")
        elif obtido == [grupo] * n_h:
            msg = ("Você devolveu o tamanho do grupo (n_heads // n_kv_heads), que é o mesmo para todas as queries. "
                   "Queremos o **índice** da cabeça de key/value da query h: h // grupo.")
        else:
            msg = f"{caso[0].upper() + caso[1:]}: o mapeamento não está certo."
        return Veredito(False, f"{ERRO} {msg}\n(Isso apareceu {caso}:{tabela})")
    return Veredito(True, f"{OK} Correto! A query h usa a key/value h // (n_heads // n_kv_heads): com 8 queries e 2 "
                          "keys/values, as queries 0–3 leem a key/value 0 e as 4–7 a key/value 1. Com n_kv_heads = "
                          "n_heads cada uma tem a sua (MHA); com n_kv_heads = 1 todas leem a mesma (MQA).")


def check_memoria_kv(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(n_tokens, n_camadas, n_heads, n_kv_heads, d_head, bits_por_valor)`` = bytes do KV cache,
    ``2 · n_camadas · n_kv_heads · n_tokens · d_head · bits_por_valor / 8``.

    Casos: uma configuração pequena em que cada erro dá um número diferente (``n_heads / n_kv_heads = 6``,
    3 camadas, 8 bits) e a configuração do notebook (32 camadas, 32 queries, 8 keys/values, ``d_head`` 128,
    16 bits, 4096 tokens). Reconhece: faltou o fator 2 (K **e** V), ``n_heads`` no lugar de ``n_kv_heads``,
    bits em vez de bytes (faltou dividir por 8, ou dividiu duas vezes), faltaram as camadas, e a resposta
    em GiB, MiB, GB ou em bits.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_memoria_kv(fn), nome)


def _milhares(x: float) -> str:
    """``536870912`` → ``"536 870 912"`` (espaço separando milhares; valores não inteiros com 6 algarismos)."""
    return f"{x:,.0f}".replace(",", " ") if float(x).is_integer() else f"{x:.6g}"


def _veredito_memoria_kv(fn: Callable[..., Any]) -> Veredito:
    casos = [
        ("numa configuração pequena (1000 tokens, 3 camadas, 12 queries, 2 keys/values, d_head 64, 8 bits)",
         dict(n_tokens=1000, n_camadas=3, n_heads=12, n_kv_heads=2, d_head=64, bits_por_valor=8)),
        ("na configuração do notebook (4096 tokens, 32 camadas, 32 queries, 8 keys/values, d_head 128, fp16)",
         dict(n_tokens=4096, n_camadas=32, n_heads=32, n_kv_heads=8, d_head=128, bits_por_valor=16)),
    ]
    for caso, c in casos:
        certo = 2 * c["n_camadas"] * c["n_kv_heads"] * c["n_tokens"] * c["d_head"] * c["bits_por_valor"] / 8
        y = _chamar(fn, caso, *c.values())
        try:
            valor = float(y)
        except (TypeError, ValueError):
            return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: a resposta deve ser um número (de bytes), "
                                   f"mas veio {y!r}.")
        if math.isclose(valor, certo, rel_tol=1e-9):
            continue
        razao_heads = c["n_heads"] / c["n_kv_heads"]
        erros = {
            0.5: "Faltou o fator 2: o cache guarda **duas** coisas por token, a key **e** o value.",
            razao_heads: "Você usou n_heads (as cabeças de query) no lugar de n_kv_heads. O cache só guarda keys e "
                         "values, e com GQA há n_kv_heads delas; as queries não são guardadas.",
            razao_heads / 2: "Dois erros: usou n_heads no lugar de n_kv_heads (o cache só guarda keys e values) e "
                             "esqueceu o fator 2 (key **e** value).",
            8.0: f"Você contou bits, não bytes: um byte tem 8 bits, então um número de {c['bits_por_valor']} bits "
                 f"ocupa {c['bits_por_valor']} / 8 = {c['bits_por_valor'] // 8} byte"
                 f"{'s' if c['bits_por_valor'] > 8 else ''}. Divida bits_por_valor por 8.",
            4.0 if razao_heads != 4 else -1.0: "Dois erros: contou bits em vez de bytes (divida por 8) e esqueceu o "
                                               "fator 2 (key **e** value).",
            1 / 8: "Você dividiu por 8 duas vezes (ou converteu bytes em bits ao contrário): o resultado ficou 8 "
                   "vezes menor. bytes = bits / 8, uma vez só.",
            1 / c["n_camadas"]: "Faltaram as camadas: cada uma das n_camadas guarda as suas próprias keys e values.",
            1 / 2**30: "A resposta deve estar em **bytes**; você devolveu GiB (dividiu por 2³⁰). Converta só na hora "
                       "de mostrar.",
            1 / 2**20: "A resposta deve estar em **bytes**; você devolveu MiB (dividiu por 2²⁰).",
            1 / 1e9: "A resposta deve estar em **bytes**; você devolveu GB (dividiu por 10⁹).",
            8.0 * razao_heads: "Dois erros: usou n_heads no lugar de n_kv_heads e contou bits em vez de bytes.",
        }
        if valor != 0:
            for fator, explicacao in erros.items():
                if fator > 0 and math.isclose(valor, certo * fator, rel_tol=1e-9):
                    return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}: esperava "
                                           f"{_milhares(certo)} bytes, veio {_milhares(valor)}.)")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava {_milhares(certo)} bytes, veio "
                               f"{valor:.6g}. Confira cada fator: 2 (K e V) · camadas · n_kv_heads · tokens · d_head · "
                               "bytes por número.")
    return Veredito(True, f"{OK} Correto! 2 · camadas · n_kv_heads · tokens · d_head · bytes. Na configuração do "
                          "notebook: 2 · 32 · 8 · 4096 · 128 · 2 = 536 870 912 bytes = 512 MiB (a MHA, com 32 "
                          "keys/values, precisaria de 2 GiB).")


# === 09 · custo quadrático ============================================================================


def check_combinar_estados(fn: Callable[[tuple, tuple], Any]) -> bool:
    """Confere ``fn(estado_a, estado_b)`` → ``(m, l, acc)``: o passo que junta dois estados parciais
    ``(m, l, acc)`` da softmax online (veja :func:`helpers.efficient.combine_states`).

    Casos: o bloco novo traz o maior escore; o bloco antigo tem o maior escore; o primeiro bloco
    (o estado vazio ``(-inf, 0, 0)`` com um estado de verdade); e, por fim, a função aplicada bloco a
    bloco em escores perto de 1000, cujo ``acc / l`` deve dar a atenção exata. Reconhece: o máximo
    errado, nenhum estado reescalado, só um dos dois reescalado, ``l`` reescalado e ``acc`` não (e
    vice-versa), o sinal trocado no expoente (``e^(m − m_a)``) e a divisão por ``l`` cedo demais.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_combinar(fn), nome)


def _estado_de(z: list[float], v: np.ndarray) -> tuple[float, float, np.ndarray]:
    z_arr = np.asarray(z, dtype=float)
    m = float(z_arr.max())
    e = np.exp(z_arr - m)
    return m, float(e.sum()), e @ v


def _erros_combinar(a: tuple, b: tuple) -> dict[str, tuple[float, float, np.ndarray]]:
    """Resultados ``(m, l, acc)`` de combinações erradas conhecidas (a explicação está em ``_EXPLICA_COMBINAR``)."""
    (m_a, l_a, acc_a), (m_b, l_b, acc_b) = a, b
    m = max(m_a, m_b)
    fa, fb = math.exp(m_a - m), math.exp(m_b - m)
    l_certo = l_a * fa + l_b * fb
    acc_certo = acc_a * fa + acc_b * fb
    ga, gb = math.exp(m - m_a), math.exp(m - m_b)
    return {
        "nenhum": (m, l_a + l_b, acc_a + acc_b),
        "antigo": (m, l_a + l_b * fb, acc_a + acc_b * fb),
        "novo": (m, l_a * fa + l_b, acc_a * fa + acc_b),
        "so_l": (m, l_certo, acc_a + acc_b),
        "so_acc": (m, l_a + l_b, acc_certo),
        "sinal": (m, l_a * ga + l_b * gb, acc_a * ga + acc_b * gb),
        "cedo": (m, l_certo, acc_certo / l_certo),
        "cedo_cada": (m, l_certo, acc_a / l_a * fa + acc_b / l_b * fb),
    }


_EXPLICA_COMBINAR = {
    "nenhum": "Você somou os estados sem reescalar nenhum. Cada l e cada acc foi medido a partir do **seu** máximo "
              "(e^(z − m_a) num, e^(z − m_b) no outro): antes de somar, multiplique o estado a por e^(m_a − m) e o "
              "estado b por e^(m_b − m), com m = max(m_a, m_b).",
    "antigo": "Você esqueceu de reescalar o estado **antigo** (a). Quando o bloco novo traz um máximo maior, o que "
              "já estava somado em l_a e acc_a foi medido a partir de m_a, que deixou de ser o máximo: multiplique "
              "l_a **e** acc_a por e^(m_a − m).",
    "novo": "Você esqueceu de reescalar o estado **novo** (b). Quando o máximo continua sendo o antigo (m_a > m_b), "
            "l_b e acc_b precisam ser trazidos para a referência m: multiplique os dois por e^(m_b − m).",
    "so_l": "A soma l está certa, mas o acumulador acc não foi reescalado: acc_a e acc_b precisam do **mesmo** fator "
            "que l_a e l_b (e^(m_a − m) e e^(m_b − m)), senão a saída acc / l mistura escalas diferentes.",
    "so_acc": "O acumulador acc está certo, mas a soma l não foi reescalada: l_a e l_b precisam dos mesmos fatores "
              "e^(m_a − m) e e^(m_b − m) que acc_a e acc_b.",
    "sinal": "Sinal trocado no expoente: você multiplicou por e^(m − m_a), que é >= 1. O fator certo é e^(m_a − m) "
             "(velho menos novo, sempre <= 1): ele **diminui** o que foi somado com uma referência menor.",
    "cedo": "Você dividiu acc por l cedo demais. O estado guarda acc **sem** dividir; a divisão acc / l é feita uma "
            "vez só, no fim, depois do último bloco (a função finish_state). Devolva acc = acc_a·e^(m_a − m) + "
            "acc_b·e^(m_b − m).",
    "cedo_cada": "Você dividiu cada acc pelo seu l antes de combinar. O estado guarda acc **sem** dividir; a divisão "
                 "acc / l é feita uma vez só, no fim (finish_state).",
}


def _tripla(y: Any) -> tuple[float, float, np.ndarray] | None:
    try:
        m, l_, acc = y
        return float(np.asarray(m, dtype=float).reshape(())), float(np.asarray(l_, dtype=float).reshape(())), \
            np.asarray(acc, dtype=float)
    except (TypeError, ValueError):
        return None


def _mesmo_estado(y: tuple[float, float, np.ndarray], alvo: tuple[float, float, np.ndarray]) -> bool:
    return (math.isclose(y[0], alvo[0], rel_tol=1e-9, abs_tol=1e-12) and math.isclose(y[1], alvo[1], rel_tol=1e-9)
            and _perto(y[2], np.asarray(alvo[2], dtype=float), 1e-9))


def _veredito_combinar(fn: Callable[[tuple, tuple], Any]) -> Veredito:
    from .efficient import combine_states

    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    vazio = (-math.inf, 0.0, np.zeros(2))
    casos = [
        ("quando o bloco novo traz o maior escore (blocos [1, 3] e [5, 2])",
         _estado_de([1.0, 3.0], v[:2]), _estado_de([5.0, 2.0], v[2:])),
        ("quando o bloco antigo tem o maior escore (blocos [4, 0.5] e [1, 2])",
         _estado_de([4.0, 0.5], v[:2]), _estado_de([1.0, 2.0], v[2:])),
        ("no primeiro bloco (o estado vazio (-inf, 0, 0) com o bloco [5, 2])", vazio, _estado_de([5.0, 2.0], v[2:])),
    ]
    respostas = []  # (caso, a, b, resposta do estudante, resposta certa)
    for caso, a, b in casos:
        copia = lambda e: (e[0], e[1], np.array(e[2]))  # noqa: E731 - o estudante não estraga os nossos arrays
        bruto = _chamar(fn, caso, copia(a), copia(b))
        y = _tripla(bruto)
        if y is None:
            return Veredito(False, f"{ERRO} A função deve devolver uma tripla (m, l, acc) — o novo máximo, a nova "
                                   f"soma e o novo acumulador; veio {type(bruto).__name__}.")
        m_c, l_c, acc_c = combine_states(a, b)
        certo = (float(m_c), float(l_c), np.asarray(acc_c, dtype=float))
        titulo = caso[0].upper() + caso[1:]
        if y[2].shape != certo[2].shape:
            return Veredito(False, f"{ERRO} {titulo}: acc deveria ser um vetor de forma {certo[2].shape} (um número "
                                   f"por coordenada do value); veio forma {y[2].shape}.")
        if not math.isclose(y[0], certo[0], rel_tol=1e-9):
            return Veredito(False, f"{ERRO} {titulo}: o novo m deveria ser max(m_a, m_b) = {certo[0]:g}, veio "
                                   f"{y[0]:g}. O máximo combinado é o maior dos dois máximos: é ele que garante "
                                   "e^(z − m) <= 1 para todos os escores vistos até aqui.")
        respostas.append((caso, a, b, y, certo))

    erradas = [r for r in respostas if not _mesmo_estado(r[3], r[4])]
    finitas = [r for r in erradas if math.isfinite(r[3][1]) and np.all(np.isfinite(r[3][2]))]
    if len(finitas) < len(erradas) and not any(math.isfinite(r[1][0]) for r in erradas):
        caso = next(r[0] for r in erradas)  # só o estado vazio deu NaN/inf: os outros casos estão certos
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}, l ou acc saíram NaN ou inf. Com o estado "
                               "vazio, m_a = -inf e e^(m_a − m) = e^(-inf) = 0: o estado vazio some da soma sozinho. "
                               "Não divida por l_a nem calcule m_a − m_a.")
    if erradas:
        # o erro que explica todos os casos com dois estados de verdade (os dois primeiros), na ordem do
        # dicionário; senão, o primeiro que explica o primeiro caso errado
        completos = [r for r in respostas if math.isfinite(r[1][0])]
        for chave in _EXPLICA_COMBINAR:
            if all(_mesmo_estado(y, _erros_combinar(a, b)[chave]) for _c, a, b, y, _ in completos):
                caso = next(r[0] for r in erradas)
                return Veredito(False, f"{ERRO} {_EXPLICA_COMBINAR[chave]}\n(Isso apareceu {caso}.)")
        caso, a, b, y, certo = erradas[0]
        if math.isfinite(a[0]):
            for chave, errado in _erros_combinar(a, b).items():
                if _mesmo_estado(y, errado):
                    return Veredito(False, f"{ERRO} {_EXPLICA_COMBINAR[chave]}\n(Isso apareceu {caso}.)")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava (m, l, acc) = ({certo[0]:g}, "
                               f"{certo[1]:.4f}, {_fmt(certo[2])}), veio ({y[0]:g}, {y[1]:.4f}, {_fmt(y[2])}).")

    # a função aplicada bloco a bloco, em escores grandes: acc / l deve ser a atenção exata
    rng = np.random.default_rng(9)
    z = 1000.0 + rng.normal(size=9) * 3
    vs = rng.normal(size=(9, 2))
    estado = vazio
    for i0 in range(0, 9, 3):
        estado = _tripla(_chamar(fn, "aplicada bloco a bloco", estado, _estado_de(list(z[i0:i0 + 3]), vs[i0:i0 + 3])))
        if estado is None:
            return Veredito(False, f"{ERRO} Aplicada bloco a bloco, a função deixou de devolver uma tripla (m, l, acc).")
    saida = estado[2] / estado[1]
    exata = softmax(z) @ vs
    if not _perto(saida, exata, 1e-9):
        return Veredito(False, f"{ERRO} Aplicada a três blocos de escores perto de 1000, acc / l deu {_fmt(saida)}, "
                               f"mas a atenção exata dá {_fmt(exata)}.")
    return Veredito(True, f"{OK} Correto! m = max(m_a, m_b), e l e acc de cada estado são multiplicados por "
                          "e^(m_velho − m) antes de somar. Aplicada bloco a bloco em escores perto de 1000, sua função "
                          f"chegou a acc / l = {_fmt(saida)}, a atenção exata, sem nunca calcular e^1000.")


def _milhar_com_espaco(x: float) -> str:
    """``4194304`` → ``"4 194 304"`` (espaço fino entre os milhares, sem vírgulas nem pontos ambíguos)."""
    return f"{x:,.0f}".replace(",", " ")


def check_memoria_pesos(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(n, n_cabecas, bytes_por_numero)`` = os bytes das matrizes de pesos de atenção:
    ``n² · n_cabecas · bytes_por_numero`` (uma matriz ``n × n`` por cabeça).

    Reconhece: ``n`` em vez de ``n²``, a contagem de números em vez de bytes, as cabeças esquecidas,
    bits em vez de bytes, só a metade causal e o resultado já convertido para MiB ou GiB.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_memoria_pesos(fn), nome)


def _veredito_memoria_pesos(fn: Callable[..., Any]) -> Veredito:
    casos = [(1024, 1, 4), (8192, 32, 2), (131072, 1, 4), (3, 2, 8)]
    for n, h, b in casos:
        caso = f"com n = {n}, n_cabecas = {h}, bytes_por_numero = {b}"
        y = _chamar(fn, caso, n, h, b)
        try:
            valor = float(y)
        except (TypeError, ValueError):
            return Veredito(False, f"{ERRO} A função deve devolver um número (de bytes); veio {type(y).__name__}.")
        certo = n * n * h * b
        if math.isclose(valor, certo, rel_tol=1e-9):
            continue
        erros = [
            (n * h * b, "Faltou o quadrado: a matriz de escores (e a de pesos) tem uma linha por query **e** uma "
                        "coluna por key — n × n números por cabeça, não n."),
            (n * n * h, "Você contou **números**, não bytes: multiplique por bytes_por_numero (4 no float32, 2 no "
                        "float16/bfloat16)."),
            (n * n * b, "Faltaram as cabeças: cada cabeça tem a sua própria matriz n × n de pesos."),
            (n * n * h * b * 8, "Você contou **bits** (× 8): bytes_por_numero já está em bytes."),
            (n * (n + 1) // 2 * h * b, "Você contou só a metade causal (n(n + 1)/2). A máscara zera os pesos do "
                                       "futuro, mas a matriz guardada continua tendo as n² posições."),
            (n * n * h * b / 2**20, "Você converteu para MiB; a função deve devolver **bytes** (a conversão vem "
                                    "depois, na hora de mostrar)."),
            (n * n * h * b / 2**30, "Você converteu para GiB; a função deve devolver **bytes**."),
            (n * n * h * b / 1e6, "Você converteu para MB; a função deve devolver **bytes**."),
        ]
        for errado, explicacao in erros:
            if math.isclose(valor, errado, rel_tol=1e-9):
                return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}: esperava {_milhar_com_espaco(certo)} "
                                       f"bytes, veio {_milhar_com_espaco(valor)}.)")
        return Veredito(False, f"{ERRO} {caso[0].upper() + caso[1:]}: esperava n² · n_cabecas · bytes_por_numero = "
                               f"{_milhar_com_espaco(certo)} bytes, veio {_milhar_com_espaco(valor)}.")
    return Veredito(True, f"{OK} Correto! n² · n_cabecas · bytes_por_numero. Com 128k tokens (n = 131072) e "
                          "float32, uma única cabeça já pede 64 GiB só para os pesos — é por isso que ninguém monta "
                          "essa matriz inteira em contextos longos.")


# === 10 · revisão ============================================================================
# O quiz: as perguntas e o gabarito moram em data/quiz_revisao.json (lido por helpers.data), e daqui
# saem tanto o texto das perguntas mostrado no notebook quanto o corretor: os dois não têm como divergir.


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
    from .data import carregar_quiz

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
    from .data import carregar_quiz

    blocos = []
    for p in carregar_quiz():
        linhas = [f"**{p.numero}.** {p.enunciado} *(notebook {p.notebook})*", ""]
        if p.tipo == "escolha":
            linhas += [f"- **{letra})** {texto}" for letra, texto in p.opcoes.items()]
        else:
            linhas.append("- *Responda com um número.*")
        blocos.append("\n".join(linhas))
    return "\n\n".join(blocos)


def check_mecanismo(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v, W_o, n_heads)``: a atenção de várias cabeças inteira, de ``X``
    ``(n, d_model)`` à saída ``(n, d_out)`` — projeções, divisão em cabeças, ``softmax(Q Kᵀ/√d_head) V``
    em cada cabeça, junção e ``W_o`` (a referência é :func:`helpers.attention.multi_head_attention`).

    A função pode devolver só a saída ou ``(saída, pesos)``. Casos: ``n = 3``, ``d_model = 6``, duas
    cabeças (``W_o`` quadrada, para que quase todo erro rode e se reconheça pelo valor) e ``n = 5``,
    ``d_model = 8``, quatro cabeças, ``W_o`` ``(8, 3)``. Reconhece: faltou ``W_o``; uma cabeça só; escala
    com ``d_model`` em vez de ``d_head``; sem escala; ``d_head`` sem a raiz; softmax no eixo errado;
    divisão em cabeças sem transpor (``reshape(n_heads, n, d_head)``); junção sem transpor de volta;
    keys no lugar dos values.
    """
    nome = getattr(fn, "__name__", "sua função")
    return rodar_checagem(lambda: _veredito_mecanismo(fn), nome)


def _casos_mecanismo() -> list[tuple[str, tuple[np.ndarray, ...], int]]:
    rng = np.random.default_rng(10)
    casos = []
    for n, d_model, h, d_out in ((3, 6, 2, 6), (5, 8, 4, 3)):
        X = rng.normal(size=(n, d_model))
        Ws = tuple(rng.normal(size=(d_model, d_model)) / math.sqrt(d_model) for _ in range(3))  # sem saturar
        W_o = rng.normal(size=(d_model, d_out))
        caso = f"com X ({n}, {d_model}), n_heads = {h} e W_o ({d_model}, {d_out})"
        casos.append((caso, (X, *Ws, W_o), h))
    return casos


def _erros_mecanismo(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, W_o: np.ndarray,
                     h: int) -> list[tuple[np.ndarray, str]]:
    """Saídas de implementações erradas conhecidas do mecanismo inteiro, cada uma com a explicação."""
    n, d_model = X.shape
    d = W_q.shape[1] // h
    Q, K, V = X @ W_q, X @ W_k, X @ W_v

    def dividir(M: np.ndarray) -> np.ndarray:
        return M.reshape(n, h, d).transpose(1, 0, 2)

    def dividir_sem_transpor(M: np.ndarray) -> np.ndarray:
        return M.reshape(h, n, d)

    def juntar(saidas: np.ndarray) -> np.ndarray:
        return saidas.transpose(1, 0, 2).reshape(n, h * d)

    def juntar_sem_transpor(saidas: np.ndarray) -> np.ndarray:
        return saidas.reshape(n, h * d)

    def atender(q: np.ndarray, k: np.ndarray, v: np.ndarray, escala: float, eixo: int = -1) -> np.ndarray:
        return softmax(q @ np.swapaxes(k, -1, -2) * escala, axis=eixo) @ v

    Qh, Kh, Vh = dividir(Q), dividir(K), dividir(V)
    certo_sem_wo = juntar(atender(Qh, Kh, Vh, 1 / math.sqrt(d)))
    return [
        (certo_sem_wo, "Faltou a projeção de saída: depois de juntar as cabeças, multiplique por W_o. É ela que "
                       "mistura o que cada cabeça encontrou e leva o resultado para a largura d_out."),
        (atender(Q, K, V, 1 / math.sqrt(d_model)) @ W_o,
         f"Você fez uma cabeça só, com todas as {d_model} colunas. Com n_heads = {h}, divida Q, K e V em {h} "
         f"cabeças de d_head = {d} colunas, faça a atenção em cada uma e junte as saídas antes de W_o."),
        (juntar(atender(Qh, Kh, Vh, 1 / math.sqrt(d_model))) @ W_o,
         f"A escala de cada cabeça é 1/√d_head = 1/√{d}, não 1/√d_model = 1/√{d_model}: os escores de uma "
         f"cabeça são produtos escalares de vetores com d_head = {d} coordenadas."),
        (juntar(atender(Qh, Kh, Vh, 1.0)) @ W_o, "Faltou a escala: divida os escores de cada cabeça por √d_head "
                                                 "antes da softmax."),
        (juntar(atender(Qh, Kh, Vh, 1 / d)) @ W_o, f"Você dividiu por d_head = {d} em vez de √d_head = √{d}."),
        (juntar(atender(Qh, Kh, Vh, 1 / math.sqrt(d), eixo=-2)) @ W_o,
         "Softmax no eixo errado: em cada cabeça, os pesos de cada **query** (cada linha de Q Kᵀ, forma "
         "(n_heads, n, n)) devem somar 1. Use axis=-1, não axis=-2 (ou 0/1)."),
        (juntar_sem_transpor(atender(dividir_sem_transpor(Q), dividir_sem_transpor(K), dividir_sem_transpor(V),
                                     1 / math.sqrt(d))) @ W_o,
         "Você dividiu em cabeças com M.reshape(n_heads, n, d_head), sem transpor, e juntou com o reshape "
         "inverso. O reshape lê os números linha por linha, então cada 'cabeça' ficou com pedaços de tokens "
         "diferentes. Faça M.reshape(n, n_heads, d_head).transpose(1, 0, 2) e, para juntar, "
         "O.transpose(1, 0, 2).reshape(n, n_heads·d_head) (notebook 08)."),
        (juntar(atender(dividir_sem_transpor(Q), dividir_sem_transpor(K), dividir_sem_transpor(V),
                        1 / math.sqrt(d))) @ W_o,
         "A divisão em cabeças está errada: M.reshape(n_heads, n, d_head) direto mistura tokens. Separe as "
         "colunas de cada token primeiro, M.reshape(n, n_heads, d_head), e depois troque os eixos: "
         ".transpose(1, 0, 2) (notebook 08)."),
        (juntar_sem_transpor(atender(Qh, Kh, Vh, 1 / math.sqrt(d))) @ W_o,
         "A divisão em cabeças está certa, mas a junção não: a saída das cabeças tem forma (n_heads, n, d_head), "
         "e O.reshape(n, n_heads·d_head) mistura tokens. Troque os eixos de volta antes: "
         "O.transpose(1, 0, 2).reshape(n, n_heads·d_head)."),
        (juntar(atender(Qh, Kh, Kh, 1 / math.sqrt(d))) @ W_o,
         "Você somou as **keys** ponderadas; a saída de cada cabeça é a soma ponderada dos **values** (V = X @ W_v)."),
    ]


def _veredito_mecanismo(fn: Callable[..., Any]) -> Veredito:
    from .attention import multi_head_attention

    for caso, args, h in _casos_mecanismo():
        X, W_q, W_k, W_v, W_o = args
        certo, _ = multi_head_attention(X, X, W_q, W_k, W_v, W_o, h)
        y = _saida(_chamar(fn, caso, *(a.copy() for a in args), h))
        if _perto(y, certo):
            continue
        titulo = caso[0].upper() + caso[1:]
        for errado, explicacao in _erros_mecanismo(X, W_q, W_k, W_v, W_o, h):
            if _perto(y, errado):
                return Veredito(False, f"{ERRO} {explicacao}\n(Isso apareceu {caso}.)")
        forma = None if y is None else y.shape
        if forma != certo.shape:
            return Veredito(False, f"{ERRO} {titulo}: a saída deveria ter forma (n, d_out) = {certo.shape} — uma "
                                   f"linha por token, com as colunas de W_o —, mas veio {forma}.")
        return Veredito(False, f"{ERRO} {titulo}: esperava\n{_fmt(certo)}\nveio\n{_fmt(y)}")
    return Veredito(True, f"{OK} Correto! X → Q, K, V → cabeças (n_heads, n, d_head) → "
                          "softmax(Q Kᵀ/√d_head) V em cada uma → juntar (n, n_heads·d_head) → W_o. É o mecanismo "
                          "inteiro, igual a attention.multi_head_attention.")
