"""Notebook 05 (a soma ponderada dos values): submissões de estudante para a previsão de trocar v₃ e o corretor da
atenção, de uma query (exercício 1) e de várias (exercício 2) — escritas como um estudante erra, não tiradas das
listas dos corretores."""

import math

import numpy as np
import pytest

from helpers import attention
from helpers.licoes import soma_ponderada as licao
from tests.adversarial._base import Submissao, confere, ids

V3 = licao.PREVISAO_V3
UMA = licao.exercicio_atencao(varias_queries=False)
VARIAS = licao.ATENCAO


def _softmax_1d(z):
    e = np.exp(z - z.max())
    return e / e.sum()


# --- uma query: q (d,), K (n, d), V (n, d_v) → (d_v,) ----------------------------------------------------


def uma_certa(q, K, V):
    escores = K @ q / np.sqrt(K.shape[1])
    return _softmax_1d(escores) @ V


def uma_par(q, K, V):
    pesos = _softmax_1d(K @ q / np.sqrt(len(q)))
    return pesos @ V, pesos


def uma_laco(q, K, V):
    escores = [float(np.dot(k, q)) / math.sqrt(len(q)) for k in K]
    m = max(escores)
    e = [math.exp(s - m) for s in escores]
    total = sum(e)
    saida = np.zeros(V.shape[1])
    for w, v in zip(e, V):
        saida += (w / total) * v
    return saida


def uma_ingenua(q, K, V):
    e = np.exp(K @ q / np.sqrt(len(q)))
    return (e / e.sum()) @ V


def uma_max_se_positivo(q, K, V):
    z = K @ q / np.sqrt(len(q))
    if z.max() > 0:
        z = z - z.max()
    e = np.exp(z)
    return (e / e.sum()) @ V


def uma_sem_escala(q, K, V):
    return _softmax_1d(K @ q) @ V


def uma_por_d(q, K, V):
    return _softmax_1d(K @ q / len(q)) @ V


def uma_raiz_de_2(q, K, V):
    return _softmax_1d(K @ q / np.sqrt(2)) @ V  # o √2 do exemplo, fixo


def uma_soma_das_keys(q, K, V):
    return _softmax_1d(K @ q / np.sqrt(len(q))) @ K


def uma_so_pesos(q, K, V):
    return _softmax_1d(K @ q / np.sqrt(len(q)))


def uma_par_trocado(q, K, V):
    pesos = _softmax_1d(K @ q / np.sqrt(len(q)))
    return pesos, pesos @ V


def uma_parcelas(q, K, V):
    pesos = _softmax_1d(K @ q / np.sqrt(len(q)))
    return pesos[:, None] * V  # esqueceu de somar as parcelas


def uma_sem_normalizar(q, K, V):
    z = K @ q / np.sqrt(len(q))
    return np.exp(z - z.max()) @ V


def uma_pronta(q, K, V):
    return attention.scaled_dot_product_attention(q, K, V)


def uma_muda_q(q, K, V):
    q /= np.sqrt(q.shape[0])  # escala a query no lugar
    return _softmax_1d(K @ q) @ V


def uma_softmax_de_matriz(q, K, V):
    z = K @ q / np.sqrt(len(q))
    e = np.exp(z - z.max(axis=1, keepdims=True))  # a softmax do 04 para matrizes, reusada num vetor
    return (e / e.sum(axis=1, keepdims=True)) @ V


# --- várias queries: q (d,) ou (n_q, d) → (d_v,) ou (n_q, d_v) --------------------------------------------


def varias_certa(q, K, V):
    escores = q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    pesos = e / e.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos


def varias_lista_de_linhas(q, K, V):
    if q.ndim == 1:
        return uma_certa(q, K, V)
    saidas = []
    for linha in q:  # uma query por vez; a saída de cada uma numa lista
        saidas.append(uma_certa(linha, K, V))
    return saidas


def varias_lista_par(q, K, V):
    saida, pesos = varias_certa(q, K, V)
    return [saida.tolist(), pesos.tolist()]


def varias_float32(q, K, V):
    q, K, V = (np.asarray(a, dtype=np.float32) for a in (q, K, V))
    z = np.einsum("...d,kd->...k", q, K) / np.float32(np.sqrt(K.shape[-1]))
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return np.einsum("...k,kv->...v", e / e.sum(axis=-1, keepdims=True), V)


def varias_max_global(q, K, V):
    escores = q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(escores - escores.max())  # a solução de uma query, sem axis
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def varias_sem_keepdims(q, K, V):
    escores = q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(escores - escores.max(axis=-1))
    return (e / e.sum(axis=-1)) @ V


def varias_eixo_0(q, K, V):
    return attention.softmax(q @ K.T / np.sqrt(K.shape[-1]), axis=0) @ V


def varias_menos_minimo(q, K, V):
    escores = q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(escores - escores.min(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def varias_q_at_K(q, K, V):
    escores = q @ K / np.sqrt(K.shape[-1])
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def varias_vezes_raiz(q, K, V):
    escores = q @ K.T * np.sqrt(K.shape[-1])
    e = np.exp(escores - escores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def varias_sem_softmax(q, K, V):
    return (q @ K.T / np.sqrt(K.shape[-1])) @ V


def uma_pesos_vezes_v(q, K, V):
    pesos = _softmax_1d(K @ q / np.sqrt(len(q)))
    return pesos * V                           # "multiplica cada value pelo seu peso"


def uma_trio(q, K, V):
    escores = K @ q / np.sqrt(len(q))
    pesos = _softmax_1d(escores)
    return pesos @ V, pesos, escores           # "devolvo tudo, vai que precisa"


def varias_np_dot_sem_keepdims(q, K, V):
    escores = np.dot(q, K.T) / np.sqrt(K.shape[-1])
    e = np.exp(escores - np.max(escores, axis=-1))
    return np.dot(e / np.sum(e, axis=-1), V)   # nenhum @: o erro está no keepdims


def varias_saida_transposta(q, K, V):
    saida, _ = varias_certa(q, K, V)
    return saida.T


def varias_transposta_e_eixo_0(q, K, V):
    escores = q @ K.T / np.sqrt(K.shape[-1])
    e = np.exp(escores - escores.max(axis=0, keepdims=True))
    pesos = e / e.sum(axis=0, keepdims=True)   # cada coluna soma 1
    return V.T @ pesos.T                       # e a saída em pé


def varias_pesos_vezes_v(q, K, V):
    _, pesos = varias_certa(q, K, V)
    return pesos * V


SUBMISSOES = [
    # a previsão: a segunda coordenada da saída com v₃ = (5, −5), como digitada na caixa
    Submissao(V3, "0,65", "ok", "v3: 0,65"),
    Submissao(V3, "0.6467", "ok", "v3: com os pesos exatos"),
    Submissao(V3, "3,85", "a saída não muda", "v3: 3,85, a de antes"),
    Submissao(V3, "2,25", "jogou fora a parcela de v₃", "v3: só a parcela de v2"),
    Submissao(V3, "-1,6", "só a parcela de v₃", "v3: só a parcela de v3"),
    Submissao(V3, "-3,85", "trocou o sinal da saída inteira", "v3: −3,85"),
    Submissao(V3, "6,15", "respondeu a primeira coordenada", "v3: a primeira coordenada"),
    Submissao(V3, (0, 65), "tipo", "v3: 0,65 escrito em Python (uma tupla)"),
    # exercício 1: uma query
    Submissao(UMA, uma_certa, "ok", "uma query: K @ q, softmax estável, @ V"),
    Submissao(UMA, uma_par, "ok", "uma query: devolve (saída, pesos)"),
    Submissao(UMA, uma_laco, "ok", "uma query: laços e math.exp"),
    Submissao(UMA, uma_ingenua, "sem subtrair o máximo (instável)", "uma query: softmax ingênua"),
    Submissao(UMA, uma_max_se_positivo, "subtraiu o máximo só quando positivo (instável)", "uma query: if z.max() > 0"),
    Submissao(UMA, uma_sem_escala, "sem escala", "uma query: sem √d"),
    Submissao(UMA, uma_por_d, "÷d em vez de ÷√d", "uma query: ÷ d"),
    Submissao(UMA, uma_raiz_de_2, "outro divisor no lugar de √d", "uma query: √2 fixo"),
    Submissao(UMA, uma_soma_das_keys, "soma das keys", "uma query: pesos @ K"),
    Submissao(UMA, uma_so_pesos, "devolveu os pesos, não a saída", "uma query: devolveu os pesos"),
    Submissao(UMA, uma_par_trocado, "par na ordem trocada", "uma query: (pesos, saída)"),
    Submissao(UMA, uma_parcelas, "parcelas sem a soma", "uma query: pesos[:, None] * V"),
    Submissao(UMA, uma_sem_normalizar, "pesos sem dividir pela soma", "uma query: exp sem dividir"),
    Submissao(UMA, uma_pronta, "usou a atenção pronta", "uma query: a da biblioteca"),
    Submissao(UMA, uma_muda_q, "mudou a entrada", "uma query: q /= √d no lugar"),
    Submissao(UMA, uma_softmax_de_matriz, "axis=1 num vetor", "uma query: softmax com axis=1 num vetor"),
    Submissao(UMA, uma_pesos_vezes_v, "pesos * V (elemento a elemento, sem a soma)", "uma query: pesos * V"),
    Submissao(UMA, uma_trio, "devolveu três coisas", "uma query: (saída, pesos, escores)"),
    # exercício 2: várias queries
    Submissao(VARIAS, varias_certa, "ok", "várias: (saída, pesos)"),
    Submissao(VARIAS, varias_lista_de_linhas, "ok", "várias: laço, lista com uma linha por query"),
    Submissao(VARIAS, varias_lista_par, "ok", "várias: [saída, pesos] em listas"),
    Submissao(VARIAS, varias_float32, "ok", "várias: einsum em float32"),
    Submissao(VARIAS, varias_max_global, "um máximo só para o lote inteiro (instável)", "várias: max() sem axis"),
    Submissao(VARIAS, varias_sem_keepdims, "sem keepdims", "várias: sem keepdims"),
    Submissao(VARIAS, varias_eixo_0, "softmax no eixo errado", "várias: axis=0"),
    Submissao(VARIAS, varias_menos_minimo, "subtraiu o mínimo (instável)", "várias: menos o mínimo"),
    Submissao(VARIAS, varias_q_at_K, "q @ K sem transpor", "várias: q @ K"),
    Submissao(VARIAS, varias_vezes_raiz, "×√d em vez de ÷√d", "várias: × √d"),
    Submissao(VARIAS, varias_sem_softmax, "sem softmax", "várias: sem softmax"),
    Submissao(VARIAS, varias_np_dot_sem_keepdims, "sem keepdims", "várias: np.dot, sem keepdims, nenhum @"),
    Submissao(VARIAS, varias_saida_transposta, "saída transposta", "várias: (pesos @ V).T"),
    Submissao(VARIAS, varias_transposta_e_eixo_0, "saída transposta e softmax no eixo errado",
              "várias: softmax no eixo 0 e V.T @ pesos.T"),
    Submissao(VARIAS, varias_pesos_vezes_v, "pesos * V (elemento a elemento, sem a soma)", "várias: pesos * V"),
]


def test_sem_keepdims_sem_arroba_nao_recebe_conselho_sobre_a_ordem_dos_fatores_do_arroba():
    """Quem não usou @ e esqueceu o keepdims não ouve que a ordem dos fatores em cada @ está errada."""
    v = confere(Submissao(VARIAS, varias_np_dot_sem_keepdims, "sem keepdims", "np.dot sem keepdims"))
    assert "fatores em cada @" not in v.mensagem and "Se reclamou de broadcast" in v.mensagem, v.mensagem


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_adversarial_soma_ponderada(s):
    confere(s)
