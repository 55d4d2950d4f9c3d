"""Notebook ``custo_quadratico``: o corretor da atenção por blocos.

O estudante escreve **um passo** — ``atualizar(estado, q, K_bloco, V_bloco)``: o estado ``(m, l, acc)`` depois
de mais um bloco de keys — e o corretor faz o laço: começa do estado vazio, entrega à função um bloco de
``tamanho_bloco`` keys por vez e, no fim, divide ``acc / l``. A função nunca vê mais que um bloco: um vetor com os
``n`` escores não tem como existir, e a atenção pronta, de uma vez, não tem como ser chamada. O caminho errado
não precisa ser detectado — ele não se escreve.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...attention import scaled_dot_product_attention
from ...corretor import Caso, Erro, Exercicio, conferir, corretor_de
from ...respostas import Array, RespostaInvalida, perto

__all__ = ["POR_BLOCOS", "check_atencao_por_blocos", "percorrer_em_blocos"]


# --- o laço, do lado do corretor ------------------------------------------------------------------------


@dataclass(frozen=True)
class _EstadoInvalido:
    """O que a função do estudante devolveu num bloco não é um estado ``(m, l, acc)`` (o laço parou ali):
    ``tipo`` é ``"saida"`` (devolveu a saída ``acc / l``), ``"sem_somar"`` (``l`` ou ``acc`` com uma entrada por
    key), ``"pendente_dentro"`` (uma função que ela chama ainda é o esqueleto) ou ``"estado"`` (outra coisa);
    ``texto`` explica, em português."""

    tipo: str
    texto: str


def _vazio(V: np.ndarray) -> tuple[float, float, np.ndarray]:
    """O estado vazio, antes do primeiro bloco: ``(-inf, 0, zeros(d_v))``."""
    return (-math.inf, 0.0, np.zeros(np.shape(V)[-1]))


def _quem_levantou(exc: BaseException, fn: Callable[..., Any]) -> str | None:
    """O nome da função que levantou ``exc`` (a mais funda no *traceback*), se não for a própria ``fn``."""
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    codigo = tb.tb_frame.f_code
    return None if codigo is getattr(fn, "__code__", None) else codigo.co_name


def _tamanho(x: Any) -> tuple[int, ...] | None:
    try:
        return np.shape(np.asarray(x, dtype=float))
    except (TypeError, ValueError):
        return None


def _problema(novo: Any, d_v: int, b: int, numero: int) -> _EstadoInvalido | None:
    """``None`` se ``novo`` é um estado ``(m, l, acc)`` com ``m`` e ``l`` números e ``acc`` de forma ``(d_v,)``."""
    onde = f"depois do bloco {numero}"
    if isinstance(novo, np.ndarray) or not isinstance(novo, (tuple, list)) or len(novo) != 3:
        if not isinstance(novo, tuple) and _tamanho(novo) == (d_v,):  # uma tupla curta é um estado pela metade
            return _EstadoInvalido("saida", f"{onde}, a função devolveu um vetor {(d_v,)} — a saída acc / l —, e "
                                            "não o estado (m, l, acc)")
        tamanho = f" de tamanho {len(novo)}" if isinstance(novo, (tuple, list)) else ""
        return _EstadoInvalido("estado", f"{onde}, a função devolveu {type(novo).__name__}{tamanho}; ela deve "
                                         "devolver o estado novo, uma tripla (m, l, acc)")
    m, l_, acc = (_tamanho(x) for x in novo)
    if l_ == (d_v,) and acc is not None and math.prod(acc) == 1 and d_v > 1:
        return _EstadoInvalido("l_acc_trocados", f"{onde}, o estado veio como (m, acc, l): l tem forma {l_} e acc é "
                                                 "um número só")
    if (l_ == (b,) and b > 1) or acc == (b, d_v):
        return _EstadoInvalido("sem_somar", f"{onde}, l tem forma {l_} e acc tem forma {acc}: uma entrada por key "
                                            f"do bloco, em vez de l ser um número e acc um vetor {(d_v,)}")
    for nome, forma, certa in (("m", m, "um número"), ("l", l_, "um número"), ("acc", acc, f"um vetor {(d_v,)}")):
        if forma is None:
            return _EstadoInvalido("estado", f"{onde}, {nome} não é um número nem um array de números")
        if (forma != (d_v,)) if nome == "acc" else (math.prod(forma) != 1):
            return _EstadoInvalido("estado", f"{onde}, {nome} tem forma {forma}; no estado (m, l, acc), {nome} é "
                                             f"{certa}")
    return None


def _estado_verdadeiro(q: np.ndarray, K: np.ndarray, V: np.ndarray) -> tuple[float, float, np.ndarray]:
    """O estado (m, l, acc) da softmax online depois de ver as keys ``K`` (todas de uma vez, em float64)."""
    q, K, V = (np.asarray(a, dtype=float) for a in (q, K, V))
    z = K @ q / math.sqrt(q.shape[-1])
    m = float(z.max())
    e = np.exp(z - m)
    return m, float(e.sum()), e @ V


def _estado_bate(novo: Any, certo: tuple[float, float, np.ndarray], tol: float) -> str | None:
    """``None`` se o estado ``novo`` equivale ao ``certo``; senão, o nome da primeira parte que difere.

    Equivale: medidos na mesma referência (``l·e^(m_novo − m_certo)`` e o mesmo para ``acc``), l e acc são os
    certos. Um estado com outra referência (sem subtrair o máximo) é o mesmo estado, só instável, e tem o seu próprio
    diagnóstico nos casos de escores grandes; aqui se pega o estado que não representa as keys vistas."""
    m, l_, acc = (np.asarray(x, dtype=float) for x in novo)
    with np.errstate(all="ignore"):
        fator = float(np.exp(float(m.reshape(-1)[0]) - certo[0]))
        for nome, x, y in (("l", l_.reshape(-1)[0] * fator, certo[1]), ("acc", acc.reshape(np.shape(certo[2])) * fator,
                                                                       certo[2])):
            if not perto(x, y, rtol=tol, atol=tol * max(1.0, float(np.max(np.abs(y)))), nan_igual=False):
                return nome
    return None


def _conferir_estados(atualizar: Callable[..., Any], q: np.ndarray, K: np.ndarray, V: np.ndarray,
                      tamanho_bloco: int) -> _EstadoInvalido | None:
    """Com a saída final já certa: o estado depois de **cada** bloco é o da softmax online? Duas passadas
    intercaladas bloco a bloco (a primeira partindo do estado de duas keys que a função nunca vê) pegam o estado que
    não é o estado: um que só acerta no fim, um cache guardado fora da função, um estado recebido que é ignorado."""
    tol = 1e-3 if np.asarray(K).dtype == np.float32 else 1e-6
    rng = np.random.default_rng(5)
    K_fora, V_fora = np.asarray(K)[:2] + rng.normal(size=(2, np.shape(K)[1])).astype(np.asarray(K).dtype), np.asarray(V)[:2]
    queries = (np.asarray(q), np.asarray(q))  # a mesma query: os escores ficam na escala que a saída já aguentou
    estados: list[Any] = [_estado_verdadeiro(q, K_fora, V_fora), _vazio(V)]
    vistos: list[tuple[np.ndarray, np.ndarray]] = [(K_fora, V_fora), (np.asarray(K)[:0], np.asarray(V)[:0])]
    n = np.shape(K)[0]
    for numero, inicio in enumerate(range(0, n, tamanho_bloco), start=1):
        K_bloco, V_bloco = K[inicio:inicio + tamanho_bloco], V[inicio:inicio + tamanho_bloco]
        for c in (0, 1):
            novo = atualizar(estados[c], queries[c], K_bloco, V_bloco)
            vistos[c] = (np.concatenate([vistos[c][0], K_bloco]), np.concatenate([vistos[c][1], V_bloco]))
            if novo is None or _problema(novo, np.shape(V)[-1], K_bloco.shape[0], numero) is not None:
                errado = "o estado"
            else:
                errado = _estado_bate(novo, _estado_verdadeiro(queries[c], *vistos[c]), tol)
            if errado is not None:
                quem = ("com um estado recebido que já trazia keys de antes" if c == 0
                        else "numa segunda passada, intercalada bloco a bloco com a primeira")
                return _EstadoInvalido("estado_falso", f"depois do bloco {numero}, {quem}, {errado} não é o da "
                                                       "softmax online")
            estados[c] = novo
    return None


def percorrer_em_blocos(atualizar: Callable[..., Any], q: np.ndarray, K: np.ndarray, V: np.ndarray,
                        tamanho_bloco: int, conferir_estados: bool = False) -> Any:
    """O laço do corretor: do estado vazio, ``estado = atualizar(estado, q, K_bloco, V_bloco)`` para cada bloco de
    ``tamanho_bloco`` keys (o último pode ser menor) e, no fim, ``acc / l``. Devolve ``None`` se ``atualizar``
    devolveu ``None`` e um :class:`_EstadoInvalido` se ela devolveu outra coisa que um estado.

    Com ``conferir_estados`` (o corretor do estudante), uma saída final certa ainda passa por
    :func:`_conferir_estados`: o estado de cada bloco tem de ser o da softmax online."""
    n, d_v = np.shape(K)[0], np.shape(V)[-1]
    estado: Any = _vazio(V)
    for numero, inicio in enumerate(range(0, n, tamanho_bloco), start=1):
        K_bloco, V_bloco = K[inicio:inicio + tamanho_bloco], V[inicio:inicio + tamanho_bloco]
        try:
            novo = atualizar(estado, q, K_bloco, V_bloco)
        except NotImplementedError as exc:
            quem = _quem_levantou(exc, atualizar)
            if quem is None:
                raise  # a própria função ainda é o esqueleto
            return _EstadoInvalido("pendente_dentro", f"`{quem}`, que a função chama, ainda não foi implementada")
        if novo is None:
            return None
        problema = _problema(novo, d_v, K_bloco.shape[0], numero)
        if problema is not None:
            return problema
        estado = novo
    _m, l_, acc = estado
    with np.errstate(all="ignore"):
        saida = np.asarray(acc, dtype=float) / float(np.asarray(l_, dtype=float).reshape(-1)[0])
        certa = _por_blocos_certo(q, K, V, tamanho_bloco)
        if conferir_estados and perto(saida, certa, rtol=1e-5, atol=1e-5, nan_igual=False):
            return _conferir_estados(atualizar, q, K, V, tamanho_bloco) or saida
    return saida


@dataclass(frozen=True)
class _SaidaDoLaco(Array):
    """A saída do laço (``acc / l`` do último estado) — ou a explicação de por que o laço parou."""

    def normalizar(self, y: Any) -> np.ndarray:
        if isinstance(y, _EstadoInvalido):
            raise RespostaInvalida(y.texto)
        return super().normalizar(y)


# --- o passo, certo ou com um erro clássico -------------------------------------------------------------


def _atualizar_com(*, escala: str = "raiz", referencia: str = "max", juntar: str = "certo",
                   normalizar_bloco: bool = False, dividir_estado: bool = False,
                   leitura: str = "m_l_acc") -> Callable[..., tuple]:
    """Um passo de atualização — certo com os padrões, ou com o defeito escolhido (para os erros clássicos). Mantém
    o tipo das entradas (em float32, e^89 já estoura)."""

    def atualizar(estado: tuple, q: np.ndarray, K_bloco: np.ndarray, V_bloco: np.ndarray) -> tuple:
        q, K_bloco, V_bloco = (np.asarray(a) for a in (q, K_bloco, V_bloco))
        d = q.shape[-1]
        fator = {"raiz": 1 / math.sqrt(d), "nenhuma": 1.0, "d": 1 / d, "bloco": 1 / math.sqrt(len(K_bloco))}[escala]
        z = (K_bloco @ q) * np.asarray(fator, dtype=K_bloco.dtype)
        ref = {"max": z.max(), "zero": z.dtype.type(0), "max_pos": max(z.max(), z.dtype.type(0)),
               "min": z.min()}[referencia]
        e = np.exp(z - ref)
        l_b, acc_b = e.sum(), e @ V_bloco
        if normalizar_bloco:
            acc_b = acc_b / l_b
        if juntar == "substituir":
            return ref, l_b, acc_b
        m_a, l_a, acc_a = estado if leitura == "m_l_acc" else (estado[1], estado[0], estado[2])
        m = max(float(m_a), float(ref))
        fa = 1.0 if juntar in ("antigo_sem", "nenhum") else math.exp(m_a - m)
        fb = 1.0 if juntar in ("novo_sem", "nenhum") else math.exp(float(ref) - m)
        l_novo, acc_novo = l_a * fa + l_b * fb, acc_a * fa + acc_b * fb
        return m, l_novo, (acc_novo / l_novo if dividir_estado else acc_novo)

    return atualizar


def _variante(**defeito: Any) -> Callable[..., Any]:
    passo = _atualizar_com(**defeito)

    def errada(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> Any:
        with np.errstate(all="ignore"):
            return percorrer_em_blocos(passo, q, K, V, tamanho_bloco)

    return errada


def _estado_invalido(tipo: str) -> Callable[[Any, Any, Caso], bool]:
    return lambda bruta, _certo, _caso: isinstance(bruta, _EstadoInvalido) and bruta.tipo == tipo


# --- os casos -------------------------------------------------------------------------------------------


def _com_escores(escores: list[float], d: int, d_v: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """q, K e V em que os escores escalados (k·q/√d) são exatamente ``escores``: q = (√d, 0, …), e a primeira
    coordenada de cada key é o escore (as outras, sorteadas, não contam)."""
    q = np.zeros(d)
    q[0] = math.sqrt(d)
    K = rng.normal(size=(len(escores), d))
    K[:, 0] = escores
    return {"q": q, "K": K, "V": rng.normal(size=(len(escores), d_v))}


def _casos_por_blocos() -> list[Caso]:
    rng = np.random.default_rng(11)
    casos = []
    for n, d, d_v, bloco, centro, tipo, descricao in (
        (7, 4, 2, 3, 0.0, float, "com 7 keys em blocos de 3 (o último bloco tem 1 key)"),
        (8, 4, 3, 8, 0.0, float, "com 8 keys num bloco só"),
        (5, 2, 2, 1, 0.0, float, "com 5 keys em blocos de 1"),
        (9, 4, 2, 4, 1000.0, float, "com escores perto de +1000 (9 keys em blocos de 4)"),
        (9, 4, 2, 4, -1000.0, float, "com escores perto de −1000 (9 keys em blocos de 4)"),
        (7, 4, 2, 3, 100.0, np.float32, "com q, K e V em float32 e escores perto de 100 (e^89 já estoura o float32)"),
    ):
        q = rng.normal(size=d)
        K = rng.normal(size=(n, d))
        if centro:
            # um componente comum a todas as keys, alinhado com q: todos os escores perto de `centro`
            K = K * 0.3 + np.outer(np.ones(n), q) * centro * math.sqrt(d) / (q @ q)
        V = rng.normal(size=(n, d_v))
        casos.append(Caso(descricao, {"q": q.astype(tipo), "K": K.astype(tipo), "V": V.astype(tipo),
                                      "tamanho_bloco": bloco}))
    for escores, descricao in (
        ([0.0, 1.0, 2.0, 3000.0, 3001.0, 3002.0], "com o 2º bloco milhares acima do 1º (escores [0, 1, 2 | 3000, "
                                                   "3001, 3002], blocos de 3)"),
        ([-1000.0, 0.0, 1000.0, 5.0, -3.0, 2.0], "com um bloco de escores muito espalhados (escores [-1000, 0, 1000 "
                                                 "| 5, -3, 2], blocos de 3)"),
    ):
        casos.append(Caso(descricao, {**_com_escores(escores, 4, 2, rng), "tamanho_bloco": 3}))
    return casos


def _por_blocos_certo(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
    saida, _ = scaled_dot_product_attention(np.asarray(q, dtype=float), np.asarray(K, dtype=float),
                                            np.asarray(V, dtype=float))
    return saida


def _explica_forma(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> str:
    b, d, d_v = min(tamanho_bloco, len(K)), np.shape(q)[-1], np.shape(V)[-1]
    return (f"Aqui q é {np.shape(q)} e cada chamada recebe K_bloco ({b}, {d}) e V_bloco ({b}, {d_v}) (o último bloco "
            f"pode ter menos keys): os escores do bloco são K_bloco @ q → ({b},), e acc = e @ V_bloco → ({d_v},). "
            "(q @ K_bloco e V_bloco @ e só fecham por acaso, quando o bloco tem tantas keys quanto q ou um value "
            "têm números.)")


_COMBINAR = ("Se você usou a sua combinar, rode check_combinar_estados(combinar) do Exercício 1: ela diz o que "
             "falta. Se juntou à mão: ")

POR_BLOCOS = Exercicio(
    nome="a atenção por blocos",
    casos=_casos_por_blocos,
    certo=_por_blocos_certo,
    formato=_SaidaDoLaco(tol=1e-5),
    acerto="Correto! Com o seu passo, o laço do corretor — do estado vazio (-inf, 0, 0), um bloco de tamanho_bloco "
           "keys por vez, acc / l só no fim — dá a atenção exata em todos os casos: último bloco menor, um bloco só, "
           "blocos de uma key, escores perto de ±1000 (em que e^(escore) nem cabe num float64), um bloco milhares "
           "acima do anterior, um bloco muito espalhado e float32. E, depois de cada bloco, o estado (m, l, acc) que "
           "ela devolveu é o da softmax online — também partindo de um estado com keys que ela nunca viu e com duas "
           "passadas intercaladas: a sua função só recebeu um bloco de keys por vez, e o estado levou o resto.",
    erros=[
        Erro("o estado não é o da softmax online",
             "A saída final bateu, mas o estado que a sua função devolve não é o da softmax online. O corretor "
             "confere o estado depois de **cada** bloco — também partindo de um estado que já trazia keys que a "
             "função nunca viu, e com duas passadas intercaladas bloco a bloco — e ele tem de ser m = o maior escore "
             "escalado visto até ali, l = Σ e^(z − m) e acc = Σ e^(z − m)·v, somas sobre **todas** as keys já vistas "
             "(e nada além delas). "
             "Um estado que só acerta no fim, que ignora o estado recebido ou que se apoia em algo guardado fora da "
             "função (uma lista global com as keys vistas) não é o passo da atenção por blocos: use só o estado "
             "recebido e o bloco.",
             quando=_estado_invalido("estado_falso")),
        Erro("l e acc trocados no estado",
             "O estado devolvido veio como (m, acc, l): a ordem é (m, l, acc) — m e l são números, acc é um vetor com o "
             "tamanho de um value. Confira a ordem ao montar o estado do bloco, ao desempacotar o estado recebido "
             "(m, l, acc = estado) e no return da combinar.",
             quando=_estado_invalido("l_acc_trocados")),
        Erro("o estado inteiro no lugar de m",
             "Você tratou o estado inteiro — a tripla (m, l, acc), em que acc é um vetor — como um número ou como um "
             "array só: m = estado, max(estado, …) ou np.array(estado), em vez de m = estado[0]. Desempacote "
             "primeiro, m, l, acc = estado, e use cada parte no seu lugar.",
             levanta=lambda exc, caso: isinstance(exc, (TypeError, ValueError)) and (
                 "'tuple'" in str(exc) or ("inhomogeneous" in str(exc) and "detected shape was (3,)" in str(exc)))),
        Erro("devolveu a saída, não o estado",
             "A função devolveu a saída acc / l, mas o laço precisa do **estado** (m, l, acc) para juntar o próximo "
             "bloco: sem m e l, não há como reescalar nem normalizar depois. Devolva o estado combinado; a divisão "
             "acc / l é feita uma vez só, pelo corretor, depois do último bloco.",
             quando=_estado_invalido("saida")),
        Erro("sem somar as keys do bloco",
             "l e acc do bloco ficaram com uma entrada por key: faltou **somar** sobre as keys do bloco. No estado, "
             "l = Σ e^(z − m) é um número e acc = Σ e^(z − m) · v é um vetor com o tamanho de um value — e @ V_bloco "
             "faz as duas coisas de uma vez para o acc (o produto já soma sobre as keys).",
             quando=_estado_invalido("sem_somar")),
        Erro("a combinar ainda não foi feita",
             "A sua função chama uma função que ainda é o esqueleto (levanta NotImplementedError) — a combinar do "
             "Exercício 1? Faça o Exercício 1 primeiro, rode a célula dela, e depois rode de novo a sua atualizar e "
             "esta célula.",
             quando=_estado_invalido("pendente_dentro")),
        Erro("sem a escala √d",
             "Faltou dividir os escores do bloco por √d (d = o tamanho de q, q.shape[-1]) antes de montar o estado "
             "do bloco.",
             resposta=_variante(escala="nenhuma")),
        Erro("escala 1/d em vez de 1/√d",
             "Você dividiu os escores por d; a escala da atenção é 1/√d (d = q.shape[-1]): z = K_bloco @ q / "
             "np.sqrt(d).",
             resposta=_variante(escala="d")),
        Erro("escala pelo tamanho do bloco",
             "Você dividiu os escores pela raiz do número de keys do bloco (len(K_bloco), ou K_bloco.shape[0]). O d "
             "da escala é o tamanho de cada vetor, q.shape[-1] (ou K_bloco.shape[1]) — e ele é o mesmo em todos os "
             "blocos, inclusive no último, que pode ser menor.",
             resposta=_variante(escala="bloco")),
        Erro("só o último bloco",
             "A saída só enxerga o **último** bloco: a função devolveu o estado do bloco novo e jogou fora o estado "
             "recebido. O estado carrega tudo o que já foi visto: devolva o estado recebido **junto** com o do bloco "
             "— combinar(estado, estado_do_bloco).",
             resposta=_variante(juntar="substituir")),
        Erro("estado antigo sem reescalar",
             _COMBINAR + "o estado recebido foi somado sem ser reescalado. Quando o bloco novo traz um máximo maior, "
             "o que já estava em l e acc foi medido a partir do m antigo: multiplique os dois por e^(m_antigo − "
             "m_novo).",
             resposta=_variante(juntar="antigo_sem")),
        Erro("bloco novo sem reescalar",
             _COMBINAR + "o estado do bloco novo foi somado sem ser reescalado. Quando o máximo continua sendo o "
             "antigo, l e acc do bloco (medidos a partir do máximo do bloco) precisam de e^(m_bloco − m_novo).",
             resposta=_variante(juntar="novo_sem")),
        Erro("nenhum estado reescalado",
             _COMBINAR + "os dois estados foram somados sem reescalar nenhum. Cada l e cada acc foi medido a partir "
             "do **seu** máximo: antes de somar, multiplique o estado recebido por e^(m_antigo − m) e o do bloco por "
             "e^(m_bloco − m), com m = o maior dos dois.",
             resposta=_variante(juntar="nenhum")),
        Erro("acc do bloco dividido por l",
             "Você dividiu o acc do bloco pelo l do bloco (a saída do bloco sozinho) antes de juntar. O estado guarda "
             "acc **sem** dividir, para que os blocos se somem com os pesos certos; a divisão acc / l é feita uma vez "
             "só, pelo corretor, depois do último bloco.",
             resposta=_variante(normalizar_bloco=True)),
        Erro("dividiu por l cedo demais",
             "O estado devolvido tem acc já dividido por l. O estado guarda acc **sem** dividir — no próximo bloco, "
             "ele é somado a outro acc na mesma escala de l —; a divisão acc / l é feita uma vez só, pelo corretor, "
             "depois do último bloco.",
             resposta=_variante(dividir_estado=True)),
        Erro("máximo do bloco só quando positivo (instável)",
             "Você subtraiu o máximo do bloco só quando ele era positivo (senão, 0): num bloco de escores perto de "
             "−1000, todo e^(z − 0) vira 0, l fica 0 e a divisão do fim dá 0/0 = NaN. O máximo se subtrai sempre, "
             "negativo ou não: m = o máximo dos escores do bloco.",
             resposta=_variante(referencia="max_pos")),
        Erro("mínimo do bloco no lugar do máximo (instável)",
             "Você mediu o bloco a partir do seu **mínimo**: o menor e^(…) vale 1, mas o maior pode estourar — num "
             "bloco como [-1000, 0, 1000], e^(1000 − (−1000)) = e^2000 é inf. Subtraia o **máximo** do bloco: aí "
             "nenhum e^(z − m) passa de 1.",
             resposta=_variante(referencia="min")),
        Erro("bloco sem subtrair o máximo (instável)",
             "A resposta tem NaN ou inf: o estado do bloco foi calculado com e^z, sem subtrair o máximo do bloco, e "
             "e^1000 estoura (em float32, já e^89). O estado do bloco é m = o máximo dos escores do bloco, "
             "l = Σ e^(z − m), acc = Σ e^(z − m) · v.",
             resposta=_variante(referencia="zero")),
        # por último: com escores extremos ela também dá NaN, e lá quem explica é a instabilidade
        Erro("desempacotou o estado na ordem errada",
             "Você leu o estado recebido na ordem errada (l, m, acc = estado, ou m = estado[1]): o m que a sua conta "
             "usou é o l, e vice-versa. No primeiro bloco isso já aparece — o estado vazio é (-inf, 0, 0), e a sua "
             "função tomou 0 por máximo e -inf por soma. A ordem é a de sempre: m, l, acc = estado.",
             resposta=_variante(leitura="l_m_acc")),
    ],
    explica_forma=_explica_forma,
    dica_de_forma="A saída de uma query é um vetor com o tamanho de um value: forma (d_v,).",
    dica_de_valor="Confira com a seção 5: o estado do bloco (m, l, acc) com o máximo do próprio bloco, e a "
                  "combinar juntando-o ao estado recebido.",
)


def _laco(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A função que o corretor roda em cada caso: o laço, com o passo do estudante."""

    def laco(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> Any:
        return percorrer_em_blocos(fn, q, K, V, tamanho_bloco, conferir_estados=True)

    laco.__name__ = getattr(fn, "__name__", "sua função")
    return laco


@corretor_de(POR_BLOCOS)
def check_atencao_por_blocos(fn: Callable[..., Any]) -> bool:
    """Confere o passo ``fn(estado, q, K_bloco, V_bloco)`` → o estado ``(m, l, acc)`` depois de mais um bloco de keys
    (``q`` ``(d,)``, ``K_bloco`` ``(b, d)``, ``V_bloco`` ``(b, d_v)``), pela atenção que ele dá.

    O laço é do corretor (:func:`percorrer_em_blocos`): do estado vazio ``(-inf, 0, zeros(d_v))``, um bloco de
    ``tamanho_bloco`` keys por vez e ``acc / l`` no fim, comparado com
    :func:`helpers.attention.scaled_dot_product_attention`. A função nunca vê mais que um bloco.
    """
    if not callable(fn):
        return conferir(POR_BLOCOS, fn)
    return conferir(POR_BLOCOS, _laco(fn))
