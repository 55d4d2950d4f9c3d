"""Os caminhos rápidos do núcleo matemático: a softmax no lugar, em vários núcleos, e o controle das
threads do BLAS. Privado ao pacote; o resultado é sempre idêntico ao do caminho simples.

Também moram aqui as peças que dois módulos do núcleo dividem: o tamanho padrão dos blocos da
atenção por blocos (:mod:`helpers.efficient` e :mod:`helpers.costs`) e a sigmoide sem overflow (a
porta de :class:`helpers.rnn.GatedRNN` e o caminho rápido de :func:`helpers.recurrent.recall_curve`).
"""

from __future__ import annotations

import contextlib
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from ._validation import as_float

#: a partir de quantos escores a softmax da atenção (e a atenção por blocos) divide as linhas entre
#: os núcleos
PARALLEL_FROM = 1 << 20

#: tamanho padrão dos blocos de queries e de keys da atenção por blocos (um bloco de escores
#: 256 × 256 em float64 ocupa 0.5 MiB)
BLOCO_PADRAO = 256


def local_query_block(window: int) -> int:
    """O bloco de queries padrão da atenção local: ``max(64, window)`` (usado pela conta e pelo custo)."""
    return max(64, window)


def cores() -> int:
    """Quantos núcleos este processo pode usar (respeita a afinidade, no Linux)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def sigmoid(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """A sigmoide ``σ(z)``, elemento a elemento."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # = 1 / (1 + e^-z), sem overflow


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


def softmax_last_axis_inplace(z: NDArray[np.floating]) -> NDArray[np.floating]:
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
