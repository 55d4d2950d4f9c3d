"""Suíte adversária do notebook 09 (atenção aprendida): o gradiente da atenção, o passo de Adam e as duas previsões,
com submissões escritas como um estudante as escreveria — e as respostas certas escritas de outros jeitos."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import attention
from helpers.corretor import corrigir
from helpers.licoes import aprendida as licao
from helpers.licoes.aprendida import corretores as cor
from helpers.licoes.aprendida import previsoes as prev
from tests._aprendida import diferencas_finitas_a_mao
from tests.adversarial._base import Submissao, confere, ids

G = licao.GRADIENTE_ATENCAO
A = licao.ADAM


# --- o gradiente da atenção --------------------------------------------------------------------------------


def grad_da_solucao(q, k, v, grad_out, mask=None):
    s = 1 / np.sqrt(q.shape[-1])
    S = s * q @ k.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


def grad_uma_query_por_vez(q, k, v, grad_out, mask=None):
    d = q.shape[1]
    gq, gk, gv = np.zeros_like(q, dtype=float), np.zeros_like(k, dtype=float), np.zeros_like(v, dtype=float)
    for i in range(len(q)):
        z = k @ q[i] / np.sqrt(d)
        if mask is not None:
            z = np.where(mask[i], z, -np.inf)
        if not np.isfinite(z).any():
            continue  # ninguém para olhar: nada de gradiente
        p = np.exp(z - z.max())
        p = p / p.sum()
        gv += np.outer(p, grad_out[i])
        dp = v @ grad_out[i]
        ds = p * (dp - p @ dp)
        gq[i] = ds @ k / np.sqrt(d)
        gk += np.outer(ds, q[i]) / np.sqrt(d)
    return gq, gk, gv


def grad_einsum_mascara_finita(q, k, v, grad_out, mask=None):
    escala = q.shape[-1] ** -0.5
    S = np.einsum("qd,kd->qk", q, k) * escala
    if mask is not None:
        S = np.where(mask, S, -1e9)
    P = np.exp(S - S.max(-1, keepdims=True))
    P /= P.sum(-1, keepdims=True)
    dP = np.einsum("qe,ke->qk", grad_out, v)
    dS = P * (dP - np.einsum("qk,qk->q", dP, P)[:, None])
    return np.einsum("qk,kd->qd", dS, k) * escala, np.einsum("qk,qd->kd", dS, q) * escala, np.einsum("qk,qe->ke", P, grad_out)


def grad_listas(q, k, v, grad_out, mask=None):
    dQ, dK, dV = grad_da_solucao(q, k, v, grad_out, mask)
    return [dQ.tolist(), dK.tolist(), dV.tolist()]


def _softmax_linhas(S, referencia):
    e = np.exp(S - referencia(S))
    return e / e.sum(axis=-1, keepdims=True)


def _com_softmax(minha_softmax):
    def grad(q, k, v, grad_out, mask=None):
        s = 1 / np.sqrt(q.shape[-1])
        S = s * q @ k.T
        if mask is not None:
            S = np.where(mask, S, -np.inf)
        P = minha_softmax(S)
        dP = grad_out @ v.T
        dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
        return s * dS @ k, s * dS.T @ q, P.T @ grad_out
    return grad


def grad_dk_sem_s(q, k, v, grad_out, mask=None):
    s = 1 / np.sqrt(q.shape[-1])
    S = s * q @ k.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return s * dS @ k, dS.T @ q, P.T @ grad_out  # lembrou do s só no primeiro


def grad_p_sem_transpor(q, k, v, grad_out, mask=None):
    dQ, dK, _ = grad_da_solucao(q, k, v, grad_out, mask)
    S = q @ k.T / np.sqrt(q.shape[-1])
    P = attention.softmax(S if mask is None else np.where(mask, S, -np.inf))
    return dQ, dK, P @ grad_out


def grad_na_ordem_errada(q, k, v, grad_out, mask=None):
    dQ, dK, dV = grad_da_solucao(q, k, v, grad_out, mask)
    return dV, dQ, dK  # "v, q, k"…


def grad_escala_d(q, k, v, grad_out, mask=None):
    s = 1 / q.shape[-1]
    S = s * q @ k.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


def grad_mascara_multiplicada(q, k, v, grad_out, mask=None):
    S = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        S = S * mask  # "apaga" os escores proibidos
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return dS @ k / np.sqrt(q.shape[-1]), dS.T @ q / np.sqrt(q.shape[-1]), P.T @ grad_out


def grad_mascara_nos_pesos(q, k, v, grad_out, mask=None):
    S = q @ k.T / np.sqrt(q.shape[-1])
    P = attention.softmax(S)
    if mask is not None:
        P = np.where(mask, P, 0.0)  # zera os pesos proibidos (sem renormalizar)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return dS @ k / np.sqrt(q.shape[-1]), dS.T @ q / np.sqrt(q.shape[-1]), P.T @ grad_out


def grad_sem_mascara(q, k, v, grad_out, mask=None):
    return grad_da_solucao(q, k, v, grad_out)  # esqueceu de repassar a máscara


def grad_sem_rowsum(q, k, v, grad_out, mask=None):
    s = 1 / np.sqrt(q.shape[-1])
    S = s * q @ k.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = attention.softmax(S)
    dS = P * (grad_out @ v.T)  # "a derivada de P é P"
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


def grad_rowsum_por_coluna(q, k, v, grad_out, mask=None):
    s = 1 / np.sqrt(q.shape[-1])
    S = s * q @ k.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = P * (dP - np.sum(dP * P, axis=0))
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


def grad_escala_so_na_volta(q, k, v, grad_out, mask=None):
    S = q @ k.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    s = 1 / np.sqrt(q.shape[-1])
    return s * dS @ k, s * dS.T @ q, P.T @ grad_out


def grad_escala_q_no_lugar(q, k, v, grad_out, mask=None):
    q *= 1 / np.sqrt(q.shape[-1])  # "já escalo a query de uma vez"
    S = q @ k.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    P = attention.softmax(S)
    dP = grad_out @ v.T
    dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    return dS @ k / np.sqrt(q.shape[-1]), dS.T @ q, P.T @ grad_out


def grad_pronto(q, k, v, grad_out, mask=None):
    return attention.attention_backward(q, k, v, grad_out, mask)


def diferencas_finitas(f, x, h=1e-6):
    """A do notebook (seção 1), copiada para cá."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        velho = x[idx]
        x[idx] = velho + h
        mais = f()
        x[idx] = velho - h
        menos = f()
        x[idx] = velho
        g[idx] = (mais - menos) / (2 * h)
    return g


def grad_numerico(q, k, v, grad_out, mask=None):
    q, k, v = (np.array(a, dtype=float) for a in (q, k, v))

    def f():
        return np.sum(attention.scaled_dot_product_attention(q, k, v, mask)[0] * grad_out)

    return diferencas_finitas(f, q, 1e-7), diferencas_finitas(f, k, 1e-7), diferencas_finitas(f, v, 1e-7)


def grad_so_dois(q, k, v, grad_out, mask=None):
    dQ, dK, _ = grad_da_solucao(q, k, v, grad_out, mask)
    return dQ, dK  # "v não passa pela softmax, então não tem gradiente"


# --- um passo de Adam ----------------------------------------------------------------------------------------


def adam_da_solucao(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    return theta - taxa * m_hat / (np.sqrt(v_hat) + eps), m, v


def adam_no_lugar(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m *= beta1
    m += (1 - beta1) * g
    v *= beta2
    v += (1 - beta2) * g ** 2
    theta -= taxa * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
    return theta, m, v


def adam_eps_na_raiz_e_lista(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m_novo = beta1 * m + (1 - beta1) * g
    v_novo = beta2 * v + (1 - beta2) * np.square(g)
    passo = (m_novo / (1 - beta1 ** t)) / np.sqrt(v_novo / (1 - beta2 ** t) + eps)
    return [theta - taxa * passo, m_novo, v_novo]


def adam_subindo(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    return theta + taxa * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps), m, v


def adam_sem_correcao(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    return theta - taxa * m / (np.sqrt(v) + eps), m, v


def adam_devolve_corrigidos(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m = m / (1 - beta1 ** t)  # reaproveitou o nome
    v = v / (1 - beta2 ** t)
    return theta - taxa * m / (np.sqrt(v) + eps), m, v


def adam_v_sem_quadrado(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g
    return theta - taxa * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps), m, v


def adam_t_mais_um(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    t = t + 1  # "o passo de agora é o próximo"
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    return theta - taxa * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps), m, v


def adam_taxa_no_g_no_lugar(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    g *= taxa  # o hábito do SGD, e no array de quem chamou
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    return theta - (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps), m, v


def adam_betas_trocados(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta2 * m + (1 - beta2) * g
    v = beta1 * v + (1 - beta1) * g * g
    return theta - taxa * (m / (1 - beta2 ** t)) / (np.sqrt(v / (1 - beta1 ** t)) + eps), m, v


def _adam(fn):
    return cor._adaptador(fn)


def remendo_com_laco(limpa, contrafactual, cabeca, lacunas):
    saida = limpa.copy()
    for b in range(len(lacunas)):
        saida[b, cabeca, lacunas[b]] = contrafactual[b, cabeca, lacunas[b]]
    return saida


def remendo_com_arange(limpa, contrafactual, cabeca, lacunas):
    saida = np.array(limpa)
    b = np.arange(len(lacunas))
    saida[b, cabeca, lacunas] = contrafactual[b, cabeca, lacunas]
    return saida


def remendo_com_where(limpa, contrafactual, cabeca, lacunas):
    m = np.zeros(limpa.shape[:3], dtype=bool)
    m[np.arange(len(lacunas)), cabeca, lacunas] = True
    return np.where(m[..., None], contrafactual, limpa)


def remendo_cruzado(limpa, contrafactual, cabeca, lacunas):
    saida = limpa.copy()
    saida[:, cabeca, lacunas] = contrafactual[:, cabeca, lacunas]
    return saida


def remendo_ultima(limpa, contrafactual, cabeca, lacunas):
    saida = limpa.copy()
    saida[:, cabeca, -1] = contrafactual[:, cabeca, -1]
    return saida


def remendo_cabeca_inteira(limpa, contrafactual, cabeca, lacunas):
    saida = limpa.copy()
    saida[:, cabeca] = contrafactual[:, cabeca]
    return saida


def remendo_no_lugar(limpa, contrafactual, cabeca, lacunas):
    b = np.arange(len(lacunas))
    limpa[b, cabeca, lacunas] = contrafactual[b, cabeca, lacunas]
    return limpa


#: o gradiente por diferenças finitas num laço próprio, sem o nome diferencas_finitas
grad_fd_a_mao = diferencas_finitas_a_mao(1e-5)


SUBMISSOES = [
    # o gradiente: certos
    Submissao(G, grad_da_solucao, "ok", "gradiente: a solução, com attention.softmax"),
    Submissao(G, grad_uma_query_por_vez, "ok", "gradiente: uma query por vez, pulando a query sem keys"),
    Submissao(G, grad_einsum_mascara_finita, "ok", "gradiente: einsum e -1e9 na máscara"),
    Submissao(G, grad_listas, "ok", "gradiente: devolvido como lista de listas"),
    # o gradiente: errados
    Submissao(G, grad_dk_sem_s, "dK sem a escala", "gradiente: o s só no dQ"),
    Submissao(G, grad_p_sem_transpor, "P no lugar de Pᵀ", "gradiente: dV = P @ grad_out"),
    Submissao(G, grad_na_ordem_errada, "ordem trocada na resposta", "gradiente: devolveu dV, dQ, dK"),
    Submissao(G, grad_escala_d, "escala 1/d em vez de 1/√d", "gradiente: s = 1/d"),
    Submissao(G, grad_mascara_multiplicada, "escores mascarados = 0", "gradiente: S * mask"),
    Submissao(G, grad_mascara_nos_pesos, "máscara depois da softmax", "gradiente: np.where(mask, P, 0) depois da softmax"),
    Submissao(G, grad_sem_mascara, "ignorou a máscara", "gradiente: não repassou a máscara"),
    Submissao(G, _com_softmax(lambda S: np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True)),
              "sem subtrair o máximo (instável)", "gradiente: softmax escrita sem o máximo"),
    Submissao(G, _com_softmax(lambda S: _softmax_linhas(S, lambda z: z.max())),
              "um máximo só para o lote inteiro (instável)", "gradiente: S - S.max() sem axis"),
    Submissao(G, _com_softmax(lambda S: _softmax_linhas(S, lambda z: np.clip(z.max(-1, keepdims=True), 0, None))),
              "subtraiu o máximo só quando positivo (instável)", "gradiente: o máximo cortado em 0 (np.clip)"),
    Submissao(G, _com_softmax(lambda S: _softmax_linhas(S, lambda z: z.max(-1, keepdims=True))),
              "NaN na linha toda mascarada", "gradiente: o máximo da linha sem proteger a linha toda -inf"),
    Submissao(G, grad_sem_rowsum, "sem o termo da soma (rowsum)", "gradiente: dS = P * dP"),
    Submissao(G, grad_rowsum_por_coluna, "soma no eixo errado", "gradiente: np.sum(dP * P, axis=0)"),
    Submissao(G, grad_escala_so_na_volta, "escores sem a escala", "gradiente: S = q @ k.T, s só na volta"),
    Submissao(G, grad_escala_q_no_lugar, "mudou a entrada", "gradiente: q *= s no array recebido"),
    Submissao(G, grad_pronto, "usou attention_backward", "gradiente: a resposta pronta do núcleo"),
    Submissao(G, grad_numerico, "usou diferenças finitas", "gradiente: as diferenças finitas da seção 1"),
    Submissao(G, grad_so_dois, "tipo", "gradiente: devolveu só dQ e dK"),
    # Adam: certos
    Submissao(A, _adam(adam_da_solucao), "ok", "Adam: a solução"),
    Submissao(A, _adam(adam_no_lugar), "ok", "Adam: theta, m e v atualizados no lugar"),
    Submissao(A, _adam(adam_eps_na_raiz_e_lista), "ok", "Adam: eps dentro da raiz, devolvendo lista"),
    # Adam: errados
    Submissao(A, _adam(adam_subindo), "sinal trocado (subida do gradiente)", "Adam: theta + taxa · …"),
    Submissao(A, _adam(adam_sem_correcao), "sem a correção de viés", "Adam: sem m̂ e v̂"),
    Submissao(A, _adam(adam_devolve_corrigidos), "devolveu m̂ e v̂ no lugar de m e v",
              "Adam: reaproveitou m e v para os corrigidos"),
    Submissao(A, _adam(adam_v_sem_quadrado), "g no lugar de g² em v", "Adam: v acumula g"),
    Submissao(A, _adam(adam_t_mais_um), "um passo adiantado (t + 1)", "Adam: t = t + 1 no começo"),
    Submissao(A, _adam(adam_taxa_no_g_no_lugar), "mudou a entrada", "Adam: g *= taxa no array recebido"),
    Submissao(A, _adam(adam_betas_trocados), "β₁ e β₂ trocados", "Adam: beta2 em m, beta1 em v"),
    # as previsões
    Submissao(prev.PREVISAO_CAMADA, "1", "ok", "camada: «1» digitado"),
    Submissao(prev.PREVISAO_CAMADA, "1·1", "ok", "camada: a cabeça inteira, «1·1»"),
    Submissao(prev.PREVISAO_CAMADA, "0", "a primeira camada", "camada: «0»"),
    Submissao(prev.PREVISAO_CAMADA, "camada 0", "a primeira camada", "camada: «camada 0»"),
    Submissao(prev.PREVISAO_CAMADA, "a de cima", "tipo", "camada: em palavras"),
    Submissao(prev.PREVISAO_DESLIGAR, "C", "ok", "desligar: «C» maiúsculo"),
    Submissao(prev.PREVISAO_DESLIGAR, "letra c", "ok", "desligar: «letra c»"),
    Submissao(prev.PREVISAO_DESLIGAR, "a", "peso alto = indispensável", "desligar: (a)"),
    Submissao(prev.PREVISAO_DESLIGAR, "(b)", "cai um pouco", "desligar: (b)"),
    Submissao(prev.PREVISAO_REMENDO, "B", "ok", "remendo: «B» maiúsculo"),
    Submissao(prev.PREVISAO_REMENDO, "c", "ela decide sozinha", "remendo: (c)"),
    Submissao(prev.PREVISAO_REMENDO, "(a)", "ela quase não leva nada", "remendo: (a)"),
    # o remendo: certos
    Submissao(cor.REMENDO, remendo_com_laco, "ok", "remendo: um laço nas frases"),
    Submissao(cor.REMENDO, remendo_com_arange, "ok", "remendo: np.arange nas frases"),
    Submissao(cor.REMENDO, remendo_com_where, "ok", "remendo: np.where com uma máscara da lacuna"),
    # o remendo: errados
    Submissao(cor.REMENDO, remendo_cruzado, "lacunas cruzadas", "remendo: saida[:, cabeca, lacunas]"),
    Submissao(cor.REMENDO, remendo_ultima, "última posição", "remendo: saida[:, cabeca, -1]"),
    Submissao(cor.REMENDO, remendo_cabeca_inteira, "todas as posições", "remendo: saida[:, cabeca] inteira"),
    Submissao(cor.REMENDO, remendo_no_lugar, "mudou a entrada", "remendo: limpa[...] = … no array recebido"),
    # a fração: certos e errados
    Submissao(cor.FRACAO_QUE_SEGUE, lambda p, lim, con: float(np.mean(np.equal(p, con))), "ok", "fração: np.equal"),
    Submissao(cor.FRACAO_QUE_SEGUE, lambda p, lim, con: sum(a == b for a, b in zip(p, con)) / len(p), "ok",
              "fração: zip e sum"),
    Submissao(cor.FRACAO_QUE_SEGUE, lambda p, lim, con: float(np.mean(np.asarray(p) == np.asarray(lim))),
              "mediu a acurácia", "fração: a acurácia"),
    Submissao(cor.FRACAO_QUE_SEGUE, lambda p, lim, con: float(np.mean(np.asarray(p) != np.asarray(lim))),
              "contou toda mudança", "fração: toda previsão que mudou"),
    # o gradiente por diferenças finitas escritas à mão, sem o nome diferencas_finitas
    Submissao(G, grad_fd_a_mao, "diferenças finitas à mão", "gradiente: diferenças finitas num laço próprio"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)


def test_patched_comparisons_do_not_pass_a_wrong_adam_step(monkeypatch):
    """Uma célula que troca as comparações do numpy ("np.allclose = lambda *a, **k: True") não aprova um passo de
    Adam errado: o formato da resposta compara com a aritmética do próprio corretor (:func:`helpers.respostas.perto`),
    e o erro continua com o seu nome."""
    monkeypatch.setattr(np, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(np, "array_equal", lambda *a, **k: True)
    erradas = [(adam_sem_correcao, "sem a correção de viés"), (adam_subindo, "sinal trocado (subida do gradiente)")]
    for errada, nome in erradas:
        v = corrigir(A, _adam(errada))
        assert not v.ok and v.erro == nome, v.mensagem
    assert corrigir(A, _adam(adam_da_solucao)).ok
