"""Notebook 00: o produto escalar à mão (sem @ nem np.dot) e a previsão de q·k com q a 165°, atacados como um
estudante erra — laços que param cedo ou começam tarde, um total substituído em vez de acumulado, um `return` dentro
do laço, o atalho que o enunciado proíbe, vetores mudados no lugar, números à brasileira."""

import functools
import math

import numpy as np
import pytest

from helpers.licoes import comece
from tests.adversarial._base import Submissao, confere, ids

EX = comece.PRODUTO_ESCALAR
PREV = comece.PREVISAO_PERPENDICULAR


# --- certas, escritas de jeitos diferentes ------------------------------------------------------------------


def laco_com_indices(q, k):
    total = 0.0
    for i in range(len(q)):
        total += q[i] * k[i]
    return total


def zip_e_sum(q, k):
    return sum(a * b for a, b in zip(q, k))


def numpy_sem_atalho(q, k):
    return np.sum(q * k)


def em_float32(q, k):
    return np.float32((q.astype(np.float32) * k.astype(np.float32)).sum())


def com_fsum(q, k):
    return math.fsum(q[i] * k[i] for i in range(len(q)))


def com_reduce(q, k):
    return functools.reduce(lambda acc, par: acc + par[0] * par[1], zip(q, k), 0.0)


def com_while(q, k):
    i, total = 0, 0
    while i < len(q):
        total = total + q[i] * k[i]
        i += 1
    return np.array(total)


# --- erradas ------------------------------------------------------------------------------------------------


def sem_somar(q, k):
    return q * k


def para_uma_antes(q, k):
    total = 0
    for i in range(len(q) - 1):
        total += q[i] * k[i]
    return total


def comeca_em_um(q, k):
    total = 0
    for i in range(1, len(q)):
        total += q[i] * k[i]
    return total


def substitui_o_total(q, k):
    total = 0
    for i in range(len(q)):
        total = q[i] * k[i]
    return total


def return_no_laco(q, k):
    total = 0
    for i in range(len(q)):
        total += q[i] * k[i]
        return total


def laco_duplo(q, k):
    total = 0
    for a in q:
        for b in k:
            total += a * b
    return total


def soma_vezes_soma(q, k):
    return np.sum(q) * np.sum(k)


def comprimentos(q, k):
    return np.linalg.norm(q) * np.linalg.norm(k)


def media(q, k):
    return np.mean(q * k)


def soma_dos_vetores(q, k):
    return sum(q + k)


def vetor_soma(q, k):
    return q + k


def com_arroba(q, k):
    return q @ k


def com_metodo_dot(q, k):
    return q.dot(k)


def com_einsum(q, k):
    return np.einsum("i,i", q, k)


def muda_q(q, k):
    q *= k
    return q.sum()


def esqueceu_o_return(q, k):
    total = 0
    for i in range(len(q)):
        total += q[i] * k[i]


def so_imprime(q, k):
    print("q·k =", np.sum(q * k))


def devolve_texto(q, k):
    return f"{np.sum(q * k):.2f}"


def devolve_lista(q, k):
    return [np.sum(q * k)]


def while_sem_incremento(q, k):
    i, total = 0, 0.0
    while i < len(q):
        total += q[i] * k[i]
    return total


def digitou_errado(q, k):
    total = 0
    for i in range(len(q)):
        total += q[i] * k[i]
    return totl  # noqa: F821 - o erro de digitação do estudante


def passa_do_fim(q, k):
    total = 0
    for i in range(len(q) + 1):
        total += q[i] * k[i]
    return total


SUBMISSOES = [
    # exercício: certas
    Submissao(EX, laco_com_indices, "ok", "laço com índices e +="),
    Submissao(EX, zip_e_sum, "ok", "sum com zip"),
    Submissao(EX, numpy_sem_atalho, "ok", "np.sum(q * k)"),
    Submissao(EX, em_float32, "ok", "tudo em float32"),
    Submissao(EX, com_fsum, "ok", "math.fsum"),
    Submissao(EX, com_reduce, "ok", "functools.reduce"),
    Submissao(EX, com_while, "ok", "while com contador, devolvendo um array 0-d"),
    # exercício: erradas
    Submissao(EX, sem_somar, "produto sem a soma", "q * k sem somar"),
    Submissao(EX, para_uma_antes, "faltou a última coordenada", "range(len(q) - 1)"),
    Submissao(EX, comeca_em_um, "pulou a primeira coordenada", "range(1, len(q))"),
    Submissao(EX, substitui_o_total, "só a última coordenada", "total = … em vez de total += …"),
    Submissao(EX, return_no_laco, "só a primeira coordenada", "return dentro do laço"),
    Submissao(EX, laco_duplo, "multiplicou as somas", "laço dentro de laço"),
    Submissao(EX, soma_vezes_soma, "multiplicou as somas", "np.sum(q) * np.sum(k)"),
    Submissao(EX, comprimentos, "produto dos comprimentos", "|q| |k| sem o cosseno"),
    Submissao(EX, media, "média no lugar da soma", "np.mean(q * k)"),
    Submissao(EX, soma_dos_vetores, "somou os vetores", "sum(q + k)"),
    Submissao(EX, vetor_soma, "somou os vetores", "q + k"),
    Submissao(EX, com_arroba, "usou @ ou np.dot", "q @ k, que o enunciado proíbe"),
    Submissao(EX, np.dot, "usou @ ou np.dot", "np.dot passado direto ao corretor"),
    Submissao(EX, com_metodo_dot, "usou @ ou np.dot", "q.dot(k)"),
    Submissao(EX, com_einsum, "usou @ ou np.dot", "np.einsum"),
    Submissao(EX, muda_q, "mudou a entrada", "q *= k e depois a soma"),
    Submissao(EX, esqueceu_o_return, "pendente", "esqueceu o return"),
    Submissao(EX, so_imprime, "pendente", "imprime em vez de devolver"),
    Submissao(EX, devolve_texto, "tipo", "devolve um texto formatado"),
    Submissao(EX, devolve_lista, "tipo", "devolve uma lista de um número"),
    Submissao(EX, while_sem_incremento, "tempo", "while sem i += 1"),
    Submissao(EX, digitou_errado, "excecao", "nome digitado errado (NameError)"),
    Submissao(EX, passa_do_fim, "excecao", "range(len(q) + 1): IndexError"),
    # previsão: certas
    Submissao(PREV, "0", "ok", "0 digitado"),
    Submissao(PREV, "0,00", "ok", "0,00 à brasileira"),
    Submissao(PREV, -0.001, "ok", "-0,001 (arredonda para 0)"),
    # previsão: erradas
    Submissao(PREV, 2.121, "girar não muda q·k", "o valor inicial, 2,121"),
    Submissao(PREV, "2,12", "girar não muda q·k", "2,12 à brasileira"),
    Submissao(PREV, "3", "só os comprimentos", "|q| |k| = 3"),
    Submissao(PREV, -3, "perpendicular confundido com oposto", "-3, setas opostas"),
    Submissao(PREV, "-2,9", "165° como o ângulo entre as setas", "3 cos 165°"),
    Submissao(PREV, "-1,34", "cosseno em radianos", "3 cos(90) em radianos"),
    Submissao(PREV, (0, 0), "tipo", "0,0 escrito em Python vira uma tupla"),
    Submissao(PREV, "zero", "tipo", "por extenso"),
    Submissao(PREV, "1,5", "valor", "o exemplo da caixa"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)
