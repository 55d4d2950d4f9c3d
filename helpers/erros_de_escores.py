"""Os erros clássicos de "os escores de uma query contra todas as keys", que dois notebooks corrigem.

O ``produto_escalar`` os cobra em ``escores(q, K)``; o ``escala_raiz_d`` os reusa com a escala por cima
(``escores_escalados``). Cada :class:`~helpers.corretor.Erro` recebe ``q`` ``(d,)`` e ``K`` ``(n, d)``.
"""

from __future__ import annotations

import numpy as np

from .corretor import Erro, bate_com_alguma
from .respostas import Array

__all__ = ["ERROS_ESCORES", "ERROS_DE_LACO_E_ORDEM", "explica_forma_q_k"]


def explica_forma_q_k(q: np.ndarray, K: np.ndarray) -> str:
    """Por que ``q @ K`` não fecha quando ``K`` é ``(n, d)`` com ``n ≠ d`` (usado também no 03)."""
    n, d = K.shape
    return (f"aqui q tem forma ({d},) e K tem forma ({n}, {d}): **uma key por linha**. q @ K tentaria casar as "
            f"{d} coordenadas de q com as {n} linhas de K, e isso não fecha. Para comparar q com cada linha, use "
            f"K @ q ((n, d) @ (d,) = (n,)) ou q @ K.T ((d,) @ (d, n) = (n,)).")


#: os erros clássicos de "os escores de uma query contra todas as keys" (o 03 os reusa com a escala)
ERROS_ESCORES = [
    Erro("produto sem a soma",
         "Você multiplicou coordenada a coordenada (q * K dá uma matriz (n, d)), mas esqueceu de **somar** os "
         "produtos de cada key: some ao longo do último eixo, np.sum(q * K, axis=-1), ou use K @ q.",
         resposta=lambda q, K: q * K),
    Erro("soma no eixo errado",
         "Você somou no eixo errado: np.sum(q * K, axis=0) soma as keys entre si, coordenada por coordenada, e dá "
         "um vetor (d,). Cada escore é a soma ao longo das coordenadas de uma key: axis=-1 (ou K @ q).",
         resposta=lambda q, K: np.sum(q * K, axis=0)),
    Erro("tudo somado num número só",
         "Você somou tudo num número só (a soma de todos os escores). Queremos um escore por key: um vetor (n,), "
         "com q·kᵢ na posição i.",
         resposta=lambda q, K: np.sum(q * K)),
    Erro("cosseno no lugar do produto escalar",
         "Você calculou o **cosseno** (q·k dividido por |q||k|), não o produto escalar. A atenção usa q·k puro: o "
         "comprimento dos vetores também conta.",
         resposta=lambda q, K: K @ q / (np.linalg.norm(q) * np.linalg.norm(K, axis=1))),
    Erro("keys normalizadas",
         "Você normalizou as keys (dividiu cada kᵢ por |kᵢ|) antes do produto. Use as keys como vieram: uma key mais "
         "longa deve dar um escore maior.",
         resposta=lambda q, K: K @ q / np.linalg.norm(K, axis=1)),
    Erro("query normalizada",
         "Você normalizou a query (dividiu q por |q|) antes do produto. Use q como veio: o comprimento de q "
         "multiplica todos os escores, e isso importa para a softmax.",
         resposta=lambda q, K: K @ q / np.linalg.norm(q)),
    Erro("valor absoluto",
         "Você tirou o valor absoluto: uma key que aponta para o lado oposto de q tem escore **negativo**, e isso é "
         "informação (ela casa pior que uma key perpendicular, de escore 0).",
         resposta=lambda q, K: np.abs(K @ q)),
    Erro("escores já ordenados",
         "Você devolveu os escores já ordenados. A posição i do resultado deve ser o escore da key i (na ordem das "
         "linhas de K); ordenar é outro passo (np.argsort).",
         resposta=lambda q, K: np.sort(K @ q)[::-1]),
    Erro("escores ordenados do menor ao maior",
         "Você devolveu os escores ordenados. A posição i do resultado deve ser o escore da key i (na ordem das "
         "linhas de K); ordenar é outro passo (np.argsort).",
         resposta=lambda q, K: np.sort(K @ q)),
    Erro("q @ K sem transpor",
         "Você calculou q @ K sem transpor. Com K quadrada isso roda, mas combina as **linhas** de K usando os "
         "números de q como pesos; não compara q com cada key. Cada key é uma linha de K: use K @ q (ou q @ K.T). "
         "(K.T @ q é a mesma conta que q @ K: a transposta ficou no fator errado.)",
         resposta=lambda q, K: q @ K if K.shape[0] == K.shape[1] else None),
]

#: os erros de laço e de ordem dos escores (o 03 reusa, com a escala, os que têm ``resposta``; os de ``quando``
#: reconhecem várias versões do mesmo erro)
ERROS_DE_LACO_E_ORDEM = [
    Erro("faltou a última key",
         "Faltou o escore da última key: o resultado tem n − 1 números. O laço parou uma volta antes "
         "(range(len(K) - 1)?): percorra **todas** as linhas de K, for k in K.",
         resposta=lambda q, K: (K @ q)[:-1]),
    Erro("pulou a primeira key",
         "Faltou o escore da primeira key: o laço começou na linha 1 (range(1, len(K))?). Em Python as linhas "
         "começam em 0: K[0] é a primeira key.",
         resposta=lambda q, K: (K @ q)[1:]),
    Erro("faltou a última coordenada",
         "Cada escore deixou de fora a última coordenada: o laço sobre as coordenadas parou uma antes "
         "(range(len(q) - 1)?). O produto escalar soma qᵢkᵢ de **todas** as d coordenadas.",
         resposta=lambda q, K: K[:, :-1] @ q[:-1]),
    Erro("não zerou a soma a cada key",
         "Cada escore carregou a soma dos anteriores: o acumulador começou em 0 uma vez só, fora do laço das keys. "
         "Zere o total **para cada key** (dentro do laço de fora), antes de somar os produtos dela.",
         resposta=lambda q, K: np.cumsum(K @ q)),
    Erro("só o primeiro escore",
         "Veio só o escore da primeira key: um `return` dentro do laço sai da função já na primeira volta. Guarde "
         "cada escore numa lista e devolva a lista depois do laço.",
         quando=bate_com_alguma(Array(), lambda q, K: K[0] @ q, lambda q, K: (K @ q)[:1])),
    Erro("só o maior escore",
         "Você devolveu só a vencedora (o maior escore, ou o índice dela). Queremos o escore de **cada** key, na "
         "ordem das linhas de K; quem vence é o passo seguinte (np.argmax, np.argsort).",
         quando=bate_com_alguma(Array(), lambda q, K: np.max(K @ q), lambda q, K: np.argmax(K @ q))),
    Erro("devolveu o ranking",
         "Você devolveu o ranking (os **índices** das keys, de np.argsort), não os escores. A posição i do resultado "
         "deve ser o escore q·kᵢ da key i.",
         quando=bate_com_alguma(Array(), lambda q, K: np.argsort(-(K @ q), kind="stable"),
                                 lambda q, K: np.argsort(K @ q, kind="stable"),
                                 lambda q, K: np.argsort(K @ q, kind="stable")[::-1])),
    Erro("ordem invertida",
         "Os escores estão certos, mas na ordem inversa (o da última key primeiro). A posição i do resultado deve "
         "ser o escore da key i, na ordem das linhas de K: não inverta a lista.",
         resposta=lambda q, K: (K @ q)[::-1]),
]
