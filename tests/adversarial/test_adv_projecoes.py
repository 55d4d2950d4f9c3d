"""Notebook 06: submissões escritas como um estudante erra — e como acerta por outro caminho — nos corretores das
projeções, da autoatenção e na previsão da simetria."""

import math

import numpy as np
import pytest

from helpers import attention
from helpers.licoes import projecoes as licao
from tests.adversarial._base import Submissao, confere, ids

P, A, S = licao.PROJECOES, licao.AUTOATENCAO, licao.PREVISAO_SIMETRIA


# --- projetar(X, W_q, W_k, W_v) ---------------------------------------------------------------------------------


def projetar_w_antes(X, W_q, W_k, W_v):
    Q = W_q @ X
    K = W_k @ X
    V = W_v @ X
    return Q, K, V


def projetar_copia_e_cola(X, W_q, W_k, W_v):
    Q = X @ W_q
    K = X @ W_q          # copiou a linha de cima e esqueceu de trocar
    V = X @ W_v
    return Q, K, V


def projetar_ordem_kv(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    return Q, V, K


def projetar_transpostas(X, W_q, W_k, W_v):
    return np.dot(X, W_q.T), np.dot(X, W_k.T), np.dot(X, W_v.T)


def projetar_elemento(X, W_q, W_k, W_v):
    return X * W_q, X * W_k, X * W_v


def projetar_coluna_por_token(X, W_q, W_k, W_v):
    return W_q.T @ X.T, W_k.T @ X.T, W_v.T @ X.T


def projetar_x_transposto(X, W_q, W_k, W_v):
    Xt = X.T
    return Xt @ W_q, Xt @ W_k, Xt @ W_v


def projetar_so_q_e_k(X, W_q, W_k, W_v):
    return X @ W_q, X @ W_k


def projetar_dicionario(X, W_q, W_k, W_v):
    return {"Q": X @ W_q, "K": X @ W_k, "V": X @ W_v}


def projetar_centralizando_no_lugar(X, W_q, W_k, W_v):
    X -= X.mean(axis=0)          # "normalizei" os embeddings antes — no array de quem chamou
    return X @ W_q, X @ W_k, X @ W_v


def projetar_laco_de_papeis(X, W_q, W_k, W_v):
    saida = []
    for W in (W_q, W_k, W_v):
        saida.append(X @ W)
    return tuple(saida)


def projetar_einsum(X, W_q, W_k, W_v):
    return tuple(np.einsum("nd,dk->nk", X, W) for W in (W_q, W_k, W_v))


def projetar_float32(X, W_q, W_k, W_v):
    X32 = X.astype(np.float32)
    return X32 @ W_q.astype(np.float32), X32 @ W_k.astype(np.float32), X32 @ W_v.astype(np.float32)


def projetar_lista_de_listas(X, W_q, W_k, W_v):
    return [(X @ W).tolist() for W in (W_q, W_k, W_v)]


# --- autoatencao(X, W_q, W_k, W_v) -------------------------------------------------------------------------------


def _sm(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def auto_solucao(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(Q @ K.T / np.sqrt(K.shape[-1]), axis=-1)
    return pesos @ V, pesos


def auto_laco_por_query(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    saidas, pesos = [], []
    for q in Q:
        w = attention.softmax(K @ q / np.sqrt(K.shape[-1]))
        pesos.append(w)
        saidas.append(w @ V)
    return np.array(saidas), np.array(pesos)


def auto_compreensao(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = np.array([_sm(Q[i] @ K.T / np.sqrt(K.shape[1])) for i in range(len(Q))])
    return pesos @ V, pesos


def auto_biblioteca(X, W_q, W_k, W_v):
    return attention.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)


def auto_raiz_d_model(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(Q @ K.T / np.sqrt(X.shape[1]))
    return pesos @ V, pesos


d_k = 3  # a variável da seção 2 do notebook, usada dentro da função


def auto_d_k_global(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(Q @ K.T / np.sqrt(d_k))
    return pesos @ V, pesos


def auto_raiz_de_n(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    d_k = K.shape[0]                                      # o número de linhas, não de colunas
    pesos = attention.softmax(Q @ K.T / np.sqrt(d_k))
    return pesos @ V, pesos


def auto_sem_escala(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(Q @ K.T)
    return pesos @ V, pesos


def auto_eixo_0(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(Q @ K.T / np.sqrt(K.shape[-1]), axis=0)
    return pesos @ V, pesos


def auto_exp_direto(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    e = np.exp(Q @ K.T / np.sqrt(K.shape[-1]))
    pesos = e / e.sum(axis=1, keepdims=True)
    return pesos @ V, pesos


def auto_maximo_da_matriz(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    z = Q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(z - np.max(z))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos


def auto_maximo_se_positivo(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    z = Q @ K.T / np.sqrt(K.shape[-1])
    m = np.maximum(z.max(axis=-1, keepdims=True), 0)     # "só precisa subtrair quando é grande"
    e = np.exp(z - m)
    pesos = e / e.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos


def auto_sem_keepdims(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    z = Q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1)
    return pesos @ V, pesos


def auto_mistura_x(X, W_q, W_k, W_v):
    Q, K = X @ W_q, X @ W_k
    pesos = attention.softmax(Q @ K.T / np.sqrt(K.shape[-1]))
    return pesos @ X, pesos


def auto_w_vezes_x(X, W_q, W_k, W_v):
    Q, K, V = W_q @ X, W_k @ X, W_v @ X
    pesos = attention.softmax(Q @ K.T / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def auto_sem_transpor_k(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(Q @ K / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def auto_pesos_e_saidas(X, W_q, W_k, W_v):
    saidas, pesos = auto_solucao(X, W_q, W_k, W_v)
    return pesos, saidas


def auto_so_saidas(X, W_q, W_k, W_v):
    return auto_solucao(X, W_q, W_k, W_v)[0]


def auto_devolve_escores(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    escores = Q @ K.T / np.sqrt(K.shape[-1])
    return attention.softmax(escores) @ V, escores


def auto_k_q_transposto(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(K @ Q.T / np.sqrt(K.shape[-1]))
    return pesos @ V, pesos


def auto_qv_nos_escores(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    pesos = attention.softmax(Q @ V.T / np.sqrt(K.shape[-1]))
    return pesos @ K, pesos


def auto_soma_total(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    z = Q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    pesos = e / e.sum()                                   # a soma da matriz inteira
    return pesos @ V, pesos


def auto_float32_math(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    z = Q @ K.T / math.sqrt(K.shape[-1])          # no caso float32, tudo continua float32
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return (pesos @ V).astype(np.float32), pesos.astype(np.float32)


def auto_einsum_lista(X, W_q, W_k, W_v):
    Q = np.einsum("nd,dk->nk", X, W_q)
    K = np.einsum("nd,dk->nk", X, W_k)
    V = np.einsum("nd,dk->nk", X, W_v)
    z = np.einsum("ik,jk->ij", Q, K) / K.shape[-1] ** 0.5
    pesos = _sm(z)
    return [pesos @ V, pesos]


def auto_softmax_propria_matmul(X, W_q, W_k, W_v):
    Q, K, V = np.matmul(X, W_q), np.matmul(X, W_k), np.matmul(X, W_v)
    escores = np.matmul(Q, K.transpose()) / np.sqrt(W_k.shape[1])
    escores = escores - escores.max(axis=1, keepdims=True)
    pesos = np.exp(escores) / np.exp(escores).sum(axis=1, keepdims=True)
    return np.matmul(pesos, V), pesos


def projetar_sem_o_v(X, W_q, W_k, W_v):
    Q = X @ W_q
    K = X @ W_k
    V = X                                      # "o value é o próprio token"
    return Q, K, V


SUBMISSOES = [
    # projetar: erradas
    Submissao(P, projetar_w_antes, "W @ X", "projeções com W @ X"),
    Submissao(P, projetar_copia_e_cola, "K com W_q", "K copiado da linha de Q (W_q duas vezes)"),
    Submissao(P, projetar_ordem_kv, "K e V trocados", "devolveu (Q, V, K)"),
    Submissao(P, projetar_transpostas, "X @ W.T", "np.dot(X, W.T) nas três"),
    Submissao(P, projetar_elemento, "X * W", "* no lugar de @"),
    Submissao(P, projetar_coluna_por_token, "(X @ W).T", "W.T @ X.T: um token por coluna"),
    Submissao(P, projetar_x_transposto, "X.T @ W", "transpôs X em vez de W"),
    Submissao(P, projetar_so_q_e_k, "tipo", "esqueceu o V: devolveu só (Q, K)"),
    Submissao(P, projetar_dicionario, "tipo", "devolveu um dicionário"),
    Submissao(P, projetar_centralizando_no_lugar, "mudou a entrada", "centralizou X no lugar (X -= …)"),
    # projetar: certas
    Submissao(P, projetar_laco_de_papeis, "ok", "um laço pelas três matrizes"),
    Submissao(P, projetar_einsum, "ok", "np.einsum"),
    Submissao(P, projetar_float32, "ok", "tudo em float32"),
    Submissao(P, projetar_lista_de_listas, "ok", "listas de listas (tolist)"),
    Submissao(P, projetar_sem_o_v, "V sem projetar (X no lugar de V)", "V = X, sem W_v"),
    # autoatencao: erradas
    Submissao(A, auto_laco_por_query, "usou um laço", "um for por query (o enunciado pede sem laço)"),
    Submissao(A, auto_compreensao, "usou um laço", "compreensão de lista por linha"),
    Submissao(A, auto_biblioteca, "usou a atenção pronta", "attention.scaled_dot_product_attention"),
    Submissao(A, auto_raiz_d_model, "escala por √d_model", "dividiu por √X.shape[1]"),
    Submissao(A, auto_d_k_global, "d_k de fora da função", "d_k = 3 do notebook, de fora da função"),
    Submissao(A, auto_sem_escala, "sem escala", "esqueceu o √d_k"),
    Submissao(A, auto_raiz_de_n, "√n no lugar de √d_k", "d_k = K.shape[0]"),
    Submissao(A, auto_eixo_0, "softmax no eixo errado", "softmax com axis=0"),
    Submissao(A, auto_exp_direto, "sem subtrair o máximo (instável)", "np.exp direto, sem o máximo"),
    Submissao(A, auto_maximo_da_matriz, "um máximo só para o lote inteiro (instável)", "np.max(z) sem axis"),
    Submissao(A, auto_maximo_se_positivo, "subtraiu o máximo só quando positivo (instável)",
              "np.maximum(máximo, 0): só subtrai quando é positivo"),
    Submissao(A, auto_sem_keepdims, "faltou keepdims=True na soma", "e.sum(axis=-1) sem keepdims"),
    Submissao(A, auto_mistura_x, "X no lugar de V", "pesos @ X"),
    Submissao(A, auto_w_vezes_x, "W @ X", "projeções com W @ X"),
    Submissao(A, auto_sem_transpor_k, "Q @ K sem transpor", "Q @ K sem o .T"),
    Submissao(A, auto_pesos_e_saidas, "par na ordem trocada", "return pesos, saídas"),
    Submissao(A, auto_so_saidas, "só a saída", "devolveu só as saídas"),
    Submissao(A, auto_devolve_escores, "escores no lugar dos pesos", "devolveu os escores como pesos"),
    Submissao(A, auto_k_q_transposto, "Q e K trocados", "K @ Q.T"),
    Submissao(A, auto_qv_nos_escores, "K e V trocados", "escores com V, mistura com K"),
    Submissao(A, auto_soma_total, "dividiu pela soma da matriz inteira", "e / e.sum() sem axis"),
    # autoatencao: certas
    Submissao(A, auto_solucao, "ok", "a solução"),
    Submissao(A, auto_float32_math, "ok", "math.sqrt, softmax própria e o resultado em float32"),
    Submissao(A, auto_einsum_lista, "ok", "einsum, ** 0.5 e uma lista [saídas, pesos]"),
    Submissao(A, auto_softmax_propria_matmul, "ok", "np.matmul, K.transpose() e W_k.shape[1]"),
    # a previsão da simetria (como se digita na caixa, ou se escreve numa célula)
    Submissao(S, "0", "assimetria sem projeções", "0: a volta com as projeções"),
    Submissao(S, "1,768", "escore com as projeções", "1,768: o escore com W_q e W_k"),
    Submissao(S, "0,192", "peso no lugar do escore", "0,192: o peso, não o escore"),
    Submissao(S, "0.5", "sem dividir por √d", "0.5: sem dividir por √d"),
    Submissao(S, (0, 25), "tipo", "0,25 sem aspas numa célula: a tupla (0, 25)"),
    Submissao(S, "0,250", "ok", "0,250 com vírgula"),
    Submissao(S, 0.25, "ok", "0.25 como número"),
    Submissao(S, " 0.25 ", "ok", "0.25 com espaços"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)
