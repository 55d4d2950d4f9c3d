"""O padrão de estabilidade da coleção: uma régua só para todo corretor que calcula uma softmax.

Toda softmax da coleção (a do notebook ``softmax``, e a que mora dentro da atenção, da autoatenção, das
máscaras, das cabeças, do gradiente, da revisão) é cobrada nos mesmos quatro casos:

- uma linha de escores **muito negativos** (−1000, −1001, −1002): quem só subtrai o máximo quando ele é
  positivo, ou não subtrai nada, fica com 0/0 = NaN;
- linhas do mesmo lote **separadas por milhares**: quem usa um máximo só para o lote inteiro zera a linha de
  baixo (0/0);
- entrada em **float32** (e^89 já estoura);
- onde houver máscara, uma linha **inteiramente mascarada**: o máximo é −inf, e −inf − (−inf) = NaN; ali vale
  qualquer saída finita (zeros é a convenção da coleção).

Quem subtrai o máximo de cada linha (e troca um máximo −inf por 0) passa em todos. Cada jeito instável
recebe o seu nome (:func:`erros_de_estabilidade`); :func:`casos_de_estabilidade` são os casos de uma softmax
sobre o último eixo, e cada corretor monta os seus casos com as mesmas quatro situações.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .corretor import Caso, Erro
from .formato import vetor
from .respostas import DuasLeituras, RespostaInvalida, SaidaOuPar, leitura_para, perto


def softmax_sem_maximo(x: np.ndarray) -> np.ndarray:
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_menos(x: np.ndarray, referencia: np.ndarray | float) -> np.ndarray:
    e = np.exp(x - referencia)
    return e / e.sum(axis=-1, keepdims=True)


def nao_finita(y: Any) -> bool:
    return not np.all(np.isfinite(np.asarray(y, dtype=float)))


#: como explicar cada versão instável (os textos valem para qualquer exercício que calcula uma softmax)
EXPLICA_INSTAVEL = (
    "Subtraia o máximo de **cada linha** antes de exponenciar — z − z.max(axis=-1, keepdims=True) —: "
    "softmax(z) = softmax(z − c) para qualquer c, e com c = o máximo da linha nenhum e^(…) passa de 1."
)


def erros_de_estabilidade(softmax_de: Callable[..., Any]) -> list[Erro]:
    """Os quatro jeitos clássicos de deixar uma softmax instável, para qualquer exercício que calcule uma.

    ``softmax_de(trocar, **entradas)`` deve montar a resposta do exercício usando ``trocar(escores)`` no
    lugar da softmax estável (assim o mesmo erro é reconhecido na softmax pura, na atenção, na
    autoatenção…).
    """
    return [
        Erro("subtraiu o máximo só quando positivo (instável)",
             "Você subtraiu o máximo só quando ele era positivo (ou o trocou por 0 quando era negativo): numa "
             "linha de escores muito negativos, como [−1000, −1001, −1002], nada é subtraído, todo e^(…) vira 0 e a "
             "divisão dá 0/0 = NaN. O máximo se subtrai sempre, negativo ou não. " + EXPLICA_INSTAVEL,
             resposta=lambda **e: softmax_de(lambda z: softmax_menos(z, np.maximum(z.max(axis=-1, keepdims=True),
                                                                                     0.0)), **e)),
        Erro("sem subtrair o máximo (instável)",
             "A resposta tem NaN ou inf: e^(escore) estourou o tipo de ponto flutuante (e^710 já passa do maior "
             "float64; em float32, e^89). " + EXPLICA_INSTAVEL,
             resposta=lambda **e: softmax_de(softmax_sem_maximo, **e)),
        Erro("subtraiu o mínimo (instável)",
             "Você subtraiu o **mínimo** de cada linha: assim o menor e^(…) vale 1, mas o maior pode estourar — "
             "numa linha como [-1000, 0, 1000], e^(1000 − (−1000)) = e^2000 é inf. " + EXPLICA_INSTAVEL,
             resposta=lambda **e: softmax_de(lambda z: softmax_menos(z, z.min(axis=-1, keepdims=True)), **e)),
        Erro("um máximo só para o lote inteiro (instável)",
             "Você subtraiu um máximo só, o do lote inteiro (z.max() sem axis). Numa linha cujos escores estão "
             "milhares abaixo do maior escore do lote, todo e^(…) vira 0 e a divisão dá 0/0 = NaN. "
             + EXPLICA_INSTAVEL,
             resposta=lambda **e: softmax_de(lambda z: softmax_menos(z, np.max(z)), **e)),
    ]


def casos_de_estabilidade() -> list[Caso]:
    """Os casos do padrão de estabilidade para uma softmax sobre o último eixo (entradas ``x``)."""
    return [
        Caso("com uma linha de escores muito negativos ([-1000, -1001, -1002])",
             {"x": np.array([-1000.0, -1001.0, -1002.0])}),
        Caso("com linhas do mesmo lote separadas por milhares ([[0, 1, 2], [3000, 3001, 3002]])",
             {"x": np.array([[0.0, 1.0, 2.0], [3000.0, 3001.0, 3002.0]])}),
        Caso("com uma linha de escores muito espalhados ([-1000, 0, 1000])", {"x": np.array([-1000.0, 0.0, 1000.0])}),
        Caso("com escores em float32 ([[1, 2, 3], [100, 101, 102]], dtype float32)",
             {"x": np.array([[1.0, 2.0, 3.0], [100.0, 101.0, 102.0]], dtype=np.float32)}),
    ]


# --- a linha inteiramente mascarada ----------------------------------------------------------------
# Uma query sem nenhuma key permitida não tem média ponderada a calcular: qualquer saída **finita**
# serve nessa linha (ela é de preenchimento e será descartada); NaN, não — ele contamina o lote inteiro.
# A resposta certa de um exercício com máscara vem então como :class:`ComLinhasLivres` (o valor e as
# entradas "livres"), e o formato :class:`SaidaComLinhasLivres` compara só o resto.


@dataclass(frozen=True)
class ComLinhasLivres:
    """Uma resposta em que as entradas ``livres`` (booleano, a forma de ``valor``) aceitam qualquer
    número finito: as linhas de uma query sem nenhuma key permitida."""

    valor: np.ndarray
    livres: np.ndarray


def linhas_sem_key_permitida(mask: Any, forma_da_saida: tuple[int, ...], n_k: int) -> np.ndarray:
    """As entradas de uma saída de forma ``forma_da_saida`` — ``(..., n_q, d_v)``, ou ``(d_v,)`` para uma
    query só — cujas queries não têm nenhuma key permitida em ``mask`` (booleana, *broadcastable* para
    ``(..., n_q, n_k)``; ``None`` = nenhuma entrada livre)."""
    if mask is None:
        return np.zeros(forma_da_saida, dtype=bool)
    m = np.asarray(mask, dtype=bool)
    if len(forma_da_saida) == 1:
        vazia = not m.reshape(-1, n_k).any()
        return np.full(forma_da_saida, vazia)
    vazias = ~np.broadcast_to(m, (*forma_da_saida[:-1], n_k)).any(axis=-1)  # (..., n_q)
    return np.broadcast_to(vazias[..., None], forma_da_saida).copy()


def _partes(x: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(x, ComLinhasLivres):
        return x.valor, x.livres
    if isinstance(x, DuasLeituras):
        x = x.provavel()
    return x, np.zeros(np.shape(x), dtype=bool)


@dataclass(frozen=True)
class SaidaComLinhasLivres(SaidaOuPar):
    """A saída da atenção (ou o par ``(saída, pesos)``, só a saída é comparada) em que as linhas sem key
    permitida aceitam qualquer número finito (veja :class:`ComLinhasLivres`)."""

    def normalizar(self, y: Any) -> Any:
        if isinstance(y, ComLinhasLivres):
            return ComLinhasLivres(np.asarray(y.valor, dtype=float), np.asarray(y.livres, dtype=bool))
        return super().normalizar(y)

    def igual(self, a: Any, b: Any) -> bool:
        vb, lb = _partes(b.primeira if isinstance(b, DuasLeituras) else b)
        va, la = _partes(leitura_para(a, vb.shape))
        if va.shape != vb.shape:
            return False
        presas = ~(la | lb)
        if not perto(va[presas], vb[presas], rtol=self.tol, atol=self.tol):
            return False
        return bool(np.all(np.isfinite(va[lb & ~la])) and np.all(np.isfinite(vb[la & ~lb])))

    def mostrar(self, x: Any) -> str:
        v, livres = _partes(x)
        if not livres.any():
            return vetor(v)
        texto = vetor(np.where(livres, np.nan, v)).replace("nan", "  *")
        return texto + "\n(* = qualquer número finito: a linha de uma query sem nenhuma key permitida)"

    def forma(self, x: Any) -> tuple:
        return np.shape(_partes(x)[0])


def com_linhas_livres(resposta: Callable[..., Any], livres_de: Callable[..., np.ndarray]) -> Callable[..., Any]:
    """``resposta(**entradas)`` (uma resposta errada, de um :class:`Erro`) com as entradas de
    ``livres_de(**entradas)`` marcadas como livres **onde ela é finita**: assim o erro é reconhecido seja
    qual for o número finito que o estudante pôs na linha sem key permitida (zeros, a média dos values…),
    e um NaN ali continua tendo de bater com NaN."""

    def marcada(**entradas: Any) -> Any:
        y = resposta(**entradas)
        if y is None:
            return None
        livres = livres_de(**entradas)
        v = leitura_para(SaidaOuPar().normalizar(y), livres.shape)
        if livres.shape != v.shape:
            return v
        return ComLinhasLivres(v, livres & np.isfinite(v))

    return marcada


def livrar(erros: list[Erro], livres_de: Callable[..., np.ndarray]) -> list[Erro]:
    """Os mesmos erros, com cada ``resposta`` passada por :func:`com_linhas_livres` (os que têm só uma
    condição ``quando`` ficam como estão)."""
    return [dataclasses.replace(e, resposta=com_linhas_livres(e.resposta, livres_de)) if e.resposta else e
            for e in erros]


def erro_nan_na_linha_mascarada(quem: str = "uma query **sem nenhuma key permitida**") -> Erro:
    """O NaN na linha de uma query sem nenhuma key permitida, com nome (o resto da resposta está certo).

    Reconhecido quando os únicos números não finitos da resposta estão nas entradas livres da resposta
    certa (um :class:`ComLinhasLivres`) e todo o resto bate."""

    def quando(y: Any, certo: Any, _caso: Caso) -> bool:
        if not isinstance(certo, ComLinhasLivres):
            return False
        try:
            v = leitura_para(SaidaOuPar().normalizar(y), certo.valor.shape)
        except RespostaInvalida:
            return False
        ruins = ~np.isfinite(v)
        return (v.shape == certo.valor.shape and bool(ruins.any()) and not bool((ruins & ~certo.livres).any())
                and perto(v[~certo.livres], certo.valor[~certo.livres], rtol=1e-6, atol=1e-6))

    return Erro("NaN na linha toda mascarada",
                f"Quase tudo certo: só a saída de {quem} saiu NaN. Com todos os escores da linha em -inf, o máximo da linha também é -inf, e -inf − (-inf) = NaN (ou a "
                "soma das exponenciais dá 0 e sobra 0/0). Nessa linha vale qualquer número finito — a coleção usa "
                "zeros: por exemplo, troque o máximo por 0 onde ele não for finito "
                "(np.where(np.isfinite(m), m, 0)) e divida por 1 onde a soma for 0. Um NaN ali não fica quieto: "
                "entra nas contas seguintes e vira NaN no lote inteiro.",
                quando=quando)


def caso_linha_toda_mascarada(descricao: str = "com uma query sem nenhuma key permitida (uma linha toda False "
                                              "na máscara)") -> Caso:
    """O caso "linha inteiramente mascarada" para uma softmax com máscara (entradas ``x`` e ``mask``).

    As outras linhas mantêm o resto do padrão (uma com escores na casa dos milhares, outra perto de 0):
    assim os três jeitos instáveis de fazer a softmax dão NaN **fora** da linha vazia e não se confundem
    com o NaN só na linha vazia."""
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 1.0, 2.0, 0.0], [1500.0, 1800.0, 2000.0, 100.0]])
    mask = np.array([[False] * 4, [True, True, True, False], [True, True, False, True]])
    return Caso(descricao, {"x": x, "mask": mask}, nomeados=("mask",))


def normalizou_pelo_array_inteiro(y: Any, certo: Any, _caso: Caso) -> bool:
    """O erro de dividir pela soma do array **inteiro** (``e / e.sum()``, sem ``axis``), qualquer que tenha sido o
    máximo subtraído (o de cada linha ou o do lote): cada linha tem as proporções certas, tudo junto soma 1, mas
    as linhas não somam 1 cada uma. (Com o máximo do lote, uma linha muito abaixo dele sai 0, ou quase: ela não
    conta para as proporções.) Serve a qualquer corretor de pesos ``(..., n)`` (``certo``: os pesos certos)."""
    arr = np.asarray(y, dtype=float)
    certo = np.asarray(certo, dtype=float)
    if arr.ndim < 2 or arr.shape != certo.shape or nao_finita(arr) or (arr < 0).any():
        return False
    somas = arr.sum(axis=-1, keepdims=True)
    vivas = somas[..., 0] > 1e-6 * float(somas.sum())  # as linhas que não sumiram no arredondamento
    if not vivas.any():
        return False
    with np.errstate(all="ignore"):
        proporcionais = perto((arr / somas)[vivas], certo[vivas], rtol=1e-5, atol=1e-8, nan_igual=False)
    um = np.ones_like(somas)
    return (proporcionais and perto(arr.sum(), 1.0, rtol=1e-5, atol=1e-8, nan_igual=False)
            and not perto(somas, um, rtol=1e-5, atol=1e-8, nan_igual=False))


# --- o keepdims esquecido e a softmax pronta ------------------------------------------------------

def sem_keepdims(z: np.ndarray) -> list[np.ndarray]:
    """As softmax de ``z`` (uma matriz) escritas sem ``keepdims=True`` no máximo, na soma ou nos dois: o máximo (ou a
    soma) de cada linha vira um vetor ``(m,)``, que o *broadcasting* alinha com as **colunas**. Numa matriz quadrada
    a conta roda calada e erra; nas outras formas, nem roda (e a variante não se aplica)."""
    if z.ndim != 2 or z.shape[0] != z.shape[1]:
        return []
    m, m1 = z.max(axis=-1), z.max(axis=-1, keepdims=True)
    variantes = []
    for maximo, com_keepdims_na_soma in ((m, False), (m1, False), (m, True)):
        e = np.exp(z - maximo)
        variantes.append(e / e.sum(axis=-1, keepdims=com_keepdims_na_soma))
    return variantes


def esqueceu_keepdims(escores_de: Callable[..., np.ndarray]) -> Callable[[Any, Any, Caso], bool]:
    """A condição do erro "sem keepdims" para um exercício cujos pesos são a softmax de ``escores_de(**entradas)``:
    a resposta é uma das :func:`sem_keepdims` (e não a certa)."""

    def quando(y: Any, certo: Any, caso: Caso) -> bool:
        arr = np.asarray(y, dtype=float)
        return any(perto(arr, v, rtol=1e-6, atol=1e-9, nan_igual=False)
                   for v in sem_keepdims(np.asarray(escores_de(**caso.entradas), dtype=float)))

    return quando


EXPLICA_KEEPDIMS = (
    "Faltou keepdims=True numa redução (no máximo, na soma ou nas duas): sem ele, o máximo de cada linha de uma matriz "
    "(m, n) vira um vetor (m,), e o broadcasting o alinha com as **colunas** — a linha i recebe o máximo (ou a soma) "
    "da linha j na coluna j. Numa matriz quadrada a conta roda calada e dá números errados; nas outras formas, nem "
    "roda. Com keepdims=True o resultado fica (m, 1) e vale para a linha inteira."
)

#: os nomes de uma softmax pronta (attention.softmax, scipy.special.softmax, torch.softmax…)
NOMES_DE_SOFTMAX_PRONTA = {"softmax", "log_softmax"}
