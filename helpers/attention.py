"""A matemática da atenção, só com numpy (nenhum gráfico aqui).

Convenções de forma usadas em todo o módulo:

- ``q``: ``(..., n_q, d_k)``, uma linha por *query* (consulta);
- ``k``: ``(..., n_k, d_k)``, uma linha por *key* (chave);
- ``v``: ``(..., n_k, d_v)``, uma linha por *value* (valor);
- pesos de atenção: ``(..., n_q, n_k)``; a linha ``i`` diz quanto a query ``i`` olha para cada key;
- máscaras booleanas: ``True`` onde a query **pode** olhar para a key (a convenção do
  ``scaled_dot_product_attention`` do PyTorch).

As dimensões iniciais (``...``: lote, cabeças) seguem as regras de *broadcasting* do numpy.
Entradas inválidas levantam ``ValueError`` com uma mensagem em português que cita as formas ou os
valores envolvidos; nenhuma função devolve NaN em silêncio.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "softmax",
    "scaled_dot_product_attention",
    "causal_mask",
    "padding_mask",
    "split_heads",
    "merge_heads",
    "multi_head_attention",
    "kv_cache_bytes",
]


# ---------------------------------------------------------------------------------------------
# Validação
# ---------------------------------------------------------------------------------------------


def _as_float(x: ArrayLike, name: str, *, allow_neg_inf: bool = False) -> NDArray[np.floating]:
    """Converte ``x`` em array de ponto flutuante (float32 é preservado) e rejeita NaN/inf."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # listas irregulares, objetos estranhos
        raise ValueError(f"{name} precisa ser um array numérico; não consegui convertê-lo ({exc}).") from exc
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} precisa ser um array numérico (recebi dtype {arr.dtype}).")
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contém NaN (forma {arr.shape}); verifique de onde vieram esses valores.")
    bad = np.isposinf(arr) if allow_neg_inf else np.isinf(arr)
    if bad.any():
        which = "+inf" if allow_neg_inf else "inf"
        raise ValueError(f"{name} contém {which} (forma {arr.shape}); use valores finitos.")
    return arr


def _positive(value: float, name: str) -> float:
    try:
        val = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} precisa ser um número positivo (recebi {value!r}).") from exc
    if not math.isfinite(val) or val <= 0:
        raise ValueError(f"{name} precisa ser um número finito e positivo (recebi {value!r}).")
    return val


def _positive_int(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} precisa ser um inteiro positivo (recebi {value!r}).")
    return int(value)


# ---------------------------------------------------------------------------------------------
# Softmax
# ---------------------------------------------------------------------------------------------


def softmax(x: ArrayLike, axis: int = -1, temperature: float = 1.0) -> NDArray[np.floating]:
    """Softmax numericamente estável ao longo de ``axis``.

    ``softmax(x)_i = exp(x_i / T) / Σ_j exp(x_j / T)``, com ``T = temperature``.

    Parâmetros
    ----------
    x : array de qualquer forma ``(..., n, ...)``; ``-inf`` é permitido e recebe peso 0.
    axis : o eixo que vira distribuição (soma 1). Padrão: o último.
    temperature : ``T > 0``. ``T`` grande aproxima a distribuição uniforme; ``T`` pequeno, o argmax.

    Retorna
    -------
    Array da mesma forma e do mesmo tipo (float32 continua float32). Uma fatia inteiramente
    ``-inf`` (por exemplo, uma query com todas as keys mascaradas) vira zeros, nunca NaN.

    A estabilidade vem de subtrair o máximo antes de exponenciar: ``exp(x - max)`` nunca passa
    de 1, então escores como 1e4 não estouram.
    """
    arr = _as_float(x, "x", allow_neg_inf=True)
    t = _positive(temperature, "temperature")
    if arr.ndim == 0:
        raise ValueError("softmax precisa de pelo menos um eixo; recebi um escalar.")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis={axis} não existe para um array de forma {arr.shape} ({arr.ndim} eixos).")
    if arr.shape[axis] == 0:
        raise ValueError(f"softmax sobre um eixo vazio (forma {arr.shape}, axis={axis}).")
    m = np.max(arr, axis=axis, keepdims=True)
    m[np.isneginf(m)] = 0.0  # fatia toda -inf: evita -inf - (-inf) = NaN
    z = arr - m  # tudo <= 0 (ou -inf)
    if t != 1.0:
        z /= np.asarray(t, dtype=z.dtype)
    np.exp(z, out=z)
    total = np.sum(z, axis=axis, keepdims=True)
    np.divide(z, total, out=z, where=total > 0)
    # onde total == 0 (fatia toda -inf) z já é 0: exp(-inf) = 0
    return z


#: a partir de quantos escores o softmax da atenção divide as linhas entre os núcleos
_PARALELO_A_PARTIR_DE = 1 << 20


def _nucleos() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


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
    """O softmax de :func:`softmax` ao longo do último eixo, escrito no próprio ``z`` (sem cópias).

    Para os escores que a atenção acabou de criar: pula a validação elemento a elemento (q, k e v já
    foram validados) e só confere o máximo de cada linha, que denuncia NaN e +inf (um q·k que estourou)
    sem percorrer a matriz outra vez; nesses casos levanta o mesmo erro que :func:`softmax`.

    As linhas são independentes, e o numpy solta o GIL nas contas elemento a elemento: com muitos
    escores, cada núcleo faz um bloco de linhas (o resultado é idêntico, bit a bit, ao de um núcleo só).
    """
    nucleos = min(_nucleos(), 8)
    if z.flags.c_contiguous and z.size >= _PARALELO_A_PARTIR_DE and nucleos > 1 and z.ndim >= 2:
        linhas = z.reshape(-1, z.shape[-1])  # uma vista: z é contíguo
        blocos = [b for b in np.array_split(linhas, nucleos) if len(b)]
        with ThreadPoolExecutor(len(blocos)) as executor:
            ok = all(list(executor.map(_softmax_rows_inplace, blocos)))
    else:
        ok = _softmax_rows_inplace(z if z.ndim >= 2 else z[None, :])
    if not ok:
        _as_float(z, "x", allow_neg_inf=True)  # levanta o ValueError de softmax (NaN ou +inf)
    return z


# ---------------------------------------------------------------------------------------------
# Máscaras
# ---------------------------------------------------------------------------------------------


def causal_mask(n_q: int, n_k: int | None = None, *, offset: int = 0) -> NDArray[np.bool_]:
    """Máscara causal ``(n_q, n_k)``: a query ``i`` pode ver as keys ``j <= i + offset``.

    Com ``n_k = None`` usa ``n_k = n_q`` (autoatenção). ``offset = 0`` alinha o canto superior
    esquerdo, como o ``is_causal`` do PyTorch. Numa geração com *KV cache*, em que as ``n_q`` queries
    novas são as últimas de ``n_k`` posições, use ``offset = n_k - n_q``.
    """
    n_q = _positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else _positive_int(n_k, "n_k")
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        raise ValueError(f"offset precisa ser um inteiro (recebi {offset!r}).")
    return np.tri(n_q, n_k, k=int(offset), dtype=bool)


def padding_mask(lengths: ArrayLike, n: int) -> NDArray[np.bool_]:
    """Máscara de *padding* ``(b, 1, n)`` a partir dos comprimentos reais ``(b,)``.

    A sequência ``b`` tem ``lengths[b]`` tokens de verdade seguidos de enchimento; nenhuma query
    deve olhar para o enchimento, então ``mask[b, 0, j] = j < lengths[b]``. O eixo do meio (1)
    faz a máscara valer para todas as queries por *broadcasting* contra ``(b, n_q, n)``.
    """
    n = _positive_int(n, "n")
    lens = np.asarray(lengths)
    if lens.ndim != 1 or lens.dtype.kind not in "iu":
        raise ValueError(f"lengths precisa ser um vetor de inteiros (b,); recebi forma {lens.shape}, dtype {lens.dtype}.")
    if lens.size and (lens.min() < 0 or lens.max() > n):
        raise ValueError(f"cada comprimento precisa estar entre 0 e n={n}; recebi {lens.tolist()}.")
    return (np.arange(n)[None, :] < lens[:, None])[:, None, :]


# ---------------------------------------------------------------------------------------------
# Atenção por produto escalar escalado
# ---------------------------------------------------------------------------------------------


def _qkv(q: ArrayLike, k: ArrayLike, v: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool, tuple]:
    """Valida e converte ``q, k, v`` como :func:`scaled_dot_product_attention` (e as funções de :mod:`helpers.efficient`).

    Devolve ``(q2, k, v, single, lead)``: ``q2`` sempre com o eixo das queries (``q`` 1-D vira
    ``(1, d_k)``), ``single`` diz se ``q`` era 1-D e ``lead`` é a forma das dimensões iniciais.
    """
    qa = _as_float(q, "q")
    ka = _as_float(k, "k")
    va = _as_float(v, "v")
    if qa.ndim == 0:
        raise ValueError("q precisa ter pelo menos um eixo: (d_k,) ou (..., n_q, d_k).")
    if ka.ndim < 2 or va.ndim < 2:
        raise ValueError(
            f"k e v precisam ter forma (..., n_k, d); recebi k {ka.shape} e v {va.shape}. "
            "Para uma única key, use forma (1, d)."
        )
    single = qa.ndim == 1
    if single:
        qa = qa[None, :]
    d_k = qa.shape[-1]
    if ka.shape[-1] != d_k:
        raise ValueError(
            f"q e k precisam ter o mesmo tamanho de vetor d_k: q tem forma {np.shape(q)} (d_k={d_k}) "
            f"e k tem forma {ka.shape} (d_k={ka.shape[-1]})."
        )
    if ka.shape[-2] != va.shape[-2]:
        raise ValueError(
            f"k e v precisam ter o mesmo número de posições n_k: k tem forma {ka.shape} "
            f"(n_k={ka.shape[-2]}) e v tem forma {va.shape} (n_k={va.shape[-2]})."
        )
    if ka.shape[-2] == 0:
        raise ValueError(f"não há keys para olhar (k tem forma {ka.shape}, n_k=0).")
    if d_k == 0:
        raise ValueError(f"os vetores têm tamanho d_k=0 (q {qa.shape}, k {ka.shape}).")
    try:
        lead = np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2])
    except ValueError as exc:
        raise ValueError(
            f"as dimensões iniciais (lote, cabeças) de q {np.shape(q)}, k {ka.shape} e v {va.shape} "
            "não são compatíveis por broadcasting."
        ) from exc
    return qa, ka, va, single, lead


def _mascara(mask: ArrayLike | None, n_q: int, n_k: int, lead: tuple) -> tuple[np.ndarray | None, tuple]:
    """A máscara como uma vista ``(..., n_q, n_k)`` (sem cópia) e as dimensões iniciais atualizadas."""
    if mask is None:
        return None, lead
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise ValueError(
            f"a máscara precisa ser booleana (True = pode olhar); recebi dtype {m.dtype}. "
            "Dica: use mask.astype(bool) ou uma comparação como (lengths > j)."
        )
    alvo = (*lead, n_q, n_k)
    try:
        forma = np.broadcast_shapes(m.shape, alvo)
    except ValueError as exc:
        raise ValueError(
            f"a máscara de forma {m.shape} não é compatível (broadcast) com os escores de forma "
            f"{alvo} = (..., n_q, n_k)."
        ) from exc
    if forma[-2:] != (n_q, n_k):
        raise ValueError(f"a máscara de forma {m.shape} não casa com (n_q, n_k) = ({n_q}, {n_k}).")
    return np.broadcast_to(m, forma), forma[:-2]


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    *,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """``softmax(q kᵀ · scale) v``: a atenção por produto escalar escalado.

    Formas
    ------
    q : ``(..., n_q, d_k)``, ou ``(d_k,)`` para uma única query.
    k : ``(..., n_k, d_k)``.
    v : ``(..., n_k, d_v)``.
    mask : booleana, *broadcastable* para ``(..., n_q, n_k)``; ``True`` = pode olhar.
    causal : se ``True``, a query ``i`` só vê as keys ``j <= i`` (combina com ``mask``).
    scale : padrão ``1/√d_k``.

    Retorna
    -------
    ``(output, weights)`` com ``output`` ``(..., n_q, d_v)`` e ``weights`` ``(..., n_q, n_k)``.
    Para ``q`` 1-D: ``output`` ``(..., d_v)`` e ``weights`` ``(..., n_k)``.
    Uma query cujas keys estão todas mascaradas recebe pesos 0 e saída 0 (nunca NaN).

    Exemplo (os Exemplos 1 e 2 da trilha)::

        >>> out, w = scaled_dot_product_attention([1, 0], [[1, 0], [0, 1], [.5, .5]],
        ...                                       [[10, 0], [0, 10], [5, 5]])
        >>> w.round(4), out.round(2)
        (array([0.4555, 0.2246, 0.3199]), array([6.15, 3.85]))

    (O Exemplo 1 arredonda as contas intermediárias e chega a pesos (0.455, 0.225, 0.320).)
    """
    qa, ka, va, single, lead = _qkv(q, k, v)
    d_k = qa.shape[-1]
    s = 1.0 / math.sqrt(d_k) if scale is None else _positive(scale, "scale")

    dtype = np.result_type(qa, ka, va)
    # A escala entra na query (n_q·d_k multiplicações) e não nos escores (n_q·n_k): o resultado é o
    # mesmo a menos de arredondamento, e a matriz n_q × n_k é percorrida uma vez a menos.
    scores = np.matmul(qa * np.asarray(s, dtype=qa.dtype), np.swapaxes(ka, -1, -2)).astype(dtype, copy=False)
    n_q, n_k = scores.shape[-2], scores.shape[-1]

    allowed, _ = _mascara(mask, n_q, n_k, lead)
    if causal:
        cm = causal_mask(n_q, n_k)
        allowed = cm if allowed is None else (allowed & cm)
    if allowed is not None:
        full = np.broadcast_shapes(np.shape(allowed), scores.shape)
        if full != scores.shape:  # a máscara traz dimensões iniciais (lote) que q, k e v não têm
            scores = np.broadcast_to(scores, full).copy()
        np.copyto(scores, -np.inf, where=np.logical_not(allowed))  # no lugar, sem outra matriz n_q × n_k

    # ``scores`` é nosso (acabou de ser criado): o softmax é feito nele mesmo, sem cópias
    weights = _softmax_last_axis_inplace(scores)
    output = np.matmul(weights, va).astype(dtype, copy=False)
    if single:
        output = output[..., 0, :]
        weights = weights[..., 0, :]
    return output, weights


# ---------------------------------------------------------------------------------------------
# Várias cabeças
# ---------------------------------------------------------------------------------------------


def split_heads(x: ArrayLike, n_heads: int) -> NDArray[np.floating]:
    """``(..., n, n_heads·d_head)`` → ``(..., n_heads, n, d_head)``.

    A cabeça ``h`` fica com as colunas ``h·d_head : (h+1)·d_head``.
    """
    arr = np.asarray(x)
    n_heads = _positive_int(n_heads, "n_heads")
    if arr.ndim < 2:
        raise ValueError(f"split_heads espera forma (..., n, largura); recebi {arr.shape}.")
    width = arr.shape[-1]
    if width % n_heads:
        raise ValueError(
            f"n_heads={n_heads} não divide a largura projetada {width}: cada cabeça precisa de "
            f"d_head = largura / n_heads colunas inteiras."
        )
    d_head = width // n_heads
    arr = arr.reshape(*arr.shape[:-1], n_heads, d_head)
    return np.swapaxes(arr, -2, -3)


def merge_heads(x: ArrayLike) -> NDArray[np.floating]:
    """``(..., n_heads, n, d_head)`` → ``(..., n, n_heads·d_head)`` (o inverso de ``split_heads``)."""
    arr = np.asarray(x)
    if arr.ndim < 3:
        raise ValueError(f"merge_heads espera forma (..., n_heads, n, d_head); recebi {arr.shape}.")
    arr = np.swapaxes(arr, -2, -3)
    return arr.reshape(*arr.shape[:-2], arr.shape[-2] * arr.shape[-1])


def multi_head_attention(
    x_q: ArrayLike,
    x_kv: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    n_heads: int,
    *,
    n_kv_heads: int | None = None,
    mask: ArrayLike | None = None,
    causal: bool = False,
) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """Atenção com várias cabeças, inclusive *grouped-query* (GQA) e *multi-query* (MQA).

    Formas
    ------
    x_q : ``(..., n_q, d_model)`` — de onde saem as queries.
    x_kv : ``(..., n_kv, d_model)`` — de onde saem keys e values. Auto-atenção: ``x_kv = x_q``;
        atenção cruzada: outra sequência.
    w_q : ``(d_model, n_heads·d_head)``; ``w_k``, ``w_v`` : ``(d_model, n_kv_heads·d_head)``;
    w_o : ``(n_heads·d_head, d_out)``.
    n_heads : número de cabeças de query; ``d_head = largura de w_q / n_heads``.
    n_kv_heads : cabeças de key/value (padrão ``n_heads``). Com ``n_kv_heads < n_heads`` a query
        ``h`` usa a key/value ``h // (n_heads // n_kv_heads)``; ``n_kv_heads = 1`` é *multi-query*.
    mask : booleana, *broadcastable* para ``(..., n_q, n_kv)``; vale igual para todas as cabeças.
    causal : a query ``i`` só vê as posições ``j <= i``.

    Retorna
    -------
    ``(output, weights)``: ``output`` ``(..., n_q, d_out)``, ``weights`` ``(..., n_heads, n_q, n_kv)``.
    """
    xq = _as_float(x_q, "x_q")
    xkv = _as_float(x_kv, "x_kv")
    wq, wk, wv, wo = (_as_float(w, name) for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"), (w_o, "w_o")))
    n_heads = _positive_int(n_heads, "n_heads")
    n_kv = n_heads if n_kv_heads is None else _positive_int(n_kv_heads, "n_kv_heads")
    for w, name in ((wq, "w_q"), (wk, "w_k"), (wv, "w_v"), (wo, "w_o")):
        if w.ndim != 2:
            raise ValueError(f"{name} precisa ser uma matriz 2-D; recebi forma {w.shape}.")
    if xq.ndim < 2 or xkv.ndim < 2:
        raise ValueError(f"x_q e x_kv precisam ter forma (..., n, d_model); recebi {xq.shape} e {xkv.shape}.")
    if wq.shape[0] != xq.shape[-1]:
        raise ValueError(f"w_q tem forma {wq.shape}, mas x_q tem d_model={xq.shape[-1]} (forma {xq.shape}).")
    for w, name in ((wk, "w_k"), (wv, "w_v")):
        if w.shape[0] != xkv.shape[-1]:
            raise ValueError(f"{name} tem forma {w.shape}, mas x_kv tem d_model={xkv.shape[-1]} (forma {xkv.shape}).")
    width = wq.shape[1]
    if width % n_heads:
        raise ValueError(
            f"n_heads={n_heads} não divide a largura projetada de w_q ({width}); "
            f"escolha n_heads entre os divisores de {width}."
        )
    if n_heads % n_kv:
        raise ValueError(
            f"n_kv_heads={n_kv} não divide n_heads={n_heads}: cada grupo de queries precisa do mesmo "
            "número de cabeças."
        )
    d_head = width // n_heads
    if wk.shape[1] != n_kv * d_head or wv.shape[1] != n_kv * d_head:
        raise ValueError(
            f"w_k {wk.shape} e w_v {wv.shape} precisam ter n_kv_heads·d_head = {n_kv}·{d_head} = "
            f"{n_kv * d_head} colunas."
        )
    if wo.shape[0] != width:
        raise ValueError(f"w_o tem forma {wo.shape}, mas precisa de {width} = n_heads·d_head linhas.")

    qh = split_heads(xq @ wq, n_heads)  # (..., H, n_q, d_head)
    kh = split_heads(xkv @ wk, n_kv)  # (..., H_kv, n_kv, d_head)
    vh = split_heads(xkv @ wv, n_kv)
    group = n_heads // n_kv
    if group > 1:  # cada cabeça de key/value serve a `group` cabeças de query consecutivas
        kh = np.repeat(kh, group, axis=-3)
        vh = np.repeat(vh, group, axis=-3)
    head_mask = None
    if mask is not None:
        m = np.asarray(mask)
        head_mask = m[..., None, :, :] if m.ndim >= 2 else m
    out, weights = scaled_dot_product_attention(qh, kh, vh, head_mask, causal=causal)
    return merge_heads(out) @ wo, weights


def kv_cache_bytes(
    n_tokens: int, n_layers: int, n_kv_heads: int, d_head: int, bytes_per_value: int = 2, batch: int = 1
) -> int:
    """Bytes do *KV cache*: ``2 (K e V) · batch · n_layers · n_kv_heads · n_tokens · d_head · bytes``.

    ``bytes_per_value = 2`` corresponde a float16/bfloat16.
    """
    vals = [_positive_int(x, name) for x, name in (
        (n_tokens, "n_tokens"), (n_layers, "n_layers"), (n_kv_heads, "n_kv_heads"),
        (d_head, "d_head"), (bytes_per_value, "bytes_per_value"), (batch, "batch"),
    )]
    n_tokens, n_layers, n_kv_heads, d_head, bytes_per_value, batch = vals
    return 2 * batch * n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value
