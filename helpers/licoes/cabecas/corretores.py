"""Notebook ``multi_head``: os corretores das contas das cabeças — dividir em cabeças, que key/value cada
query usa (GQA) e a memória do KV cache. A geração com o KV cache fica em :mod:`.geracao`; a previsão, em
:mod:`.previsoes`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...attention import kv_cache_bytes, kv_head_of_query, split_heads
from ...corretor import Caso, Erro, Exercicio, Regra, conferir, corretor_de, usa_nomes
from ...formato import bytes_legiveis, milhares, vetor
from ...respostas import Array, Bytes, NumeroDe

__all__ = ["CABECA_KV", "DIVIDIR_CABECAS", "MEMORIA_KV", "check_cabeca_kv", "check_dividir_cabecas",
           "check_memoria_kv"]


# --- dividir em cabeças --------------------------------------------------------------------------


def _matriz_rotulada(n: int, largura: int) -> np.ndarray:
    """``x[i, c] = 10·i + c`` (n ≤ 9, largura ≤ 10): a dezena é o token, a unidade é a coluna."""
    return (10 * np.arange(n)[:, None] + np.arange(largura)[None, :]).astype(float)


def _fmt_rotulada(x: np.ndarray) -> str:
    """Uma matriz de ``_matriz_rotulada`` sem casas decimais (``[[ 0  1  2] [10 11 12]]``), se for inteira."""
    x = np.asarray(x, dtype=float)
    if np.all(np.isfinite(x)) and np.array_equal(x, np.round(x)):
        return np.array2string(x.astype(int), separator=" ")
    return vetor(x)


@dataclass(frozen=True)
class _Cabecas(Array):
    """As cabeças ``(n_heads, n, d_head)`` de uma matriz rotulada, mostradas pela cabeça 0, sem casas decimais
    (com ``10·token + coluna`` em cada entrada, dá para ler de que token e de que coluna veio cada número)."""

    def mostrar(self, x: np.ndarray) -> str:
        x = np.asarray(x)
        return f"cabeça 0 =\n{_fmt_rotulada(x[0])}" if x.ndim >= 3 else _fmt_rotulada(x)


def _formas_dividir(x: np.ndarray, n_heads: int) -> tuple[int, int, int]:
    n, largura = x.shape
    return n, n_heads, largura // n_heads


def _explica_forma_dividir(x: np.ndarray, n_heads: int) -> str:
    n, h, d = _formas_dividir(x, n_heads)
    return (f"x tem forma {x.shape}: {n} tokens, cada um com largura = n_heads · d_head = {h * d} colunas; com "
            f"n_heads = {h}, d_head = {h * d} / {h} = {d}. Separe as colunas de cada token com x.reshape(n, n_heads, "
            "d_head) e ponha o eixo das cabeças na frente com .transpose(1, 0, 2).")


DIVIDIR_CABECAS = Exercicio(
    nome="dividir em cabeças",
    casos=lambda: [
        Caso(f"com x de forma ({n}, {h * d}), x[token, coluna] = 10·token + coluna, e n_heads = {h}",
             {"x": _matriz_rotulada(n, h * d), "n_heads": h})
        for n, h, d in ((4, 2, 3), (3, 2, 4), (5, 4, 2))
    ],
    certo=split_heads,
    formato=_Cabecas(),
    acerto="Correto! (n, n_heads·d_head) → reshape (n, n_heads, d_head) → transpose (n_heads, n, d_head): a cabeça h "
           "fica com as colunas h·d_head … (h+1)·d_head − 1 de cada token, e nenhum token se mistura com outro.",
    erros=[
        Erro("reshape direto",
             lambda x, n_heads: "Você fez x.reshape(n_heads, n, d_head) direto, sem transpor. O reshape lê os números "
                                "na ordem da memória (linha por linha), então a 'cabeça 0' ficou com as "
                                f"{x.size // n_heads} primeiras entradas de x — pedaços de tokens diferentes "
                                "empilhados, e não as mesmas colunas de todos os tokens. Primeiro separe as colunas de "
                                "cada token, x.reshape(n, n_heads, d_head), e só então troque os dois primeiros eixos: "
                                ".transpose(1, 0, 2).",
             resposta=lambda x, n_heads: x.reshape(n_heads, x.shape[0], x.shape[1] // n_heads)),
        Erro("sem transpor",
             lambda x, n_heads: "Faltou a transposição: x.reshape(n, n_heads, d_head) separa as colunas certas, mas a "
                                f"forma é (n, n_heads, d_head) = {_formas_dividir(x, n_heads)}. Para cada cabeça ser uma "
                                "atenção independente, o eixo das cabeças vem primeiro: .transpose(1, 0, 2) → "
                                "(n_heads, n, d_head).",
             resposta=lambda x, n_heads: x.reshape(*_formas_dividir(x, n_heads))),
        Erro("colunas intercaladas",
             "Colunas intercaladas: a cabeça h ficou com as colunas h, h + n_heads, h + 2·n_heads, … Cada cabeça recebe "
             "um bloco **contíguo** de d_head colunas: a cabeça 0 as colunas 0 … d_head−1, a cabeça 1 as seguintes. "
             "Use x.reshape(n, n_heads, d_head) (não (n, d_head, n_heads)).",
             resposta=lambda x, n_heads: x.reshape(x.shape[0], -1, n_heads).transpose(2, 0, 1)),
        Erro("ordem invertida",
             "As cabeças saíram em ordem invertida: a cabeça 0 deve ficar com as **primeiras** d_head colunas, a "
             "cabeça 1 com as seguintes, e assim por diante.",
             resposta=lambda x, n_heads: split_heads(x, n_heads)[::-1]),
        Erro("cabeça transposta",
             lambda x, n_heads: "Cada cabeça saiu transposta, com forma (d_head, n) = "
                                f"{(_formas_dividir(x, n_heads)[2], x.shape[0])}: as colunas de x.reshape(n, n_heads, "
                                "d_head) estão certas, mas a ordem dos eixos ficou (n_heads, d_head, n). Use "
                                ".transpose(1, 0, 2): cada cabeça é uma matriz (n, d_head), um token por linha, como q, "
                                "k e v da atenção.",
             resposta=lambda x, n_heads: split_heads(x, n_heads).transpose(0, 2, 1)),
        Erro("n_heads e d_head trocados",
             lambda x, n_heads: (lambda n, h, d: f"Você trocou n_heads e d_head: o resultado tem {d} 'cabeças' de {h} "
                                                 f"colunas. Com n_heads = {h}, cada cabeça tem d_head = largura / "
                                                 f"n_heads = {h * d} / {h} = {d} colunas.")(*_formas_dividir(x, n_heads)),
             resposta=lambda x, n_heads: x.reshape(x.shape[0], -1, n_heads).transpose(1, 0, 2)),
        Erro("cabeça achatada",
             "Cada cabeça virou uma linha achatada; ela deve ser uma matriz (n, d_head), um token por linha.",
             resposta=lambda x, n_heads: split_heads(x, n_heads).reshape(n_heads, -1)),
        Erro("transpôs com .T (inverteu os três eixos)",
             lambda x, n_heads: "Você usou .T (ou np.transpose sem eixos) depois do reshape: num array de três eixos, "
                                ".T inverte **todos** — (n, n_heads, d_head) vira (d_head, n_heads, n), aqui "
                                f"{tuple(reversed(_formas_dividir(x, n_heads)))}. Diga quais eixos trocar: "
                                ".transpose(1, 0, 2) troca só os dois primeiros e dá (n_heads, n, d_head).",
             resposta=lambda x, n_heads: x.reshape(*_formas_dividir(x, n_heads)).T),
        Erro("linhas divididas",
             "Você dividiu as **linhas** (os tokens) entre as cabeças, e não as colunas: cada cabeça deve ver **todos** "
             "os tokens, cada um com só d_head das colunas. Divida o último eixo: x.reshape(n, n_heads, "
             "d_head).transpose(1, 0, 2) (ou np.split(x, n_heads, axis=1)).",
             resposta=lambda x, n_heads: np.stack(np.split(x, n_heads, axis=0)) if x.shape[0] % n_heads == 0 else None),
        Erro("d_head em float (/ no lugar de //)",
             lambda x, n_heads: f"Você calculou d_head com a divisão comum: largura / n_heads = {x.shape[1]} / {n_heads} = "
                                f"{x.shape[1] / n_heads} é um float, mesmo quando a divisão é exata, e o reshape (como "
                                "range e as fatias x[:, a:b]) só aceita inteiros. Use a divisão inteira: d_head = "
                                "largura // n_heads (ou deixe o numpy deduzir com -1: x.reshape(n, n_heads, -1)).",
             levanta=lambda exc, caso: isinstance(exc, TypeError) and (
                 "'float' object cannot be interpreted as an integer" in str(exc) or "slice indices" in str(exc))),
    ],
    explica_forma=_explica_forma_dividir,
    dica_de_forma="A saída tem forma (n_heads, n, d_head): uma matriz (n, d_head) por cabeça, um token por linha.",
    regras=[Regra("usou attention.split_heads",
                  "o exercício pede a divisão só com numpy — um reshape e um transpose —, sem attention.split_heads "
                  "(que faz exatamente isso, e é com ela que o corretor confere a sua resposta). Refaça com os dois "
                  "passos da seção 3.",
                  lambda fn: fn is split_heads or usa_nomes(fn, {"split_heads"}))],
)


@corretor_de(DIVIDIR_CABECAS)
def check_dividir_cabecas(fn: Callable[[np.ndarray, int], Any]) -> bool:
    """Confere ``fn(x, n_heads)``: ``(n, n_heads·d_head)`` → ``(n_heads, n, d_head)``, com a cabeça ``h``
    recebendo as colunas ``h·d_head : (h+1)·d_head`` de cada token.

    Nos casos, ``x[i, c] = 10·i + c`` (a dezena é o token, a unidade é a coluna), e as mensagens mostram a cabeça
    0: nela se lê de que token e de que coluna veio cada número.
    """
    return conferir(DIVIDIR_CABECAS, fn)


# --- que key/value cada query usa ----------------------------------------------------------------

#: as configurações ``(n_heads, n_kv_heads)`` do exercício: GQA com 3 cabeças de key/value (primeiro: na query 0, só quem
#: soma 1 a tudo responde 1), GQA com grupos de 4 e de 2, MHA e MQA
_CONFIGURACOES_KV = ((6, 3), (8, 2), (8, 4), (8, 8), (8, 1))


def _lista(valores: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in valores) + "]"


def _tabela_kv(regra: str, sua: Callable[[int, int, int], float]) -> Callable[..., str]:
    """Uma explicação que termina com a tabela "query h · certo · o que ``regra`` dá" da configuração do caso."""

    def tabela(h: int, n_heads: int, n_kv_heads: int) -> str:
        grupo = n_heads // n_kv_heads
        rotulos = ("query h", "certo", regra)
        largura = max(map(len, rotulos))
        linhas = [list(range(n_heads)), [q // grupo for q in range(n_heads)],
                  [sua(q, n_heads, n_kv_heads) for q in range(n_heads)]]
        return (f"Com n_heads = {n_heads} e n_kv_heads = {n_kv_heads}:\n"
                + "\n".join(f"  {r.ljust(largura)} : {_lista(v)}" for r, v in zip(rotulos, linhas)))

    return tabela


def _erro_kv(nome: str, texto: str, regra: str, sua: Callable[[int, int, int], float]) -> Erro:
    tabela = _tabela_kv(regra, sua)
    return Erro(nome, lambda **e: f"{texto}\n{tabela(**e)}", resposta=sua)


def _arredondada(h: int, n_heads: int, n_kv_heads: int) -> int:
    return round(h / (n_heads // n_kv_heads))


def _arredondou(y: Any, h: int, n_heads: int, n_kv_heads: int) -> bool:
    """A resposta é h / grupo arredondado para o mais próximo: ``round`` (que leva x,5 ao par) ou "x,5 para cima"."""
    grupo = n_heads // n_kv_heads
    valor = NumeroDe().normalizar(y)
    return valor != h // grupo and valor in (round(h / grupo), math.floor(h / grupo + 0.5))


CABECA_KV = Exercicio(
    nome="a key/value de cada query",
    casos=lambda: [
        Caso(f"com n_heads = {n_h}, n_kv_heads = {n_kv} e a query h = {h}", {"h": h, "n_heads": n_h, "n_kv_heads": n_kv})
        for n_h, n_kv in _CONFIGURACOES_KV for h in range(n_h)
    ],
    certo=lambda h, n_heads, n_kv_heads: kv_head_of_query(n_heads, n_kv_heads)[h],
    formato=NumeroDe(o_que="um número inteiro (o índice da cabeça de key/value)"),
    acerto="Correto! A query h usa a key/value h // (n_heads // n_kv_heads): com 8 cabeças de query e 2 de key/value, as "
           "queries 0–3 leem a key/value 0 e as 4–7 a key/value 1. Com n_kv_heads = n_heads cada uma tem a sua (MHA); "
           "com n_kv_heads = 1 todas leem a mesma (MQA).",
    erros=[
        # devolver h coincide com h % n_kv_heads nas primeiras queries de cada configuração: só o nome próprio explica
        # todas as falhas (e nenhuma falha de outro erro, pois h é a resposta errada só de quem devolve h)
        _erro_kv("devolveu h (o índice da própria query)",
                 "Você devolveu h, o índice da própria query: isso só vale na MHA (n_kv_heads = n_heads), em que cada "
                 "query tem a sua key/value. Com GQA, grupo = n_heads // n_kv_heads queries **consecutivas** "
                 "compartilham uma key/value, e a query h usa a de índice h // grupo (sempre menor que n_kv_heads).",
                 "h", lambda h, n_heads, n_kv_heads: h),
        _erro_kv("grupos intercalados (h % n_kv_heads)",
                 "Você usou h % n_kv_heads: os grupos ficaram intercalados (queries 0, 2, 4, … numa key/value e 1, 3, "
                 "5, … na outra). A convenção é de queries **consecutivas**: o grupo g são as queries g·grupo … "
                 "(g+1)·grupo − 1, com grupo = n_heads // n_kv_heads; o índice é h // grupo.",
                 "h % n_kv_heads", lambda h, n_heads, n_kv_heads: h % n_kv_heads),
        _erro_kv("dividiu por n_kv_heads",
                 "Você dividiu h pelo número de cabeças de key/value (h // n_kv_heads). O divisor é o **tamanho do "
                 "grupo**, quantas queries compartilham cada key/value: grupo = n_heads // n_kv_heads, e a resposta é "
                 "h // grupo (nunca passa de n_kv_heads − 1).",
                 "h // n_kv_heads", lambda h, n_heads, n_kv_heads: h // n_kv_heads),
        _erro_kv("contou as queries a partir de 1 ((h + 1) // grupo)",
                 "Você somou 1 a h antes de dividir ((h + 1) // grupo), como se a primeira query fosse a 1: a última "
                 "query de cada grupo pulou para o grupo seguinte. As queries já são contadas a partir de 0: a query "
                 "h usa a key/value h // grupo, sem o + 1.",
                 "(h + 1) // grupo", lambda h, n_heads, n_kv_heads: (h + 1) // (n_heads // n_kv_heads)),
        Erro("arredondou (round)",
             lambda **e: "Você arredondou h / grupo para o inteiro mais próximo (round): a partir da metade do grupo, "
                         "as queries pularam para a key/value seguinte. O índice é a parte inteira da divisão, "
                         "**truncada** — h // grupo —: todas as queries do grupo g, de g·grupo a (g+1)·grupo − 1, "
                         "usam a key/value g.\n" + _tabela_kv("round(h / grupo)", _arredondada)(**e),
             quando=lambda y, certo, caso: _arredondou(y, **caso.entradas)),
        _erro_kv("arredondou para cima (ceil)",
                 "Você arredondou h / grupo para cima (math.ceil): só a primeira query de cada grupo ficou no lugar "
                 "certo. O índice é a divisão **truncada**, h // grupo (arredondada para baixo).",
                 "ceil(h / grupo)", lambda h, n_heads, n_kv_heads: math.ceil(h / (n_heads // n_kv_heads))),
        _erro_kv("índices a partir de 1",
                 "As suas respostas deram 1 a mais que a certa, como se a primeira cabeça de key/value fosse a 1: "
                 "em Python (e aqui) os índices começam em 0. Use h // grupo, sem o + 1.",
                 "h // grupo + 1", lambda h, n_heads, n_kv_heads: h // (n_heads // n_kv_heads) + 1),
        _erro_kv("divisão comum",
                 "Você usou a divisão comum (h / grupo), que dá frações como 0,25 e 0,5. O índice de uma cabeça é "
                 "inteiro: use a divisão inteira, h // grupo, que joga fora o resto.",
                 "h / grupo", lambda h, n_heads, n_kv_heads: h / (n_heads // n_kv_heads)),
        _erro_kv("grupos em ordem invertida",
                 "Os grupos saíram em ordem invertida: as primeiras queries leram a **última** key/value. O grupo 0 "
                 "(as queries 0 … grupo − 1) usa a key/value 0, o grupo 1 a key/value 1, e assim por diante: "
                 "h // grupo, sem subtrair de n_kv_heads − 1.",
                 "n_kv_heads − 1 − h // grupo",
                 lambda h, n_heads, n_kv_heads: n_kv_heads - 1 - h // (n_heads // n_kv_heads)),
        _erro_kv("tamanho do grupo no lugar do índice",
                 "Você devolveu o tamanho do grupo (n_heads // n_kv_heads), que é o mesmo para todas as queries. "
                 "Queremos o **índice** da cabeça de key/value da query h: h // grupo.",
                 "n_heads // n_kv_heads", lambda h, n_heads, n_kv_heads: n_heads // n_kv_heads),
    ],
)


@corretor_de(CABECA_KV)
def check_cabeca_kv(fn: Callable[[int, int, int], Any]) -> bool:
    """Confere ``fn(h, n_heads, n_kv_heads)`` = a cabeça de key/value usada pela query ``h`` na atenção
    com keys/values agrupadas (GQA): ``h // (n_heads // n_kv_heads)``, grupos de queries **consecutivas**.

    Uma chamada por query; a resposta pode ser ``int``, ``float`` inteiro ou um inteiro do numpy.
    """
    return conferir(CABECA_KV, fn)


# --- a memória do KV cache -----------------------------------------------------------------------


def _kv_certo(n_tokens: int, n_layers: int, n_heads: int, n_kv_heads: int, d_head: int, bytes_per_value: int) -> int:
    return kv_cache_bytes(n_tokens, n_layers, n_kv_heads, d_head, bytes_per_value)


def _kv_vezes(fator: Callable[..., float]) -> Callable[..., float]:
    """A resposta de um erro que multiplica a memória certa por ``fator(**entradas)``."""
    return lambda **c: _kv_certo(**c) * fator(**c)


_BYTES = {1: "1 byte = 8 bits", 2: "2 bytes = 16 bits", 4: "4 bytes = 32 bits"}

#: a configuração do notebook: 32 camadas, 32 cabeças de query e 8 de key/value com d_head = 128, fp16, 4096 tokens
_KV_NOTEBOOK = {"n_tokens": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8, "d_head": 128, "bytes_per_value": 2}


def _acerto_kv() -> str:
    c = _KV_NOTEBOOK
    escolha, mha = _kv_certo(**c), _kv_certo(**{**c, "n_kv_heads": c["n_heads"]})
    return (f"Correto! 2 · n_layers · n_kv_heads · n_tokens · d_head · bytes_per_value — n_heads não entra, as queries "
            f"não são guardadas. Na configuração do notebook: 2 · {c['n_layers']} · {c['n_kv_heads']} · "
            f"{c['n_tokens']} · {c['d_head']} · {c['bytes_per_value']} = {milhares(escolha)} bytes = "
            f"{bytes_legiveis(escolha)} (a MHA, com {c['n_heads']} cabeças de key/value, precisaria de {bytes_legiveis(mha)}).")


MEMORIA_KV = Exercicio(
    nome="a memória do KV cache",
    casos=lambda: [
        # pequena: n_heads / n_kv_heads = 6 e 3 camadas, para que cada erro dê um número diferente
        Caso("numa configuração pequena (1000 tokens, 3 camadas, 12 cabeças de query, 2 de key/value, d_head = 64, int8 = 1 "
             "byte)", {"n_tokens": 1000, "n_layers": 3, "n_heads": 12, "n_kv_heads": 2, "d_head": 64,
                       "bytes_per_value": 1}),
        Caso("na configuração do notebook (4096 tokens, 32 camadas, 32 cabeças de query, 8 de key/value, d_head = 128, fp16 = "
             "2 bytes)", dict(_KV_NOTEBOOK)),
        # em fp32, esquecer os bytes (÷4) não se confunde com esquecer o fator 2 (÷2)
        Caso("numa configuração MQA em fp32 (512 tokens, 4 camadas, 16 cabeças de query, 1 de key/value, d_head = 32, 4 bytes)",
             {"n_tokens": 512, "n_layers": 4, "n_heads": 16, "n_kv_heads": 1, "d_head": 32, "bytes_per_value": 4}),
    ],
    certo=_kv_certo,
    formato=Bytes(),
    acerto=_acerto_kv,
    erros=[
        Erro("sem o fator 2",
             "Faltou o fator 2: o cache guarda **duas** coisas por token, a key **e** o value.",
             resposta=_kv_vezes(lambda **c: 1 / 2)),
        Erro("n_heads no lugar de n_kv_heads",
             "Você usou n_heads (as cabeças de query) no lugar de n_kv_heads. O cache só guarda keys e values, e com "
             "GQA há n_kv_heads delas; as queries não são guardadas.",
             resposta=_kv_vezes(lambda n_heads, n_kv_heads, **_: n_heads / n_kv_heads)),
        Erro("n_heads e sem o fator 2",
             "Dois erros: usou n_heads no lugar de n_kv_heads (o cache só guarda keys e values) e esqueceu o fator 2 "
             "(key **e** value).",
             resposta=_kv_vezes(lambda n_heads, n_kv_heads, **_: n_heads / n_kv_heads / 2)),
        Erro("bits em vez de bytes",
             lambda bytes_per_value, **_: "Você contou bits, não bytes: multiplicou por 8, mas bytes_per_value já diz "
                                          "quantos **bytes** ocupa cada número (aqui "
                                          f"{_BYTES.get(bytes_per_value, f'{bytes_per_value} bytes')}). A resposta é "
                                          "em bytes: use bytes_per_value como veio.",
             resposta=_kv_vezes(lambda **c: 8)),
        Erro("bits e sem o fator 2",
             "Dois erros: contou bits em vez de bytes (não multiplique por 8: bytes_per_value já está em bytes) e "
             "esqueceu o fator 2 (key **e** value).",
             resposta=_kv_vezes(lambda **c: 4)),
        Erro("n_heads e bits",
             "Dois erros: usou n_heads no lugar de n_kv_heads (as queries não são guardadas) e contou bits em vez de "
             "bytes.",
             resposta=_kv_vezes(lambda n_heads, n_kv_heads, **_: 8 * n_heads / n_kv_heads)),
        Erro("dividiu por 8",
             lambda bytes_per_value, **_: "Você dividiu por 8, como se a precisão viesse em bits: bytes_per_value já "
                                          "vem em **bytes** (aqui "
                                          f"{_BYTES.get(bytes_per_value, f'{bytes_per_value} bytes')}), e o resultado "
                                          "ficou 8 vezes menor. Não há conversão a fazer.",
             resposta=_kv_vezes(lambda **c: 1 / 8)),
        Erro("sem as camadas",
             "Faltaram as camadas: cada uma das n_layers camadas guarda as suas próprias keys e values.",
             resposta=_kv_vezes(lambda n_layers, **_: 1 / n_layers)),
        Erro("sem os bytes",
             "Você contou **números**, não bytes: multiplique por bytes_per_value (2 em fp16/bf16, 4 em fp32, 1 em "
             "int8).",
             resposta=_kv_vezes(lambda bytes_per_value, **_: 1 / bytes_per_value)),
        Erro("em GiB",
             "A resposta deve estar em **bytes**; você devolveu GiB (dividiu por 2³⁰). Converta só na hora de mostrar.",
             resposta=_kv_vezes(lambda **c: 2.0**-30)),
        Erro("em MiB",
             "A resposta deve estar em **bytes**; você devolveu MiB (dividiu por 2²⁰). Converta só na hora de mostrar.",
             resposta=_kv_vezes(lambda **c: 2.0**-20)),
        Erro("em GB",
             "A resposta deve estar em **bytes**; você devolveu GB (dividiu por 10⁹). Converta só na hora de mostrar.",
             resposta=_kv_vezes(lambda **c: 1e-9)),
    ],
    regras=[Regra("usou attention.kv_cache_bytes",
                  "o exercício pede a fórmula escrita por você, sem attention.kv_cache_bytes (é com ela que o "
                  "corretor confere a resposta). Escreva a conta: o que o cache guarda por token, camada e cabeça de "
                  "key/value, vezes o resto.",
                  lambda fn: fn is kv_cache_bytes or usa_nomes(fn, {"kv_cache_bytes"}))],
)


@corretor_de(MEMORIA_KV)
def check_memoria_kv(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(n_tokens, n_layers, n_heads, n_kv_heads, d_head, bytes_per_value)`` = bytes do KV cache,
    ``2 · n_layers · n_kv_heads · n_tokens · d_head · bytes_per_value`` (os nomes são os de
    :func:`helpers.attention.kv_cache_bytes`, que dá a resposta certa; ``n_heads`` não entra na conta).
    """
    return conferir(MEMORIA_KV, fn)
