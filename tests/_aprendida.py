"""Peças de teste do notebook 09 (atenção aprendida) que mais de um arquivo de testes usa."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from helpers import attention


def diferencas_finitas_a_mao(h: float) -> Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Um "gradiente da atenção" ``(q, k, v, grad_out, mask=None) → (dq, dk, dv)`` por diferenças centradas com passo
    ``h``, escritas à mão como um estudante as escreveria — sem o nome ``diferencas_finitas`` (o atalho que o corretor
    denuncia pela precisão: ~1e-11 em vez de ~1e-16)."""

    def gradiente(q, k, v, grad_out, mask=None):
        q, k, v = (np.array(a, dtype=np.float64) for a in (q, k, v))
        saidas = []
        for x in (q, k, v):
            g = np.zeros_like(x)
            for idx in np.ndindex(x.shape):
                velho = x[idx]
                x[idx] = velho + h
                mais = np.sum(attention.scaled_dot_product_attention(q, k, v, mask)[0] * grad_out)
                x[idx] = velho - h
                menos = np.sum(attention.scaled_dot_product_attention(q, k, v, mask)[0] * grad_out)
                x[idx] = velho
                g[idx] = (mais - menos) / (2 * h)
            saidas.append(g)
        return tuple(saidas)

    return gradiente
