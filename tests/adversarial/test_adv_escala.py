"""Notebook 03 (a escala √d): submissões de estudante para a previsão da variância e os corretores dos escores
escalados e dos pesos de um lote de queries — escritas como um estudante erra, não tiradas das listas dos corretores."""

import math

import numpy as np
import pytest

from helpers import attention
from helpers.licoes import escala as licao
from tests.adversarial._base import Submissao, confere, ids

VAR = licao.PREVISAO_VARIANCIA
ESC = licao.ESCORES_ESCALADOS
PES = licao.PESOS_ATENCAO


# --- os escores escalados: q (d,), K (n, d) → (n,) --------------------------------------------------------


def esc_certo(q, K):
    return K @ q / np.sqrt(len(q))


def esc_laco_lista(q, K):
    d = len(q)
    escores = []
    for k in K:
        s = 0.0
        for i in range(d):
            s += q[i] * k[i]
        escores.append(s / math.sqrt(d))
    return escores


def esc_einsum(q, K):
    return np.einsum("nd,d->n", K, q) / q.shape[0] ** 0.5


def esc_float32(q, K):
    return (q @ K.T / np.sqrt(K.shape[1])).astype(np.float32)


def esc_por_d(q, K):
    d = len(q)
    return K @ q / d  # "escalar é dividir pela dimensão"


def esc_precedencia(q, K):
    d = len(q)
    return K @ q / d ** 1 / 2


def esc_len_de_K(q, K):
    return K @ q / np.sqrt(len(K))  # len(K) é o número de keys


def esc_raiz_de_2(q, K):
    return K @ q / np.sqrt(2)  # copiado do exemplo, d = 2


def esc_K_size(q, K):
    return K @ q / np.sqrt(K.size)


def esc_laco_uma_a_menos(q, K):
    escores = []
    for i in range(len(K) - 1):
        escores.append(np.dot(K[i], q) / np.sqrt(len(q)))
    return np.array(escores)


def esc_soma_axis0(q, K):
    return np.sum(q * K, axis=0) / np.sqrt(len(q))


def esc_q_at_K(q, K):
    return q @ K / np.sqrt(len(q))


def esc_muda_q(q, K):
    q /= np.sqrt(len(q))  # "escalo a query uma vez só"
    return K @ q


def esc_com_softmax(q, K):
    z = K @ q / np.sqrt(len(q))
    e = np.exp(z - z.max())
    return e / e.sum()


def esc_sem_escala(q, K):
    return np.dot(K, q)


def esc_multiplica(q, K):
    return K @ q * np.sqrt(len(q))


def esc_acumulador_fora(q, K):
    total = 0.0
    escores = []
    for k in K:
        for qi, ki in zip(q, k):
            total += qi * ki
        escores.append(total / np.sqrt(len(q)))
    return escores


def esc_K_transposta(q, K):
    return K.T @ q / np.sqrt(len(q))  # (d, n) @ (d,): só fecha com K quadrada


# --- os pesos de um lote: Q (m, d), K (n, d) → (m, n) ------------------------------------------------------


def pes_certo(Q, K):
    return attention.softmax(Q @ K.T / np.sqrt(K.shape[1]), axis=-1)


def pes_laco_listas(Q, K):
    linhas = []
    for q in Q:
        z = [float(q @ k) / math.sqrt(len(q)) for k in K]
        m = max(z)
        e = [math.exp(v - m) for v in z]
        linhas.append([v / sum(e) for v in e])
    return linhas


def pes_float32(Q, K):
    z = np.einsum("md,nd->mn", Q, K).astype(np.float32) / np.float32(np.sqrt(K.shape[1]))
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def pes_max_se_positivo(Q, K):
    z = Q @ K.T / np.sqrt(K.shape[1])
    m = z.max(axis=-1, keepdims=True)
    m[m < 0] = 0.0  # "só preciso subtrair quando o máximo é grande"
    e = np.exp(z - m)
    return e / e.sum(axis=-1, keepdims=True)


def pes_max_global(Q, K):
    z = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(z - np.max(z))
    return e / e.sum(axis=1, keepdims=True)


def pes_sem_keepdims(Q, K):
    z = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1)  # keepdims só no máximo


def pes_eixo_0(Q, K):
    return attention.softmax(Q @ K.T / np.sqrt(K.shape[1]), axis=0)


def pes_sem_escala(Q, K):
    return attention.softmax(Q @ K.T, axis=-1)


def pes_raiz_de_2(Q, K):
    return attention.softmax(Q @ K.T / math.sqrt(2), axis=-1)


def pes_K_Q(Q, K):
    return attention.softmax(K @ Q.T / np.sqrt(K.shape[1]), axis=-1)


def pes_soma_tudo(Q, K):
    z = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / np.sum(e)


def pes_so_escores(Q, K):
    return Q @ K.T / np.sqrt(K.shape[1])


def pes_ingenua_por_linha(Q, K):
    saida = []
    for q in Q:
        e = np.exp(K @ q / np.sqrt(len(q)))
        saida.append(e / e.sum())
    return np.array(saida)


def esc_em_float16(q, K):
    q16, K16 = q.astype(np.float16), K.astype(np.float16)   # "para economizar memória"
    return K16 @ q16 / np.float16(math.sqrt(len(q)))


def pes_em_float16(Q, K):
    z = (Q @ K.T / np.sqrt(K.shape[1])).astype(np.float16)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


SUBMISSOES = [
    # a previsão da variância de q·k (d = 64), como digitada na caixa
    Submissao(VAR, "64", "ok", "variância: 64"),
    Submissao(VAR, "64,0", "ok", "variância: 64,0 com vírgula"),
    Submissao(VAR, "61", "ok", "variância: 61, de cabeça"),
    Submissao(VAR, np.float64(66.0), "ok", "variância: um float do numpy"),
    Submissao(VAR, "8", "o desvio-padrão", "variância: 8, o desvio"),
    Submissao(VAR, "1", "a variância de um termo", "variância: 1, a de um termo"),
    Submissao(VAR, "0", "a média", "variância: 0, a média"),
    Submissao(VAR, "4 096", "d ao quadrado", "variância: 4 096 com espaço de milhar"),
    Submissao(VAR, "4.096", "tipo", "variância: 4.096, ambíguo, pergunta qual"),
    Submissao(VAR, "128", "somou as variâncias de q e de k", "variância: 128"),
    Submissao(VAR, (64, 5), "tipo", "variância: 64,5 escrito em Python (uma tupla)"),
    # os escores escalados
    Submissao(ESC, esc_certo, "ok", "escores: K @ q / sqrt(len(q))"),
    Submissao(ESC, esc_laco_lista, "ok", "escores: dois laços, lista de floats"),
    Submissao(ESC, esc_einsum, "ok", "escores: einsum e ** 0.5"),
    Submissao(ESC, esc_float32, "ok", "escores: q @ K.T em float32"),
    Submissao(ESC, esc_por_d, "÷d em vez de ÷√d", "escores: dividiu por d"),
    Submissao(ESC, esc_precedencia, "÷2d: a precedência de / d ** 1/2", "escores: / d ** 1/2"),
    Submissao(ESC, esc_len_de_K, "raiz do número de keys", "escores: sqrt(len(K))"),
    Submissao(ESC, esc_raiz_de_2, "outro divisor no lugar de √d", "escores: √2 fixo do exemplo"),
    Submissao(ESC, esc_K_size, "outro divisor no lugar de √d", "escores: sqrt(K.size)"),
    Submissao(ESC, esc_laco_uma_a_menos, "faltou a última key (com a escala)", "escores: range(len(K) - 1)"),
    Submissao(ESC, esc_soma_axis0, "soma no eixo errado (com a escala)", "escores: np.sum(q * K, axis=0)"),
    Submissao(ESC, esc_q_at_K, "q @ K sem transpor (com a escala)", "escores: q @ K"),
    Submissao(ESC, esc_muda_q, "mudou a entrada", "escores: q /= sqrt(d) no lugar"),
    Submissao(ESC, esc_com_softmax, "softmax já aplicada", "escores: já passou pela softmax"),
    Submissao(ESC, esc_sem_escala, "sem escala", "escores: np.dot(K, q) sem escala"),
    Submissao(ESC, esc_multiplica, "×√d em vez de ÷√d", "escores: multiplicou por √d"),
    Submissao(ESC, esc_acumulador_fora, "não zerou a soma a cada key (com a escala)", "escores: total fora do laço"),
    Submissao(ESC, esc_K_transposta, "q @ K sem transpor (com a escala)", "escores: K.T @ q, a transposta no fator errado"),
    # os pesos de um lote de queries
    Submissao(PES, pes_certo, "ok", "pesos: attention.softmax(axis=-1)"),
    Submissao(PES, pes_laco_listas, "ok", "pesos: laço por query, lista de listas"),
    Submissao(PES, pes_float32, "ok", "pesos: einsum em float32"),
    Submissao(PES, pes_max_se_positivo, "subtraiu o máximo só quando positivo (instável)", "pesos: m[m < 0] = 0"),
    Submissao(PES, pes_max_global, "um máximo só para o lote inteiro (instável)", "pesos: np.max(z) do lote"),
    Submissao(PES, pes_sem_keepdims, "sem keepdims", "pesos: sum(axis=1) sem keepdims"),
    Submissao(PES, pes_eixo_0, "softmax no eixo errado", "pesos: axis=0"),
    Submissao(PES, pes_sem_escala, "sem escala", "pesos: sem √d"),
    Submissao(PES, pes_raiz_de_2, "outro divisor no lugar de √d", "pesos: √2 fixo"),
    Submissao(PES, pes_K_Q, "queries e keys trocadas", "pesos: K @ Q.T"),
    Submissao(PES, pes_soma_tudo, "normalizou pela matriz inteira", "pesos: e / np.sum(e)"),
    Submissao(PES, pes_so_escores, "sem a softmax", "pesos: devolveu os escores"),
    Submissao(PES, pes_ingenua_por_linha, "sem subtrair o máximo (instável)", "pesos: exp sem máximo, por linha"),
    Submissao(PES, pes_em_float16, "contas em float16", "pesos: escores em float16"),
    Submissao(ESC, esc_em_float16, "contas em float16", "escalados: q e K em float16"),
    Submissao(VAR, "0,5", "a chance de q·k ser positivo", "variância: 0,5 (uma probabilidade)"),
    Submissao(VAR, "1,5", "valor", "variância: 1,5 (não é a de um termo)"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_adversarial_escala(s):
    confere(s)
