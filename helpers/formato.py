"""Como os números aparecem para o estudante: milhares, bytes, índices e vetores.

Um só lugar para corretores, painéis, figuras e notebooks escreverem números do mesmo jeito:
milhares separados por espaço (``536 870 912``, sem vírgula nem ponto ambíguos), bytes em potências
de 2 (KiB, MiB, GiB, TiB), índices como subscritos (``k₁``) e vetores como o numpy os imprime.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

_SUBSCRITOS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SOBRESCRITOS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def milhares(x: float) -> str:
    """``536870912`` → ``"536 870 912"``; um valor não inteiro sai com 6 algarismos significativos."""
    x = float(x)
    return f"{x:,.0f}".replace(",", " ") if x.is_integer() else f"{x:.6g}"


def bytes_legiveis(n_bytes: float) -> str:
    """``2147483648`` → ``"2.00 GiB"``: TiB (2⁴⁰), GiB (2³⁰), MiB (2²⁰) ou KiB (2¹⁰), com 3 algarismos;
    abaixo de 1 KiB, ``"512 bytes"``."""
    n_bytes = float(n_bytes)
    for unidade, tamanho in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= tamanho:
            x = n_bytes / tamanho
            return f"{x:.3g} {unidade}" if x >= 100 else f"{x:.2f} {unidade}" if x < 10 else f"{x:.1f} {unidade}"
    return f"{n_bytes:.0f} bytes"


def numero_legivel(x: float) -> str:
    """``4.3e9`` → ``"4.3 bi"``: mil, mi (milhão), bi (bilhão), tri (trilhão), com 3 algarismos."""
    for sufixo, escala in ((" tri", 1e12), (" bi", 1e9), (" mi", 1e6), (" mil", 1e3)):
        if x >= escala:
            return f"{x / escala:.3g}{sufixo}"
    return f"{x:.0f}"


def subscrito(i: int) -> str:
    """``12`` → ``"₁₂"``: índices em rótulos (``k₁``, ``z₃``)."""
    return str(i).translate(_SUBSCRITOS)


def sobrescrito(i: int) -> str:
    """``-3`` → ``"⁻³"``: expoentes em rótulos (``10⁻³``)."""
    return str(i).translate(_SOBRESCRITOS)


def vetor(x: ArrayLike) -> str:
    """Um array como o estudante o leria: 4 casas, vírgulas entre os números (``[0.4555, 0.2246]``)."""
    return np.array2string(np.asarray(x, dtype=float), precision=4, suppress_small=True, separator=", ")


def par(x: ArrayLike) -> str:
    """Um vetor de 2 coordenadas com 2 casas: ``(0.71, -1.00)`` (setas, queries e values no plano)."""
    a = np.asarray(x, dtype=float)
    return f"({a[0]:.2f}, {a[1]:.2f})"


def decimal(x: float, casas: int = 2) -> str:
    """Um número para a **prosa**, com vírgula decimal, como se escreve no Brasil: ``0.4555`` → ``"0,46"``.

    Vetores, fórmulas e tudo o que espelha código continuam com ponto (``(0.455, 0.225, 0.320)``), escritos
    como código ou matemática; na prosa corrida, vírgula.
    """
    return f"{x:.{casas}f}".replace(".", ",")
