"""Notebook 02: os escores de uma query, os escores por cosseno com temperatura e a previsão de qual key vence,
atacados como um estudante erra — o laço que pula uma key ou uma coordenada, o total que não volta a zero, um
`return` dentro do laço, a soma esquecida ou no eixo errado, a ordem trocada, keepdims esquecido, a key escrita
como a página a escreve (k_2, $k_2$)."""

import numpy as np
import pytest

from helpers.licoes import produto_escalar
from tests.adversarial._base import Submissao, confere, ids

ESC = produto_escalar.ESCORES
COS = produto_escalar.ESCORES_COSSENO
PREV = produto_escalar.PREVISAO_VENCEDORA


# --- escores: certas ------------------------------------------------------------------------------------------


def esc_matriz_vetor(q, K):
    return K @ q


def esc_transposta(q, K):
    return q @ K.T


def esc_broadcasting(q, K):
    return np.sum(q * K, axis=-1)


def esc_laco_duplo(q, K):
    saida = []
    for k in K:
        total = 0.0
        for j in range(len(q)):
            total += q[j] * k[j]
        saida.append(total)
    return saida


def esc_einsum_float32(q, K):
    return np.einsum("nd,d->n", K.astype(np.float32), q.astype(np.float32))


def esc_dot_por_linha(q, K):
    return np.array([np.dot(k, q) for k in K])


# --- escores: erradas -----------------------------------------------------------------------------------------


def esc_sem_somar(q, K):
    return q * K


def esc_soma_axis0(q, K):
    return (q * K).sum(axis=0)


def esc_soma_tudo(q, K):
    return np.sum(q * K)


def esc_q_arroba_K(q, K):
    return q @ K


def esc_KT_arroba_q(q, K):
    return K.T @ q


def esc_cosseno(q, K):
    return K @ q / (np.linalg.norm(q) * np.linalg.norm(K, axis=1))


def esc_keys_unitarias(q, K):
    return (K / np.linalg.norm(K, axis=1, keepdims=True)) @ q


def esc_absoluto(q, K):
    return abs(K @ q)


def esc_ordenados(q, K):
    return sorted(K @ q, reverse=True)


def esc_ordenados_crescente(q, K):
    return np.sort(K @ q)


def esc_laco_uma_key_a_menos(q, K):
    return [q @ K[i] for i in range(len(K) - 1)]


def esc_laco_desde_um(q, K):
    return [q @ K[i] for i in range(1, len(K))]


def esc_laco_coordenada_a_menos(q, K):
    saida = []
    for k in K:
        total = 0.0
        for j in range(len(q) - 1):
            total += q[j] * k[j]
        saida.append(total)
    return saida


def esc_total_fora_do_laco(q, K):
    saida, total = [], 0.0
    for k in K:
        for j in range(len(q)):
            total += q[j] * k[j]
        saida.append(total)
    return np.array(saida)


def esc_return_no_laco(q, K):
    for k in K:
        return np.sum(q * k)


def esc_vencedora(q, K):
    return np.argmax(K @ q)


def esc_ranking(q, K):
    return np.argsort(-(K @ q))


def esc_invertidos(q, K):
    return list(reversed([float(q @ k) for k in K]))


# --- cosseno: certas e erradas --------------------------------------------------------------------------------


def cos_certo(q, K, tau):
    return K @ q / (np.linalg.norm(K, axis=1) * np.linalg.norm(q)) / tau


def cos_normaliza_antes(q, K, tau):
    Kn = K / np.linalg.norm(K, axis=-1, keepdims=True)
    return Kn @ (q / np.sqrt(q @ q)) / tau


def cos_laco(q, K, tau):
    return [float(q @ k / (np.sqrt(q @ q) * np.sqrt(k @ k)) / tau) for k in K]


def cos_sem_normalizar(q, K, tau):
    return K @ q / tau


def cos_norma_da_matriz(q, K, tau):
    return K @ q / (np.linalg.norm(K) * np.linalg.norm(q)) / tau


def cos_normas_das_colunas(q, K, tau):
    return K @ q / (np.linalg.norm(K, axis=0) * np.linalg.norm(q)) / tau


def cos_vezes_tau(q, K, tau):
    return cos_certo(q, K, 1.0) * tau


def cos_sem_tau(q, K, tau):
    return K @ q / (np.linalg.norm(K, axis=1) * np.linalg.norm(q))


def cos_angulo(q, K, tau):
    return np.arccos(cos_certo(q, K, 1.0)) / tau


def cos_sem_keepdims(q, K, tau):
    Kn = K / np.linalg.norm(K, axis=1)
    return Kn @ q / np.linalg.norm(q) / tau


def cos_distancia(q, K, tau):
    return (1 - cos_certo(q, K, 1.0)) / tau


def cos_sem_somar(q, K, tau):
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Kn * (q / np.linalg.norm(q)) / tau


def cos_soma_axis0(q, K, tau):
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return np.sum(Kn * (q / np.linalg.norm(q)), axis=0) / tau


def cos_normaliza_no_lugar(q, K, tau):
    K /= np.linalg.norm(K, axis=1, keepdims=True)
    return K @ q / np.linalg.norm(q) / tau


def cos_quadrados(q, K, tau):
    return K @ q / ((K * K).sum(axis=1) * (q @ q)) / tau


def cos_uma_key_a_menos(q, K, tau):
    return cos_laco(q, K[:-1], tau)


def cos_invertido(q, K, tau):
    return cos_certo(q, K, tau)[::-1]


def cos_nome_errado(q, K, tau):
    return K @ q / (np.linalg.normal(K, axis=1) * np.linalg.norm(q)) / tau


def esc_ja_escalados(q, K):
    return K @ q / np.sqrt(len(q))             # "a atenção divide por √d"


def esc_ja_escalados_dot(q, K):
    return np.dot(K, q) / K.shape[1] ** 0.5


def cos_raiz_de_d(q, K, tau):
    return K @ q / np.sqrt(len(q)) / tau       # a escala do 03 no lugar das normas


def cos_raiz_de_d_sem_tau(q, K, tau):
    return K @ q / np.sqrt(len(q))


SUBMISSOES = [
    # escores: certas
    Submissao(ESC, esc_matriz_vetor, "ok", "K @ q"),
    Submissao(ESC, esc_transposta, "ok", "q @ K.T"),
    Submissao(ESC, esc_broadcasting, "ok", "np.sum(q * K, axis=-1)"),
    Submissao(ESC, esc_laco_duplo, "ok", "laço duplo, lista"),
    Submissao(ESC, esc_einsum_float32, "ok", "einsum em float32"),
    Submissao(ESC, esc_dot_por_linha, "ok", "np.dot por linha"),
    # escores: erradas
    Submissao(ESC, esc_sem_somar, "produto sem a soma", "q * K sem somar"),
    Submissao(ESC, esc_soma_axis0, "soma no eixo errado", "soma com axis=0"),
    Submissao(ESC, esc_soma_tudo, "tudo somado num número só", "np.sum sem axis"),
    Submissao(ESC, esc_q_arroba_K, "q @ K sem transpor", "q @ K"),
    Submissao(ESC, esc_KT_arroba_q, "q @ K sem transpor", "K.T @ q"),
    Submissao(ESC, esc_cosseno, "cosseno no lugar do produto escalar", "o cosseno"),
    Submissao(ESC, esc_keys_unitarias, "keys normalizadas", "keys unitárias"),
    Submissao(ESC, esc_absoluto, "valor absoluto", "abs(K @ q)"),
    Submissao(ESC, esc_ordenados, "escores já ordenados", "sorted(…, reverse=True)"),
    Submissao(ESC, esc_ordenados_crescente, "escores ordenados do menor ao maior", "np.sort"),
    Submissao(ESC, esc_laco_uma_key_a_menos, "faltou a última key", "range(len(K) - 1)"),
    Submissao(ESC, esc_laco_desde_um, "pulou a primeira key", "range(1, len(K))"),
    Submissao(ESC, esc_laco_coordenada_a_menos, "faltou a última coordenada", "range(len(q) - 1) no laço de dentro"),
    Submissao(ESC, esc_total_fora_do_laco, "não zerou a soma a cada key", "total = 0 fora do laço das keys"),
    Submissao(ESC, esc_return_no_laco, "só o primeiro escore", "return dentro do laço"),
    Submissao(ESC, esc_vencedora, "só o maior escore", "np.argmax"),
    Submissao(ESC, esc_ranking, "devolveu o ranking", "np.argsort(-escores)"),
    Submissao(ESC, esc_invertidos, "ordem invertida", "reversed"),
    # cosseno: certas
    Submissao(COS, cos_certo, "ok", "K @ q / (|kᵢ| |q|) / tau"),
    Submissao(COS, cos_normaliza_antes, "ok", "normaliza antes, com keepdims"),
    Submissao(COS, cos_laco, "ok", "laço com raízes"),
    # cosseno: erradas
    Submissao(COS, cos_sem_normalizar, "sem normalizar", "K @ q / tau"),
    Submissao(COS, cos_norma_da_matriz, "norma da matriz inteira", "np.linalg.norm(K) sem axis"),
    Submissao(COS, cos_normas_das_colunas, "normas das colunas", "axis=0 nas normas"),
    Submissao(COS, cos_vezes_tau, "multiplicou por τ", "vezes tau"),
    Submissao(COS, cos_sem_tau, "sem a temperatura", "esqueceu tau"),
    Submissao(COS, cos_angulo, "devolveu o ângulo", "arccos"),
    Submissao(COS, cos_sem_keepdims, "normalizou sem keepdims", "K / norm(K, axis=1)"),
    Submissao(COS, cos_distancia, "distância do cosseno", "1 − cos, à moda do scipy"),
    Submissao(COS, cos_sem_somar, "produto sem a soma", "Kn * qn sem somar"),
    Submissao(COS, cos_soma_axis0, "soma no eixo errado", "soma com axis=0"),
    Submissao(COS, cos_normaliza_no_lugar, "mudou a entrada", "K /= … no lugar"),
    Submissao(COS, cos_quadrados, "normas ao quadrado", "q·q e k·k sem raiz"),
    Submissao(COS, cos_uma_key_a_menos, "faltou a última key", "K[:-1]"),
    Submissao(COS, cos_invertido, "ordem invertida", "[::-1]"),
    Submissao(COS, cos_nome_errado, "excecao", "np.linalg.normal (AttributeError)"),
    Submissao(COS, cos_raiz_de_d, "√d no lugar das normas", "K @ q / √d / τ"),
    Submissao(COS, cos_raiz_de_d_sem_tau, "√d no lugar das normas", "K @ q / np.sqrt(len(q)), sem τ"),
    Submissao(ESC, esc_ja_escalados, "dividiu por √d (a escala do notebook 03)", "K @ q / np.sqrt(len(q))"),
    Submissao(ESC, esc_ja_escalados_dot, "dividiu por √d (a escala do notebook 03)", "np.dot(K, q) / d ** 0.5"),
    # previsão: certas
    Submissao(PREV, "k_2", "ok", "k_2, como o LaTeX da página"),
    Submissao(PREV, "$k_2$", "ok", "$k_2$ copiado da página"),
    Submissao(PREV, "k₂", "ok", "k₂ com subscrito"),
    Submissao(PREV, 2, "ok", "só o número"),
    Submissao(PREV, " K2 ", "ok", "maiúscula e espaços"),
    # previsão: erradas
    Submissao(PREV, "k1", "a mais alinhada", "a mais alinhada"),
    Submissao(PREV, "k_1", "a mais alinhada", "k_1, como o LaTeX"),
    Submissao(PREV, "$k_4$", "a quase perpendicular", "$k_4$"),
    Submissao(PREV, "K3", "uma do outro lado da reta", "K3"),
    Submissao(PREV, 5, "a mais oposta", "5"),
    Submissao(PREV, "k7", "tipo", "uma key que não existe"),
    Submissao(PREV, "2,0", "tipo", "um número quebrado"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)
