"""Suíte adversária do notebook 10 (o custo quadrático): juntar dois estados da softmax online, o passo da atenção
por blocos (o corretor faz o laço), a memória dos pesos e a previsão do estado da atenção linear — com submissões
escritas como um estudante as escreveria, e as respostas certas escritas de outros jeitos."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers import attention, efficient
from helpers.licoes import custo as licao
from helpers.licoes.custo.blocos import _laco
from tests.adversarial._base import Submissao, confere, ids

C = licao.COMBINAR_ESTADOS
B = licao.POR_BLOCOS
M = licao.MEMORIA_PESOS
P = licao.PREVISAO_ESTADO_LINEAR


# --- Exercício 1: combinar ------------------------------------------------------------------------------------


def combinar(estado_a, estado_b):
    """A solução do notebook (a atualizar do Exercício 2 abaixo a usa, como no notebook)."""
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    m = max(m_a, m_b)
    if m == -np.inf:
        return estado_a
    fator_a, fator_b = np.exp(m_a - m), np.exp(m_b - m)
    return m, l_a * fator_a + l_b * fator_b, acc_a * fator_a + acc_b * fator_b


def combinar_com_math_e_lista(estado_a, estado_b):
    m = max(estado_a[0], estado_b[0])
    if math.isinf(m):
        return [m, 0, [0.0 for _ in estado_a[2]]]
    fa, fb = math.exp(estado_a[0] - m), math.exp(estado_b[0] - m)
    return [m, estado_a[1] * fa + estado_b[1] * fb, [x * fa + y * fb for x, y in zip(estado_a[2], estado_b[2])]]


def combinar_desempacota_m_acc_l(estado_a, estado_b):
    m_a, acc_a, l_a = estado_a                 # a ordem do estado, de memória
    m_b, acc_b, l_b = estado_b
    m = max(m_a, m_b)
    if m == -np.inf:
        return estado_a
    fa, fb = np.exp(m_a - m), np.exp(m_b - m)
    return m, l_a * fa + l_b * fb, acc_a * fa + acc_b * fb


def combinar_com_if(estado_a, estado_b):
    """Um ramo para cada estado que traz o maior máximo (e o vazio tratado antes)."""
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    if m_b == -np.inf:
        return estado_a
    if m_a == -np.inf:
        return estado_b
    if m_a >= m_b:
        f = np.exp(m_b - m_a)
        return m_a, l_a + l_b * f, acc_a + acc_b * f
    f = np.exp(m_a - m_b)
    return m_b, l_a * f + l_b, acc_a * f + acc_b


def combinar_com_o_menor(estado_a, estado_b):
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    m = min(m_a, m_b)
    fa, fb = np.exp(m_a - m), np.exp(m_b - m)
    return m, l_a * fa + l_b * fb, acc_a * fa + acc_b * fb


def combinar_sem_o_caso_dos_vazios(estado_a, estado_b):
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    m = np.maximum(m_a, m_b)
    fa, fb = np.exp(m_a - m), np.exp(m_b - m)
    return m, l_a * fa + l_b * fb, acc_a * fa + acc_b * fb


def combinar_esquecendo_acc(estado_a, estado_b):
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    m = max(m_a, m_b)
    if m == -np.inf:
        return estado_a
    return m, l_a * np.exp(m_a - m) + l_b * np.exp(m_b - m), acc_a + acc_b


def combinar_expoente_invertido(estado_a, estado_b):
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    m = max(m_a, m_b)
    if m == -np.inf:
        return estado_a
    fa, fb = np.exp(m - m_a), np.exp(m - m_b)
    return m, l_a * fa + l_b * fb, acc_a * fa + acc_b * fb


def combinar_ja_normalizado(estado_a, estado_b):
    m, l_, acc = combinar(estado_a, estado_b)
    return m, l_, acc / l_ if l_ else acc  # "a saída já sai pronta"


def combinar_so_quando_o_b_e_maior(estado_a, estado_b):
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    if m_b > m_a:  # o bloco novo trouxe um máximo maior: corrige o antigo
        f = np.exp(m_a - m_b)
        return m_b, l_a * f + l_b, acc_a * f + acc_b
    return m_a, l_a + l_b, acc_a + acc_b  # "senão, nada muda"


def combinar_razao(estado_a, estado_b):
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    m = max(m_a, m_b)
    if m == -np.inf:
        return estado_a
    fa, fb = np.exp(m_a) / np.exp(m), np.exp(m_b) / np.exp(m)
    return m, l_a * fa + l_b * fb, acc_a * fa + acc_b * fb


def combinar_no_lugar(estado_a, estado_b):
    m_a, l_a, acc_a = estado_a
    m_b, l_b, acc_b = estado_b
    m = max(m_a, m_b)
    if m == -np.inf:
        return estado_a
    fa, fb = np.exp(m_a - m), np.exp(m_b - m)
    acc_a *= fa  # reaproveita o array do estado a
    acc_a += acc_b * fb
    return m, l_a * fa + l_b * fb, acc_a


def combinar_sem_acc(estado_a, estado_b):
    m, l_, _ = combinar(estado_a, estado_b)
    return m, l_


# --- Exercício 2: o passo da atenção por blocos ----------------------------------------------------------------


def atualizar(estado, q, K_bloco, V_bloco):
    """A solução do notebook."""
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    m = z.max()
    e = np.exp(z - m)
    return combinar(estado, (m, e.sum(), e @ V_bloco))


def atualizar_a_mao(estado, q, K_bloco, V_bloco):
    """Sem a combinar: o máximo corrido e a correção escritos à mão (e o tipo da entrada preservado)."""
    m_velho, l_velho, acc_velho = estado
    z = (K_bloco @ q) / np.sqrt(len(q)).astype(K_bloco.dtype)
    m_novo = max(m_velho, z.max())
    e = np.exp(z - m_novo)
    corr = np.exp(m_velho - m_novo)
    return m_novo, l_velho * corr + e.sum(), acc_velho * corr + V_bloco.T @ e


def atualizar_com_a_biblioteca(estado, q, K_bloco, V_bloco):
    return efficient.combine_states(estado, efficient.partial_state(K_bloco @ q / np.sqrt(q.size), V_bloco))


def atualizar_bloco_primeiro(estado, q, K_bloco, V_bloco):
    z = np.array([k @ q for k in K_bloco]) / math.sqrt(len(q))  # uma key por vez, dentro do bloco
    e = np.exp(z - z.max())
    return combinar((z.max(), e.sum(), e @ V_bloco), estado)  # a combinar é simétrica


def atualizar_devolve_a_saida(estado, q, K_bloco, V_bloco):
    m, l_, acc = atualizar(estado, q, K_bloco, V_bloco)
    return acc / l_


def atualizar_sem_escala(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q
    e = np.exp(z - z.max())
    return combinar(estado, (z.max(), e.sum(), e @ V_bloco))


def atualizar_escala_do_bloco(estado, q, K_bloco, V_bloco):
    d = K_bloco.shape[0]  # "d é a primeira dimensão"
    z = K_bloco @ q / np.sqrt(d)
    e = np.exp(z - z.max())
    return combinar(estado, (z.max(), e.sum(), e @ V_bloco))


def atualizar_esquece_o_estado(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    return z.max(), e.sum(), e @ V_bloco


def atualizar_sem_o_maximo(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z)
    return combinar(estado, (0.0, e.sum(), e @ V_bloco))


def atualizar_maximo_positivo(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    m = max(z.max(), 0)  # "só precisa subtrair se for grande"
    e = np.exp(z - m)
    return combinar(estado, (m, e.sum(), e @ V_bloco))


def atualizar_desempacota_l_m(estado, q, K_bloco, V_bloco):
    soma, m, acc = estado                      # a ordem trocada ao desempacotar
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    return combinar((m, soma, acc), (z.max(), e.sum(), e @ V_bloco))


def atualizar_m_e_o_estado(estado, q, K_bloco, V_bloco):
    m = estado                                 # "o m que veio"
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    m_novo = max(m, z.max())
    e = np.exp(z - m_novo)
    return m_novo, e.sum(), e @ V_bloco


def atualizar_devolve_m_acc_l(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    m, soma, acc = combinar(estado, (z.max(), e.sum(), e @ V_bloco))
    return m, acc, soma


_GUARDADOS: list = []


def atualizar_com_cache_global(estado, q, K_bloco, V_bloco):
    if estado[1] == 0:                         # "começou de novo"
        _GUARDADOS.clear()
    _GUARDADOS.append((K_bloco, V_bloco))
    K = np.concatenate([k for k, _ in _GUARDADOS])
    V = np.concatenate([v for _, v in _GUARDADOS])
    z = K @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    return z.max(), e.sum(), e @ V             # o estado de tudo o que foi guardado


def atualizar_a_mao_sem_corrigir_o_velho(estado, q, K_bloco, V_bloco):
    m_velho, l_velho, acc_velho = estado
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    m = max(m_velho, z.max())
    e = np.exp(z - m)
    return m, l_velho + e.sum(), acc_velho + e @ V_bloco


def atualizar_com_a_softmax_do_bloco(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    pesos = attention.softmax(z)
    return combinar(estado, (z.max(), e.sum(), pesos @ V_bloco))


def atualizar_escala_q_no_lugar(estado, q, K_bloco, V_bloco):
    q /= np.sqrt(q.shape[-1])
    z = K_bloco @ q
    e = np.exp(z - z.max())
    return combinar(estado, (z.max(), e.sum(), e @ V_bloco))


def atualizar_sem_somar(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    return combinar(estado, (z.max(), e.sum(), e[:, None] * V_bloco))


def _com_combinar_pendente():
    """A atualizar do notebook com a combinar ainda no esqueleto (o Exercício 1 pulado)."""
    ambiente = {"np": np}
    exec(  # noqa: S102 - o código é o do estudante, num ambiente próprio (como as células do notebook)
        "def combinar(estado_a, estado_b):\n"
        "    raise NotImplementedError('complete aqui')\n\n"
        "def atualizar(estado, q, K_bloco, V_bloco):\n"
        "    z = K_bloco @ q / np.sqrt(q.shape[-1])\n"
        "    e = np.exp(z - z.max())\n"
        "    return combinar(estado, (z.max(), e.sum(), e @ V_bloco))\n", ambiente)
    return ambiente["atualizar"]


def atualizar_normaliza_tudo(estado, q, K_bloco, V_bloco):
    m, l_, acc = atualizar(estado, q, K_bloco, V_bloco)
    return m, l_, acc / l_  # "o estado guarda a saída até aqui"


# --- Exercício 3: a memória dos pesos ---------------------------------------------------------------------------


def memoria_float(n, n_heads=1, bytes_per_value=4):
    return float(n) ** 2 * n_heads * bytes_per_value


def memoria_por_cabeca(n, n_heads=1, bytes_per_value=4):
    total = 0
    for _ in range(n_heads):
        total += n * n * bytes_per_value
    return total


SUBMISSOES = [
    # combinar: certos
    Submissao(C, combinar, "ok", "combinar: a solução"),
    Submissao(C, combinar_com_math_e_lista, "ok", "combinar: math.exp, devolvendo lista"),
    Submissao(C, combinar_com_if, "ok", "combinar: um ramo para cada máximo"),
    Submissao(C, efficient.combine_states, "ok", "combinar: a do núcleo"),
    # combinar: errados
    Submissao(C, combinar_com_o_menor, "máximo errado", "combinar: min no lugar de max"),
    Submissao(C, combinar_sem_o_caso_dos_vazios, "NaN com os dois vazios", "combinar: sem tratar os dois vazios"),
    Submissao(C, combinar_esquecendo_acc, "acc sem reescalar", "combinar: reescalou só o l"),
    Submissao(C, combinar_expoente_invertido, "sinal trocado no expoente", "combinar: e^(m − m_a)"),
    Submissao(C, combinar_ja_normalizado, "dividiu por l cedo demais", "combinar: devolveu acc / l"),
    Submissao(C, combinar_so_quando_o_b_e_maior, "novo sem reescalar", "combinar: só corrige quando o b é maior"),
    Submissao(C, combinar_razao, "fator como razão de exponenciais (instável)", "combinar: e^(m_a) / e^(m)"),
    Submissao(C, combinar_no_lugar, "mudou a entrada", "combinar: acc_a *= fator no array recebido"),
    Submissao(C, combinar_sem_acc, "tipo", "combinar: devolveu só (m, l)"),
    Submissao(C, combinar_desempacota_m_acc_l, "l e acc trocados", "combinar: m_a, acc_a, l_a = estado_a"),
    # o passo da atenção por blocos: certos
    Submissao(B, _laco(atualizar), "ok", "blocos: a solução, com a combinar"),
    Submissao(B, _laco(atualizar_a_mao), "ok", "blocos: a correção à mão, sem a combinar"),
    Submissao(B, _laco(atualizar_com_a_biblioteca), "ok", "blocos: partial_state e combine_states do núcleo"),
    Submissao(B, _laco(atualizar_bloco_primeiro), "ok", "blocos: a combinar com o bloco primeiro"),
    # o passo da atenção por blocos: errados
    Submissao(B, _laco(atualizar_devolve_a_saida), "devolveu a saída, não o estado", "blocos: devolveu acc / l"),
    Submissao(B, _laco(atualizar_sem_escala), "sem a escala √d", "blocos: z = K_bloco @ q"),
    Submissao(B, _laco(atualizar_escala_do_bloco), "escala pelo tamanho do bloco", "blocos: d = K_bloco.shape[0]"),
    Submissao(B, _laco(atualizar_esquece_o_estado), "só o último bloco", "blocos: devolveu só o estado do bloco"),
    Submissao(B, _laco(atualizar_sem_o_maximo), "bloco sem subtrair o máximo (instável)", "blocos: e = exp(z)"),
    Submissao(B, _laco(atualizar_maximo_positivo), "máximo do bloco só quando positivo (instável)",
              "blocos: m = max(z.max(), 0)"),
    Submissao(B, _laco(atualizar_desempacota_l_m), "desempacotou o estado na ordem errada", "blocos: l, m, acc = estado"),
    Submissao(B, _laco(atualizar_m_e_o_estado), "o estado inteiro no lugar de m", "blocos: m = estado"),
    Submissao(B, _laco(atualizar_devolve_m_acc_l), "l e acc trocados no estado", "blocos: return m, acc, l"),
    Submissao(B, _laco(atualizar_com_cache_global), "o estado não é o da softmax online",
              "blocos: uma lista global com os blocos vistos"),
    Submissao(B, _laco(atualizar_a_mao_sem_corrigir_o_velho), "estado antigo sem reescalar",
              "blocos: à mão, sem corrigir o l e o acc antigos"),
    Submissao(B, _laco(atualizar_com_a_softmax_do_bloco), "acc do bloco dividido por l",
              "blocos: acc com a softmax do bloco"),
    Submissao(B, _laco(atualizar_escala_q_no_lugar), "mudou a entrada", "blocos: q /= √d no array recebido"),
    Submissao(B, _laco(atualizar_sem_somar), "sem somar as keys do bloco", "blocos: e[:, None] * V_bloco"),
    Submissao(B, _laco(_com_combinar_pendente()), "a combinar ainda não foi feita", "blocos: Exercício 1 pulado"),
    Submissao(B, _laco(atualizar_normaliza_tudo), "dividiu por l cedo demais", "blocos: o estado com acc / l"),
    # a memória dos pesos
    Submissao(M, memoria_float, "ok", "memória: em float"),
    Submissao(M, memoria_por_cabeca, "ok", "memória: somando cabeça a cabeça"),
    Submissao(M, lambda n, n_heads=1, bytes_per_value=4: n * n_heads * bytes_per_value, "sem o quadrado",
              "memória: n em vez de n²"),
    Submissao(M, lambda n, n_heads=1, bytes_per_value=4: n ** 2 * n_heads * 4, "bytes por número fixos em 4",
              "memória: 4 bytes escritos à mão"),
    Submissao(M, lambda n, n_heads=1, bytes_per_value=4: n * n * n_heads * bytes_per_value / 1024 ** 3, "em GiB",
              "memória: já em GiB"),
    Submissao(M, lambda n, n_heads=1, bytes_per_value=4: n * (n + 1) // 2 * n_heads * bytes_per_value,
              "só a metade causal", "memória: só o triângulo"),
    Submissao(M, lambda n, n_heads=1, bytes_per_value=4: 8 * n * n * n_heads * bytes_per_value, "bits em vez de bytes",
              "memória: × 8"),
    # a previsão do estado da atenção linear
    Submissao(P, "4.160", "ok", "estado linear: «4.160» com ponto de milhar"),
    Submissao(P, "64² + 64", "ok", "estado linear: a conta «64² + 64»"),
    Submissao(P, 4160, "ok", "estado linear: 4160 no código"),
    Submissao(P, "4096", "esqueceu o normalizador", "estado linear: só S, 64 × 64"),
    Submissao(P, "12.800.000", "pensou no KV cache", "estado linear: «12.800.000»"),
    Submissao(P, "64", "um vetor só", "estado linear: um vetor, como a RNN"),
    Submissao(P, "6 400 000", "um vetor por token", "estado linear: «6 400 000»"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)
