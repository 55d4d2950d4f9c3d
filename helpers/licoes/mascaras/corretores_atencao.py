"""Notebook ``mascaras_e_atencao_cruzada``: os corretores dos exercícios 3 e 4 — a atenção com máscara (os
escores proibidos em −inf antes da softmax estável) e a atenção cruzada num lote com preenchimento (queries
do decoder, keys e values da origem).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...attention import padding_mask, scaled_dot_product_attention, softmax
from ...corretor import Caso, Erro, Exercicio, SaidaOuPar, conferir, corretor_de
from ...formato import decimal
from ..softmax import (
    ComLinhasLivres,
    SaidaComLinhasLivres,
    erro_nan_na_linha_mascarada,
    erros_de_estabilidade,
    linhas_sem_key_permitida,
    livrar,
)

__all__ = ["ATENCAO_CRUZADA", "ATENCAO_MASCARA", "check_atencao_com_mascara", "check_atencao_cruzada"]

# --- a atenção com máscara (exercício 3) ------------------------------------------------------------


def _atencao_mascarada(q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None, *,
                       trocar: Callable[[np.ndarray], np.ndarray] | None = None, preenche: float = -np.inf,
                       escala: float | None = None, eixo: int = -1, mistura: np.ndarray | None = None,
                       depois: bool = False) -> np.ndarray:
    """A atenção com máscara, com um erro no meio: ``trocar`` no lugar da softmax estável, ``preenche`` no
    lugar de −inf, outra ``escala``, a softmax noutro ``eixo``, outra matriz na ``mistura`` ou a máscara
    aplicada ``depois`` da softmax (multiplicando os pesos)."""
    d = q.shape[-1]
    z = q @ K.T * (1 / math.sqrt(d) if escala is None else escala)
    if mask is not None and not depois:
        z = np.where(mask, z, preenche)
    if trocar is not None:
        pesos = trocar(z)
    else:
        pesos = softmax(z, axis=eixo)
    if mask is not None and depois:
        pesos = pesos * mask
    return pesos @ (V if mistura is None else mistura)


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
    v = SaidaOuPar().normalizar(y)
    return v.shape == certo.valor.shape and bool(np.all(~np.isfinite(v)) or np.all(v == 0))


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
        caso("com uma máscara causal (q (3, 4), K (4, 4), V (4, 3), mask (3, 4))",
             q=rng.normal(size=(3, 4)), K=K4, V=V4, mask=np.tri(3, 4, dtype=bool)),
        caso("com uma máscara de preenchimento de uma dimensão (mask (4,): as duas últimas keys proibidas)",
             q=rng.normal(size=(2, 4)), K=K4, V=V4, mask=np.array([True, True, False, False])),
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


_EXPLICA_FORMA_MASCARA = (
    "os escores são q @ Kᵀ ((n_q, d) @ (d, n_k) = (n_q, n_k)); a máscara se estende (broadcasting) a essa forma — "
    "use np.where(mask, escores, -np.inf), sem indexar a máscara como se ela tivesse sempre duas dimensões —, e a "
    "saída é pesos @ V ((n_q, n_k) @ (n_k, d_v))."
)

ATENCAO_MASCARA = Exercicio(
    nome="atenção com máscara",
    casos=_casos_atencao_mascarada,
    certo=_atencao_mascarada_certa,
    formato=SaidaComLinhasLivres(),
    acerto="Correto! Os escores proibidos viram -inf (ou um número muito negativo) **antes** da softmax (peso exatamente 0, em qualquer escala de "
           "escores), a softmax é estável por linha e a query sem nenhuma key permitida sai finita, sem NaN.",
    erros=[
        *livrar(erros_de_estabilidade(lambda trocar, q, K, V, mask=None: _atencao_mascarada(q, K, V, mask, trocar=trocar)),
                _livres_atencao),
        erro_nan_na_linha_mascarada(),
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
    explica_forma=lambda **_: _EXPLICA_FORMA_MASCARA,
    dica_de_forma="A saída tem uma linha por query, com d_v colunas: os pesos (n_q, n_k) multiplicam V (n_k, d_v).",
)


@corretor_de(ATENCAO_MASCARA)
def check_atencao_com_mascara(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(q, K, V, mask=None)``: a atenção por produto escalar escalado com máscara booleana
    (``True`` = pode olhar, *broadcastable* para ``(n_q, n_k)``). Pode devolver a saída ou ``(saída, pesos)``.

    Casos: sem máscara, máscara causal, máscara de padding 1-D, escores permitidos abaixo de −10 (onde
    preencher com −10 não basta), e o padrão de estabilidade da coleção (linhas a milhares de distância, uma
    linha espalhada, float32 e uma query sem nenhuma key permitida, cuja linha aceita qualquer saída
    finita). Reconhece cada erro de :data:`ATENCAO_MASCARA`: as três softmax instáveis, NaN na linha toda
    mascarada, ``mask=None`` tratado como tudo proibido, a máscara ignorada, 0 ou −10 no lugar de −inf, a
    máscara depois da softmax, a máscara invertida, a escala errada, as keys somadas e o eixo errado.
    """
    return conferir(ATENCAO_MASCARA, fn)



# --- a atenção cruzada num lote com padding (exercício 4) ---------------------------------------------


def _cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray, W_k: np.ndarray,
             W_v: np.ndarray, *, trocar: Callable[[np.ndarray], np.ndarray] | None = None,
             mascara: str = "padding", preenche: float = -np.inf, escala: str = "d_k", eixo: int = -1,
             mistura: str = "V", origem_kv: str = "enc", trocar_kv: bool = False) -> np.ndarray:
    """A atenção cruzada ``(b, n_q, d_v)``, certa ou com um erro clássico (os argumentos nomeados)."""
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
    if mascara == "padding":
        z = np.where(j < L, z, preenche)
    elif mascara == "<=":
        z = np.where(j <= L, z, preenche)
    elif mascara == "causal":
        z = np.where((j < L) & np.tri(n_q, n, dtype=bool), z, preenche)
    pesos = trocar(z) if trocar is not None else softmax(z, axis=eixo)
    return pesos @ {"V": V, "K": K, "X": fonte}[mistura]


def _livres_cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                    W_k: np.ndarray, W_v: np.ndarray) -> np.ndarray:
    b, n_q = X_dec.shape[:2]
    vazias = np.asarray(comprimentos) <= 0                                # (b,): frase de origem sem tokens
    return np.broadcast_to(vazias[:, None, None], (b, n_q, W_v.shape[1])).copy()


def _cruzada_certa(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                   W_k: np.ndarray, W_v: np.ndarray) -> ComLinhasLivres:
    f = [np.asarray(a, dtype=float) for a in (X_dec, X_enc, W_q, W_k, W_v)]
    mask = padding_mask(np.asarray(comprimentos), f[1].shape[1])
    saida, _ = scaled_dot_product_attention(f[0] @ f[2], f[1] @ f[3], f[1] @ f[4], mask)
    return ComLinhasLivres(saida, _livres_cruzada(X_dec, X_enc, comprimentos, W_q, W_k, W_v))


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
    # float32: W = I, escores = X_dec · X_enc / 2, perto de 200 (e^100 já estoura em float32)
    I32 = np.eye(4, dtype=np.float32)
    X_dec32 = np.array([[[20.0, 0, 0, 0], [0, 20.0, 0, 0]]], dtype=np.float32)
    X_enc32 = np.array([[[20.0, 0, 0, 0], [0, 20.0, 0, 0], [10.0, 10.0, 0, 0]]], dtype=np.float32)
    return [
        _caso_cruzada("com um lote de 2 frases: 3 tokens no decoder, origem preenchida até 5 posições "
                      "(comprimentos [5, 3]), d_model = 4, d_k = 3, d_v = 2", X_dec, X_enc, [5, 3], Ws),
        _caso_cruzada("com um lote de 3 frases: 2 tokens no decoder, origem de 4 posições (comprimentos [4, 1, 2]), "
                      "d_k = d_v = d_model = 4", X_dec2, X_enc2, [4, 1, 2], Ws2),
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
    return e["X_dec"].shape[1] != n_kv and np.shape(SaidaOuPar().normalizar(y)) == (b, n_kv, e["W_v"].shape[1])


def _explica_forma_cruzada(X_dec: np.ndarray, X_enc: np.ndarray, comprimentos: np.ndarray, W_q: np.ndarray,
                           W_k: np.ndarray, W_v: np.ndarray) -> str:
    b, n_q, d_model = X_dec.shape
    n_kv, d_k, d_v = X_enc.shape[1], W_k.shape[1], W_v.shape[1]
    return (f"Siga as formas: Q = X_dec @ W_q é ({b}, {n_q}, {d_k}); K = X_enc @ W_k é ({b}, {n_kv}, {d_k}) e "
            f"V = X_enc @ W_v, ({b}, {n_kv}, {d_v}). Em lote, K.T inverte os **três** eixos (vira ({d_k}, {n_kv}, {b})): "
            "para transpor só os dois últimos use K.transpose(0, 2, 1), np.swapaxes(K, -1, -2) ou np.einsum. Os escores "
            f"ficam ({b}, {n_q}, {n_kv}); a máscara de preenchimento é ({b}, 1, {n_kv}) — np.arange(n_kv)[None, None, :] < "
            f"comprimentos[:, None, None] —, e a saída, pesos @ V, ({b}, {n_q}, {d_v}).")


def _erros_cruzada_com(**como: Any) -> Callable[..., np.ndarray]:
    return lambda **e: _cruzada(**e, **como)


ATENCAO_CRUZADA = Exercicio(
    nome="atenção cruzada num lote com preenchimento",
    casos=_casos_cruzada,
    certo=_cruzada_certa,
    formato=SaidaComLinhasLivres(),
    acerto="Correto! Queries do decoder, keys e values da origem, escores (b, n_q, n_kv) com as posições de preenchimento "
           "da origem em -inf antes da softmax estável, e nenhuma máscara causal sobre a origem: é a atenção "
           "cruzada de um tradutor, num lote de frases de tamanhos diferentes.",
    erros=[
        *livrar(erros_de_estabilidade(lambda trocar, **e: _cruzada(**e, trocar=trocar)), _livres_cruzada),
        erro_nan_na_linha_mascarada("uma frase de origem vazia (comprimento 0: nenhuma key permitida)"),
        Erro("queries da origem",
             "A saída tem uma linha por token da **origem**: as queries saíram de X_enc. Na atenção cruzada quem "
             "pergunta é o decoder — Q = X_dec @ W_q — e quem responde é a origem: K = X_enc @ W_k, V = X_enc @ W_v. "
             "A saída tem uma linha por token do decoder.",
             quando=_queries_da_origem),
        *livrar([
            Erro("autoatenção do decoder",
                 "Você fez a autoatenção do decoder: as keys e os values também saíram de X_dec. Na atenção cruzada eles "
                 "vêm da **outra** sequência, a origem: K = X_enc @ W_k e V = X_enc @ W_v.",
                 resposta=_erros_cruzada_com(origem_kv="dec", mascara="nenhuma")),
            Erro("sem a máscara de preenchimento",
                 "As queries estão olhando para o <pad> da origem: faltou a máscara de preenchimento. As posições j ≥ "
                 "comprimentos[b] da frase b precisam de -inf nos escores antes da softmax — máscara (b, 1, n_kv), "
                 "np.arange(n_kv)[None, None, :] < comprimentos[:, None, None].",
                 resposta=_erros_cruzada_com(mascara="nenhuma")),
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
        ], _livres_cruzada),
    ],
    explica_forma=_explica_forma_cruzada,
    dica_de_forma="A saída tem uma linha por token do **decoder** em cada frase: forma (b, n_q, d_v).",
    mostrar_valores=False,
)


@corretor_de(ATENCAO_CRUZADA)
def check_atencao_cruzada(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(X_dec, X_enc, comprimentos, W_q, W_k, W_v)``: a atenção cruzada de um lote.

    ``X_dec`` ``(b, n_q, d_model)`` (quem pergunta, o decoder), ``X_enc`` ``(b, n_kv, d_model)`` (a origem,
    preenchida até ``n_kv``), ``comprimentos`` ``(b,)`` (os tokens de verdade de cada frase de origem),
    ``W_q``/``W_k`` ``(d_model, d_k)`` e ``W_v`` ``(d_model, d_v)``. Resposta: a saída ``(b, n_q, d_v)`` ou
    ``(saída, pesos)``. Casos: dois lotes de formas diferentes (``n_q ≠ n_kv``, ``d_k ≠ d_model``), o padrão
    de estabilidade da coleção (escores de milhares, espalhados, com linhas a milhares de distância; float32;
    uma frase de origem vazia, cujas linhas aceitam qualquer saída finita). Reconhece cada erro de
    :data:`ATENCAO_CRUZADA`.
    """
    return conferir(ATENCAO_CRUZADA, fn)
