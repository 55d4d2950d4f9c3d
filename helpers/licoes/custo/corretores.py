"""Notebook ``custo_quadratico``: os corretores da softmax online (juntar dois estados ``(m, l, acc)``) e da
memória dos pesos. A atenção por blocos fica em :mod:`.blocos`; a previsão, em :mod:`.previsoes`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...attention import softmax
from ...corretor import Caso, Erro, Exercicio, conferir, corretor_de
from ...efficient import combine_states
from ...formato import vetor
from ...respostas import Array, Bytes, Formato, Numero, RespostaInvalida, perto
from .medidas import bytes_na_prosa

__all__ = ["COMBINAR_ESTADOS", "MEMORIA_PESOS", "EstadoOnline", "check_combinar_estados", "check_memoria_pesos"]


# --- juntar dois estados da softmax online --------------------------------------------------------


@dataclass(frozen=True)
class EstadoOnline(Formato):
    """Um estado ``(m, l, acc)`` da softmax online: tupla ou lista; ``m`` e ``l`` números (de qualquer tipo
    numérico), ``acc`` um vetor. Iguais se as três partes forem iguais (tolerância relativa ``tol``)."""

    tol: float = 1e-9

    def normalizar(self, y: Any) -> tuple[float, float, np.ndarray]:
        if isinstance(y, np.ndarray) or not isinstance(y, (tuple, list)) or len(y) != 3:
            tamanho = f" de tamanho {len(y)}" if isinstance(y, (tuple, list)) else ""
            raise RespostaInvalida("a função deve devolver uma tripla (m, l, acc) — o novo máximo, a nova soma e o "
                                   f"novo acumulador; veio {type(y).__name__}{tamanho}")
        partes = []
        for nome, parte, formato in zip(("m", "l", "acc"), y, (Numero(), Numero(), Array())):
            try:
                partes.append(formato.normalizar(parte))
            except RespostaInvalida as exc:
                raise RespostaInvalida(f"na tripla (m, l, acc), {nome}: {exc}") from None
        return tuple(partes)

    def igual(self, a: tuple, b: tuple) -> bool:
        # NaN bate com NaN (o erro que dá NaN é reconhecido pelo NaN)
        return (perto(a[0], b[0], rtol=self.tol, atol=1e-12) and perto(a[1], b[1], rtol=self.tol, atol=1e-12)
                and Array(self.tol).igual(a[2], b[2]))

    def mostrar(self, x: tuple) -> str:
        return f"(m = {x[0]:.6g}, l = {x[1]:.6g}, acc = {vetor(x[2])})"

    def forma(self, x: tuple) -> tuple:
        return x[2].shape  # m e l são números; a forma que pode sair errada é a de acc


_ESTADO = EstadoOnline()

#: o estado vazio, antes do primeiro bloco: o elemento neutro da combinação
_VAZIO = (-math.inf, 0.0, np.zeros(2))


def _estado_de(z: Sequence[float], v: np.ndarray) -> tuple[float, float, np.ndarray]:
    """O estado ``(m, l, acc)`` de um bloco de escores ``z`` com os values ``v``."""
    z_arr = np.asarray(z, dtype=float)
    m = float(z_arr.max())
    e = np.exp(z_arr - m)
    return m, float(e.sum()), e @ v


def _blocos_grandes() -> tuple[np.ndarray, np.ndarray]:
    """Nove escores perto de 1000 e os seus values (2-D), em três blocos de três."""
    rng = np.random.default_rng(9)
    return 1000.0 + rng.normal(size=9) * 3, rng.normal(size=(9, 2))


def _casos_combinar() -> list[Caso]:
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    casos = [
        Caso("quando o bloco novo traz o maior escore (blocos [1, 3] e [5, 2])",
             {"estado_a": _estado_de([1.0, 3.0], v[:2]), "estado_b": _estado_de([5.0, 2.0], v[2:])}),
        Caso("quando o bloco antigo tem o maior escore (blocos [4, 0.5] e [1, 2])",
             {"estado_a": _estado_de([4.0, 0.5], v[:2]), "estado_b": _estado_de([1.0, 2.0], v[2:])}),
        Caso("no primeiro bloco (o estado vazio (-inf, 0, 0) com o bloco [5, 2])",
             {"estado_a": _VAZIO, "estado_b": _estado_de([5.0, 2.0], v[2:])}),
        # com uma máscara, um bloco inteiro pode não ter nenhuma key visível: o seu estado também é o vazio
        Caso("com os dois estados vazios (-inf, 0, 0)", {"estado_a": _VAZIO, "estado_b": _VAZIO}),
    ]
    # bloco a bloco, em escores perto de 1000: cada passo junta o estado (certo) dos blocos anteriores ao novo
    z, vs = _blocos_grandes()
    estado = _VAZIO
    for k, nome in enumerate(("1º bloco, com o estado vazio", "2º bloco", "3º bloco")):
        novo = _estado_de(z[3 * k:3 * k + 3], vs[3 * k:3 * k + 3])
        casos.append(Caso(f"com escores perto de 1000, aplicada bloco a bloco ({nome})",
                          {"estado_a": estado, "estado_b": novo}))
        estado = combine_states(estado, novo)
    return casos


def _combinar_errado(tipo: str) -> Callable[..., tuple | None]:
    """A combinação errada ``tipo`` de dois estados de verdade (``None`` com o estado vazio, em que quase todos
    os erros dão a resposta certa ou NaN: esse caso tem um erro próprio)."""

    def errada(estado_a: tuple, estado_b: tuple) -> tuple | None:
        (m_a, l_a, acc_a), (m_b, l_b, acc_b) = estado_a, estado_b
        if not (math.isfinite(m_a) and math.isfinite(m_b)):
            return None
        m = max(m_a, m_b)
        fa, fb = math.exp(m_a - m), math.exp(m_b - m)
        ga, gb = math.exp(m - m_a), math.exp(m - m_b)
        l_certo, acc_certo = l_a * fa + l_b * fb, acc_a * fa + acc_b * fb
        return {
            "antigo": (m, l_a + l_b * fb, acc_a + acc_b * fb),
            "novo": (m, l_a * fa + l_b, acc_a * fa + acc_b),
            "nenhum": (m, l_a + l_b, acc_a + acc_b),
            "so_l": (m, l_certo, acc_a + acc_b),
            "so_acc": (m, l_a + l_b, acc_certo),
            "sinal": (m, l_a * ga + l_b * gb, acc_a * ga + acc_b * gb),
            "cedo": (m, l_certo, acc_certo / l_certo),
            "cedo_cada": (m, l_certo, acc_a / l_a * fa + acc_b / l_b * fb),
        }[tipo]

    return errada


def _razao_de_exponenciais(estado_a: tuple, estado_b: tuple) -> tuple:
    """O fator escrito como e^(m_a) / e^(m) em vez de e^(m_a − m): com escores perto de 1000, inf / inf = NaN."""
    (m_a, l_a, acc_a), (m_b, l_b, acc_b) = estado_a, estado_b
    m = max(m_a, m_b)
    with np.errstate(all="ignore"):
        fa, fb = np.exp(m_a) / np.exp(m), np.exp(m_b) / np.exp(m)
        return m, l_a * fa + l_b * fb, np.asarray(acc_a) * fa + np.asarray(acc_b) * fb


def _maximo_errado(y: Any, certo: tuple, _caso: Caso) -> bool:
    return not perto(_ESTADO.normalizar(y)[0], certo[0], rtol=_ESTADO.tol, atol=1e-12, nan_igual=False)


def _nao_finito(y: Any) -> bool:
    _m, l_, acc = _ESTADO.normalizar(y)
    return not (math.isfinite(l_) and np.all(np.isfinite(acc)))


def _nao_finito_no_vazio(y: Any, _certo: tuple, caso: Caso) -> bool:
    m_a, m_b = caso.entradas["estado_a"][0], caso.entradas["estado_b"][0]
    if math.isfinite(m_a) or not math.isfinite(m_b):
        return False  # só o estado vazio com um estado de verdade (os dois vazios têm um erro próprio)
    return _nao_finito(y)


def _nao_finito_nos_dois_vazios(y: Any, _certo: tuple, caso: Caso) -> bool:
    if math.isfinite(caso.entradas["estado_a"][0]) or math.isfinite(caso.entradas["estado_b"][0]):
        return False
    return _nao_finito(y) or math.isnan(_ESTADO.normalizar(y)[0])


def _acerto_combinar() -> str:
    z, vs = _blocos_grandes()
    return ("Correto! m = max(m_a, m_b), e l e acc de cada estado são multiplicados por e^(m_velho − m) antes de "
            "somar. Aplicada bloco a bloco em escores perto de 1000, a sua função leva a acc / l = "
            f"({', '.join(f'{x:.4f}' for x in softmax(z) @ vs)}), a atenção exata, sem nunca calcular e^1000.")


def _l_e_acc_trocados(y: Any, certo: tuple, _caso: Caso) -> bool:
    """A tripla veio (m, acc, l) — ao desempacotar um estado, ou no return — com os números certos."""
    if not isinstance(y, (tuple, list)) or len(y) != 3 or np.size(y[1]) <= 1 or np.size(y[2]) != 1:
        return False
    try:
        return _ESTADO.igual(_ESTADO.normalizar((y[0], y[2], y[1])), certo)
    except RespostaInvalida:
        return False


COMBINAR_ESTADOS = Exercicio(
    nome="juntar dois estados da softmax online",
    casos=_casos_combinar,
    certo=lambda estado_a, estado_b: combine_states(estado_a, estado_b),
    formato=_ESTADO,
    acerto=_acerto_combinar,
    erros=[
        Erro("l e acc trocados",
             "Os números estão certos, mas a tripla veio (m, acc, l): a ordem do estado é (m, l, acc) — m e l são "
             "números, acc é um vetor. Confira as duas pontas: ao desempacotar (m_a, l_a, acc_a = estado_a) e no "
             "return.",
             quando=_l_e_acc_trocados),
        Erro("máximo errado",
             lambda estado_a, estado_b: "O novo m deveria ser max(m_a, m_b) = "
                                        f"{max(estado_a[0], estado_b[0]):.6g}. O máximo combinado é o maior dos dois "
                                        "máximos: é ele que garante e^(z − m) <= 1 para todos os escores vistos até "
                                        "aqui.",
             quando=_maximo_errado),
        Erro("NaN com o estado vazio",
             "Com o estado vazio, l ou acc saíram NaN ou inf. No estado vazio m_a = -inf, e e^(m_a − m) = e^(-inf) = 0: "
             "o estado vazio some da soma sozinho. Não divida por l_a nem calcule m − m_a (que dá +inf).",
             quando=_nao_finito_no_vazio),
        Erro("NaN com os dois vazios",
             "Com os **dois** estados vazios, l ou acc saíram NaN. Aí m = max(-inf, -inf) = -inf, e m_a − m = "
             "-inf − (-inf) não é um número: e^(NaN) = NaN. Acontece de verdade quando uma máscara esconde todas as "
             "keys de um bloco. Se m for -inf, não há nada a juntar: devolva um dos estados.",
             quando=_nao_finito_nos_dois_vazios),
        Erro("antigo sem reescalar",
             "Você esqueceu de reescalar o estado **antigo** (a). Quando o bloco novo traz um máximo maior, o que já "
             "estava somado em l_a e acc_a foi medido a partir de m_a, que deixou de ser o máximo: multiplique l_a "
             "**e** acc_a por e^(m_a − m).",
             resposta=_combinar_errado("antigo")),
        Erro("novo sem reescalar",
             "Você esqueceu de reescalar o estado **novo** (b). Quando o máximo continua sendo o antigo (m_a > m_b), "
             "l_b e acc_b precisam ser trazidos para a referência m: multiplique os dois por e^(m_b − m).",
             resposta=_combinar_errado("novo")),
        Erro("nenhum reescalado",
             "Você somou os estados sem reescalar nenhum. Cada l e cada acc foi medido a partir do **seu** máximo "
             "(e^(z − m_a) num, e^(z − m_b) no outro): antes de somar, multiplique o estado a por e^(m_a − m) e o "
             "estado b por e^(m_b − m), com m = max(m_a, m_b).",
             resposta=_combinar_errado("nenhum")),
        Erro("acc sem reescalar",
             "A soma l está certa, mas o acumulador acc não foi reescalado: acc_a e acc_b precisam do **mesmo** fator "
             "que l_a e l_b (e^(m_a − m) e e^(m_b − m)), senão a saída acc / l mistura escalas diferentes.",
             resposta=_combinar_errado("so_l")),
        Erro("l sem reescalar",
             "O acumulador acc está certo, mas a soma l não foi reescalada: l_a e l_b precisam dos mesmos fatores "
             "e^(m_a − m) e e^(m_b − m) que acc_a e acc_b.",
             resposta=_combinar_errado("so_acc")),
        Erro("sinal trocado no expoente",
             "Sinal trocado no expoente: você multiplicou por e^(m − m_a), que é >= 1. O fator certo é e^(m_a − m) "
             "(velho menos novo, sempre <= 1): ele **diminui** o que foi somado com uma referência menor.",
             resposta=_combinar_errado("sinal")),
        Erro("fator como razão de exponenciais (instável)",
             "Com escores perto de 1000 a resposta saiu NaN: você calculou o fator como e^(m_a) / e^(m), e e^1000 "
             "já estoura o float64 (inf / inf = NaN). Matematicamente é o mesmo que e^(m_a − m), mas só a diferença "
             "fica pequena: calcule np.exp(m_a - m), que nunca passa de 1.",
             resposta=_razao_de_exponenciais),
        Erro("dividiu por l cedo demais",
             "Você dividiu acc por l cedo demais. O estado guarda acc **sem** dividir; a divisão acc / l é feita uma "
             "vez só, no fim, depois do último bloco (a função finish_state). Devolva acc = acc_a·e^(m_a − m) + "
             "acc_b·e^(m_b − m).",
             resposta=_combinar_errado("cedo")),
        Erro("dividiu cada acc pelo seu l",
             "Você dividiu cada acc pelo seu l antes de combinar. O estado guarda acc **sem** dividir; a divisão "
             "acc / l é feita uma vez só, no fim (finish_state).",
             resposta=_combinar_errado("cedo_cada")),
    ],
    dica_de_forma="Essa é a forma de acc: um vetor com um número por coordenada do value (m e l são números).",
)


@corretor_de(COMBINAR_ESTADOS)
def check_combinar_estados(fn: Callable[[tuple, tuple], Any]) -> bool:
    """Confere ``fn(estado_a, estado_b)`` → ``(m, l, acc)``: o passo que junta dois estados parciais
    ``(m, l, acc)`` da softmax online (a referência é :func:`helpers.efficient.combine_states`; ``acc`` ``(d_v,)``).

    A tripla pode vir como tupla ou lista, com ``m`` e ``l`` de qualquer tipo numérico. O estado vazio é
    ``(-inf, 0, 0)``.
    """
    return conferir(COMBINAR_ESTADOS, fn)


# --- quanto ocupam os pesos -----------------------------------------------------------------------

#: 128k tokens em float32: uma cabeça só (o exemplo do acerto)
_N_LONGO = 131072


def _pesos_certo(n: int, n_heads: int, bytes_per_value: int) -> int:
    return n * n * n_heads * bytes_per_value


MEMORIA_PESOS = Exercicio(
    nome="quanto ocupam os pesos",
    casos=lambda: [
        Caso(f"com n = {n}, n_heads = {h}, bytes_per_value = {b}", {"n": n, "n_heads": h, "bytes_per_value": b})
        for n, h, b in ((1024, 1, 4), (8192, 32, 2), (_N_LONGO, 1, 4), (3, 2, 8))
    ],
    certo=_pesos_certo,
    formato=Bytes(),
    acerto=lambda: "Correto! n² · n_heads · bytes_per_value. Com 128k tokens (n = 131072) e float32, uma única cabeça "
                   f"já pede {bytes_na_prosa(_pesos_certo(_N_LONGO, 1, 4))} só para os pesos — é por isso que ninguém "
                   "monta essa matriz inteira em contextos longos.",
    erros=[
        Erro("sem o quadrado",
             "Faltou o quadrado: a matriz de escores (e a de pesos) tem uma linha por query **e** uma coluna por key — "
             "n × n números por cabeça, não n.",
             resposta=lambda n, n_heads, bytes_per_value: n * n_heads * bytes_per_value),
        Erro("contou números",
             "Você contou **números**, não bytes: multiplique por bytes_per_value (4 no float32, 2 no "
             "float16/bfloat16).",
             resposta=lambda n, n_heads, bytes_per_value: n * n * n_heads),
        Erro("bytes por número fixos em 4",
             "Você usou sempre 4 bytes por número (o float32), e não o bytes_per_value recebido: em float16 são 2, "
             "em float64 são 8. Multiplique por bytes_per_value.",
             resposta=lambda n, n_heads, bytes_per_value: n * n * n_heads * 4),
        Erro("sem as cabeças",
             "Faltaram as cabeças: cada cabeça tem a sua própria matriz n × n de pesos.",
             resposta=lambda n, n_heads, bytes_per_value: n * n * bytes_per_value),
        Erro("bits em vez de bytes",
             "Você contou **bits** (× 8): bytes_per_value já está em bytes.",
             resposta=lambda **e: _pesos_certo(**e) * 8),
        Erro("só a metade causal",
             "Você contou só a metade causal (n(n + 1)/2). A máscara zera os pesos do futuro, mas a matriz guardada "
             "continua tendo as n² posições.",
             resposta=lambda n, n_heads, bytes_per_value: n * (n + 1) // 2 * n_heads * bytes_per_value),
        Erro("em MiB",
             "Você converteu para MiB; a função deve devolver **bytes** (a conversão vem depois, na hora de mostrar).",
             resposta=lambda **e: _pesos_certo(**e) / 2**20),
        Erro("em GiB",
             "Você converteu para GiB; a função deve devolver **bytes** (a conversão vem depois, na hora de mostrar).",
             resposta=lambda **e: _pesos_certo(**e) / 2**30),
        Erro("em MB",
             "Você converteu para MB; a função deve devolver **bytes** (a conversão vem depois, na hora de mostrar).",
             resposta=lambda **e: _pesos_certo(**e) / 1e6),
    ],
)


@corretor_de(MEMORIA_PESOS)
def check_memoria_pesos(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(n, n_heads, bytes_per_value)`` = os bytes das matrizes de pesos de atenção de uma camada:
    ``n² · n_heads · bytes_per_value`` (uma matriz ``n × n`` por cabeça).
    """
    return conferir(MEMORIA_PESOS, fn)
