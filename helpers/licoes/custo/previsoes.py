"""Notebook ``custo_quadratico``: a previsão (prever, depois conferir) — o tamanho do estado da atenção
linear causal —, a sua caixa e o formato que lê uma contagem como o estudante a escreve.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass
from typing import Any

from ...corretor import Erro, Previsao, corretor_de
from ...formato import milhares
from ...previsao import CaixaDePrevisao, caixa
from ...respostas import NumeroAproximado, RespostaInvalida

__all__ = ["Contagem", "PREVISAO_ESTADO_LINEAR", "prever_estado_linear"]


# ---------------------------------------------------------------------------------------------
# Uma contagem, escrita como o estudante escreve
# ---------------------------------------------------------------------------------------------

_PONTO_DE_MILHAR = re.compile(r"^\d{1,3}(?:\.\d{3})+$")
_OPERACOES = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}
_MAIOR = 10**15  # nenhuma contagem desta previsão chega perto: uma conta maior é engano de digitação


def _conta(no: ast.AST) -> int:
    """O valor de uma conta de inteiros com ``+ − × ^`` (a árvore do :mod:`ast`); qualquer outra coisa é inválida."""
    if isinstance(no, ast.Constant) and type(no.value) is int:
        return no.value
    if isinstance(no, ast.BinOp) and type(no.op) in _OPERACOES:
        a, b = _conta(no.left), _conta(no.right)
        if isinstance(no.op, ast.Pow) and not 0 <= b <= 64:
            raise ValueError("expoente fora da faixa")
        valor = _OPERACOES[type(no.op)](a, b)
        if abs(valor) > _MAIOR:
            raise ValueError("conta grande demais")
        return valor
    raise ValueError("não é uma conta de inteiros")


def ler_contagem(texto: str) -> int:
    """Uma contagem digitada: ``"4160"``, ``"4 160"``, ``"12.800.000"`` (ponto de milhar) ou uma conta com
    ``+``, ``-``, ``*``/``×``/``·``/``x`` e ``^``/``²`` (``"64*64 + 64"``, ``"64² + 64"``). Levanta ``ValueError``."""
    limpo = re.sub(r"\s+", "", texto.replace("\u00a0", " ")).rstrip(".")
    limpo = re.sub(r"n[úu]meros?$", "", limpo)
    if _PONTO_DE_MILHAR.match(limpo):
        return int(limpo.replace(".", ""))
    conta = (limpo.replace("×", "*").replace("·", "*").replace("⋅", "*").replace("x", "*").replace("X", "*")
             .replace("^", "**").replace("²", "**2").replace("³", "**3"))
    if not re.fullmatch(r"[0-9+\-*()]+", conta):
        raise ValueError(f"caracteres que não são de uma conta: {texto!r}")
    return _conta(ast.parse(conta, mode="eval").body)


_COMO_ESCREVER = "use um número inteiro (12800, 12 800 ou 12.800) ou uma conta (como 3 * 1000)"


@dataclass(frozen=True)
class Contagem(NumeroAproximado):
    """Quantos números: um inteiro, lido como o estudante o digita (:func:`ler_contagem`: ``"4 160"``,
    ``"4.160"`` com ponto de milhar, ``"64*64 + 64"``) e mostrado com os milhares separados (``4 160``). Um número
    com parte fracionária (``"4,16"``) não é uma contagem: vira um pedido para escrever de novo, sem custar a
    previsão."""

    casas: int = 0

    def normalizar(self, y: Any) -> float:
        if isinstance(y, str):
            try:
                y = ler_contagem(y)
            except (ValueError, SyntaxError):
                raise RespostaInvalida(f"esperava uma contagem — {_COMO_ESCREVER}; veio {y!r}") from None
        valor = super().normalizar(y)
        if not float(valor).is_integer():
            raise RespostaInvalida(f"uma contagem é um número inteiro, e veio {str(valor).replace('.', ',')} — "
                                   f"{_COMO_ESCREVER}")
        return valor

    def mostrar(self, x: float) -> str:
        return milhares(x)


# ---------------------------------------------------------------------------------------------
# A previsão
# ---------------------------------------------------------------------------------------------

PREVISAO_ESTADO_LINEAR = Previsao(
    nome="o estado da atenção linear",
    certo=lambda: 64 * 64 + 64,
    revelar="O estado é S = Σ φ(k_j) v_jᵀ, uma matriz 64 × 64, mais o normalizador u = Σ φ(k_j), com 64 números: "
            "em geral d·d_v + d números, aqui 4160, depois de 10 tokens ou de 100 mil. Ele não cresce — por isso a "
            "geração não precisa de KV cache — e, pelo mesmo motivo, tudo o que a sequência disse precisa caber "
            "nesses 4160 números.",
    formato=Contagem(),
    erros=[
        Erro("pensou no KV cache",
             "Esse é o tamanho de um KV cache (uma key e um value de 64 números por token): é o que a atenção com "
             "softmax guarda. A linear soma tudo num estado que não cresce.",
             resposta=lambda: 2 * 100_000 * 64),
        Erro("um vetor por token",
             "Você guardou um vetor por token. O estado da atenção linear é uma **soma**: cada token novo é somado "
             "nos mesmos números.",
             resposta=lambda: 100_000 * 64),
        Erro("esqueceu o normalizador",
             "Quase: a matriz S = Σ φ(k_j) v_jᵀ tem 64 × 64 = 4096 números, mas a saída também divide por "
             "φ(q)·u, e u = Σ φ(k_j) são mais 64 números.",
             resposta=lambda: 64 * 64),
        Erro("um vetor só",
             "Esse é o tamanho do estado de uma RNN comum (o notebook 01). O estado da atenção linear é uma "
             "**matriz** d × d_v (mais o normalizador): φ(k) vᵀ é um produto externo.",
             resposta=lambda: 64),
    ],
    exemplo="1000",
    # a resposta escrita como número e como fórmula (o d·d_v + d que a seção 6 não pode dizer antes da caixa)
    pistas=("4160", "4 160", "4\u00a0160", "4.160", "d·d_v + d", "d_v + d", "d·d + d", "d² + d", "d·d_v", "d × d_v",
            "64·64 + 64", "64 · 64 + 64", "64 × 64 + 64", "64² + 64", "64*64 + 64", "64 * 64 + 64"),
)


@corretor_de(PREVISAO_ESTADO_LINEAR)
def prever_estado_linear() -> CaixaDePrevisao:
    """A caixa da previsão de quantos números o estado da atenção linear causal guarda com ``d = d_v = 64``
    depois de 100 mil tokens (a resposta: ``64·64 + 64 = 4160``, seja qual for o número de tokens). Reconhece
    cada erro de :data:`PREVISAO_ESTADO_LINEAR`."""
    return caixa(PREVISAO_ESTADO_LINEAR)
