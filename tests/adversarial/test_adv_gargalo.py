"""Notebook 01: o passo da RNN, o laço que lê uma sequência e a previsão da capacidade, atacados como um estudante
erra — o tanh no lugar errado, * no lugar de @, a coluna do one-hot, o laço que para cedo ou começa tarde, o estado
que não passa adiante, a RNN pronta no lugar do laço, meio token."""

import itertools
import math

import numpy as np
import pytest

from helpers import recurrent
from helpers.licoes import gargalo
from tests.adversarial._base import Submissao, confere, ids

PASSO = gargalo.PASSO_RNN
LER = gargalo.LER_SEQUENCIA
PREV = gargalo.PREVISAO_CAPACIDADE


# --- o passo --------------------------------------------------------------------------------------------------


def passo_certo(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x @ x + b)


def passo_com_dot(h, x, W_h, W_x, b):
    z = np.dot(W_h, h) + np.dot(W_x, x) + b
    return np.tanh(z)


def passo_vetor_linha_certo(h, x, W_h, W_x, b):
    return np.tanh(h @ W_h.T + x @ W_x.T + b)


def passo_float32(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x @ x + b).astype(np.float32)


def passo_sem_tanh(h, x, W_h, W_x, b):
    return W_h @ h + W_x @ x + b


def passo_sigmoide(h, x, W_h, W_x, b):
    return 1 / (1 + np.exp(-(W_h @ h + W_x @ x + b)))


def passo_relu(h, x, W_h, W_x, b):
    return np.maximum(0, W_h @ h + W_x @ x + b)


def passo_sem_vies(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x @ x)


def passo_vies_depois(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x @ x) + b


def passo_tanh_no_estado(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h) + W_x @ x + b


def passo_tanh_em_tudo(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h) + np.tanh(W_x @ x) + np.tanh(b)


def passo_transposta(h, x, W_h, W_x, b):
    return np.tanh(W_h.T @ h + W_x @ x + b)


def passo_vetor_a_esquerda(h, x, W_h, W_x, b):
    return np.tanh(h @ W_h + x @ W_x + b)


def passo_estrela(h, x, W_h, W_x, b):
    return np.tanh(W_h * h + W_x @ x + b)


def passo_estrela_no_token(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x * x + b)


def passo_coluna_do_one_hot(h, x, W_h, W_x, b):
    return np.tanh(W_h @ h + W_x[:, np.argmax(x)] + b)


def passo_residual(h, x, W_h, W_x, b):
    return h + np.tanh(W_h @ h + W_x @ x + b)


def passo_no_lugar(h, x, W_h, W_x, b):
    h[:] = np.tanh(W_h @ h + W_x @ x + b)
    return h


def passo_math_tanh(h, x, W_h, W_x, b):
    return math.tanh(W_h @ h + W_x @ x + b)


# --- o laço ---------------------------------------------------------------------------------------------------


def ler_certo(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        h = np.tanh(W_h @ h + W_x @ x + b)
        estados.append(h)
    return np.array(estados)


def ler_com_rnn_step(xs, W_h, W_x, b):
    h = np.zeros(len(b))
    saida = np.empty((len(xs), len(b)), dtype=np.float32)
    for t in range(len(xs)):
        h = recurrent.rnn_step(h, xs[t], W_h, W_x, b)
        saida[t] = h
    return saida


def ler_com_accumulate(xs, W_h, W_x, b):
    estados = itertools.accumulate(xs, lambda h, x: np.tanh(W_h @ h + W_x @ x + b), initial=np.zeros(len(b)))
    return np.array(list(estados)[1:])


def ler_lista_de_listas(xs, W_h, W_x, b):
    h, linhas = np.zeros(W_h.shape[0]), []
    for x in xs:
        h = passo_certo(h, x, W_h, W_x, b)
        linhas.append(h.tolist())
    return linhas


def ler_so_o_fim(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    for x in xs:
        h = np.tanh(W_h @ h + W_x @ x + b)
    return h


def ler_com_h0(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = [h]
    for x in xs:
        h = np.tanh(W_h @ h + W_x @ x + b)
        estados.append(h)
    return np.array(estados)


def ler_guarda_antes(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        estados.append(h)
        h = np.tanh(W_h @ h + W_x @ x + b)
    return np.array(estados)


def ler_sem_reatribuir(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        novo = np.tanh(W_h @ h + W_x @ x + b)
        estados.append(novo)
    return np.array(estados)


def ler_mesmo_array(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for x in xs:
        h[:] = np.tanh(W_h @ h + W_x @ x + b)
        estados.append(h)
    return np.array(estados)


def ler_de_tras(xs, W_h, W_x, b):
    return ler_certo(xs[::-1], W_h, W_x, b)


def ler_e_inverter(xs, W_h, W_x, b):
    return ler_certo(xs, W_h, W_x, b)[::-1]


def ler_uma_a_menos(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for t in range(len(xs) - 1):
        h = np.tanh(W_h @ h + W_x @ xs[t] + b)
        estados.append(h)
    return np.array(estados)


def ler_desde_um(xs, W_h, W_x, b):
    h = np.zeros(W_h.shape[0])
    estados = []
    for t in range(1, len(xs)):
        h = np.tanh(W_h @ h + W_x @ xs[t] + b)
        estados.append(h)
    return np.array(estados)


def ler_em_colunas(xs, W_h, W_x, b):
    return np.column_stack(list(ler_certo(xs, W_h, W_x, b)))


def ler_com_passo_sem_vies(xs, W_h, W_x, b):
    h, estados = np.zeros(W_h.shape[0]), []
    for x in xs:
        h = passo_sem_vies(h, x, W_h, W_x, b)
        estados.append(h)
    return np.array(estados)


def ler_com_passo_da_coluna(xs, W_h, W_x, b):
    h, estados = np.zeros(W_h.shape[0]), []
    for x in xs:
        h = passo_coluna_do_one_hot(h, x, W_h, W_x, b)
        estados.append(h)
    return np.array(estados)


def ler_com_passo_sem_tanh(xs, W_h, W_x, b):
    h, estados = np.zeros(W_h.shape[0]), []
    for x in xs:
        h = passo_sem_tanh(h, x, W_h, W_x, b)
        estados.append(h)
    return np.array(estados)


def ler_com_a_rnn_pronta(xs, W_h, W_x, b):
    return recurrent.TanhRNN(W_h, W_x, b).run(xs)


SUBMISSOES = [
    # o passo: certas
    Submissao(PASSO, passo_certo, "ok", "passo com @"),
    Submissao(PASSO, passo_com_dot, "ok", "passo com np.dot"),
    Submissao(PASSO, passo_vetor_linha_certo, "ok", "vetor-linha com as transpostas"),
    Submissao(PASSO, passo_float32, "ok", "resultado em float32"),
    Submissao(PASSO, recurrent.rnn_step, "ok", "o rnn_step da biblioteca"),
    # o passo: erradas
    Submissao(PASSO, passo_sem_tanh, "sem o tanh", "sem tanh"),
    Submissao(PASSO, passo_sigmoide, "sigmoide no lugar do tanh", "sigmoide"),
    Submissao(PASSO, passo_relu, "ReLU no lugar do tanh", "ReLU"),
    Submissao(PASSO, passo_sem_vies, "sem o viés", "sem b"),
    Submissao(PASSO, passo_vies_depois, "viés fora do tanh", "b depois do tanh"),
    Submissao(PASSO, passo_tanh_no_estado, "tanh só em W_h h", "tanh só no estado"),
    Submissao(PASSO, passo_tanh_em_tudo, "tanh em cada parcela", "um tanh por parcela"),
    Submissao(PASSO, passo_transposta, "W_h transposta", "W_h.T @ h"),
    Submissao(PASSO, passo_vetor_a_esquerda, "convenção de vetor-linha", "h @ W_h + x @ W_x"),
    Submissao(PASSO, passo_estrela, "* no lugar de @", "W_h * h"),
    Submissao(PASSO, passo_estrela_no_token, "* no lugar de @", "W_x * x"),
    Submissao(PASSO, passo_coluna_do_one_hot, "x tratado como índice", "a coluna do maior número de x"),
    Submissao(PASSO, passo_residual, "somou o estado antigo", "h + tanh(…)"),
    Submissao(PASSO, passo_no_lugar, "mudou a entrada", "h[:] = … e devolve h"),
    Submissao(PASSO, passo_math_tanh, "excecao", "math.tanh num vetor"),
    # o laço: certas
    Submissao(LER, ler_certo, "ok", "laço com lista"),
    Submissao(LER, ler_com_rnn_step, "ok", "array pré-alocado em float32, com rnn_step"),
    Submissao(LER, ler_com_accumulate, "ok", "itertools.accumulate"),
    Submissao(LER, ler_lista_de_listas, "ok", "lista de listas"),
    # o laço: erradas
    Submissao(LER, ler_so_o_fim, "só o estado final", "devolve só o último h"),
    Submissao(LER, ler_com_h0, "incluiu o estado inicial", "a lista começa com h = 0"),
    Submissao(LER, ler_guarda_antes, "guardou o estado antes de ler o token", "append antes do passo"),
    Submissao(LER, ler_sem_reatribuir, "o estado não passa adiante", "esqueceu h = novo"),
    Submissao(LER, ler_mesmo_array, "o mesmo array guardado T vezes", "h[:] = … e append(h)"),
    Submissao(LER, ler_de_tras, "leu de trás para frente", "xs[::-1]"),
    Submissao(LER, ler_e_inverter, "estados na ordem inversa", "inverte a saída"),
    Submissao(LER, ler_uma_a_menos, "faltou o último token", "range(len(xs) - 1)"),
    Submissao(LER, ler_desde_um, "pulou o primeiro token", "range(1, len(xs))"),
    Submissao(LER, ler_em_colunas, "estados transpostos", "np.column_stack"),
    Submissao(LER, ler_com_passo_sem_vies, "passo errado dentro do laço", "o passo sem o viés"),
    Submissao(LER, ler_com_passo_da_coluna, "passo errado dentro do laço", "o passo que pega uma coluna de W_x"),
    Submissao(LER, ler_com_passo_sem_tanh, "passo sem o tanh", "o passo sem o tanh"),
    Submissao(LER, ler_com_a_rnn_pronta, "usou a RNN pronta", "TanhRNN(…).run no lugar do laço"),
    # a previsão: certas
    Submissao(PREV, "16", "ok", "16 digitado"),
    Submissao(PREV, "16,0", "ok", "16,0 à brasileira"),
    Submissao(PREV, np.int64(16), "ok", "16 do numpy"),
    # a previsão: erradas
    Submissao(PREV, 32, "um token por número", "n"),
    Submissao(PREV, "64", "multiplicou n por d", "n · d"),
    Submissao(PREV, "2", "o tamanho de um token", "d"),
    Submissao(PREV, "15", "um a menos", "T·d < n"),
    Submissao(PREV, "17", "um a mais", "T = 17"),
    Submissao(PREV, "16,5", "tipo", "meio token a mais"),
    Submissao(PREV, (16, 5), "tipo", "16,5 escrito em Python vira uma tupla"),
    Submissao(PREV, "muitos", "tipo", "por extenso"),
    Submissao(PREV, "7", "valor", "o alcance da seção 3"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)
