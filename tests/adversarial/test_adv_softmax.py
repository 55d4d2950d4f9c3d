"""Notebook 04 (softmax): submissões de estudante para a previsão de softmax(2·z) e os corretores da softmax estável
com temperatura e do jacobiano sem laços — escritas como um estudante erra, não tiradas das listas dos corretores."""

import numpy as np
import pytest

from helpers import attention
from helpers.licoes import softmax as licao
from tests.adversarial._base import Submissao, confere, ids

DOBRO = licao.PREVISAO_DOBRO
SM = licao.SOFTMAX
JAC = licao.JACOBIANO


# --- a softmax estável, com temperatura ---------------------------------------------------------------


def sm_certa(x, temperatura=1.0):
    z = x / temperatura
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def sm_laco_de_linhas(x, temperatura=1.0):
    x = np.asarray(x, dtype=float)
    linhas = x.reshape(-1, x.shape[-1])
    saida = np.empty_like(linhas)
    for i, linha in enumerate(linhas):
        z = linha / temperatura
        e = np.exp(z - z.max())
        saida[i] = e / e.sum()
    return saida.reshape(x.shape)


def sm_lista(x, temperatura=1.0):
    return sm_certa(x, temperatura).tolist()


def sm_logsumexp(x, temperatura=1.0):
    z = x / temperatura
    m = np.max(z, axis=-1, keepdims=True)
    return np.exp(z - m - np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True)))


def sm_max_se_positivo(x, temperatura=1.0):
    z = x / temperatura
    m = np.maximum(np.max(z, axis=-1, keepdims=True), 0.0)  # "só escores grandes estouram"
    e = np.exp(z - m)
    return e / e.sum(axis=-1, keepdims=True)


def sm_ingenua(x, temperatura=1.0):
    e = np.exp(x / temperatura)
    return e / np.sum(e, axis=-1, keepdims=True)


def sm_menos_minimo(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - z.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sm_max_do_lote(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - z.max())
    return e / e.sum(axis=-1, keepdims=True)


def sm_max_de_x(x, temperatura=1.0):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x / temperatura - m)
    return e / e.sum(axis=-1, keepdims=True)


def sm_sem_temperatura(x, temperatura=1.0):
    z = x - x.max(axis=-1, keepdims=True)
    return np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)


def sm_temperatura_depois(x, temperatura=1.0):
    e = np.exp(x - x.max(axis=-1, keepdims=True)) / temperatura
    return e / e.sum(axis=-1, keepdims=True)


def sm_vezes_temperatura(x, temperatura=1.0):
    z = x * temperatura
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sm_sem_keepdims(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - np.max(z, axis=-1))
    return e / np.sum(e, axis=-1)


def sm_axis_1(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def sm_axis_0(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - z.max(axis=0))
    return e / e.sum(axis=0)


def sm_soma_tudo(x, temperatura=1.0):
    z = x / temperatura
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum()


def sm_sem_exp(x, temperatura=1.0):
    z = x / temperatura
    return z / z.sum(axis=-1, keepdims=True)


def sm_sem_dividir(x, temperatura=1.0):
    z = x / temperatura
    return np.exp(z - z.max(axis=-1, keepdims=True))


def sm_da_biblioteca(x, temperatura=1.0):
    return attention.softmax(x, temperature=temperatura)


def sm_muda_x(x, temperatura=1.0):
    x /= temperatura  # divide no lugar
    x -= x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


# --- o jacobiano sem laços ----------------------------------------------------------------------------


def _s(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def jac_certo(z):
    s = attention.softmax(z)
    return np.diag(s) - np.outer(s, s)


def jac_broadcasting(z):
    s = _s(z)
    return s[:, None] * (np.eye(len(s)) - s[None, :])


def jac_diagflat(z):
    s = _s(np.asarray(z, dtype=float))
    return np.diagflat(s) - s[:, None] * s[None, :]


def jac_dois_lacos(z):
    s = attention.softmax(z)
    n = len(s)
    J = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            J[i, j] = s[i] * ((1.0 if i == j else 0.0) - s[j])
    return J


def jac_diagonal(z):
    s = _s(z)
    return s - s**2


def jac_so_diag(z):
    return np.diag(_s(z))


def jac_sinal(z):
    s = _s(z)
    return np.outer(s, s) - np.diag(s)


def jac_ingenua(z):
    e = np.exp(z)
    s = e / e.sum()
    return np.diag(s) - np.outer(s, s)


def jac_max_se_positivo(z):
    e = np.exp(z - max(float(np.max(z)), 0.0))
    s = e / e.sum()
    return np.diag(s) - np.outer(s, s)


def jac_mais_outer(z):
    s = _s(z)
    return np.diag(s) + np.outer(s, s)         # "o jacobiano é diag(s) e s sᵀ"


def jac_so_menos_outer(z):
    s = _s(z)
    return -np.outer(s, s)                     # esqueceu o δᵢⱼ


def jac_s_arroba_s_t(z):
    s = _s(z)
    return np.diag(s) - s @ s.T                # s.T num vetor 1-D não vira coluna


def jac_coluna_t_arroba_coluna(z):
    s = _s(z).reshape(-1, 1)
    return np.diag(s.ravel()) - s.T @ s        # (1, n) @ (n, 1): um número


def jac_so_diagonal_matriz(z):
    s = _s(z)
    return np.diag(s * (1 - s))


def jac_eye_menos_outer(z):
    s = _s(z)
    return np.eye(len(s)) - np.outer(s, s)


def jac_so_outer(z):
    s = _s(z)
    return np.outer(s, s)


def jac_com_z(z):
    return np.diag(z) - np.outer(z, z)


def jac_fator_da_coluna(z):
    s = _s(z)
    return s * (np.eye(len(s)) - s)  # o broadcasting multiplica as colunas


SUBMISSOES = [
    # a previsão: o maior peso de softmax(2·z), como digitado na caixa
    Submissao(DOBRO, "0,58", "ok", "dobro: 0,58"),
    Submissao(DOBRO, "0,6", "ok", "dobro: 0,6, de cabeça"),
    Submissao(DOBRO, 0.576, "ok", "dobro: 0.576 como float"),
    Submissao(DOBRO, "0,91", "dobrou o peso", "dobro: 0,91 = 2 × 0,455"),
    Submissao(DOBRO, "0,455", "multiplicar como somar", "dobro: não muda"),
    Submissao(DOBRO, "0,39", "ficou mais espalhado", "dobro: 0,39, o de T = 2"),
    Submissao(DOBRO, "1", "foi direto ao argmax", "dobro: 1, o argmax"),
    Submissao(DOBRO, (0, 58), "tipo", "dobro: 0,58 escrito em Python (uma tupla)"),
    Submissao(DOBRO, "57,6%", "ok", "dobro: em porcentagem (o leitor lê 57,6% como 0,576)"),
    # a softmax estável com temperatura
    Submissao(SM, sm_certa, "ok", "softmax: máximo de cada linha de x / T"),
    Submissao(SM, sm_laco_de_linhas, "ok", "softmax: laço sobre as linhas (reshape)"),
    Submissao(SM, sm_lista, "ok", "softmax: devolve lista"),
    Submissao(SM, sm_logsumexp, "ok", "softmax: pelo logsumexp"),
    Submissao(SM, sm_max_se_positivo, "subtraiu o máximo só quando positivo (instável)", "softmax: np.maximum(m, 0)"),
    Submissao(SM, sm_ingenua, "sem subtrair o máximo (instável)", "softmax: ingênua"),
    Submissao(SM, sm_menos_minimo, "subtraiu o mínimo (instável)", "softmax: menos o mínimo"),
    Submissao(SM, sm_max_do_lote, "um máximo só para o lote inteiro (instável)", "softmax: z.max() sem axis"),
    Submissao(SM, sm_max_de_x, "o máximo de x, não de x / T (instável)", "softmax: máximo de x"),
    Submissao(SM, sm_sem_temperatura, "ignorou a temperatura", "softmax: esqueceu T"),
    Submissao(SM, sm_temperatura_depois, "ignorou a temperatura", "softmax: T depois do exp"),
    Submissao(SM, sm_vezes_temperatura, "multiplicou pela temperatura", "softmax: x * T"),
    Submissao(SM, sm_sem_keepdims, "sem keepdims", "softmax: sem keepdims"),
    Submissao(SM, sm_axis_1, "axis=1 em vez de axis=-1", "softmax: axis=1 fixo"),
    Submissao(SM, sm_axis_0, "eixo errado", "softmax: axis=0"),
    Submissao(SM, sm_soma_tudo, "normalizou pela matriz inteira", "softmax: e / e.sum()"),
    Submissao(SM, sm_sem_exp, "sem exponenciar", "softmax: z / soma(z)"),
    Submissao(SM, sm_sem_dividir, "esqueceu de dividir pela soma", "softmax: só exp"),
    Submissao(SM, sm_da_biblioteca, "usou a softmax pronta", "softmax: attention.softmax"),
    Submissao(SM, sm_muda_x, "mudou a entrada", "softmax: x /= T no lugar"),
    # o jacobiano, sem laços
    Submissao(JAC, jac_certo, "ok", "jacobiano: diag − outer"),
    Submissao(JAC, jac_broadcasting, "ok", "jacobiano: broadcasting s[:, None]"),
    Submissao(JAC, jac_diagflat, "ok", "jacobiano: diagflat"),
    Submissao(JAC, jac_dois_lacos, "com laços", "jacobiano: os dois laços da seção 6"),
    Submissao(JAC, jac_diagonal, "só a diagonal, como vetor", "jacobiano: s − s²"),
    Submissao(JAC, jac_so_diag, "sem o termo −sᵢsⱼ", "jacobiano: só diag(s)"),
    Submissao(JAC, jac_sinal, "sinal trocado", "jacobiano: outer − diag"),
    Submissao(JAC, jac_ingenua, "softmax instável por dentro", "jacobiano: softmax ingênua"),
    Submissao(JAC, jac_max_se_positivo, "softmax instável por dentro", "jacobiano: máximo só se positivo"),
    Submissao(JAC, jac_com_z, "escores z no lugar dos pesos s", "jacobiano: com z"),
    Submissao(JAC, jac_fator_da_coluna, "sⱼ no lugar de sᵢ", "jacobiano: s * (I − s)"),
    Submissao(JAC, jac_mais_outer, "somou s sᵀ em vez de subtrair", "jacobiano: diag(s) + outer"),
    Submissao(JAC, jac_so_menos_outer, "sem o δᵢⱼ", "jacobiano: só −s sᵀ"),
    Submissao(JAC, jac_s_arroba_s_t, "s·s (um número) no lugar de s sᵀ", "jacobiano: diag(s) − s @ s.T num vetor"),
    Submissao(JAC, jac_coluna_t_arroba_coluna, "s·s (um número) no lugar de s sᵀ",
              "jacobiano: s em pé, s.T @ s (1×1)"),
    Submissao(JAC, jac_so_diagonal_matriz, "só a diagonal, como matriz", "jacobiano: np.diag(s * (1 − s))"),
    Submissao(JAC, jac_eye_menos_outer, "identidade no lugar de diag(s)", "jacobiano: np.eye(n) − outer"),
    Submissao(JAC, jac_so_outer, "só s sᵀ", "jacobiano: só np.outer(s, s)"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_adversarial_softmax(s):
    confere(s)

