"""O corretor do exercício de código do notebook ``revisao``: o mecanismo inteiro, de ``X`` à saída, só com numpy,
com cada erro clássico construído por :func:`_mecanismo` (o mecanismo com um "defeito" escolhido).

A softmax de dentro do mecanismo é cobrada no padrão de estabilidade da coleção (:mod:`helpers.estabilidade`):
uma linha de escores muito negativos, linhas a milhares de distância no mesmo lote, uma linha muito espalhada e
float32. A regra do enunciado — sem ``helpers.attention`` nem outra atenção ou softmax pronta — é conferida na
própria função (:data:`SO_NUMPY`)."""

from __future__ import annotations

import dis
import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...attention import multi_head_attention, softmax
from ...corretor import Caso, Erro, Exercicio, Regra, celula_preenchida, codigos_de, conferir, corretor_de
from ...estabilidade import erros_de_estabilidade
from ...respostas import SaidaOuPar

__all__ = ["MECANISMO", "SO_NUMPY", "check_mecanismo"]

_SAIDA = SaidaOuPar()


def _mecanismo(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, W_o: np.ndarray | None, h: int, *,
               escala: str = "d_head", eixo: int = -1, dividir: str = "certo", juntar: str = "certo",
               values: str = "V", uma_cabeca: bool = False, suave: Callable[[np.ndarray], np.ndarray] | None = None,
               keepdims: str = "", soma: str = "linha", projecoes: str = "certas", k_t: bool = False) -> np.ndarray:
    """O mecanismo inteiro com um "defeito" escolhido (para construir os erros clássicos).

    ``suave`` troca a softmax estável (os erros de estabilidade); ``keepdims`` ("max", "soma", "ambos") esquece
    ``keepdims=True`` nessa redução; ``soma="tudo"`` divide pela soma do array inteiro; ``projecoes="transpostas"``
    faz ``X @ W.T``; ``k_t`` escreve ``Kh.T`` com três eixos (que inverte todos). A conta fica no tipo das entradas
    (float32 continua float32, como na conta de um estudante que divide por ``math.sqrt``)."""
    n, d_model = X.shape
    if projecoes == "transpostas":
        Q, K, V = X @ W_q.T, X @ W_k.T, X @ W_v.T
    else:
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
    if uma_cabeca:
        out = softmax(Q @ K.T / math.sqrt(d_model)) @ V
        return out @ W_o
    d = Q.shape[1] // h
    fator = {"d_head": 1 / math.sqrt(d), "d_model": 1 / math.sqrt(d_model), "nenhuma": 1.0, "d": 1 / d,
             "n": 1 / math.sqrt(n)}[escala]

    def separar(M: np.ndarray) -> np.ndarray:
        return M.reshape(n, h, d).transpose(1, 0, 2) if dividir == "certo" else M.reshape(h, n, d)

    Qh, Kh, Vh = separar(Q), separar(K), separar(V)
    z = Qh @ (Kh.T if k_t else np.swapaxes(Kh, -1, -2)) * fator
    if suave is not None:
        pesos = suave(z)
    elif keepdims or soma != "linha":
        m = z.max(axis=-1, keepdims=keepdims not in ("max", "ambos"))
        e = np.exp(z - m)
        pesos = e / (e.sum() if soma == "tudo" else e.sum(axis=-1, keepdims=keepdims not in ("soma", "ambos")))
    else:
        pesos = softmax(z, axis=eixo)
    saidas = pesos @ (Kh if values == "K" else Vh)
    junto = saidas.transpose(1, 0, 2).reshape(n, h * d) if juntar == "certo" else saidas.reshape(n, h * d)
    return junto if W_o is None else junto @ W_o


def _com(**defeito: Any) -> Callable[..., np.ndarray]:
    """A resposta de um erro clássico: o mecanismo com ``defeito``, com as entradas do caso."""
    return lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, W_o, n_heads, **defeito)


def _uma_destas(*defeitos: dict[str, Any]) -> Callable[[Any, Any, Caso], bool]:
    """O ``quando`` de um erro com várias versões (o mesmo descuido em lugares diferentes): a resposta é a de
    alguma delas. Não se aplica (levanta) se nenhuma versão roda com as formas do caso."""
    def quando(y: Any, _certo: Any, caso: Caso) -> bool:
        lida = _SAIDA.normalizar(y)
        rodaram = False
        for defeito in defeitos:
            try:
                with np.errstate(all="ignore"):
                    errada = _com(**defeito)(**caso.entradas)
            except (ValueError, IndexError):
                continue
            rodaram = True
            if np.all(np.isfinite(errada)) and _SAIDA.igual(lida, errada):
                return True
        if not rodaram:
            raise ValueError("nenhuma versão roda com estas formas")
        return False

    return quando


def _tudo_pelo_total(z: np.ndarray) -> np.ndarray:
    """e / e.sum() com o máximo do array inteiro: a softmax do array inteiro, como se fosse um vetor só."""
    e = np.exp(z - z.max())
    return e / e.sum()


def _certo(X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, W_o: np.ndarray,
           n_heads: int) -> np.ndarray:
    """A resposta certa, em float64 (mesmo com as entradas em float32)."""
    return multi_head_attention(*(np.asarray(a, dtype=np.float64) for a in (X, X, W_q, W_k, W_v, W_o)), n_heads)[0]


def _devolveu_pesos_e_saida(y: Any, certo: Any, _caso: Caso) -> bool:
    """Um par cuja **segunda** parte é a saída certa: ``(pesos, saída)`` na ordem trocada."""
    if not (isinstance(y, (tuple, list)) and len(y) == 2):
        return False
    segunda = np.asarray(y[1], dtype=float)
    return segunda.shape == np.shape(certo) and _SAIDA.igual(segunda, certo)


# --- os casos ------------------------------------------------------------------------------------------------


def _projetados(Qt: np.ndarray, Kt: np.ndarray, Vt: np.ndarray, W_o: np.ndarray, dtype: type = np.float64,
                semente: int = 0) -> dict[str, Any]:
    """Entradas em que ``Q``, ``K`` e ``V`` saem exatamente ``Qt``, ``Kt`` e ``Vt`` (n = 3, d_model = 8):
    ``X = [I₃ | R]`` (a identidade dos três tokens e cinco colunas sorteadas) e cada ``W`` tem as linhas de
    ``Qt``/``Kt``/``Vt`` em cima e zeros embaixo."""
    R = np.random.default_rng(semente).integers(-2, 3, size=(3, 5))
    X = np.hstack([np.eye(3), R]).astype(dtype)

    def W(M: np.ndarray) -> np.ndarray:
        return np.vstack([M, np.zeros((5, 8))]).astype(dtype)

    return {"X": X, "W_q": W(Qt), "W_k": W(Kt), "W_v": W(Vt), "W_o": W_o.astype(dtype), "n_heads": 2}


def _escores(linhas_0: list[tuple[float, float]], linhas_1: list[tuple[float, float]]) -> tuple[np.ndarray, ...]:
    """``Qt`` e ``Kt`` (3, 8) de duas cabeças de d_head = 4 (escala 1/√4 = 1/2, exata) em que a linha ``i`` dos
    escores escalados é ``c + s·j`` na cabeça 0 (keys ``(1, j)``, j = 0, 1, 2) e ``c + s·(j − 1)`` na cabeça 1, com
    ``(c, s)`` = ``linhas_0[i]`` e ``linhas_1[i]``."""
    Qt, Kt = np.zeros((3, 8)), np.zeros((3, 8))
    for j in range(3):
        Kt[j, 0:2] = (1.0, j)
        Kt[j, 4:6] = (1.0, j - 1)
    for i, ((c0, s0), (c1, s1)) in enumerate(zip(linhas_0, linhas_1)):
        Qt[i, 0:2] = (2 * c0, 2 * s0)
        Qt[i, 4:6] = (2 * c1, 2 * s1)
    return Qt, Kt


def _casos_estabilidade() -> list[Caso]:
    """O padrão de estabilidade da coleção dentro do mecanismo (veja :mod:`helpers.estabilidade`)."""
    rng = np.random.default_rng(11)
    Vt = rng.integers(-3, 4, size=(3, 8)).astype(float)
    W_o = rng.integers(-2, 3, size=(8, 4)) / 2
    negativos = _escores([(-1000, -1), (0, 1), (1, -0.5)], [(0, 1), (0, 1000), (2, 1)])
    milhares = _escores([(0, 1), (3000, 1), (-2, 2)], [(1, 1), (0, -1), (0, 0.5)])
    f32 = _escores([(100, 1), (1, 1), (50, -1)], [(0, 2), (95, 1), (0, 0)])
    return [
        Caso("com escores muito negativos numa linha (−1000, −1001, −1002, na cabeça 0) e muito espalhados noutra "
             "(−1000, 0, 1000, na cabeça 1)", _projetados(*negativos, Vt, W_o)),
        Caso("com linhas de escores a milhares de distância no mesmo lote (0, 1, 2 e 3000, 3001, 3002, na cabeça 0)",
             _projetados(*milhares, Vt, W_o)),
        Caso("com tudo em float32 e escores perto de 100 (100, 101, 102 na cabeça 0; 94, 95, 96 na cabeça 1)",
             _projetados(*f32, Vt, W_o, dtype=np.float32)),
    ]


def _casos_mecanismo() -> list[Caso]:
    rng = np.random.default_rng(10)
    casos = []
    # n = n_heads = d_head = 2 no último: ali até um keepdims esquecido ou um Kh.T de três eixos rodam (sem erro do
    # numpy), e o erro se reconhece pelo valor
    for n, d_model, h, d_out in ((3, 6, 2, 6), (5, 8, 4, 3), (2, 4, 2, 3)):
        X = rng.normal(size=(n, d_model))
        W_q, W_k, W_v = (rng.normal(size=(d_model, d_model)) / math.sqrt(d_model) for _ in range(3))  # sem saturar
        W_o = rng.normal(size=(d_model, d_out))
        casos.append(Caso(f"com X ({n}, {d_model}), n_heads = {h} e W_o ({d_model}, {d_out})",
                          {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o, "n_heads": h}))
    return casos + _casos_estabilidade()


def _d_head(W_q: np.ndarray, n_heads: int, **_: Any) -> int:
    return W_q.shape[1] // n_heads


def _explica_forma(X: np.ndarray, W_q: np.ndarray, W_o: np.ndarray, n_heads: int, **_: Any) -> str:
    n, d = X.shape[0], _d_head(W_q, n_heads)
    return (f"Com as cabeças no primeiro eixo, Qh e Kh têm forma (n_heads, n, d_head) = ({n_heads}, {n}, {d}). "
            f"Tropeços comuns aqui: Kh.T inverte **todos** os eixos (dá ({d}, {n}, {n_heads}), não ({n_heads}, {d}, "
            f"{n})) — troque só os dois últimos, com np.swapaxes(Kh, -1, -2) ou Kh.transpose(0, 2, 1); z.max(axis=-1) "
            f"ou e.sum(axis=-1) sem keepdims=True têm forma ({n_heads}, {n}), que o numpy não consegue alinhar com "
            f"({n_heads}, {n}, {n}); e a junção deixa as cabeças **lado a lado**, (n, n_heads·d_head) = ({n}, "
            f"{n_heads * d}), que é o que W_o {W_o.shape} espera — somar ou tirar a média das cabeças dá ({n}, {d}).")


# --- a regra: só numpy -------------------------------------------------------------------------------------

#: as bibliotecas que o exercício dispensa (a atenção e a softmax prontas da coleção, do scipy, do torch…)
_PRONTAS = ("helpers", "scipy", "torch", "jax", "tensorflow", "keras")


def _de_biblioteca_pronta(obj: Any) -> bool:
    modulo = obj.__name__ if inspect.ismodule(obj) else getattr(obj, "__module__", None)
    return isinstance(modulo, str) and modulo.split(".")[0] in _PRONTAS


def usa_atencao_pronta(fn: Callable[..., Any]) -> bool:
    """``fn`` (ou uma função do próprio estudante que ela chama) usa algo de ``helpers`` (``attention.softmax``,
    ``attention.multi_head_attention``, ``split_heads``…), do scipy ou de uma biblioteca de redes neurais? Os nomes
    são resolvidos nos globais da função: uma ``softmax`` que o estudante escreveu no notebook não conta."""
    vistas: set[int] = set()

    def olhar(f: Any, profundidade: int) -> bool:
        if id(f) in vistas or profundidade > 4:
            return False
        vistas.add(id(f))
        globais = getattr(f, "__globals__", {})
        celulas = [c.cell_contents for c in (getattr(f, "__closure__", None) or ()) if celula_preenchida(c)]
        for c in codigos_de(f):
            # um import dentro da função: from helpers.attention import softmax, import scipy.special…
            if any(i.opname == "IMPORT_NAME" and str(i.argval).split(".")[0] in _PRONTAS
                   for i in dis.get_instructions(c)):
                return True
            for nome in c.co_names:
                if nome not in globais:
                    continue
                obj = globais[nome]
                if _de_biblioteca_pronta(obj) or (inspect.isfunction(obj) and olhar(obj, profundidade + 1)):
                    return True
        return any(_de_biblioteca_pronta(o) or (inspect.isfunction(o) and olhar(o, profundidade + 1))
                   for o in celulas)

    return olhar(fn, 0)


SO_NUMPY = Regra(
    "usou uma atenção ou softmax pronta",
    "o exercício pede o mecanismo **só com numpy**, e a sua função (ou uma função sua que ela chama) usa uma "
    "pronta — de helpers.attention (softmax, split_heads, merge_heads, scaled_dot_product_attention, "
    "multi_head_attention), do scipy ou de outra biblioteca. Escreva cada passo com arrays do numpy: as projeções "
    "com @, a divisão em cabeças com reshape e transpose, a softmax estável (com o máximo de cada linha) e a junção.",
    usa_atencao_pronta,
)


MECANISMO = Exercicio(
    nome="o mecanismo inteiro",
    casos=_casos_mecanismo,
    certo=_certo,
    formato=_SAIDA,
    acerto="Correto, e só com numpy! X → Q, K, V → cabeças (n_heads, n, d_head) → softmax(Q Kᵀ/√d_head) V em cada "
           "uma → juntar (n, n_heads·d_head) → W_o. A sua softmax é estável: aguentou linhas de escores muito "
           "negativos, linhas a milhares de distância no mesmo lote e float32. É o mecanismo inteiro, igual a "
           "attention.multi_head_attention.",
    erros=[
        *erros_de_estabilidade(lambda trocar, X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(
            X, W_q, W_k, W_v, W_o, n_heads, suave=trocar)),
        Erro("sem W_o",
             "Faltou a projeção de saída: depois de juntar as cabeças, multiplique por W_o. É ela que mistura o que cada "
             "cabeça encontrou e leva o resultado para a largura d_out.",
             resposta=lambda X, W_q, W_k, W_v, W_o, n_heads: _mecanismo(X, W_q, W_k, W_v, None, n_heads)),
        Erro("uma cabeça só",
             lambda X, W_q, n_heads, **_: f"Você fez uma cabeça só, com todas as {X.shape[1]} colunas. Com n_heads = "
                                          f"{n_heads}, divida Q, K e V em {n_heads} cabeças de d_head = "
                                          f"{_d_head(W_q, n_heads)} colunas, faça a atenção em cada uma e junte as "
                                          "saídas antes de W_o.",
             resposta=_com(uma_cabeca=True)),
        Erro("escala com d_model",
             lambda X, W_q, n_heads, **_: f"A escala de cada cabeça é 1/√d_head = 1/√{_d_head(W_q, n_heads)}, não "
                                          f"1/√d_model = 1/√{X.shape[1]}: os escores de uma cabeça são produtos "
                                          f"escalares de vetores com d_head = {_d_head(W_q, n_heads)} coordenadas.",
             resposta=_com(escala="d_model")),
        Erro("sem escala",
             "Faltou a escala: divida os escores de cada cabeça por √d_head antes da softmax.",
             resposta=_com(escala="nenhuma")),
        Erro("÷d_head em vez de ÷√d_head",
             lambda W_q, n_heads, **_: f"Você dividiu por d_head = {_d_head(W_q, n_heads)} em vez de √d_head = "
                                       f"√{_d_head(W_q, n_heads)}.",
             resposta=_com(escala="d")),
        Erro("raiz do número de keys",
             lambda X, W_q, n_heads, **_: f"Você dividiu pela raiz do número de tokens (n = {X.shape[0]}, as keys que "
                                          f"cada query vê), não de d_head = {_d_head(W_q, n_heads)}. A escala vem do "
                                          "tamanho dos **vetores** de cada cabeça: um produto escalar de d_head "
                                          "coordenadas tem variância d_head, qualquer que seja o número de keys.",
             resposta=_com(escala="n")),
        Erro("softmax no eixo errado",
             "Softmax no eixo errado: em cada cabeça, os pesos de cada **query** (cada linha de Q Kᵀ, forma "
             "(n_heads, n, n)) devem somar 1. Use axis=-1, não axis=-2 (que, com três eixos, é o mesmo que axis=1): "
             "assim cada coluna somaria 1.",
             resposta=_com(eixo=-2)),
        Erro("softmax entre as cabeças",
             "Softmax no eixo das cabeças (axis=0): assim, cada escore foi normalizado contra o mesmo escore das outras "
             "cabeças, e os pesos de uma cabeça passaram a depender das outras. A softmax é por **query**, dentro de "
             "cada cabeça: o último eixo, axis=-1.",
             resposta=_com(eixo=0)),
        Erro("normalizou pela matriz inteira",
             "Os pesos foram divididos pela soma de **todos** os e^(…) — e.sum() sem axis, que soma todas as cabeças e "
             "todas as linhas —, e não pela soma de cada linha. Cada query, em cada cabeça, tem os seus pesos somando "
             "1: e.sum(axis=-1, keepdims=True).",
             quando=_uma_destas({"soma": "tudo"}, {"suave": _tudo_pelo_total})),
        Erro("faltou keepdims=True",
             lambda n_heads, **_: (
                 "Faltou keepdims=True no máximo ou na soma da softmax. Sem ele, z.max(axis=-1) e e.sum(axis=-1) têm "
                 "forma (n_heads, n), e o numpy as alinha pela **direita** com os escores (n_heads, n, n): a conta só "
                 "roda quando n_heads = n, e aí o escore [c, i, j] usa o número da linha j da cabeça i — outra conta, "
                 "sem erro nenhum. Com keepdims=True a redução fica (n_heads, n, 1), e cada linha usa o seu próprio "
                 f"máximo e a sua própria soma. (Aqui, n_heads = n = {n_heads}.)"),
             quando=_uma_destas({"keepdims": "max"}, {"keepdims": "soma"}, {"keepdims": "ambos"})),
        Erro("Kh.T com três eixos",
             "Com as cabeças no primeiro eixo, Kh.T inverte **todos** os eixos: (n_heads, n, d_head) vira (d_head, n, "
             "n_heads), e Qh @ Kh.T mistura cabeças e coordenadas (só roda quando n_heads = n = d_head). Troque só os "
             "dois últimos eixos: np.swapaxes(Kh, -1, -2), ou Kh.transpose(0, 2, 1).",
             resposta=_com(k_t=True)),
        Erro("dividir e juntar sem transpor",
             "Você dividiu em cabeças com M.reshape(n_heads, n, d_head), sem transpor, e juntou com o reshape inverso. O "
             "reshape lê os números linha por linha, então cada 'cabeça' ficou com pedaços de tokens diferentes. Faça "
             "M.reshape(n, n_heads, d_head).transpose(1, 0, 2) e, para juntar, O.transpose(1, 0, 2).reshape(n, "
             "n_heads·d_head) (notebook de várias cabeças).",
             resposta=_com(dividir="errado", juntar="errado")),
        Erro("dividir sem transpor",
             "A divisão em cabeças está errada: M.reshape(n_heads, n, d_head) direto mistura tokens. Separe as colunas "
             "de cada token primeiro, M.reshape(n, n_heads, d_head), e depois troque os eixos: .transpose(1, 0, 2) "
             "(notebook de várias cabeças).",
             resposta=_com(dividir="errado")),
        Erro("juntar sem transpor",
             "A divisão em cabeças está certa, mas a junção não: a saída das cabeças tem forma (n_heads, n, d_head), e "
             "O.reshape(n, n_heads·d_head) mistura tokens. Troque os eixos de volta antes: "
             "O.transpose(1, 0, 2).reshape(n, n_heads·d_head).",
             resposta=_com(juntar="errado")),
        Erro("W transpostas",
             "As projeções saíram de X @ W.T: aqui as matrizes já vêm na forma (d_model, largura), e Q = X @ W_q, "
             "K = X @ W_k, V = X @ W_v, sem transpor. (X @ W.T é a convenção de nn.Linear no PyTorch, que guarda "
             "os pesos como (saída, entrada); com W quadrada, a conta roda e dá outra coisa.)",
             resposta=_com(projecoes="transpostas")),
        Erro("soma das keys",
             "Você somou as **keys** ponderadas; a saída de cada cabeça é a soma ponderada dos **values** (V = X @ W_v).",
             resposta=_com(values="K")),
        Erro("par na ordem trocada",
             "A saída está certa, mas veio em segundo lugar: a função pode devolver só a saída, ou o par "
             "(saída, pesos) — nessa ordem.",
             quando=_devolveu_pesos_e_saida),
    ],
    regras=[SO_NUMPY],
    explica_forma=_explica_forma,
    dica_de_forma="A saída tem uma linha por token, com as colunas de W_o: forma (n, d_out).",
)


@corretor_de(MECANISMO)
def check_mecanismo(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X, W_q, W_k, W_v, W_o, n_heads)``: a atenção de várias cabeças inteira, de ``X``
    ``(n, d_model)`` à saída ``(n, d_out)``, só com numpy — projeções, divisão em cabeças, ``softmax(Q Kᵀ/√d_head) V``
    em cada cabeça, junção e ``W_o`` (a referência é :func:`helpers.attention.multi_head_attention`).

    A função pode devolver só a saída ou ``(saída, pesos)``.
    """
    return conferir(MECANISMO, fn)
