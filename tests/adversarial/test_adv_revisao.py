"""Suíte adversária do notebook 11 (revisão): o mecanismo inteiro só com numpy (``check_mecanismo``), a caixa de
previsão do peso da key esticada (``prever_k3_esticada``) e o quiz (cada pergunta corrigida por
:func:`helpers.licoes.revisao.corrigir_resposta`).

No quiz, cada submissão é a resposta **como o estudante a escreve** numa pergunta, e o veredito esperado é explícito:
``"ok"`` (certa), o nome do equívoco que ela revela, ou ``"tipo"`` (um problema de formato — nada revelado)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from helpers import attention
from helpers.corretor import Erro, Previsao
from helpers.data import carregar_quiz
from helpers.licoes import revisao as licao
from helpers.respostas import Formato, RespostaInvalida
from tests.adversarial._base import Submissao, confere, ids

MEC = licao.MECANISMO
K3 = licao.PREVISAO_K3
PERGUNTAS = {p.numero: p for p in carregar_quiz()}


# --- o quiz, visto como uma previsão por pergunta -------------------------------------------------------------
# A suíte corrige cada submissão com ``corrigir_previsao`` (o caminho de toda previsão da coleção). Cada pergunta
# vira uma Previsao cujo formato lê a resposta com a própria correção do quiz (``corrigir_resposta``): o veredito
# tem o mesmo ``erro`` — certa, o equívoco, "tipo" para um problema de formato ou "valor" para a dica.


@dataclass(frozen=True)
class _Diagnostico:
    nome: str


@dataclass(frozen=True)
class _LidaPeloQuiz(Formato):
    numero: int

    def normalizar(self, y: Any) -> _Diagnostico:
        if isinstance(y, _Diagnostico):
            return y
        v = licao.corrigir_resposta(PERGUNTAS[self.numero], y)
        if v.erro == "tipo":
            raise RespostaInvalida(v.mensagem)
        return _Diagnostico("ok" if v.ok else str(v.erro))

    def igual(self, a: _Diagnostico, b: _Diagnostico) -> bool:
        return a.nome == b.nome

    def mostrar(self, x: _Diagnostico) -> str:
        return x.nome


def pergunta(numero: int) -> Previsao:
    """A pergunta ``numero`` do quiz como uma :class:`Previsao` (o corretor de uma submissão do quiz)."""
    nomes = licao.QUIZ.nomes_dos_erros()
    return Previsao(nome=f"pergunta {numero} do quiz", certo=PERGUNTAS[numero].resposta, revelar="",
                    formato=_LidaPeloQuiz(numero),
                    erros=[Erro(n, "", resposta=lambda n=n: _Diagnostico(n)) for n in nomes])


# --- o mecanismo: funções escritas como um estudante as escreve ----------------------------------------------


def _cabecas(M, n_heads):
    n, largura = M.shape
    return M.reshape(n, n_heads, largura // n_heads).transpose(1, 0, 2)


def _juntar(S):
    h, n, d = S.shape
    return S.transpose(1, 0, 2).reshape(n, h * d)


def certo_vetorizado(X, W_q, W_k, W_v, W_o, n_heads):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    Qh, Kh, Vh = _cabecas(Q, n_heads), _cabecas(K, n_heads), _cabecas(V, n_heads)
    z = Qh @ np.swapaxes(Kh, -1, -2) / math.sqrt(Qh.shape[-1])
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return _juntar((e / e.sum(axis=-1, keepdims=True)) @ Vh) @ W_o


def certo_com_laco_nas_cabecas(X, W_q, W_k, W_v, W_o, n_heads):
    """Uma cabeça por vez, fatiando as colunas, e np.concatenate no fim (o exercício não proíbe laços)."""
    d = W_q.shape[1] // n_heads
    saidas = []
    for h in range(n_heads):
        cols = slice(h * d, (h + 1) * d)
        q, k, v = X @ W_q[:, cols], X @ W_k[:, cols], X @ W_v[:, cols]
        z = q @ k.T / np.sqrt(d)
        z = z - np.max(z, axis=1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        saidas.append(p @ v)
    return np.concatenate(saidas, axis=1) @ W_o


def certo_einsum_e_lista(X, W_q, W_k, W_v, W_o, n_heads):
    """einsum, np.split e a saída como lista de listas (com os pesos, no par (saída, pesos))."""
    Qh, Kh, Vh = (np.stack(np.split(X @ W, n_heads, axis=1)) for W in (W_q, W_k, W_v))
    z = np.einsum("hid,hjd->hij", Qh, Kh) / Qh.shape[-1] ** 0.5
    z -= z.max(-1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(-1, keepdims=True)
    out = np.concatenate(list(np.einsum("hij,hjd->hid", p, Vh)), axis=1) @ W_o
    return out.tolist(), p


def certo_em_float32(X, W_q, W_k, W_v, W_o, n_heads):
    """Tudo convertido para float32 no começo (a resposta tem a precisão do float32)."""
    X, W_q, W_k, W_v, W_o = (np.asarray(a, dtype=np.float32) for a in (X, W_q, W_k, W_v, W_o))
    return certo_vetorizado(X, W_q, W_k, W_v, W_o, n_heads)


def certo_com_softmax_propria(X, W_q, W_k, W_v, W_o, n_heads):
    """A softmax estável numa função do próprio estudante (com o nome softmax: não é a da biblioteca)."""
    def softmax(z):
        m = z.max(axis=-1, keepdims=True)
        e = np.exp(z - m)
        return e / e.sum(axis=-1, keepdims=True)

    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    return _juntar(softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[2])) @ V) @ W_o


def _com_softmax(suave):
    """O mecanismo certo com outra softmax (as instáveis que os estudantes escrevem)."""
    def mecanismo(X, W_q, W_k, W_v, W_o, n_heads):
        Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
        z = Q @ K.transpose(0, 2, 1) / math.sqrt(Q.shape[-1])
        return _juntar(suave(z) @ V) @ W_o
    return mecanismo


def softmax_ingenua(z):
    return np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True)


def softmax_max_global(z):
    e = np.exp(z - np.max(z))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_max_se_positivo(z):
    m = z.max(axis=-1, keepdims=True)
    m = np.where(m > 0, m, 0)  # "só preciso subtrair quando é grande"
    e = np.exp(z - m)
    return e / e.sum(axis=-1, keepdims=True)


def softmax_menos_o_minimo(z):
    e = np.exp(z - z.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_soma_o_maximo(z):
    e = np.exp(z + z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_sem_axis_na_soma(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum()


def softmax_do_array_inteiro(z):
    """A softmax do numpy "de cabeça": tudo menos o máximo, dividido pelo total."""
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def softmax_sem_keepdims(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def escala_d_model(X, W_q, W_k, W_v, W_o, n_heads):
    """Divide pelo √ do tamanho do embedding (o d da seção 1 inteira), não da cabeça."""
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(X.shape[1])
    z -= z.max(-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    return _juntar(p @ V) @ W_o


def divide_por_d_head(X, W_q, W_k, W_v, W_o, n_heads):
    d_head = W_q.shape[1] // n_heads
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / d_head
    e = np.exp(z - z.max(-1, keepdims=True))
    return _juntar(e / e.sum(-1, keepdims=True) @ V) @ W_o


def reshape_direto(X, W_q, W_k, W_v, W_o, n_heads):
    """reshape(n_heads, n, d_head) para dividir e reshape(n, d_model) para juntar, sem transpose."""
    n, d_model = X.shape
    d = d_model // n_heads
    Q, K, V = ((X @ W).reshape(n_heads, n, d) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True) @ V).reshape(n, d_model) @ W_o


def junta_sem_transpor(X, W_q, W_k, W_v, W_o, n_heads):
    n = X.shape[0]
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True) @ V).reshape(n, -1) @ W_o


def softmax_axis_1(X, W_q, W_k, W_v, W_o, n_heads):
    """axis=1, como na softmax por linhas de uma matriz 2-D — mas aqui há três eixos."""
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return _juntar(e / e.sum(axis=1, keepdims=True) @ V) @ W_o


def k_ponto_t(X, W_q, W_k, W_v, W_o, n_heads):
    """Q @ K.T, como na atenção de uma cabeça só."""
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    return _juntar(e / e.sum(-1, keepdims=True) @ V) @ W_o


def sem_w_o(X, W_q, W_k, W_v, W_o, n_heads):
    """Junta as cabeças e para: W_o esquecida."""
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    return _juntar(e / e.sum(-1, keepdims=True) @ V)


def soma_as_cabecas(X, W_q, W_k, W_v, W_o, n_heads):
    """"Juntar" as cabeças somando-as (ou tirando a média), não pondo-as lado a lado."""
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True) @ V).sum(axis=0) @ W_o


def pytorch_linear(X, W_q, W_k, W_v, W_o, n_heads):
    """X @ W.T, como um nn.Linear."""
    Q, K, V = (_cabecas(X @ W.T, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    return _juntar(e / e.sum(-1, keepdims=True) @ V) @ W_o


def uma_cabeca(X, W_q, W_k, W_v, W_o, n_heads):
    """Ignora n_heads: a atenção de uma cabeça com as projeções inteiras."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    z = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ V @ W_o


def mistura_as_keys(X, W_q, W_k, W_v, W_o, n_heads):
    Q, K = (_cabecas(X @ W, n_heads) for W in (W_q, W_k))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    return _juntar(e / e.sum(-1, keepdims=True) @ K) @ W_o


def devolve_pesos_e_saida(X, W_q, W_k, W_v, W_o, n_heads):
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
    e = np.exp(z - z.max(-1, keepdims=True))
    pesos = e / e.sum(-1, keepdims=True)
    return pesos, _juntar(pesos @ V) @ W_o


def escala_dobrada_no_lugar(X, W_q, W_k, W_v, W_o, n_heads):
    """Põe a escala dentro de W_q, mudando a matriz de quem chamou (/= no lugar)."""
    W_q /= np.sqrt(W_q.shape[1] // n_heads)
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1)
    e = np.exp(z - z.max(-1, keepdims=True))
    return _juntar(e / e.sum(-1, keepdims=True) @ V) @ W_o


def a_funcao_pronta(X, W_q, W_k, W_v, W_o, n_heads):
    return attention.multi_head_attention(X, X, W_q, W_k, W_v, W_o, n_heads)[0]


def a_softmax_pronta(X, W_q, W_k, W_v, W_o, n_heads):
    """Tudo à mão, menos a softmax: attention.softmax."""
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    return _juntar(attention.softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])) @ V) @ W_o


def _minha_atencao(q, k, v):
    """Uma "atenção minha" que por dentro chama a pronta (escondida numa função auxiliar)."""
    return attention.scaled_dot_product_attention(q, k, v)[0]


def pronta_escondida(X, W_q, W_k, W_v, W_o, n_heads):
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    return _juntar(_minha_atencao(Q, K, V)) @ W_o


def importa_dentro(X, W_q, W_k, W_v, W_o, n_heads):
    """A softmax pronta importada dentro da própria função."""
    from helpers.attention import softmax

    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    return _juntar(softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1]), axis=-1) @ V) @ W_o


def esqueceu_o_return(X, W_q, W_k, W_v, W_o, n_heads):
    saida = certo_vetorizado(X, W_q, W_k, W_v, W_o, n_heads)  # noqa: F841 - o return esquecido


def laco_que_nao_termina(X, W_q, W_k, W_v, W_o, n_heads):
    """O while que devia percorrer as cabeças, sem incrementar h (e um except que engole tudo)."""
    h = 0
    while h < n_heads:
        try:
            X = X + 0.0
        except Exception:  # noqa: BLE001, S112
            continue


def divide_pela_raiz_de_n(X, W_q, W_k, W_v, W_o, n_heads):
    """√ do número de tokens (o tamanho da sequência) no lugar de √d_head."""
    Q, K, V = (_cabecas(X @ W, n_heads) for W in (W_q, W_k, W_v))
    z = Q @ K.transpose(0, 2, 1) / np.sqrt(X.shape[0])
    e = np.exp(z - z.max(-1, keepdims=True))
    return _juntar(e / e.sum(-1, keepdims=True) @ V) @ W_o


SUBMISSOES_MECANISMO = [
    # certas, escritas de jeitos diferentes
    Submissao(MEC, certo_vetorizado, "ok", "mecanismo: vetorizado, swapaxes, math.sqrt"),
    Submissao(MEC, certo_com_laco_nas_cabecas, "ok", "mecanismo: um laço nas cabeças e concatenate"),
    Submissao(MEC, certo_einsum_e_lista, "ok", "mecanismo: einsum, np.split, saída em lista no par (saída, pesos)"),
    Submissao(MEC, certo_em_float32, "ok", "mecanismo: tudo convertido para float32"),
    Submissao(MEC, certo_com_softmax_propria, "ok", "mecanismo: uma softmax estável escrita pelo estudante"),
    # a softmax de dentro, instável
    Submissao(MEC, _com_softmax(softmax_ingenua), "sem subtrair o máximo (instável)",
              "mecanismo: softmax ingênua, exp(z) / soma"),
    Submissao(MEC, _com_softmax(softmax_max_global), "um máximo só para o lote inteiro (instável)",
              "mecanismo: np.max(z) sem axis, um máximo para todas as cabeças"),
    Submissao(MEC, _com_softmax(softmax_max_se_positivo), "subtraiu o máximo só quando positivo (instável)",
              "mecanismo: subtrai o máximo só quando ele é positivo"),
    Submissao(MEC, _com_softmax(softmax_menos_o_minimo), "subtraiu o mínimo (instável)",
              "mecanismo: subtrai o mínimo de cada linha"),
    Submissao(MEC, _com_softmax(softmax_sem_axis_na_soma), "normalizou pela matriz inteira",
              "mecanismo: e / e.sum() sem axis"),
    Submissao(MEC, _com_softmax(softmax_do_array_inteiro), "normalizou pela matriz inteira",
              "mecanismo: np.max e np.sum sem axis (a softmax do array inteiro)"),
    Submissao(MEC, _com_softmax(softmax_sem_keepdims), "faltou keepdims=True",
              "mecanismo: e.sum(axis=-1) sem keepdims (só roda com n = n_heads)"),
    Submissao(MEC, _com_softmax(softmax_soma_o_maximo), "sem subtrair o máximo (instável)",
              "mecanismo: exp(z + máximo), o sinal trocado (certo onde nada estoura)"),
    Submissao(MEC, softmax_axis_1, "softmax no eixo errado", "mecanismo: softmax com axis=1 em (h, n, n)"),
    # escala
    Submissao(MEC, escala_d_model, "escala com d_model", "mecanismo: ÷√d_model"),
    Submissao(MEC, divide_por_d_head, "÷d_head em vez de ÷√d_head", "mecanismo: ÷d_head"),
    Submissao(MEC, divide_pela_raiz_de_n, "raiz do número de keys", "mecanismo: ÷√n (o número de tokens)"),
    # cabeças e formas
    Submissao(MEC, reshape_direto, "dividir e juntar sem transpor", "mecanismo: reshape direto nas duas pontas"),
    Submissao(MEC, junta_sem_transpor, "juntar sem transpor", "mecanismo: divide certo, junta com reshape(n, -1)"),
    Submissao(MEC, k_ponto_t, "Kh.T com três eixos", "mecanismo: Q @ K.T com as cabeças na frente"),
    Submissao(MEC, uma_cabeca, "uma cabeça só", "mecanismo: ignora n_heads"),
    Submissao(MEC, pytorch_linear, "W transpostas", "mecanismo: X @ W.T, como nn.Linear"),
    Submissao(MEC, mistura_as_keys, "soma das keys", "mecanismo: pesos @ K"),
    Submissao(MEC, sem_w_o, "sem W_o", "mecanismo: junta as cabeças e esquece W_o"),
    Submissao(MEC, devolve_pesos_e_saida, "par na ordem trocada", "mecanismo: return pesos, saida"),
    Submissao(MEC, soma_as_cabecas, "forma", "mecanismo: soma as cabeças em vez de pô-las lado a lado — genérico"),
    # o método e a função
    Submissao(MEC, escala_dobrada_no_lugar, "mudou a entrada", "mecanismo: W_q /= √d_head no lugar"),
    Submissao(MEC, a_funcao_pronta, "usou uma atenção ou softmax pronta", "mecanismo: attention.multi_head_attention"),
    Submissao(MEC, a_softmax_pronta, "usou uma atenção ou softmax pronta", "mecanismo: attention.softmax por dentro"),
    Submissao(MEC, pronta_escondida, "usou uma atenção ou softmax pronta",
              "mecanismo: a atenção pronta escondida numa função auxiliar"),
    Submissao(MEC, importa_dentro, "usou uma atenção ou softmax pronta",
              "mecanismo: from helpers.attention import softmax dentro da função"),
    Submissao(MEC, esqueceu_o_return, "pendente", "mecanismo: esqueceu o return"),
    Submissao(MEC, laco_que_nao_termina, "tempo", "mecanismo: while sem incremento, com except que engole"),
]

SUBMISSOES_PREVISAO = [
    Submissao(K3, "0,40", "ok", "previsão k₃: 0,40 com vírgula"),
    Submissao(K3, 0.401, "ok", "previsão k₃: 0.401 como número"),
    Submissao(K3, "40%", "ok", "previsão k₃: em porcentagem"),
    Submissao(K3, "0,32", "o cosseno no lugar do produto escalar", "previsão k₃: o mesmo peso de antes"),
    Submissao(K3, "0.64", "o peso dobra com o escore", "previsão k₃: o dobro"),
    Submissao(K3, "50 %", "o empate leva metade", "previsão k₃: metade, com espaço antes do %"),
    Submissao(K3, (0, 4), "tipo", "previsão k₃: 0,4 escrito em Python (a tupla (0, 4))"),
    Submissao(K3, "0,4,1", "tipo", "previsão k₃: um erro de digitação"),
]

SUBMISSOES_QUIZ = [
    # certas, escritas de jeitos diferentes
    Submissao(pergunta(12), "131 072 bytes", "ok", "quiz 12: 131 072 bytes, milhares com espaço"),
    Submissao(pergunta(12), "131072 bytes", "ok", "quiz 12: 131072 bytes"),
    # as unidades de memória vêm do leitor da coleção (helpers.respostas.unidade_de_memoria): o que ele aceitava
    Submissao(pergunta(12), "128 KIB", "ok", "quiz 12: KiB em maiúsculas"),
    Submissao(pergunta(12), "0,125 mib", "ok", "quiz 12: em MiB, minúsculas, com vírgula"),
    Submissao(pergunta(12), "131072 B", "ok", "quiz 12: em B"),
    Submissao(pergunta(12), "131072 byte", "ok", "quiz 12: em byte"),
    Submissao(pergunta(12), "0,0001220703125 GiB", "ok", "quiz 12: em GiB (2⁻¹³ GiB)"),
    Submissao(pergunta(5), "0.665", "ok", "quiz 5: 0.665, mais casas que as pedidas"),
    Submissao(pergunta(19), "16x", "ok", "quiz 19: 16x"),
    Submissao(pergunta(10), " C) ", "ok", "quiz 10: letra maiúscula com parêntese"),
    Submissao(pergunta(17), np.float32(0.135), "ok", "quiz 17: um float32"),
    # equívocos nomeados
    Submissao(pergunta(12), "131 072", "bytes no lugar de KiB", "quiz 12: os bytes, sem a unidade"),
    Submissao(pergunta(12), "128 KB", "unidade decimal no lugar da binária (KB ≠ KiB)", "quiz 12: 128 KB"),
    # … e o que ele recusava, com o mesmo equívoco
    Submissao(pergunta(12), "128 kB", "unidade decimal no lugar da binária (KB ≠ KiB)", "quiz 12: 128 kB"),
    Submissao(pergunta(12), "0,128 MB", "unidade decimal no lugar da binária (KB ≠ KiB)", "quiz 12: 0,128 MB"),
    Submissao(pergunta(12), "128 Kb", "b minúsculo é bit (kb ≠ KiB)", "quiz 12: 128 Kb (kilobits)"),
    Submissao(pergunta(12), "1 Mb", "b minúsculo é bit (kb ≠ KiB)", "quiz 12: 1 Mb (megabit)"),
    Submissao(pergunta(12), "128 GB", "unidade decimal no lugar da binária (KB ≠ KiB)", "quiz 12: 128 GB"),
    Submissao(pergunta(12), "512 KiB", "as cabeças de query no cache", "quiz 12: 32 cabeças no cache"),
    Submissao(pergunta(12), "128 MiB", "o número certo, noutra unidade", "quiz 12: 128 MiB (não são os bytes)"),
    Submissao(pergunta(12), "128 bytes", "o número certo, noutra unidade", "quiz 12: 128 bytes"),
    Submissao(pergunta(19), "4,7", "crescimento n·log n", "quiz 19: n·log₂ n, 4 · 14/12"),
    Submissao(pergunta(19), 8, "o quadrado como o dobro", "quiz 19: 4 · 2"),
    Submissao(pergunta(19), "4 vezes", "cresce como n", "quiz 19: cresce como n"),
    Submissao(pergunta(5), 0.7, "arredondou com menos casas que as pedidas", "quiz 5: 0,7 (uma casa)"),
    Submissao(pergunta(5), "0,66", "cortou as casas em vez de arredondar", "quiz 5: 0,66 (cortado)"),
    Submissao(pergunta(5), "0,36", "dividiu pela soma, sem exponenciar", "quiz 5: 13/36 com duas casas"),
    Submissao(pergunta(17), "7,389", "sinal trocado no expoente", "quiz 17: e^(5 − 3)"),
    Submissao(pergunta(11), "5", "grupos intercalados (h % n_kv_heads)", "quiz 11: 13 % 8"),
    Submissao(pergunta(8), "a", "máscara depois da softmax", "quiz 8: máscara depois da softmax"),
    Submissao(pergunta(16), "b)", "a atenção linear é a mesma conta", "quiz 16: a linear como exata"),
    # problemas de formato: nada é revelado
    Submissao(pergunta(5), (0, 67), "tipo", "quiz 5: 0,67 escrito em Python (a tupla (0, 67))"),
    Submissao(pergunta(12), "131.072", "tipo", "quiz 12: 131.072, ambíguo"),
    Submissao(pergunta(12), "128 KiBs", "tipo", "quiz 12: uma unidade que o leitor não conhece"),
    Submissao(pergunta(12), "128 TiB", "tipo", "quiz 12: TiB, fora das unidades do leitor"),
    Submissao(pergunta(17), "e^-2", "tipo", "quiz 17: a fórmula, não o número"),
    Submissao(pergunta(1), "e", "tipo", "quiz 1: uma letra que não é opção"),
]

SUBMISSOES = SUBMISSOES_MECANISMO + SUBMISSOES_PREVISAO + SUBMISSOES_QUIZ


@pytest.mark.parametrize("s", SUBMISSOES, ids=ids(SUBMISSOES))
def test_submissao(s):
    confere(s)


@pytest.mark.parametrize("resposta", [(0, 67), (0, 5), "131.072", "4.160"])
def test_um_problema_de_formato_no_quiz_nao_revela_nada(resposta):
    """A mesma mensagem para a resposta certa e para uma errada: quem escreveu mal não descobre se acertou."""
    for numero in (5, 12):
        v = licao.corrigir_resposta(PERGUNTAS[numero], resposta)
        assert v.erro == "tipo", v.mensagem
        assert "certo" not in v.mensagem and "Equívoco" not in v.mensagem and "Dica" not in v.mensagem
        assert PERGUNTAS[numero].explicacao[:30] not in v.mensagem
    tupla = licao.corrigir_resposta(PERGUNTAS[5], (0, 67)).mensagem
    assert "vira a tupla (0, 67)" in tupla and "0.67 (com ponto)" in tupla


def test_a_previsao_da_suite_e_o_quiz_dao_o_mesmo_diagnostico():
    """O adaptador da suíte não inventa nada: o erro é o de ``corrigir_resposta``."""
    for s in SUBMISSOES_QUIZ:
        numero = int(s.corretor.nome.split()[1])
        v = licao.corrigir_resposta(PERGUNTAS[numero], s.resposta)
        assert ("ok" if v.ok else v.erro) == s.esperado, (s.descricao, v.mensagem)
