"""Notebook ``mascaras_e_atencao_cruzada``: os corretores dos exercícios 3 e 4 — a atenção com máscara (os
escores proibidos em −inf antes da softmax estável) e a atenção cruzada num lote com preenchimento (queries
do decoder, keys e values da origem).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...attention import padding_mask, scaled_dot_product_attention, softmax
from ...corretor import Caso, Erro, Exercicio, Regra, conferir, corretor_de
from ...estabilidade import (
    ComLinhasLivres,
    SaidaComLinhasLivres,
    erro_nan_na_linha_mascarada,
    erros_de_estabilidade,
    linhas_sem_key_permitida,
    livrar,
)
from ...formato import decimal
from ...respostas import Formato, RespostaInvalida, SaidaOuPar, leitura_para
from .corretores_mascaras import _usa_da_biblioteca

__all__ = ["ATENCAO_CRUZADA", "ATENCAO_MASCARA", "check_atencao_com_mascara", "check_atencao_cruzada"]

# --- as softmax instáveis, também com a divisão protegida ------------------------------------------------
# Quem segue a dica da linha toda proibida protege a divisão (e / np.where(soma > 0, soma, 1)): numa softmax
# instável, a linha em que todo e^(…) vira 0 sai com pesos 0 (saída 0), e não NaN. O erro é o mesmo, e tem o
# mesmo nome: cada softmax instável é reconhecida nas duas versões.

#: a referência que cada softmax instável subtrai (os nomes de :func:`helpers.estabilidade.erros_de_estabilidade`)
_REFERENCIA_INSTAVEL: dict[str, Callable[[np.ndarray], Any]] = {
    "subtraiu o máximo só quando positivo (instável)": lambda z: np.maximum(z.max(axis=-1, keepdims=True), 0.0),
    "sem subtrair o máximo (instável)": lambda z: 0.0,
    "subtraiu o mínimo (instável)": lambda z: z.min(axis=-1, keepdims=True),
    "um máximo só para o lote inteiro (instável)": lambda z: np.max(z),
}


def _protegida(referencia: Callable[[np.ndarray], Any]) -> Callable[[np.ndarray], np.ndarray]:
    def softmax_protegida(z: np.ndarray) -> np.ndarray:
        e = np.exp(z - referencia(z))
        soma = e.sum(axis=-1, keepdims=True)
        return e / np.where(soma > 0, soma, 1.0)

    return softmax_protegida


def _estabilidade(softmax_de: Callable[..., Any], livres_de: Callable[..., np.ndarray],
                  formato: SaidaComLinhasLivres) -> list[Erro]:
    """Os erros de :func:`erros_de_estabilidade` (com as linhas livres), cada um reconhecido também com a divisão
    protegida: a ``resposta`` continua a da versão sem proteção; o ``quando`` aceita as duas."""
    erros = []
    for erro in livrar(erros_de_estabilidade(softmax_de), livres_de):
        protegida = livrar([Erro(erro.nome, "", resposta=_com_softmax(softmax_de, _protegida(
            _REFERENCIA_INSTAVEL[erro.nome])))], livres_de)[0].resposta
        erros.append(dataclasses.replace(erro, formato=formato, quando=_casa_alguma(formato, erro.resposta, protegida)))
    return erros


def _com_softmax(softmax_de: Callable[..., Any], trocar: Callable[[np.ndarray], np.ndarray]) -> Callable[..., Any]:
    return lambda **e: softmax_de(trocar, **e)


def _casa_alguma(formato: SaidaComLinhasLivres, *respostas: Any) -> Callable[[Any, Any, Caso], bool]:
    def quando(y: Any, _certo: Any, caso: Caso) -> bool:
        lida = formato.normalizar(y)
        with np.errstate(all="ignore"):
            erradas = [r(**caso.entradas) for r in respostas]
        return any(e is not None and formato.igual(lida, formato.normalizar(e)) for e in erradas)

    return quando


# --- a atenção com máscara (exercício 3) ------------------------------------------------------------


@dataclass(frozen=True)
class _SaidaLivre(SaidaComLinhasLivres):
    """:class:`SaidaComLinhasLivres` que, diante de uma resposta que o numpy não consegue ler (uma lista torta no
    lugar dos pesos), diz que não leu em vez de quebrar o corretor."""

    def normalizar(self, y: Any) -> Any:
        try:
            return super().normalizar(y)
        except (ValueError, TypeError) as exc:
            raise RespostaInvalida(f"não consegui ler a resposta como arrays de números ({exc})") from exc


_SAIDA_LIVRE = _SaidaLivre()


def _atencao_mascarada(q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None, *,
                       trocar: Callable[[np.ndarray], np.ndarray] | None = None, preenche: float = -np.inf,
                       escala: float | None = None, eixo: int = -1, mistura: np.ndarray | None = None,
                       depois: bool = False, renormaliza: str | None = None) -> np.ndarray:
    """A atenção com máscara, com um erro no meio: ``trocar`` no lugar da softmax estável, ``preenche`` no
    lugar de −inf, outra ``escala``, a softmax noutro ``eixo``, outra matriz na ``mistura`` ou a máscara
    aplicada ``depois`` da softmax (multiplicando os pesos) — e, com ``renormaliza``, os pesos divididos de novo
    pela soma de cada linha (``"nan"``: 0/0 onde a soma é 0; ``"protegida"``: 0 ali)."""
    d = q.shape[-1]
    z = q @ K.T * (1 / math.sqrt(d) if escala is None else escala)
    if mask is not None and not depois:
        z = np.where(mask, z, preenche)
    if trocar is not None:
        pesos = trocar(z)
    else:
        pesos = softmax(z, axis=eixo)
    if mask is not None and depois:
        pesos = _renormalizados(pesos * mask, renormaliza)
    return pesos @ (V if mistura is None else mistura)


def _renormalizados(pesos: np.ndarray, como: str | None) -> np.ndarray:
    if como is None:
        return pesos
    soma = pesos.sum(axis=-1, keepdims=True)
    return pesos / (np.where(soma > 0, soma, 1.0) if como == "protegida" else soma)


def _reconhecido_nas_versoes(nome: str, texto: str, respostas: Sequence[Callable[..., Any]],
                             livres_de: Callable[..., np.ndarray], formato: SaidaComLinhasLivres) -> Erro:
    """Um erro reconhecido em qualquer das ``respostas`` (com as linhas livres); a primeira é a ``resposta``."""
    livradas = [livrar([Erro(nome, "", resposta=r)], livres_de)[0].resposta for r in respostas]
    return Erro(nome, texto, resposta=livradas[0], formato=formato, quando=_casa_alguma(formato, *livradas))


def _livres_atencao(q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    forma = (V.shape[-1],) if q.ndim == 1 else (*np.broadcast_shapes(q.shape[:-1]), V.shape[-1])
    return linhas_sem_key_permitida(mask, forma, K.shape[-2])


def _atencao_mascarada_certa(q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None
                             ) -> ComLinhasLivres:
    saida, _ = scaled_dot_product_attention(q.astype(float), K.astype(float), V.astype(float), mask)
    return ComLinhasLivres(saida, _livres_atencao(q, K, V, mask))


def _mask_none_vira_tudo_proibido(y: Any, certo: ComLinhasLivres, caso: Caso) -> bool:
    if "mask" in caso.entradas:
        return False
    v = leitura_para(SaidaOuPar().normalizar(y), certo.valor.shape)
    return v.shape == certo.valor.shape and bool(np.all(~np.isfinite(v)) or np.all(v == 0))


def _nan_em_toda_linha_permitida(y: Any, certo: Any, caso: Caso) -> bool:
    """A saída é NaN em **toda** linha que tem alguma key permitida (e o caso tem máscara): a marca da máscara
    aditiva montada por multiplicação — ``escores + (~mask) * -np.inf`` —, em que 0 · (−inf) = NaN entra em cada
    escore permitido. (Sem máscara o erro não se aplica: o caso sem máscara passa.)"""
    if not isinstance(certo, ComLinhasLivres):
        certo = certo[0]  # o par (saídas, pesos) da atenção cruzada: vale a saída
    v = leitura_para(SaidaOuPar().normalizar(y), certo.valor.shape)
    if v.shape != certo.valor.shape:
        return False
    presas = ~certo.livres
    return bool(presas.any()) and bool(np.isnan(v[presas]).all())


def _erro_aditiva_multiplicada(escores: str) -> Erro:
    return Erro(
        "máscara aditiva por multiplicação (0·inf = NaN)",
        "A saída saiu NaN em todas as linhas que têm alguma key permitida: a máscara aditiva foi montada por "
        "**multiplicação** — (~mask) * -np.inf, (1 - mask) * -np.inf ou mask * -np.inf. Onde o fator é 0, "
        "0 · (−inf) não dá 0, dá NaN; somado ao escore, esse NaN contamina a linha inteira na softmax (e "
        "attention.softmax recusa a entrada com NaN). Monte a aditiva com np.where(mask, 0.0, -np.inf), ou troque "
        f"direto os escores proibidos: np.where(mask, {escores}, -np.inf).",
        quando=lambda y, certo, caso: (_nan_em_toda_linha_permitida(y, certo, caso) if _tem_mascara(caso)
                                       else _nao_se_aplica()))


def _tem_mascara(caso: Caso) -> bool:
    e = caso.entradas
    return e.get("mask") is not None or "comprimentos" in e


def _nao_se_aplica() -> bool:
    raise ValueError("o erro não se aplica a este caso")


def _casos_atencao_mascarada() -> list[Caso]:
    rng = np.random.default_rng(70)
    q, K, V = np.array([1.0, 0.0]), np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    K4 = rng.normal(size=(4, 4)) * 2.0
    V4 = rng.normal(size=(4, 3))
    vazia = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 1.0, 2.0, 0.0], [1500.0, 1800.0, 2000.0, 100.0]])
    mascara_vazia = np.array([[False] * 4, [True, True, True, False], [True, True, False, True]])

    def caso(descricao: str, **entradas: Any) -> Caso:
        return Caso(descricao, entradas, nomeados=("mask",) if "mask" in entradas else ())

    return [
        caso("sem máscara (mask=None), no exemplo resolvido", q=q, K=K, V=V),
        caso("com escores permitidos abaixo de −10 (entre −17 e −8,5) e a key proibida com escore alto",
             q=np.array([[-10.0, -10.0], [-12.0, 0.0]]), K=np.array([[1.0, 1.0], [2.0, 0.0], [-1.0, -1.0]]),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]), mask=np.array([[True, True, False], [True, True, False]])),
        # a key proibida passa as permitidas por 1000: quem mascara depois da softmax e renormaliza fica com 0/0
        caso("com uma key proibida de escore 1000 e as permitidas perto de 0 (mask (4,): a última proibida)",
             q=np.array([[2000.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0]]),
             K=np.array([[0.0, 1.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]]), mask=np.array([True, True, True, False])),
        # a última query vê todas as keys: a linha dela não tem nenhum −inf (quem subtrai o mínimo acerta nela; quem
        # multiplica a máscara por −inf, não)
        caso("com uma máscara causal (q (4, 4), K (4, 4), V (4, 3), mask (4, 4))",
             q=np.vstack([rng.normal(size=(3, 4)), [[0.5, -1.0, 0.25, 1.0]]]), K=K4, V=V4, mask=np.tri(4, dtype=bool)),
        caso("com uma máscara de preenchimento de uma dimensão (mask (4,): as duas últimas keys proibidas)",
             q=rng.normal(size=(2, 4)), K=K4, V=V4, mask=np.array([True, True, False, False])),
        caso("com uma query cujos escores permitidos são todos muito negativos (−1000, −1001, −1002; o da key "
             "proibida, −1003)",
             q=np.array([[-2000.0, -2.0, 0.0, 0.0], [0.5, -0.5, 1.0, 0.0]]),
             K=np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [1.0, 3.0, 0.0, 0.0]]),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]]),
             mask=np.array([True, True, True, False])),
        caso("com duas queries cujos escores diferem em milhares (a segunda × 3000) e a máscara causal",
             q=np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 3000.0, 0.0, 1000.0]]), K=K4, V=V4, mask=np.tri(2, 4, k=1, dtype=bool)),
        caso("com uma linha muito espalhada (escores de −1414 a 1414) e a última key proibida",
             q=np.array([[2000.0, 0.0]]), K=np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]), mask=np.array([[True, True, True, False]])),
        caso("com tudo em float32, escores perto de 200 e a máscara causal",
             q=np.array([[20.0, 0, 0, 0], [0, 20.0, 0, 0]], dtype=np.float32),
             K=np.array([[20.0, 0, 0, 0], [0, 20.0, 0, 0], [10.0, 10.0, 0, 0]], dtype=np.float32),
             V=np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], dtype=np.float32), mask=np.tri(2, 3, dtype=bool)),
        caso("com uma query sem nenhuma key permitida (a primeira linha da máscara toda False)",
             q=vazia, K=2.0 * np.eye(4), V=V4, mask=mascara_vazia),
    ]


_EXPLICA_RENORMALIZADA = (
    "Você aplicou a máscara **depois** da softmax e dividiu de novo pela soma de cada linha. Com números moderados a "
    "conta fecha, mas a softmax já foi feita com os escores proibidos: quando um deles passa os permitidos por "
    "centenas (no caso abaixo, por 1000), os pesos permitidos já saem da softmax como e^(−1000) = 0, e a "
    "renormalização dá 0/0 (ou zeros). Proíba nos **escores**, antes da softmax: np.where(mask, {escores}, -np.inf)."
)


def _so_os_pesos(y: Any, _certo: Any, caso: Caso) -> bool:
    """A resposta são os pesos certos (faltou o ``@ V``)."""
    e = caso.entradas
    _, pesos = scaled_dot_product_attention(*(np.asarray(e[k], dtype=float) for k in ("q", "K", "V")), e.get("mask"))
    lida = leitura_para(SaidaOuPar().normalizar(y), pesos.shape)
    return np.shape(lida) == pesos.shape and bool(np.allclose(lida, pesos, rtol=1e-6, atol=1e-6))


_EXPLICA_FORMA_MASCARA = (
    "os escores são q @ Kᵀ ((n_q, d) @ (d, n_k) = (n_q, n_k)); a máscara se estende (broadcasting) a essa forma — "
    "use np.where(mask, escores, -np.inf), sem indexar a máscara como se ela tivesse sempre duas dimensões —, e a "
    "saída é pesos @ V ((n_q, n_k) @ (n_k, d_v))."
)

ATENCAO_MASCARA = Exercicio(
    nome="atenção com máscara",
    casos=_casos_atencao_mascarada,
    certo=_atencao_mascarada_certa,
    formato=_SAIDA_LIVRE,
    acerto="Correto! A saída mistura só as keys permitidas, em qualquer escala de escores (até com os permitidos "
           "abaixo de −10), a softmax é estável por linha (escores muito negativos, a milhares de distância ou em "
           "float32 não viram NaN) e a query sem nenhuma key permitida sai finita, sem NaN.",
    erros=[
        # o NaN só na linha sem key permitida vem antes das softmax instáveis: ali o máximo é −inf, e quem
        # subtrai o máximo de cada linha (certo) dá o mesmo NaN que quem só o subtrai quando é positivo
        _erro_aditiva_multiplicada("escores"),
        erro_nan_na_linha_mascarada(),
        *_estabilidade(lambda trocar, q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, trocar=trocar),
                       _livres_atencao, _SAIDA_LIVRE),
        Erro("devolveu só os pesos",
             "Você devolveu os **pesos** (certos!), mas faltou o último passo: a saída é a soma ponderada dos values, "
             "pesos @ V — uma linha de d_v números por query. (Se quiser, devolva os dois: return pesos @ V, pesos.)",
             quando=_so_os_pesos),
        Erro("if mask: num array",
             "`if mask:` (ou `if mask == None:`) pede ao numpy um só True ou False para um array inteiro, e ele se "
             "recusa: é o ValueError \"truth value of an array … is ambiguous\". O que o `if` precisa saber é se "
             "veio uma máscara: `if mask is not None:`. (mask.any() ou mask.all() no lugar dele também não servem: "
             "uma máscara com alguns False continua valendo, e sem máscara mask é None, que não tem .any().)",
             levanta=lambda exc, caso: isinstance(exc, ValueError) and "truth value of an array" in str(exc)),
        Erro("mask=None não tratado",
             "Sem máscara (mask=None), a sua função tentou usar a máscara mesmo assim — um None não tem .any(), "
             ".astype(), forma nem índices. Trate esse caso antes: `if mask is not None:` troque os escores "
             "proibidos por -inf; se não houver máscara, todas as keys ficam permitidas.",
             levanta=lambda exc, caso: (caso.entradas.get("mask", None) is None and isinstance(exc, (AttributeError, TypeError))
                                        and "NoneType" in str(exc))),
        Erro("mask=None vira tudo proibido",
             "Sem máscara (mask=None), a sua função proibiu tudo: np.where(None, escores, -np.inf) trata o None como "
             "False. Quando mask for None, não mexa nos escores — if mask is not None: … —, e todas as keys ficam "
             "permitidas.",
             quando=_mask_none_vira_tudo_proibido),
        *livrar([
            Erro("máscara ignorada",
                 "A máscara foi ignorada: a saída é a da atenção sem máscara, e as queries continuam olhando para as "
                 "keys proibidas. Use mask: np.where(mask, escores, -np.inf) antes da softmax.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, None) if mask is not None else None),
            Erro("escores mascarados = 0",
                 "Você pôs **0** nos escores proibidos (np.where(mask, escores, 0), ou escores * mask). Zero não quer dizer "
                 "'nada': e^0 = 1, e a posição proibida recebe o mesmo peso que teria uma key com escore 0 — às vezes mais "
                 "que as permitidas. O proibido precisa de -inf (e^-inf = 0).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, preenche=0.0)
                 if mask is not None else None),
            Erro("−10 no lugar de −inf",
                 "Você pôs um número negativo **pequeno** (como −10) nos escores proibidos. Com escores de verdade perto "
                 "de 0 o vazamento é de uns e^-10 ≈ 4,5·10⁻⁵ e as matrizes impressas parecem certas; mas quando os "
                 "escores permitidos ficam perto de −10 ou abaixo, a posição proibida passa a levar boa parte do peso "
                 "(no caso abaixo, quase tudo). Use -np.inf (ou, se precisar de um número finito, algo como −1e9, muito abaixo de "
                 "qualquer escore realista — em float32 ou float64; em float16 −1e9 nem cabe).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, preenche=-10.0)
                 if mask is not None else None),
            Erro("máscara depois da softmax",
                 "Máscara aplicada depois da softmax: zerar os pesos proibidos depois de normalizar deixa linhas que não "
                 "somam 1, e a posição proibida já influenciou o denominador (o futuro vaza). Aplique a máscara nos "
                 "**escores**, trocando-os por -inf, e só então a softmax.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, depois=True)
                 if mask is not None else None),
        ], _livres_atencao),
        _reconhecido_nas_versoes(
            "máscara depois da softmax, renormalizada", _EXPLICA_RENORMALIZADA.format(escores="escores"),
            [lambda q, K, V, mask=None, como=como: _atencao_mascarada(q, K, V, mask, depois=True, renormaliza=como)
             if mask is not None else None for como in ("nan", "protegida")],
            _livres_atencao, _SAIDA_LIVRE),
        *livrar([
            Erro("máscara invertida",
                 "Máscara invertida: True significa **pode olhar** (a convenção do scaled_dot_product_attention do "
                 "PyTorch e desta coleção); você bloqueou as posições permitidas e liberou as proibidas.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, ~np.asarray(mask, dtype=bool))
                 if mask is not None else None),
            Erro("sem escala",
                 "Você esqueceu de escalar: os escores q·k devem ser divididos por √d antes da máscara e da softmax.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, escala=1.0)),
            Erro("÷d em vez de ÷√d",
                 lambda q, **_: f"Você dividiu por d = {q.shape[-1]} em vez de √d ≈ {decimal(math.sqrt(q.shape[-1]), 2)}: a "
                                "escala é 1/√d.",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, escala=1 / q.shape[-1])),
            Erro("soma das keys",
                 "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values** (V).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, mistura=K)),
            Erro("softmax no eixo errado",
                 "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha) devem somar 1, então a softmax "
                 "age sobre o último eixo (as keys).",
                 resposta=lambda q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, eixo=0)
                 if q.ndim == 2 and q.shape[0] > 1 else None),
        ], _livres_atencao),
    ],
    regras=[
        Regra("usou a atenção pronta",
              "escrever a atenção com máscara você mesmo, sem attention.scaled_dot_product_attention, que já recebe "
              "a máscara e faz tudo. Calcule os escores, troque os proibidos por -inf e só então faça a softmax "
              "(attention.softmax serve) e pesos @ V.",
              lambda fn: _usa_da_biblioteca(fn, {"scaled_dot_product_attention", "multi_head_attention"})),
    ],
    explica_forma=lambda **_: _EXPLICA_FORMA_MASCARA,
    dica_de_forma="A saída tem uma linha por query, com d_v colunas: os pesos (n_q, n_k) multiplicam V (n_k, d_v).",
)


@corretor_de(ATENCAO_MASCARA)
def check_atencao_com_mascara(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(q, K, V, mask=None)``: a atenção por produto escalar escalado com máscara booleana
    (``True`` = pode olhar, *broadcastable* para ``(n_q, n_k)``; a máscara vem por nome). ``q`` ``(d,)`` ou
    ``(n_q, d)``, ``K`` ``(n_k, d)``, ``V`` ``(n_k, d_v)``; pode devolver a saída (``(d_v,)`` ou ``(n_q, d_v)``) ou
    ``(saída, pesos)``. Uma query sem nenhuma key permitida aceita qualquer saída finita.
    """
    return conferir(ATENCAO_MASCARA, fn)



# --- a atenção cruzada num lote com padding (exercício 4) ---------------------------------------------


def _cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray, W_k: np.ndarray,
             W_v: np.ndarray, *, trocar: Callable[[np.ndarray], np.ndarray] | None = None,
             mascara: str = "padding", preenche: float = -np.inf, escala: str = "d_k", eixo: int = -1,
             mistura: str = "V", origem_kv: str = "enc", trocar_kv: bool = False, depois: bool = False,
             renormaliza: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A atenção cruzada ``(saídas (b, n_q, d_v), pesos (b, n_q, n_kv))``, certa ou com um erro clássico (os
    argumentos nomeados; ``depois`` e ``renormaliza`` como em :func:`_atencao_mascarada`)."""
    Q = X_dec @ W_q                                                       # (b, n_q, d_k)
    fonte = X_enc if origem_kv == "enc" else X_dec
    K, V = fonte @ W_k, fonte @ W_v                                       # (b, n, d_k), (b, n, d_v)
    if trocar_kv:
        K, V = fonte @ W_v, fonte @ W_k
    d = {"d_k": K.shape[-1], "d_model": X_dec.shape[-1], "1": 1}[escala]
    z = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d)                         # (b, n_q, n)
    b, n_q, n = z.shape
    j = np.arange(n)[None, None, :]
    L = np.asarray(comprimentos)[:, None, None]
    pode = {"padding": j < L, "<=": j <= L, "causal": (j < L) & np.tri(n_q, n, dtype=bool),
            "nenhuma": np.ones_like(j, dtype=bool)}[mascara]
    if not depois:
        z = np.where(pode, z, preenche)
    pesos = trocar(z) if trocar is not None else softmax(z, axis=eixo)
    if depois:
        pesos = _renormalizados(pesos * pode, renormaliza)
    return pesos @ {"V": V, "K": K, "X": fonte}[mistura], pesos


def _vazias(X_dec: np.ndarray, comprimentos: np.ndarray, largura: int) -> np.ndarray:
    """As entradas ``(b, n_q, largura)`` das frases de origem vazias (comprimento 0: nenhuma key permitida)."""
    b, n_q = X_dec.shape[:2]
    vazias = np.asarray(comprimentos) <= 0
    return np.broadcast_to(vazias[:, None, None], (b, n_q, largura)).copy()


def _livres_cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                    W_k: np.ndarray, W_v: np.ndarray) -> np.ndarray:
    return _vazias(X_dec, comprimentos, W_v.shape[1])


def _cruzada_certa(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                   W_k: np.ndarray, W_v: np.ndarray) -> tuple[ComLinhasLivres, ComLinhasLivres]:
    f = [np.asarray(a, dtype=float) for a in (X_dec, X_enc, W_q, W_k, W_v)]
    mask = padding_mask(np.asarray(comprimentos), f[1].shape[1])
    saida, pesos = scaled_dot_product_attention(f[0] @ f[2], f[1] @ f[3], f[1] @ f[4], mask)
    return (ComLinhasLivres(saida, _vazias(X_dec, comprimentos, W_v.shape[1])),
            ComLinhasLivres(pesos, _vazias(X_dec, comprimentos, X_enc.shape[1])))


# o formato: o par (saídas, pesos), também escrito frase a frase --------------------------------------------

@dataclass(frozen=True)
class _SaidaDoPar(_SaidaLivre):
    """A saída (do par ``(saídas, pesos)``, ou sozinha), para os erros de conta: eles se reconhecem pela saída,
    seja o que for que veio no lugar dos pesos. Comparada com a resposta certa inteira (o par), vale a saída."""

    def igual(self, a: Any, b: Any) -> bool:
        return super().igual(a, b[0] if isinstance(b, tuple) else b)


_SAIDA_DO_PAR = _SaidaDoPar()


def _par_por_frase(y: Any) -> bool:
    """``y`` é uma lista de pares ``(saída, pesos)``, um por frase do lote (o que um laço pelas frases devolve)?
    Cada par tem duas matrizes, ``(n_q, d_v)`` e ``(n_q, n_kv)``. Com duas frases, a lista também poderia ser o
    próprio par ``(saídas, pesos)`` escrito como duas listas: ela só é lida frase a frase se, em cada frase, as duas
    matrizes tiverem formas diferentes."""
    if not isinstance(y, (list, tuple)) or not y:
        return False
    for e in y:
        if not (isinstance(e, (list, tuple)) and len(e) == 2):
            return False
        try:
            a, b = np.shape(e[0]), np.shape(e[1])
        except ValueError:
            return False
        if len(a) != 2 or len(b) != 2 or (len(y) == 2 and a == b):
            return False
    return True


def _partes_cruas(y: Any) -> tuple[Any, Any]:
    """As duas partes cruas, ``(saídas, pesos)``, de uma resposta; a lista de pares por frase vira o par de listas."""
    if _par_por_frase(y):
        return [s for s, _ in y], [p for _, p in y]
    if isinstance(y, np.ndarray) or not isinstance(y, (tuple, list)):
        raise RespostaInvalida(f"a função deve devolver o par (saídas, pesos); veio {type(y).__name__}")
    if len(y) != 2:
        raise RespostaInvalida(f"a função deve devolver o par (saídas, pesos) (2 coisas); veio {type(y).__name__} de "
                               f"tamanho {len(y)}")
    return y[0], y[1]


@dataclass(frozen=True)
class _ParDoLote(Formato):
    """O par ``(saídas, pesos)`` da atenção cruzada de um lote; nos dois, as linhas das queries de uma frase de
    origem vazia aceitam qualquer número finito. Aceita tupla ou lista e o lote escrito frase a frase, como sai de
    um laço: as saídas e os pesos como listas de ``b`` arrays, ou uma lista de ``b`` pares ``(saída, pesos)``."""

    def normalizar(self, y: Any) -> tuple:
        if isinstance(y, tuple) and len(y) == 2 and all(isinstance(p, ComLinhasLivres) for p in y):
            return tuple(_SAIDA_LIVRE.normalizar(p) for p in y)
        return tuple(_SAIDA_LIVRE.normalizar(p) for p in _partes_cruas(y))

    def igual(self, a: tuple, b: tuple) -> bool:
        return all(_SAIDA_LIVRE.igual(x, z) for x, z in zip(a, b))

    def mostrar(self, x: tuple) -> str:
        return "\n".join(f"{r} =\n{_SAIDA_LIVRE.mostrar(p)}" for r, p in zip(("saídas", "pesos"), x))

    def forma(self, x: tuple) -> tuple:
        return tuple(_SAIDA_LIVRE.forma(p) for p in x)


_PAR_DO_LOTE = _ParDoLote()


# os erros do par: as saídas certas, os pesos não --------------------------------------------------------


def _lido(x: Any, certo: ComLinhasLivres) -> np.ndarray:
    """Uma parte da resposta, já normalizada, lida na forma da parte certa."""
    x = leitura_para(x, certo.valor.shape)
    return x.valor if isinstance(x, ComLinhasLivres) else np.asarray(x, dtype=float)


def _saidas_certas(y: Any, certo: tuple) -> bool:
    saidas, _ = _partes_cruas(y)
    return _SAIDA_LIVRE.igual(_SAIDA_LIVRE.normalizar(saidas), certo[0])


def _bate_fora_das_livres(x: np.ndarray, alvo: np.ndarray, livres: np.ndarray) -> bool:
    """``x`` tem a forma de ``alvo`` e bate com ele fora das entradas ``livres`` (onde vale qualquer coisa)."""
    if x.shape != alvo.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(x[~livres], alvo[~livres], rtol=1e-6, atol=1e-6, equal_nan=True))


def _so_a_saida(y: Any, certo: tuple, _caso: Caso) -> bool:
    if isinstance(y, (tuple, list)) and len(y) == 2:  # duas saídas (um lote de 2 frases) ou um par?
        lido = SaidaOuPar().normalizar(y)
        inteira = getattr(lido, "inteira", None)
        return inteira is not None and inteira.shape == certo[0].valor.shape and _SAIDA_LIVRE.igual(inteira, certo[0])
    return _SAIDA_LIVRE.igual(_SAIDA_LIVRE.normalizar(y), certo[0])


def _par_trocado(y: Any, certo: tuple, _caso: Caso) -> bool:
    pesos, saidas = (_SAIDA_LIVRE.normalizar(p) for p in _partes_cruas(y))
    return _SAIDA_LIVRE.igual(saidas, certo[0]) and _SAIDA_LIVRE.igual(pesos, certo[1])


def _pesos_transpostos(y: Any, certo: tuple, _caso: Caso) -> bool:
    if not _saidas_certas(y, certo):
        return False
    alvo = certo[1]
    pesos = _lido(_SAIDA_LIVRE.normalizar(_partes_cruas(y)[1]), ComLinhasLivres(np.swapaxes(alvo.valor, -1, -2),
                                                                               np.swapaxes(alvo.livres, -1, -2)))
    return _bate_fora_das_livres(pesos, np.swapaxes(alvo.valor, -1, -2), np.swapaxes(alvo.livres, -1, -2))


def _escores_cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                     W_k: np.ndarray, W_v: np.ndarray) -> list[np.ndarray]:
    """Os escores que se devolvem no lugar dos pesos: escalados ou não, com −inf, −1e9 ou sem máscara."""
    f = [np.asarray(a, dtype=float) for a in (X_dec, X_enc, W_q, W_k)]
    QK = (f[0] @ f[2]) @ np.swapaxes(f[1] @ f[3], -1, -2)
    pode = padding_mask(np.asarray(comprimentos), f[1].shape[1])
    candidatos = []
    for z in (QK / math.sqrt(W_k.shape[1]), QK):
        candidatos += [z, np.where(pode, z, -np.inf), np.where(pode, z, -1e9)]
    return candidatos


def _escores_no_lugar_dos_pesos(y: Any, certo: tuple, caso: Caso) -> bool:
    if not _saidas_certas(y, certo):
        return False
    pesos = _lido(_SAIDA_LIVRE.normalizar(_partes_cruas(y)[1]), certo[1])
    return any(_bate_fora_das_livres(pesos, z, certo[1].livres) for z in _escores_cruzada(**caso.entradas))


def _pesos_so_das_posicoes_de_verdade(y: Any, certo: tuple, caso: Caso) -> bool:
    """Os pesos de cada frase com só as ``comprimentos[b]`` colunas de verdade (um laço que cortou K e V)."""
    if not _saidas_certas(y, certo):
        return False
    pesos = _partes_cruas(y)[1]
    comprimentos = [int(c) for c in caso.entradas["comprimentos"]]
    n_kv = caso.entradas["X_enc"].shape[1]
    if not isinstance(pesos, (list, tuple)) or len(pesos) != len(comprimentos) or min(comprimentos) >= n_kv:
        return False
    for p, c, alvo in zip(pesos, comprimentos, certo[1].valor):
        if c == 0:
            continue
        p = np.asarray(p, dtype=float)
        if p.shape != (alvo.shape[0], c) or not np.allclose(p, alvo[:, :c], rtol=1e-6, atol=1e-6):
            return False
    return True


def _erros_do_par() -> list[Erro]:
    return [
        Erro("só a saída",
             "As saídas estão certas, mas a função deve devolver o **par** (saídas, pesos): return pesos @ V, pesos. "
             "(Num laço pelas frases, junte as saídas e os pesos de cada frase — np.stack, ou duas listas.)",
             quando=_so_a_saida),
        Erro("par na ordem trocada",
             "Os números estão certos, mas o par veio na ordem trocada: devolva (saídas, pesos), nessa ordem.",
             quando=_par_trocado),
        Erro("pesos transpostos",
             "As saídas estão certas, mas os pesos vieram transpostos, (b, n_kv, n_q): em cada frase, a linha i deve "
             "ser a da query i do decoder (cada **linha** soma 1) e a coluna j, a posição j da origem.",
             quando=_pesos_transpostos),
        Erro("escores no lugar dos pesos",
             "As saídas estão certas, mas você devolveu os **escores** (Q Kᵀ, com ou sem a escala e a máscara) no "
             "lugar dos pesos. Devolva a matriz depois da softmax, a que multiplica V: cada linha soma 1, e o <pad> "
             "tem peso 0.",
             quando=_escores_no_lugar_dos_pesos),
        Erro("pesos só das posições de verdade",
             "As saídas estão certas, mas os pesos de cada frase têm só as colunas dos tokens de verdade (o laço "
             "cortou K e V em comprimentos[b]). Os pesos do lote são um array (b, n_q, n_kv), com as colunas do <pad> "
             "valendo 0: devolva-os com todas as n_kv posições da origem (por exemplo, aplicando a máscara de "
             "preenchimento em vez de cortar).",
             quando=_pesos_so_das_posicoes_de_verdade),
        Erro("pesos diferentes dos usados",
             "As saídas estão certas, mas os pesos não: devolva a matriz (b, n_q, n_kv) que multiplicou V — a "
             "softmax, em cada linha, dos escores com o <pad> em -inf.",
             quando=lambda y, certo, _caso: _saidas_certas(y, certo)),
    ]


def _caso_cruzada(descricao: str, X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: Sequence[int],
                  Ws: Sequence[np.ndarray]) -> Caso:
    return Caso(descricao, {"X_dec": X_dec, "X_enc": X_enc, "comprimentos": np.array(comprimentos),
                            "W_q": Ws[0], "W_k": Ws[1], "W_v": Ws[2]})


def _casos_cruzada() -> list[Caso]:
    rng = np.random.default_rng(71)
    Ws = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)))
    X_dec, X_enc = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4))
    X_dec2, X_enc2 = rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 4, 4))
    Ws2 = (rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 4)))
    X_enc_enorme = X_enc.copy()
    X_enc_enorme[:, 1] *= 3000.0           # duas posições da origem com vetores enormes e opostos (permitidas nas
    X_enc_enorme[:, 2] = -X_enc_enorme[:, 1]  # duas frases): toda query tem um escore de milhares, positivo
    # muito negativos: W_q = W_k = I (d_k = 4, √4 = 2); a query 0 da frase 0 contra as 3 posições de verdade dá
    # (−2000 − 2c) / 2 com c = 0, 1, 2: −1000, −1001, −1002 (e o <pad>, −1003 e −1004)
    I4 = np.eye(4)
    W_v_neg = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 2.0]])
    X_dec_neg = np.array([[[-2000.0, -2.0, 0.0, 0.0], [0.5, -0.5, 1.0, 0.0]],
                          [[1.0, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, -1.0]]])
    X_enc_neg = np.array([[[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [1.0, 3.0, 0.0, 0.0],
                           [1.0, 4.0, 0.0, 0.0]],
                          [[0.5, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0],
                           [1.0, 0.0, 0.0, 1.0]]])
    # o <pad> domina: na frase 0, a query 0 dá 1000 à posição 3 (<pad>) e perto de 0 às de verdade (W_q = W_k = I)
    X_dec_pad = np.array([[[2000.0, 0.5, 0.0, 0.0], [0.5, 1.0, 0.0, 0.0]], [[0.5, 0.0, 0.0, 1.0], [1.0, 0.0, 0.5, 0.0]]])
    X_enc_pad = np.array([[[0.0, 1.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                           [0.0, 0.0, 1.0, 0.0]],
                          [[0.5, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0],
                           [1.0, 0.0, 0.0, 1.0]]])
    # float32: W = I, escores = X_dec · X_enc / 2, perto de 200 (e^100 já estoura em float32)
    I32 = np.eye(4, dtype=np.float32)
    X_dec32 = np.array([[[20.0, 0, 0, 0], [0, 20.0, 0, 0]]], dtype=np.float32)
    X_enc32 = np.array([[[20.0, 0, 0, 0], [0, 20.0, 0, 0], [10.0, 10.0, 0, 0]]], dtype=np.float32)
    return [
        _caso_cruzada("com um lote de 2 frases: 3 tokens no decoder, origem preenchida até 5 posições "
                      "(comprimentos [5, 3]), d_model = 4, d_k = 3, d_v = 2", X_dec, X_enc, [5, 3], Ws),
        _caso_cruzada("com um lote de 3 frases: 2 tokens no decoder, origem de 4 posições (comprimentos [4, 1, 2]), "
                      "d_k = d_v = d_model = 4", X_dec2, X_enc2, [4, 1, 2], Ws2),
        _caso_cruzada("com uma query cujos escores permitidos são todos muito negativos (−1000, −1001, −1002; o do "
                      "<pad>, −1003 e −1004), W_q = W_k = identidade", X_dec_neg, X_enc_neg, [3, 5], (I4, I4, W_v_neg)),
        _caso_cruzada("com o <pad> de uma frase com escore 1000 e as posições de verdade perto de 0 (comprimentos "
                      "[3, 5]), W_q = W_k = identidade", X_dec_pad, X_enc_pad, [3, 5], (I4, I4, W_v_neg)),
        _caso_cruzada("com duas posições da origem de vetores enormes e opostos (× 3000): escores de milhares, espalhados "
                      "e com linhas a milhares de distância", X_dec, X_enc_enorme, [5, 3], Ws),
        _caso_cruzada("com tudo em float32 e escores perto de 200 (as três W iguais à identidade)",
                      X_dec32, X_enc32, [3], (I32, I32, I32)),
        _caso_cruzada("com uma frase de origem vazia (comprimentos [5, 0]: as queries dela não têm nenhuma key "
                      "permitida) e, na outra, as posições de vetores enormes", X_dec, X_enc_enorme, [5, 0], Ws),
    ]


def _queries_da_origem(y: Any, _certo: Any, caso: Caso) -> bool:
    e = caso.entradas
    b, n_kv = e["X_enc"].shape[:2]
    forma = (b, n_kv, e["W_v"].shape[1])
    return e["X_dec"].shape[1] != n_kv and np.shape(leitura_para(SaidaOuPar().normalizar(y), forma)) == forma


def _explica_forma_cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                           W_k: np.ndarray, W_v: np.ndarray) -> str:
    b, n_q, d_model = X_dec.shape
    n_kv, d_k, d_v = X_enc.shape[1], W_k.shape[1], W_v.shape[1]
    return (f"Siga as formas: Q = X_dec @ W_q é ({b}, {n_q}, {d_k}); K = X_enc @ W_k é ({b}, {n_kv}, {d_k}) e "
            f"V = X_enc @ W_v, ({b}, {n_kv}, {d_v}). Em lote, K.T inverte os **três** eixos (vira ({d_k}, {n_kv}, {b})): "
            "para transpor só os dois últimos use K.transpose(0, 2, 1), np.swapaxes(K, -1, -2) ou np.einsum. Os escores "
            f"ficam ({b}, {n_q}, {n_kv}); a máscara de preenchimento é ({b}, 1, {n_kv}) — np.arange(n_kv)[None, None, :] < "
            f"comprimentos[:, None, None] —, e a saída, pesos @ V, ({b}, {n_q}, {d_v}).")


def _erros_cruzada_com(**como: Any) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    return lambda **e: _cruzada(**e, **como)


def _pela_saida(erros: list[Erro]) -> list[Erro]:
    """Os erros de conta, reconhecidos pela saída (com as linhas livres), seja o que for que veio nos pesos."""
    return [dataclasses.replace(e, formato=_SAIDA_DO_PAR) for e in livrar(erros, _livres_cruzada)]


def _nan_so_na_frase_vazia() -> Erro:
    base = erro_nan_na_linha_mascarada("uma frase de origem vazia (comprimento 0: nenhuma key permitida)")
    quando = base.quando
    assert quando is not None
    return dataclasses.replace(base, quando=lambda y, certo, caso: quando(y, certo[0], caso))


ATENCAO_CRUZADA = Exercicio(
    nome="atenção cruzada num lote com preenchimento",
    casos=_casos_cruzada,
    certo=_cruzada_certa,
    formato=_PAR_DO_LOTE,
    acerto="Correto! Queries do decoder, keys e values da origem, pesos (b, n_q, n_kv) com peso 0 no preenchimento "
           "da origem e nenhuma máscara causal sobre ela, uma softmax estável (sem NaN, nem com escores muito "
           "negativos, em float32 ou numa frase de origem vazia), e as saídas e os pesos que você devolveu batem: é a "
           "atenção cruzada de um tradutor, num lote de frases de tamanhos diferentes.",
    erros=[
        _erro_aditiva_multiplicada("escores"),
        _nan_so_na_frase_vazia(),
        *_estabilidade(lambda trocar, **e: _cruzada(**e, trocar=trocar), _livres_cruzada, _SAIDA_DO_PAR),
        Erro("queries da origem",
             "A saída tem uma linha por token da **origem**: as queries saíram de X_enc. Na atenção cruzada quem "
             "pergunta é o decoder — Q = X_dec @ W_q — e quem responde é a origem: K = X_enc @ W_k, V = X_enc @ W_v. "
             "A saída tem uma linha por token do decoder.",
             quando=_queries_da_origem),
        *_pela_saida([
            Erro("autoatenção do decoder",
                 "Você fez a autoatenção do decoder: as keys e os values também saíram de X_dec. Na atenção cruzada eles "
                 "vêm da **outra** sequência, a origem: K = X_enc @ W_k e V = X_enc @ W_v.",
                 resposta=_erros_cruzada_com(origem_kv="dec", mascara="nenhuma")),
            Erro("sem a máscara de preenchimento",
                 "As queries estão olhando para o <pad> da origem: faltou a máscara de preenchimento. As posições j ≥ "
                 "comprimentos[b] da frase b precisam de -inf nos escores antes da softmax — máscara (b, 1, n_kv), "
                 "np.arange(n_kv)[None, None, :] < comprimentos[:, None, None].",
                 resposta=_erros_cruzada_com(mascara="nenhuma")),
            Erro("máscara depois da softmax",
                 "Você aplicou a máscara de preenchimento depois da softmax (zerando os pesos do <pad>): as linhas deixam "
                 "de somar 1, e o <pad> já entrou no denominador. Proíba nos **escores**, com -inf, e só então a "
                 "softmax.",
                 resposta=_erros_cruzada_com(depois=True)),
            Erro("preenchimento com escore 0",
                 "Você pôs 0 nos escores do preenchimento (np.where(mask, escores, 0), ou escores * mask). e^0 = 1: o <pad> "
                 "continua recebendo peso. O proibido precisa de -inf.",
                 resposta=_erros_cruzada_com(preenche=0.0)),
            Erro("erro de um: j <= comprimentos",
                 "Erro de um: com j <= comprimentos a posição comprimentos[b] também ficou liberada — e ela já é o "
                 "primeiro <pad> (as posições começam em 0). Use j < comprimentos.",
                 resposta=_erros_cruzada_com(mascara="<=")),
            Erro("máscara causal na atenção cruzada",
                 "Você pôs uma máscara **causal** na atenção cruzada. A frase de origem está inteira disponível antes "
                 "de a tradução começar — não há futuro para esconder nela —: só o preenchimento da origem fica proibido. "
                 "(A causal é da autoatenção do decoder.)",
                 resposta=_erros_cruzada_com(mascara="causal")),
            Erro("escala por √d_model",
                 lambda X_dec, W_k, **_: f"Você dividiu por √d_model = √{X_dec.shape[-1]}; a escala usa o tamanho das "
                                         f"queries e keys depois da projeção: √d_k = √{W_k.shape[1]}.",
                 resposta=_erros_cruzada_com(escala="d_model")),
            Erro("sem escala",
                 "Você esqueceu de escalar: os escores Q Kᵀ devem ser divididos por √d_k antes da máscara e da softmax.",
                 resposta=_erros_cruzada_com(escala="1")),
            Erro("softmax no eixo errado",
                 "Softmax calculada no eixo errado: os pesos de cada **query** (cada linha de cada frase) devem somar 1, "
                 "então a softmax age sobre o último eixo, o das keys da origem.",
                 resposta=_erros_cruzada_com(eixo=-2)),
            Erro("soma das keys",
                 "Você somou as **keys** ponderadas; a saída é a soma ponderada dos **values** da origem, V = X_enc @ W_v.",
                 resposta=_erros_cruzada_com(mistura="K")),
            Erro("X_enc no lugar de V",
                 "Você misturou os embeddings da origem (X_enc) em vez dos values: faltou a projeção V = X_enc @ W_v "
                 "(por isso a saída tem d_model colunas, não d_v).",
                 resposta=_erros_cruzada_com(mistura="X")),
            Erro("K e V trocados",
                 "K e V estão trocados: os escores foram calculados com X_enc @ W_v e a mistura com X_enc @ W_k. "
                 "K = X_enc @ W_k entra nos escores; V = X_enc @ W_v é o conteúdo que sai.",
                 resposta=_erros_cruzada_com(trocar_kv=True)),
        ]),
        _reconhecido_nas_versoes(
            "máscara depois da softmax, renormalizada", _EXPLICA_RENORMALIZADA.format(escores="escores"),
            [_erros_cruzada_com(depois=True, renormaliza=como) for como in ("nan", "protegida")], _livres_cruzada,
            _SAIDA_DO_PAR),
        *_erros_do_par(),
    ],
    regras=[
        Regra("usou a atenção pronta",
              "escrever a atenção cruzada você mesmo, sem attention.scaled_dot_product_attention, que já faz tudo. "
              "Projete, calcule os escores em lote, proíba o <pad> e só então faça a softmax (attention.softmax serve) "
              "e pesos @ V.",
              lambda fn: _usa_da_biblioteca(fn, {"scaled_dot_product_attention", "multi_head_attention"})),
        Regra("usou attention.padding_mask",
              "montar a máscara de preenchimento você mesmo, sem attention.padding_mask: compare as posições da "
              "origem com os comprimentos, cada um no seu eixo, para a comparação dar a forma (b, 1, n_kv).",
              lambda fn: _usa_da_biblioteca(fn, {"padding_mask"})),
    ],
    explica_forma=_explica_forma_cruzada,
    dica_de_forma="As saídas têm uma linha por token do **decoder** em cada frase, (b, n_q, d_v); os pesos, uma linha "
                  "por query e uma coluna por posição da origem, (b, n_q, n_kv).",
    mostrar_valores=False,
)


@corretor_de(ATENCAO_CRUZADA)
def check_atencao_cruzada(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X_dec, X_enc, comprimentos, W_q, W_k, W_v)`` = ``(saídas, pesos)``: a atenção cruzada de um
    lote.

    ``X_dec`` ``(b, n_q, d_model)`` (quem pergunta, o decoder), ``X_enc`` ``(b, n_kv, d_model)`` (a origem,
    preenchida até ``n_kv``), ``comprimentos`` ``(b,)`` (os tokens de verdade de cada frase de origem),
    ``W_q``/``W_k`` ``(d_model, d_k)`` e ``W_v`` ``(d_model, d_v)``. Resposta: o par ``(saídas (b, n_q, d_v),
    pesos (b, n_q, n_kv))`` — os dois são comparados —, também escrito frase a frase (duas listas, ou uma lista de
    pares). As linhas de uma frase de origem vazia aceitam qualquer número finito.
    """
    return conferir(ATENCAO_CRUZADA, fn)
