"""Notebook 08: dividir em cabeças, a key/value de cada query, a memória do KV cache, um passo da geração com o KV
cache agrupado e a previsão do cache com o dobro de cabeças, atacados como um estudante erra — o reshape direto, o
.T que inverte tudo, a divisão com float, round e ceil no lugar da divisão inteira, bits e GiB, o append esquecido ou
fora do lugar, a lista nova que some, o cache da MHA, a softmax sem o máximo, a biblioteca que o enunciado proíbe,
pesos mudados no lugar, números à brasileira."""

import math

import numpy as np
import pytest

from helpers import attention
from helpers.licoes import cabecas
from tests.adversarial._base import Submissao, confere, ids

DIV = cabecas.DIVIDIR_CABECAS
KV = cabecas.CABECA_KV
MEM = cabecas.MEMORIA_KV
GER = cabecas.GERAR_GQA
PREV = cabecas.PREVISAO_CACHE_CABECAS


def passo(fn):
    """O passo do estudante como o corretor o corrige: dentro da geração que ele conduz (check_gerar_gqa)."""
    return cabecas.dirigir_passo(fn)


# --- dividir em cabeças ---------------------------------------------------------------------------------------


def div_hsplit(x, n_heads):
    return np.stack(np.hsplit(x, n_heads))


def div_lista_de_fatias(x, n_heads):
    d = x.shape[1] // n_heads
    return [x[:, h * d:(h + 1) * d] for h in range(n_heads)]


def div_swapaxes(x, n_heads):
    return x.reshape(x.shape[0], n_heads, -1).swapaxes(0, 1)


def div_reshape_direto(x, n_heads):
    n, largura = x.shape
    return x.reshape(n_heads, n, largura // n_heads)


def div_esqueceu_transpose(x, n_heads):
    n, largura = x.shape
    return x.reshape(n, n_heads, largura // n_heads)


def div_ponto_t(x, n_heads):
    n, largura = x.shape
    return x.reshape(n, n_heads, largura // n_heads).T


def div_fatia_com_passo(x, n_heads):
    return np.stack([x[:, h::n_heads] for h in range(n_heads)])


def div_de_tras_para_frente(x, n_heads):
    d = x.shape[1] // n_heads
    return np.stack([x[:, h * d:(h + 1) * d] for h in reversed(range(n_heads))])


def div_split_nas_linhas(x, n_heads):
    return np.stack(np.split(x, n_heads))


def div_d_head_float(x, n_heads):
    n, largura = x.shape
    d_head = largura / n_heads
    return x.reshape(n, n_heads, d_head).transpose(1, 0, 2)


def div_fatias_com_float(x, n_heads):
    d = x.shape[1] / n_heads
    return np.stack([x[:, h * d:(h + 1) * d] for h in range(n_heads)])


def div_biblioteca(x, n_heads):
    return attention.split_heads(x, n_heads)


def div_muda_a_forma_de_x(x, n_heads):
    x.shape = (x.shape[0], n_heads, -1)
    return x.transpose(1, 0, 2)


def div_transpose_de_cada_cabeca(x, n_heads):
    n, largura = x.shape
    return x.reshape(n, n_heads, largura // n_heads).transpose(1, 2, 0)


# --- a key/value de cada query ----------------------------------------------------------------------------------


def kv_int_da_fracao(h, n_heads, n_kv_heads):
    return int(h * n_kv_heads / n_heads)


def kv_floor_divide(h, n_heads, n_kv_heads):
    return np.floor_divide(h, n_heads // n_kv_heads)


def kv_round(h, n_heads, n_kv_heads):
    return round(h / (n_heads // n_kv_heads))


def kv_ceil(h, n_heads, n_kv_heads):
    return math.ceil(h / (n_heads / n_kv_heads))


def kv_resto(h, n_heads, n_kv_heads):
    return h % n_kv_heads


def kv_divide_por_n_kv(h, n_heads, n_kv_heads):
    return h // n_kv_heads


def kv_fracao(h, n_heads, n_kv_heads):
    grupo = n_heads / n_kv_heads
    return h / grupo


def kv_query_numero_h_mais_1(h, n_heads, n_kv_heads):
    grupo = n_heads // n_kv_heads
    return (h + 1) // grupo


def kv_contando_de_1(h, n_heads, n_kv_heads):
    grupo = n_heads // n_kv_heads
    return h // grupo + 1


def kv_devolve_h(h, n_heads, n_kv_heads):
    return h


def kv_devolve_o_mapa(h, n_heads, n_kv_heads):
    grupo = n_heads // n_kv_heads
    return [q // grupo for q in range(n_heads)]


# --- a memória do KV cache ----------------------------------------------------------------------------------


def mem_formula(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return 2 * n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value


def mem_math_prod(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return math.prod([2, n_layers, n_kv_heads, n_tokens, d_head, bytes_per_value])


def mem_por_token(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    por_token = 2 * n_kv_heads * d_head * bytes_per_value * 1.0   # key e value de um token, numa camada
    return por_token * n_layers * n_tokens


def mem_so_as_keys(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value


def mem_cabecas_de_query(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return 2 * n_layers * n_heads * n_tokens * d_head * bytes_per_value


def mem_em_bits(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    bits = 8 * bytes_per_value
    return 2 * n_layers * n_kv_heads * n_tokens * d_head * bits


def mem_em_gib(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return 2 * n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value / 1024**3


def mem_em_gb(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return 2 * n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value / 1e9


def mem_uma_camada(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return 2 * n_kv_heads * n_tokens * d_head * bytes_per_value


def mem_biblioteca(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value):
    return attention.kv_cache_bytes(n_tokens, n_layers, n_kv_heads, d_head, bytes_per_value)


# --- um passo da geração com o KV cache (GQA) ---------------------------------------------------------------


def _cabecas(q, K, V, n_heads, n_kv_heads, d_head, escala=None, softmax=None, grupo_de=None):
    """O laço das cabeças como o esqueleto o traz, completado (com um defeito opcional)."""
    grupo = n_heads // n_kv_heads
    partes = []
    for h in range(n_heads):
        g = grupo_de(h) if grupo_de else h // grupo
        z = K[:, g * d_head:(g + 1) * d_head] @ q[h * d_head:(h + 1) * d_head] / (escala or np.sqrt(d_head))
        if softmax:
            w = softmax(z)
        else:
            e = np.exp(z - z.max())
            w = e / e.sum()
        partes.append(w @ V[:, g * d_head:(g + 1) * d_head])
    return partes


def ger_solucao(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    K, V = np.array(cache_k), np.array(cache_v)
    return np.concatenate(_cabecas(x_t @ W_q, K, V, n_heads, n_kv_heads, d_head))


def ger_einsum_com_repeat(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    t = len(cache_k)
    K = np.repeat(np.array(cache_k).reshape(t, n_kv_heads, d_head), n_heads // n_kv_heads, axis=1)
    V = np.repeat(np.array(cache_v).reshape(t, n_kv_heads, d_head), n_heads // n_kv_heads, axis=1)
    z = np.einsum("hd,thd->ht", (x_t @ W_q).reshape(n_heads, d_head), K) / np.sqrt(d_head)
    w = np.exp(z - z.max(axis=1, keepdims=True))
    return np.einsum("ht,thd->hd", w / w.sum(axis=1, keepdims=True), V).ravel()


def ger_com_sdpa(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    K = attention.split_heads(np.array(cache_k), n_kv_heads)
    V = attention.split_heads(np.array(cache_v), n_kv_heads)
    q = attention.split_heads(x_t[None, :] @ W_q, n_heads)
    cab = attention.kv_head_of_query(n_heads, n_kv_heads)
    saida, _ = attention.scaled_dot_product_attention(q, K[cab], V[cab])
    return attention.merge_heads(saida)


def ger_lista_de_floats(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    return ger_solucao(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads).tolist()


def ger_extend(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.extend([x_t @ W_k])
    cache_v += [x_t @ W_v]                     # += numa lista muda a própria lista
    K, V = np.vstack(cache_k), np.vstack(cache_v)
    return np.hstack(_cabecas(x_t @ W_q, K, V, n_heads, n_kv_heads, d_head))


def ger_guarda_depois(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    K, V = np.array(cache_k), np.array(cache_v)
    saida = np.concatenate(_cabecas(x_t @ W_q, K, V, n_heads, n_kv_heads, d_head))
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    return saida


def ger_esqueceu_o_append(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    k, v = x_t @ W_k, x_t @ W_v
    K, V = np.array(cache_k + [k]), np.array(cache_v + [v])
    return np.concatenate(_cabecas(x_t @ W_q, K, V, n_heads, n_kv_heads, d_head))


def ger_vstack_que_some(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k = np.vstack(cache_k + [x_t @ W_k])     # um array novo: a lista do corretor não cresce
    cache_v = np.vstack(cache_v + [x_t @ W_v])
    return np.concatenate(_cabecas(x_t @ W_q, cache_k, cache_v, n_heads, n_kv_heads, d_head))


def ger_append_no_laco(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    grupo = n_heads // n_kv_heads
    q = x_t @ W_q
    partes = []
    for h in range(n_heads):
        cache_k.append(x_t @ W_k)
        cache_v.append(x_t @ W_v)
        K, V = np.array(cache_k), np.array(cache_v)
        g = h // grupo
        z = K[:, g * d_head:(g + 1) * d_head] @ q[h * d_head:(h + 1) * d_head] / np.sqrt(d_head)
        e = np.exp(z - z.max())
        partes.append(e / e.sum() @ V[:, g * d_head:(g + 1) * d_head])
    return np.concatenate(partes)


def ger_listas_trocadas(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_v)
    cache_v.append(x_t @ W_k)
    K, V = np.array(cache_v), np.array(cache_k)   # e lê trocado também: as saídas até saem certas
    return np.concatenate(_cabecas(x_t @ W_q, K, V, n_heads, n_kv_heads, d_head))


def ger_repete_para_cada_query(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    grupo = n_heads // n_kv_heads
    k = np.repeat((x_t @ W_k).reshape(n_kv_heads, d_head), grupo, axis=0).ravel()
    v = np.repeat((x_t @ W_v).reshape(n_kv_heads, d_head), grupo, axis=0).ravel()
    cache_k.append(k)
    cache_v.append(v)
    K, V = np.array(cache_k), np.array(cache_v)   # (com um prompt no cache, os tamanhos nem batem)
    return np.concatenate(_cabecas(x_t @ W_q, K, V, n_heads, n_heads, d_head))


def ger_substitui_o_cache(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k[:] = [x_t @ W_k]
    cache_v[:] = [x_t @ W_v]
    return np.concatenate(_cabecas(x_t @ W_q, np.array(cache_k), np.array(cache_v), n_heads, n_kv_heads, d_head))


def ger_guarda_o_token(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t)                            # "a key é calculada depois"
    cache_v.append(x_t)
    K = np.array([c @ W_k if np.size(c) == W_k.shape[0] else c for c in cache_k])
    V = np.array([c @ W_v if np.size(c) == W_v.shape[0] else c for c in cache_v])
    return np.concatenate(_cabecas(x_t @ W_q, K, V, n_heads, n_kv_heads, d_head))


def ger_intercalado(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    return np.concatenate(_cabecas(x_t @ W_q, np.array(cache_k), np.array(cache_v), n_heads, n_kv_heads, d_head,
                                   grupo_de=lambda h: h % n_kv_heads))


def ger_so_o_token_novo(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    k, v = x_t @ W_k, x_t @ W_v
    cache_k.append(k)
    cache_v.append(v)
    return np.concatenate(_cabecas(x_t @ W_q, k[None, :], v[None, :], n_heads, n_kv_heads, d_head))


def ger_sem_raiz(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    return np.concatenate(_cabecas(x_t @ W_q, np.array(cache_k), np.array(cache_v), n_heads, n_kv_heads, d_head,
                                   escala=1.0))


def ger_raiz_de_d_model(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    return np.concatenate(_cabecas(x_t @ W_q, np.array(cache_k), np.array(cache_v), n_heads, n_kv_heads, d_head,
                                   escala=np.sqrt(n_heads * d_head)))


def _com_softmax(softmax):
    def ger(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
        d_head = W_q.shape[1] // n_heads
        cache_k.append(x_t @ W_k)
        cache_v.append(x_t @ W_v)
        return np.concatenate(_cabecas(x_t @ W_q, np.array(cache_k), np.array(cache_v), n_heads, n_kv_heads, d_head,
                                       softmax=softmax))
    return ger


ger_exp_direto = _com_softmax(lambda z: np.exp(z) / np.sum(np.exp(z)))
ger_max_so_se_positivo = _com_softmax(lambda z: np.exp(z - max(0, z.max())) / np.exp(z - max(0, z.max())).sum())
ger_menos_o_minimo = _com_softmax(lambda z: np.exp(z - np.min(z)) / np.exp(z - np.min(z)).sum())


def ger_um_maximo_para_todas(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    t = len(cache_k)
    cab = np.arange(n_heads) // (n_heads // n_kv_heads)
    K = np.array(cache_k).reshape(t, n_kv_heads, d_head)[:, cab]
    V = np.array(cache_v).reshape(t, n_kv_heads, d_head)[:, cab]
    z = np.einsum("hd,thd->ht", (x_t @ W_q).reshape(n_heads, d_head), K) / np.sqrt(d_head)
    e = np.exp(z - np.max(z))
    return np.einsum("ht,thd->hd", e / e.sum(axis=1, keepdims=True), V).ravel()


def ger_esqueceu_o_concatenate(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    return _cabecas(x_t @ W_q, np.array(cache_k), np.array(cache_v), n_heads, n_kv_heads, d_head)


def ger_escala_w_q_no_lugar(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    W_q /= np.sqrt(d_head)                         # "já deixo as queries escaladas"
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    return np.concatenate(_cabecas(x_t @ W_q, np.array(cache_k), np.array(cache_v), n_heads, n_kv_heads, d_head,
                                   escala=1.0))


def ger_devolve_os_pesos(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    d_head = W_q.shape[1] // n_heads
    cache_k.append(x_t @ W_k)
    cache_v.append(x_t @ W_v)
    K = np.array(cache_k)
    z = K[:, :d_head] @ (x_t @ W_q)[:d_head] / np.sqrt(d_head)
    e = np.exp(z - z.max())
    return e / e.sum()


def ger_devolve_o_cache_junto(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads):
    saida = ger_solucao(x_t, cache_k, cache_v, W_q, W_k, W_v, n_heads, n_kv_heads)
    return saida, cache_k, cache_v


SUBMISSOES = [
    # dividir em cabeças: certas
    Submissao(DIV, div_hsplit, "ok", "np.stack(np.hsplit(x, n_heads))"),
    Submissao(DIV, div_lista_de_fatias, "ok", "uma lista de fatias de colunas, uma por cabeça"),
    Submissao(DIV, div_swapaxes, "ok", "reshape com -1 e swapaxes(0, 1)"),
    # dividir em cabeças: erradas
    Submissao(DIV, div_reshape_direto, "reshape direto", "x.reshape(n_heads, n, d_head) direto"),
    Submissao(DIV, div_esqueceu_transpose, "sem transpor", "só o reshape(n, n_heads, d_head)"),
    Submissao(DIV, div_ponto_t, "transpôs com .T (inverteu os três eixos)", "reshape e depois .T"),
    Submissao(DIV, div_fatia_com_passo, "colunas intercaladas", "x[:, h::n_heads], a fatia com passo"),
    Submissao(DIV, div_de_tras_para_frente, "ordem invertida", "as fatias num reversed(range(n_heads))"),
    Submissao(DIV, div_split_nas_linhas, "linhas divididas", "np.split sem axis (divide as linhas)"),
    Submissao(DIV, div_transpose_de_cada_cabeca, "cabeça transposta", "transpose(1, 2, 0)"),
    Submissao(DIV, div_d_head_float, "d_head em float (/ no lugar de //)", "d_head = largura / n_heads (float) no reshape"),
    Submissao(DIV, div_fatias_com_float, "d_head em float (/ no lugar de //)", "fatias x[:, h*d:(h+1)*d] com d em float"),
    Submissao(DIV, div_biblioteca, "usou attention.split_heads", "attention.split_heads, que o enunciado proíbe"),
    Submissao(DIV, div_muda_a_forma_de_x, "mudou a entrada", "x.shape = (...) muda a forma do próprio x"),
    # a key/value de cada query: certas
    Submissao(KV, kv_int_da_fracao, "ok", "int(h · n_kv_heads / n_heads)"),
    Submissao(KV, kv_floor_divide, "ok", "np.floor_divide, um inteiro do numpy"),
    # a key/value de cada query: erradas
    Submissao(KV, kv_round, "arredondou (round)", "round(h / grupo)"),
    Submissao(KV, kv_ceil, "arredondou para cima (ceil)", "math.ceil(h / grupo)"),
    Submissao(KV, kv_resto, "grupos intercalados (h % n_kv_heads)", "h % n_kv_heads"),
    Submissao(KV, kv_divide_por_n_kv, "dividiu por n_kv_heads", "h // n_kv_heads"),
    Submissao(KV, kv_fracao, "divisão comum", "h / grupo, com grupo em float"),
    Submissao(KV, kv_query_numero_h_mais_1, "contou as queries a partir de 1 ((h + 1) // grupo)", "(h + 1) // grupo"),
    Submissao(KV, kv_contando_de_1, "índices a partir de 1", "h // grupo + 1"),
    Submissao(KV, kv_devolve_h, "devolveu h (o índice da própria query)", "return h (o índice da query, sem mudar)"),
    Submissao(KV, kv_devolve_o_mapa, "tipo", "devolve a lista inteira query → key/value"),
    # a memória do KV cache: certas
    Submissao(MEM, mem_formula, "ok", "a fórmula, com inteiros"),
    Submissao(MEM, mem_math_prod, "ok", "math.prod dos fatores"),
    Submissao(MEM, mem_por_token, "ok", "por token primeiro, em float"),
    # a memória do KV cache: erradas
    Submissao(MEM, mem_so_as_keys, "sem o fator 2", "só as keys (esqueceu os values)"),
    Submissao(MEM, mem_cabecas_de_query, "n_heads no lugar de n_kv_heads", "n_heads na conta"),
    Submissao(MEM, mem_em_bits, "bits em vez de bytes", "8 · bytes_per_value"),
    Submissao(MEM, mem_em_gib, "em GiB", "dividiu por 1024**3"),
    Submissao(MEM, mem_em_gb, "em GB", "dividiu por 1e9"),
    Submissao(MEM, mem_uma_camada, "sem as camadas", "uma camada só"),
    Submissao(MEM, mem_biblioteca, "usou attention.kv_cache_bytes", "a biblioteca, que o enunciado proíbe"),
    # um passo da geração: certos
    Submissao(GER, passo(ger_solucao), "ok", "o esqueleto completado"),
    Submissao(GER, passo(ger_einsum_com_repeat), "ok", "as cabeças de uma vez, com np.repeat e einsum"),
    Submissao(GER, passo(ger_com_sdpa), "ok", "scaled_dot_product_attention sobre o cache, saída (1, ·)"),
    Submissao(GER, passo(ger_lista_de_floats), "ok", "devolve uma lista de floats"),
    Submissao(GER, passo(ger_extend), "ok", "extend e += na própria lista, np.vstack e np.hstack"),
    # um passo da geração: erradas
    Submissao(GER, passo(ger_guarda_depois), "o token não se vê (cache atualizado depois)",
              "a atenção primeiro, o append no fim"),
    Submissao(GER, passo(ger_esqueceu_o_append), "o cache não cresceu", "usa cache_k + [k], sem guardar"),
    Submissao(GER, passo(ger_vstack_que_some), "o cache não cresceu", "cache_k = np.vstack(...) (um array novo)"),
    Submissao(GER, passo(ger_append_no_laco), "o cache cresceu mais de um token por passo",
              "o append dentro do laço das cabeças"),
    Submissao(GER, passo(ger_listas_trocadas), "key e value trocados no cache", "guarda o value em cache_k"),
    Submissao(GER, passo(ger_repete_para_cada_query), "o cache guardou uma key por query (o cache da MHA)",
              "repete a key para cada query antes de guardar"),
    Submissao(GER, passo(ger_substitui_o_cache), "só o último token no cache", "cache_k[:] = [k]"),
    Submissao(GER, passo(ger_guarda_o_token), "o cache guardou outra coisa", "guarda x_t, sem projetar"),
    Submissao(GER, passo(ger_intercalado), "grupos intercalados (h % n_kv_heads)", "g = h % n_kv_heads"),
    Submissao(GER, passo(ger_so_o_token_novo), "só o token novo (não leu o cache)", "K e V só com o token novo"),
    Submissao(GER, passo(ger_sem_raiz), "sem escala", "sem dividir por √d_head"),
    Submissao(GER, passo(ger_raiz_de_d_model), "escala com a largura toda", "divide por √(n_heads·d_head)"),
    Submissao(GER, passo(ger_exp_direto), "sem subtrair o máximo (instável)", "np.exp(z) / np.sum(np.exp(z))"),
    Submissao(GER, passo(ger_max_so_se_positivo), "subtraiu o máximo só quando positivo (instável)",
              "max(0, z.max())"),
    Submissao(GER, passo(ger_menos_o_minimo), "subtraiu o mínimo (instável)", "z − np.min(z)"),
    Submissao(GER, passo(ger_um_maximo_para_todas), "um máximo só para o lote inteiro (instável)",
              "as cabeças juntas, com np.max(z) sem axis"),
    Submissao(GER, passo(ger_esqueceu_o_concatenate), "as cabeças não foram juntadas", "devolve a lista partes"),
    Submissao(GER, passo(ger_escala_w_q_no_lugar), "mudou a entrada", "W_q /= √d_head dentro do passo"),
    Submissao(GER, passo(ger_devolve_os_pesos), "tipo", "devolve os pesos de uma cabeça"),
    Submissao(GER, passo(ger_devolve_o_cache_junto), "tipo", "devolve (saída, cache_k, cache_v)"),
    # a previsão do cache com o dobro de cabeças
    Submissao(PREV, "1", "ok", "«1» digitado"),
    Submissao(PREV, "1,0", "ok", "«1,0» com vírgula"),
    Submissao(PREV, np.float32(1), "ok", "um float32"),
    Submissao(PREV, "2", "mais cabeças, mais cache", "«2»: o dobro de cabeças, o dobro de cache"),
    Submissao(PREV, "0,5", "só o d_head encolheu", "«0,5»"),
    Submissao(PREV, 0.5, "só o d_head encolheu", "0.5 como número"),
    Submissao(PREV, "4", "ao quadrado", "«4»"),
    Submissao(PREV, (0, 5), "tipo", "0,5 escrito no código (vira a tupla (0, 5))"),
    Submissao(PREV, "2x", "tipo", "«2x», com o x"),
]


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)
