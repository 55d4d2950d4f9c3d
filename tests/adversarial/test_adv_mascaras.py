"""Notebook 07: submissões escritas como um estudante erra — e como acerta por outro caminho — nos corretores da
máscara causal, da máscara de preenchimento, da atenção com máscara, da atenção cruzada e na previsão da forma."""

import math

import numpy as np
import pytest

from helpers import attention
from helpers.licoes import mascaras as licao
from tests.adversarial._base import Submissao, confere, ids

C, P, M, X, F = (licao.MASCARA_CAUSAL, licao.MASCARA_PADDING, licao.ATENCAO_MASCARA, licao.ATENCAO_CRUZADA,
                 licao.PREVISAO_FORMA)


# --- mascara_causal(n) ------------------------------------------------------------------------------------------


def causal_laco_sem_diagonal(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        m[i, :i] = True              # deveria ser :i + 1
    return m


def causal_laco_um_a_mais(n):
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        m[i, :i + 2] = True
    return m


def causal_triu(n):
    return np.triu(np.ones((n, n), dtype=bool))


def causal_uns_e_zeros(n):
    return np.tril(np.ones((n, n)))


def causal_lista_de_inteiros(n):
    return [[1 if j <= i else 0 for j in range(n)] for i in range(n)]


def causal_pronta(n):
    return attention.causal_mask(n)


def causal_proibidos(n):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return j > i                     # "marquei o que a máscara esconde"


def causal_achatada(n):
    return (np.arange(n)[None, :] <= np.arange(n)[:, None]).flatten()


def causal_menos_infinito(n):
    return np.where(np.tri(n, dtype=bool), 0.0, -np.inf)


def causal_comparacao(n):
    linhas = np.arange(n).reshape(n, 1)
    colunas = np.arange(n).reshape(1, n)
    return colunas <= linhas


def causal_laco_de_listas(n):
    return [[j <= i for j in range(n)] for i in range(n)]


# --- mascara_padding(lengths, n) ---------------------------------------------------------------------------------


def padding_menor_ou_igual(lengths, n):
    return (np.arange(n)[None, :] <= lengths[:, None])[:, None, :]


def padding_sem_eixo(lengths, n):
    return np.arange(n)[None, :] < lengths[:, None]


def padding_eixo_no_fim(lengths, n):
    return (np.arange(n)[None, :] < lengths[:, None])[:, :, None]


def padding_pronta(lengths, n):
    return attention.padding_mask(lengths, n)


def padding_laco_menos_um(lengths, n):
    m = np.zeros((len(lengths), 1, n), dtype=bool)
    for b, L in enumerate(lengths):
        m[b, 0, :L - 1] = True
    return m


def padding_sem_alinhar(lengths, n):
    return (np.arange(n) < lengths)[:, None, :]


def padding_inteiros(lengths, n):
    return (np.arange(n)[None, None, :] < lengths[:, None, None]).astype(int)


def padding_a_esquerda(lengths, n):
    return (np.arange(n)[None, :] >= n - lengths[:, None])[:, None, :]


def padding_laco(lengths, n):
    m = np.zeros((len(lengths), 1, n), dtype=bool)
    for b in range(len(lengths)):
        m[b, 0, :lengths[b]] = True
    return m


def padding_expand_dims(lengths, n):
    return np.expand_dims(np.arange(n) < np.asarray(lengths)[:, None], axis=1)


# --- atencao_com_mascara(q, K, V, mask=None) -------------------------------------------------------------------


def _escores(q, K):
    return q @ K.T / np.sqrt(K.shape[-1])


def mascara_solucao(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = np.where(mask, escores, -np.inf)
    pesos = attention.softmax(escores, axis=-1)
    return pesos @ V, pesos


def mascara_multiplicada(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = escores + (1 - mask) * -np.inf          # 0 · (−inf) = NaN onde pode olhar
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V


def mascara_zero(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = escores * mask
    return attention.softmax(escores) @ V


def mascara_menos_dez(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = np.where(mask, escores, -10.0)
    return attention.softmax(escores) @ V


def mascara_depois(q, K, V, mask=None):
    pesos = attention.softmax(_escores(q, K))
    if mask is not None:
        pesos = pesos * mask
    return pesos @ V


def mascara_depois_renormalizada(q, K, V, mask=None):
    pesos = attention.softmax(_escores(q, K))
    if mask is not None:
        pesos = pesos * mask
        pesos = pesos / pesos.sum(axis=-1, keepdims=True)      # "conserta" as linhas
    return np.nan_to_num(pesos @ V)


def mascara_invertida(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = np.where(mask, -np.inf, escores)
    return attention.softmax(escores) @ V


def mascara_sem_if(q, K, V, mask=None):
    escores = np.where(mask, _escores(q, K), -np.inf)
    return attention.softmax(escores) @ V


def mascara_if_mask(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask:
        escores = np.where(mask, escores, -np.inf)
    return attention.softmax(escores) @ V


def mascara_if_mask_igual_none(q, K, V, mask=None):
    escores = _escores(q, K)
    if not mask == None:  # noqa: E711 - como um estudante escreve
        escores = np.where(mask, escores, -np.inf)
    return attention.softmax(escores) @ V


def mascara_indexa_sem_if(q, K, V, mask=None):
    escores = _escores(q, K)
    escores[~mask] = -np.inf                   # sem máscara, ~None quebra
    return attention.softmax(escores) @ V


def mascara_softmax_ingenua(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = np.where(mask, escores, -np.inf)
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos


def mascara_maximo_se_positivo(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = np.where(mask, escores, -np.inf)
    m = np.max(escores, axis=-1, keepdims=True)
    m[m < 0] = 0                                           # "só subtraio quando for grande"
    e = np.exp(escores - m)
    pesos = e / np.where(e.sum(axis=-1, keepdims=True) > 0, e.sum(axis=-1, keepdims=True), 1)
    return pesos @ V


def mascara_exp_direto(q, K, V, mask=None):
    e = np.exp(_escores(q, K))
    if mask is not None:
        e = np.where(mask, e, 0.0)
    soma = e.sum(axis=-1, keepdims=True)
    return e / np.where(soma > 0, soma, 1.0) @ V


def mascara_esqueceu_o_v(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = np.where(mask, escores, -np.inf)
    return attention.softmax(escores, axis=-1)             # faltou o @ V


def mascara_dividiu_por_d(q, K, V, mask=None):
    escores = q @ K.T / K.shape[-1]
    if mask is not None:
        escores = np.where(mask, escores, -np.inf)
    return attention.softmax(escores) @ V


def mascara_pronta(q, K, V, mask=None):
    return attention.scaled_dot_product_attention(q, K, V, mask)


def mascara_escala_no_lugar(q, K, V, mask=None):
    K /= np.sqrt(K.shape[-1])                              # escalou K no array de quem chamou
    escores = q @ K.T
    if mask is not None:
        escores = np.where(mask, escores, -np.inf)
    return attention.softmax(escores) @ V


def mascara_menos_1e9(q, K, V, mask=None):
    escores = _escores(q, K)
    if mask is not None:
        escores = escores + np.where(mask, 0.0, -1e9)
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos


def mascara_laco_por_query(q, K, V, mask=None):
    """Uma query de cada vez, devolvendo uma lista de saídas (duas queries = uma lista de 2)."""
    Q = np.atleast_2d(q)
    M = np.ones((len(Q), len(K)), dtype=bool) if mask is None else np.broadcast_to(mask, (len(Q), len(K)))
    saidas = []
    for i in range(len(Q)):
        escores = [float(Q[i] @ K[j]) / math.sqrt(K.shape[1]) if M[i, j] else -math.inf for j in range(len(K))]
        m = max(escores)
        if m == -math.inf:
            saidas.append([0.0] * V.shape[1])
            continue
        e = [math.exp(s - m) for s in escores]
        total = sum(e)
        saidas.append([sum(e[j] / total * V[j, c] for j in range(len(K))) for c in range(V.shape[1])])
    return saidas if np.ndim(q) == 2 else saidas[0]


def mascara_nan_to_num(q, K, V, mask=None):
    saida, _ = mascara_softmax_ingenua(q, K, V, mask)
    return np.nan_to_num(saida)


def mascara_float32(q, K, V, mask=None):
    saida, pesos = mascara_solucao(q, K, V, mask)
    return saida.astype(np.float32), pesos.astype(np.float32)


# --- atencao_cruzada(X_dec, X_enc, comprimentos, W_q, W_k, W_v) -------------------------------------------------


def _pode(X_enc, comprimentos):
    return np.arange(X_enc.shape[1])[None, None, :] < np.asarray(comprimentos)[:, None, None]


def _sm_segura(z):
    m = z.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(z - m)
    s = e.sum(axis=-1, keepdims=True)
    return e / np.where(s > 0, s, 1.0)


def cruzada_solucao(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    escores = Q @ K.transpose(0, 2, 1) / np.sqrt(K.shape[-1])
    pesos = _sm_segura(np.where(_pode(X_enc, comprimentos), escores, -np.inf))
    return pesos @ V, pesos


def cruzada_autoatencao(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_dec @ W_k, X_dec @ W_v         # tudo do decoder
    pesos = attention.softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def cruzada_sem_mascara(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    pesos = attention.softmax(Q @ np.swapaxes(K, 1, 2) / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def cruzada_menor_ou_igual(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    pode = np.arange(X_enc.shape[1])[None, None, :] <= comprimentos[:, None, None]
    pesos = attention.softmax(np.where(pode, Q @ np.swapaxes(K, 1, 2) / np.sqrt(K.shape[-1]), -np.inf))
    return pesos @ V, pesos


def cruzada_com_causal(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    pode = _pode(X_enc, comprimentos) & attention.causal_mask(X_dec.shape[1], X_enc.shape[1])
    pesos = attention.softmax(np.where(pode, Q @ np.swapaxes(K, 1, 2) / np.sqrt(K.shape[-1]), -np.inf))
    return pesos @ V, pesos


def cruzada_k_t(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    pesos = attention.softmax(np.where(_pode(X_enc, comprimentos), Q @ K.T / np.sqrt(K.shape[-1]), -np.inf))
    return pesos @ V, pesos


def cruzada_so_saidas_por_frase(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    saidas = []
    for b in range(len(X_dec)):
        saida, _ = cruzada_solucao(X_dec[b:b + 1], X_enc[b:b + 1], comprimentos[b:b + 1], W_q, W_k, W_v)
        saidas.append(saida[0])
    return saidas


def cruzada_pad_zerado_nos_pesos(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    pesos = attention.softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])) * _pode(X_enc, comprimentos)
    soma = pesos.sum(axis=-1, keepdims=True)
    pesos = pesos / np.where(soma > 0, soma, 1.0)
    return pesos @ V, pesos


def cruzada_escores(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    escores = np.where(_pode(X_enc, comprimentos), Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]), -np.inf)
    return _sm_segura(escores) @ V, escores


def cruzada_pesos_transpostos(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    saidas, pesos = cruzada_solucao(X_dec, X_enc, comprimentos, W_q, W_k, W_v)
    return saidas, pesos.transpose(0, 2, 1)


def cruzada_par_trocado(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    saidas, pesos = cruzada_solucao(X_dec, X_enc, comprimentos, W_q, W_k, W_v)
    return pesos, saidas


def cruzada_multiplicada(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    escores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    escores = escores + (~_pode(X_enc, comprimentos)) * -np.inf
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos


def cruzada_nan_na_frase_vazia(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    escores = np.where(_pode(X_enc, comprimentos), Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]), -np.inf)
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos


def cruzada_maximo_do_lote(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    escores = np.where(_pode(X_enc, comprimentos), Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]), -np.inf)
    e = np.exp(escores - escores.max())
    s = e.sum(axis=-1, keepdims=True)
    pesos = e / np.where(s > 0, s, 1.0)
    return pesos @ V, pesos


def cruzada_raiz_d_model(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    escores = np.where(_pode(X_enc, comprimentos), Q @ np.swapaxes(K, -1, -2) / np.sqrt(X_dec.shape[-1]), -np.inf)
    pesos = attention.softmax(escores)
    return pesos @ V, pesos


def cruzada_mistura_x_enc(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K = X_dec @ W_q, X_enc @ W_k
    pesos = attention.softmax(np.where(_pode(X_enc, comprimentos), Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]),
                                       -np.inf))
    return pesos @ X_enc, pesos


def cruzada_pronta(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    mask = _pode(X_enc, comprimentos)
    return attention.scaled_dot_product_attention(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, mask)


def cruzada_padding_pronta(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
    mask = attention.padding_mask(comprimentos, X_enc.shape[1])
    pesos = attention.softmax(np.where(mask, Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]), -np.inf))
    return pesos @ V, pesos


def cruzada_zerou_o_pad_no_lugar(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    X_enc[~_pode(X_enc, comprimentos)[:, 0, :]] = 0.0          # "limpou" o <pad> no array de quem chamou
    return cruzada_solucao(X_dec, X_enc, comprimentos, W_q, W_k, W_v)


def cruzada_cortou_o_pad(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    """Um laço pelas frases que corta K e V nos tokens de verdade: os pesos saem com larguras diferentes."""
    saidas, pesos = [], []
    for b in range(len(X_dec)):
        L = int(comprimentos[b])
        Q, K, V = X_dec[b] @ W_q, X_enc[b, :L] @ W_k, X_enc[b, :L] @ W_v
        w = attention.softmax(Q @ K.T / np.sqrt(K.shape[-1])) if L else np.zeros((len(Q), 0))
        saidas.append(w @ V if L else np.zeros((len(Q), W_v.shape[1])))
        pesos.append(w)
    return np.stack(saidas), pesos


def cruzada_laco_duas_listas(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    saidas, pesos = [], []
    for b in range(len(X_dec)):
        Q, K, V = X_dec[b] @ W_q, X_enc[b] @ W_k, X_enc[b] @ W_v
        escores = Q @ K.T / np.sqrt(K.shape[-1])
        escores[:, comprimentos[b]:] = -np.inf
        w = attention.softmax(escores)
        saidas.append(w @ V)
        pesos.append(w)
    return saidas, pesos


def cruzada_laco_lista_de_pares(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    resultados = []
    for b in range(len(X_dec)):
        Q, K, V = X_dec[b] @ W_q, X_enc[b] @ W_k, X_enc[b] @ W_v
        escores = Q @ K.T / np.sqrt(K.shape[-1])
        escores[:, comprimentos[b]:] = -np.inf
        w = attention.softmax(escores)
        resultados.append((w @ V, w))
    return resultados


def cruzada_einsum_menos_1e9(X_dec, X_enc, comprimentos, W_q, W_k, W_v):
    Q = np.einsum("bqm,mk->bqk", X_dec, W_q)
    K = np.einsum("bnm,mk->bnk", X_enc, W_k)
    V = np.einsum("bnm,mv->bnv", X_enc, W_v)
    z = np.einsum("bqk,bnk->bqn", Q, K) / np.sqrt(K.shape[-1]) + np.where(_pode(X_enc, comprimentos), 0.0, -1e9)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return [np.einsum("bqn,bnv->bqv", pesos, V), pesos]


SUBMISSOES = [
    # a máscara causal
    Submissao(C, causal_laco_sem_diagonal, "diagonal excluída", "laço com m[i, :i] (sem a diagonal)"),
    Submissao(C, causal_laco_um_a_mais, "um passo a mais (vê o seguinte)", "laço com m[i, :i + 2]"),
    Submissao(C, causal_triu, "triângulo de cima", "np.triu"),
    Submissao(C, causal_uns_e_zeros, "números no lugar de booleanos", "np.tril(np.ones((n, n))) em float"),
    Submissao(C, causal_lista_de_inteiros, "números no lugar de booleanos", "listas de 0 e 1"),
    Submissao(C, causal_pronta, "usou attention.causal_mask", "attention.causal_mask(n)"),
    Submissao(C, causal_proibidos, "convenção invertida (True = proibido)", "j > i: marcou o proibido"),
    Submissao(C, causal_achatada, "forma errada com os valores certos", "flatten no fim"),
    Submissao(C, causal_menos_infinito, "máscara aditiva (0/−inf)", "a máscara de somar, 0/−inf"),
    Submissao(C, causal_comparacao, "ok", "colunas <= linhas com reshape"),
    Submissao(C, causal_laco_de_listas, "ok", "listas de bool com laços"),
    # a máscara de preenchimento
    Submissao(P, padding_menor_ou_igual, "erro de um: j <= lengths", "j <= lengths"),
    Submissao(P, padding_sem_eixo, "sem o eixo do meio: (b, n)", "esqueceu o eixo do meio"),
    Submissao(P, padding_eixo_no_fim, "máscara nas queries: (b, n, 1)", "eixo novo no fim"),
    Submissao(P, padding_pronta, "usou attention.padding_mask", "attention.padding_mask"),
    Submissao(P, padding_laco_menos_um, "erro de um: j < lengths − 1", "laço com :L - 1"),
    Submissao(P, padding_sem_alinhar, "forma", "np.arange(n) < lengths, sem alinhar os eixos"),
    Submissao(P, padding_inteiros, "números no lugar de booleanos", ".astype(int) no fim"),
    Submissao(P, padding_a_esquerda, "preenchimento à esquerda", "as últimas lengths posições"),
    Submissao(P, padding_laco, "ok", "laço frase a frase"),
    Submissao(P, padding_expand_dims, "ok", "np.expand_dims"),
    # a atenção com máscara
    Submissao(M, mascara_multiplicada, "máscara aditiva por multiplicação (0·inf = NaN)", "(1 - mask) * -np.inf"),
    Submissao(M, mascara_zero, "escores mascarados = 0", "escores * mask"),
    Submissao(M, mascara_menos_dez, "−10 no lugar de −inf", "−10 nos proibidos"),
    Submissao(M, mascara_depois, "máscara depois da softmax", "pesos * mask depois da softmax"),
    Submissao(M, mascara_depois_renormalizada, "máscara depois da softmax, renormalizada",
              "máscara depois da softmax, dividindo de novo pela soma"),
    Submissao(M, mascara_invertida, "máscara invertida", "np.where(mask, -inf, escores)"),
    Submissao(M, mascara_sem_if, "mask=None vira tudo proibido", "sem o if mask is not None"),
    Submissao(M, mascara_if_mask, "if mask: num array", "if mask: (a verdade de um array)"),
    Submissao(M, mascara_if_mask_igual_none, "if mask: num array", "if not mask == None:"),
    Submissao(M, mascara_indexa_sem_if, "mask=None não tratado", "escores[~mask] = -inf, sem if"),
    Submissao(M, mascara_softmax_ingenua, "NaN na linha toda mascarada", "softmax à mão sem tratar a linha vazia"),
    Submissao(M, mascara_maximo_se_positivo, "subtraiu o máximo só quando positivo (instável)", "m[m < 0] = 0"),
    Submissao(M, mascara_exp_direto, "sem subtrair o máximo (instável)", "np.exp direto e os proibidos zerados"),
    Submissao(M, mascara_dividiu_por_d, "÷d em vez de ÷√d", "dividiu por d"),
    Submissao(M, mascara_esqueceu_o_v, "devolveu só os pesos", "esqueceu o @ V"),
    Submissao(M, mascara_pronta, "usou a atenção pronta", "attention.scaled_dot_product_attention"),
    Submissao(M, mascara_escala_no_lugar, "mudou a entrada", "K /= √d no array de quem chamou"),
    Submissao(M, mascara_solucao, "ok", "a solução"),
    Submissao(M, mascara_menos_1e9, "ok", "aditiva com −1e9 (a linha vazia vira a média)"),
    Submissao(M, mascara_laco_por_query, "ok", "uma query de cada vez, em listas"),
    Submissao(M, mascara_nan_to_num, "ok", "softmax ingênua e np.nan_to_num no fim"),
    Submissao(M, mascara_float32, "ok", "resultado em float32"),
    # a atenção cruzada
    Submissao(X, cruzada_autoatencao, "autoatenção do decoder", "K e V do decoder"),
    Submissao(X, cruzada_sem_mascara, "sem a máscara de preenchimento", "esqueceu a máscara"),
    Submissao(X, cruzada_menor_ou_igual, "erro de um: j <= comprimentos", "j <= comprimentos"),
    Submissao(X, cruzada_com_causal, "máscara causal na atenção cruzada", "& causal_mask"),
    Submissao(X, cruzada_k_t, "forma", "K.T num lote de 3 eixos"),
    Submissao(X, cruzada_so_saidas_por_frase, "só a saída", "laço que devolve só a lista das saídas"),
    Submissao(X, cruzada_pad_zerado_nos_pesos, "máscara depois da softmax, renormalizada",
              "zerou o <pad> nos pesos e renormalizou"),
    Submissao(X, cruzada_escores, "escores no lugar dos pesos", "devolveu os escores mascarados"),
    Submissao(X, cruzada_pesos_transpostos, "pesos transpostos", "pesos (b, n_kv, n_q)"),
    Submissao(X, cruzada_par_trocado, "par na ordem trocada", "return pesos, saídas"),
    Submissao(X, cruzada_multiplicada, "máscara aditiva por multiplicação (0·inf = NaN)", "(~pode) * -np.inf"),
    Submissao(X, cruzada_nan_na_frase_vazia, "NaN na linha toda mascarada", "softmax ingênua, frase vazia"),
    Submissao(X, cruzada_maximo_do_lote, "um máximo só para o lote inteiro (instável)", "escores.max() sem axis"),
    Submissao(X, cruzada_raiz_d_model, "escala por √d_model", "√X_dec.shape[-1]"),
    Submissao(X, cruzada_mistura_x_enc, "X_enc no lugar de V", "pesos @ X_enc"),
    Submissao(X, cruzada_pronta, "usou a atenção pronta", "attention.scaled_dot_product_attention"),
    Submissao(X, cruzada_padding_pronta, "usou attention.padding_mask", "attention.padding_mask"),
    Submissao(X, cruzada_zerou_o_pad_no_lugar, "mudou a entrada", "zerou o <pad> de X_enc no lugar"),
    Submissao(X, cruzada_cortou_o_pad, "pesos só das posições de verdade", "laço que corta K e V em L"),
    Submissao(X, cruzada_solucao, "ok", "a solução"),
    Submissao(X, cruzada_laco_duas_listas, "ok", "laço pelas frases: duas listas (lote de 2 ou 3)"),
    Submissao(X, cruzada_laco_lista_de_pares, "ok", "laço pelas frases: uma lista de pares (saída, pesos)"),
    Submissao(X, cruzada_einsum_menos_1e9, "ok", "einsum, −1e9 aditiva e uma lista [saídas, pesos]"),
    # a previsão da forma dos pesos
    Submissao(F, "(2, 6, 3)", "queries e keys trocadas", "(2, 6, 3)"),
    Submissao(F, "2x6x6", "quadrada como na autoatenção", "2x6x6"),
    Submissao(F, "2, 3, 3", "keys do próprio decoder", "2, 3, 3"),
    Submissao(F, "3 × 6", "esqueceu o lote", "3 × 6"),
    Submissao(F, (2, 1, 6), "forma da máscara, não dos pesos", "a tupla (2, 1, 6)"),
    Submissao(F, "[2, 3, 4]", "só as posições de verdade", "[2, 3, 4]"),
    Submissao(F, "6", "tipo", "um número só"),
    Submissao(F, "(2, 3, 6)", "ok", "(2, 3, 6)"),
    Submissao(F, "2×3×6", "ok", "2×3×6"),
    Submissao(F, [2, 3, 6], "ok", "a lista [2, 3, 6]"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)
