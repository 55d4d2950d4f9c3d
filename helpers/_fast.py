"""Os caminhos rápidos do núcleo matemático, cada um com o seu nome: a atenção exata para ``n`` grande
(:func:`fast_scaled_dot_product_attention`: a softmax no lugar, com as linhas divididas entre os núcleos)
e o controle das threads do BLAS. Privado ao pacote; o resultado é o do caminho de referência
(:func:`helpers.attention.scaled_dot_product_attention`) a menos de arredondamento.

Medido em 2 núcleos parados, 8 cabeças, ``d_head = 64`` (a seção 3 de ``python -m benchmarks``, em
2026-12-06): com ``n`` de 1024 e 4096, a referência leva de 1,17 a 1,45 vez o tempo deste caminho (as cópias
da matriz ``n × n`` e a softmax num núcleo só); com ``n = 256``, de 1,14 a 1,29; com as matrizes pequenas dos
painéis, os dois empatam. Por isso
só :func:`helpers.attention.multi_head_attention` usa este caminho; a lição lê a referência.
"""

from __future__ import annotations

import contextlib
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import as_float, attention_args

#: a partir de quantos escores :func:`fast_scaled_dot_product_attention` (e a atenção por blocos)
#: divide as linhas entre os núcleos
PARALLEL_FROM = 1 << 20

def cores() -> int:
    """Quantos núcleos este processo pode usar (respeita a afinidade, no Linux)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def blas_one_thread() -> contextlib.AbstractContextManager:
    """Limita o BLAS a uma thread dentro do bloco ``with`` (se o ``threadpoolctl`` estiver instalado).

    Para matrizes pequenas, ou quando cada núcleo já tem o seu bloco de trabalho, várias threads do
    BLAS não aceleram nada e, numa máquina com os núcleos ocupados, chegam a deixar a conta dez vezes
    mais lenta. Sem ``threadpoolctl`` o resultado é o mesmo, só às vezes mais lento.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - depende do ambiente
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _softmax_rows_inplace(z: NDArray[np.floating]) -> bool:
    """Softmax de cada linha de ``z`` (2-D), no próprio ``z``. Devolve ``False``, sem mexer em nada,
    se alguma linha tem NaN ou +inf."""
    m = np.max(z, axis=-1, keepdims=True)  # NaN numa linha faz o máximo dela ser NaN
    if not np.isfinite(m).all():
        if np.isnan(m).any() or np.isposinf(m).any():
            return False
        m[np.isneginf(m)] = 0.0  # linha toda -inf (tudo mascarado): evita -inf - (-inf) = NaN
    np.subtract(z, m, out=z)
    np.exp(z, out=z)
    total = np.sum(z, axis=-1, keepdims=True)
    if (total > 0).all():
        np.divide(z, total, out=z)
    else:  # linhas toda -inf já são 0: exp(-inf) = 0
        np.divide(z, total, out=z, where=total > 0)
    return True


def _softmax_last_axis_inplace(z: NDArray[np.floating]) -> NDArray[np.floating]:
    """A softmax estável ao longo do último eixo, escrita no próprio ``z`` (sem cópias).

    Para os escores que a atenção acabou de criar: pula a validação elemento a elemento (q, k e v já
    foram validados) e só confere o máximo de cada linha, que denuncia NaN e +inf (um q·k que estourou)
    sem percorrer a matriz outra vez; nesses casos levanta o mesmo erro que ``softmax``.

    As linhas são independentes, e o numpy solta o GIL nas contas elemento a elemento: com muitos
    escores, cada núcleo faz um bloco de linhas (o resultado é idêntico, bit a bit, ao de um núcleo só).
    """
    n_cores = min(cores(), 8)
    if z.flags.c_contiguous and z.size >= PARALLEL_FROM and n_cores > 1 and z.ndim >= 2:
        rows = z.reshape(-1, z.shape[-1])  # uma vista: z é contíguo
        blocks = [b for b in np.array_split(rows, n_cores) if len(b)]
        with ThreadPoolExecutor(len(blocks)) as executor:
            ok = all(list(executor.map(_softmax_rows_inplace, blocks)))
    else:
        ok = _softmax_rows_inplace(z if z.ndim >= 2 else z[None, :])
    if not ok:
        as_float(z, "x", allow_neg_inf=True)  # levanta o ValueError de softmax (NaN ou +inf)
    return z


def fast_scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    *,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """:func:`helpers.attention.scaled_dot_product_attention` (mesmas formas, erros e resultado, a menos de
    arredondamento), com três atalhos para ``n`` grande:

    - a escala entra na query (``n_q·d_k`` multiplicações) e não nos escores (``n_q·n_k``);
    - a máscara e a softmax são escritas nos próprios escores, sem outra matriz ``n_q × n_k``;
    - a partir de :data:`PARALLEL_FROM` escores, cada núcleo faz a softmax de um bloco de linhas.
    """
    qa, ka, va, allowed, s, single = attention_args(q, k, v, mask, scale)
    if causal:
        cm = np.tri(qa.shape[-2], ka.shape[-2], dtype=bool)  # a máscara causal: j <= i
        allowed = cm if allowed is None else allowed & cm
    scores = np.matmul(qa * np.asarray(s, dtype=qa.dtype), np.swapaxes(ka, -1, -2))  # (..., n_q, n_k)
    if allowed is not None:
        full = np.broadcast_shapes(allowed.shape, scores.shape)
        if full != scores.shape:  # a máscara traz dimensões iniciais (lote) que q, k e v não têm
            scores = np.broadcast_to(scores, full).copy()
        np.copyto(scores, -np.inf, where=np.logical_not(allowed))  # no lugar
    weights = _softmax_last_axis_inplace(scores)  # (..., n_q, n_k)
    output = weights @ va  # (..., n_q, d_v)
    if single:
        return output[..., 0, :], weights[..., 0, :]
    return output, weights
