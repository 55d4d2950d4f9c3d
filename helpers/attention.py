"""A matemática da atenção, só com numpy, na ordem da trilha (nenhum gráfico aqui).

softmax → atenção por produto escalar escalado (e o seu gradiente) → máscaras → várias cabeças → GQA
e o KV cache. Convenções de forma de todo o módulo (as do PyTorch):

- ``q``: ``(..., n_q, d_k)``, uma linha por *query* (consulta);
- ``k``: ``(..., n_k, d_k)``, uma linha por *key* (chave);
- ``v``: ``(..., n_k, d_v)``, uma linha por *value* (valor);
- pesos de atenção: ``(..., n_q, n_k)``; a linha ``i`` diz quanto a query ``i`` olha para cada key;
- máscaras booleanas: ``True`` onde a query **pode** olhar para a key.

As dimensões iniciais (``...``: lote, cabeças) seguem o *broadcasting* do numpy. Entradas inválidas
levantam ``ValueError`` em português citando formas ou valores (a validação mora em
:mod:`helpers._validation`); nenhuma função devolve NaN em silêncio.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validation as val
from ._fast import fast_scaled_dot_product_attention

__all__ = [
    "softmax",
    "softmax_jacobian",
    "scaled_dot_product_attention",
    "attention_backward",
    "causal_mask",
    "padding_mask",
    "split_heads",
    "merge_heads",
    "kv_head_of_query",
    "multi_head_attention",
    "kv_cache_bytes",
]


# ---------------------------------------------------------------------------------------------
# 1. Softmax: escores → pesos positivos que somam 1
# ---------------------------------------------------------------------------------------------


def softmax(x: ArrayLike, axis: int = -1, temperature: float = 1.0, *,
            out: NDArray[np.floating] | None = None) -> NDArray[np.floating]:
    """Softmax numericamente estável ao longo de ``axis``.

    ``softmax(x)_i = exp(x_i / T) / Σ_j exp(x_j / T)``, com ``T = temperature``.

    Parâmetros
    ----------
    x : array de qualquer forma ``(..., n, ...)``; ``-inf`` é permitido e recebe peso 0.
    axis : o eixo que vira distribuição (soma 1). Padrão: o último.
    temperature : ``T > 0``. ``T`` grande aproxima a distribuição uniforme; ``T`` pequeno, o argmax.
    out : onde escrever o resultado, como no numpy: um array da forma e do tipo de ``x`` (pode ser o
        próprio ``x``, e então nenhuma outra cópia dele é criada). Padrão: um array novo.

    Retorna
    -------
    Array da mesma forma e do mesmo tipo (float32 continua float32). Uma fatia inteiramente
    ``-inf`` (por exemplo, uma query com todas as keys mascaradas) vira zeros, nunca NaN.

    A estabilidade vem de subtrair o máximo antes de exponenciar: ``exp(x - max)`` nunca passa
    de 1, então escores como 1e4 não estouram.
    """
    arr = val.float_array(x, "x")
    t = val.positive(temperature, "temperature")
    if arr.ndim == 0:
        raise ValueError("softmax precisa de pelo menos um eixo; recebi um escalar.")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis={axis} não existe para um array de forma {arr.shape} ({arr.ndim} eixos).")
    if arr.shape[axis] == 0:
        raise ValueError(f"softmax sobre um eixo vazio (forma {arr.shape}, axis={axis}).")
    m = np.max(arr, axis=axis, keepdims=True)  # NaN ou +inf numa fatia aparecem no máximo dela
    val.no_nan_or_pos_inf(m, "x", arr.shape)
    m[np.isneginf(m)] = 0.0  # fatia toda -inf: evita -inf - (-inf) = NaN
    if out is not None and (not isinstance(out, np.ndarray) or out.shape != arr.shape or out.dtype != arr.dtype):
        raise ValueError(f"out precisa ser um array da forma {arr.shape} e do tipo {arr.dtype} de x; "
                         f"recebi {type(out).__name__} {getattr(out, 'shape', '')} {getattr(out, 'dtype', '')}.")
    z = np.subtract(arr, m, out=out)  # tudo <= 0 (ou -inf)
    if t != 1.0:
        z /= np.asarray(t, dtype=z.dtype)
    np.exp(z, out=z)
    total = np.sum(z, axis=axis, keepdims=True)
    np.divide(z, total, out=z, where=total > 0)  # fatia toda -inf: z já é 0 (exp(-inf) = 0)
    return z


def softmax_jacobian(p: ArrayLike) -> NDArray[np.floating]:
    """O jacobiano da softmax a partir dos pesos ``p`` ``(..., n)``: ``J[i, j] = ∂pᵢ/∂zⱼ = pᵢ(δᵢⱼ − pⱼ)``.

    Em forma de matriz, ``diag(p) − p pᵀ``, forma ``(..., n, n)``. Vai a 0 quando um peso vai a 1
    (a softmax *satura* e deixa de passar gradiente); nenhuma entrada passa de 0.25 em módulo.
    """
    pa = val.as_float(p, "p")
    if pa.ndim == 0:
        raise ValueError("softmax_jacobian precisa dos pesos como vetor (..., n); recebi um escalar.")
    return pa[..., :, None] * (np.eye(pa.shape[-1], dtype=pa.dtype) - pa[..., None, :])  # (..., n, n)


# ---------------------------------------------------------------------------------------------
# 2. Atenção por produto escalar escalado: softmax(q kᵀ / √d_k) v
# ---------------------------------------------------------------------------------------------


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
    q, k, v, mask, scale, single = val.attention_args(q, k, v, mask, scale)  # q 1-D vira (1, d_k)
    if causal:  # a query i só vê as keys j <= i
        cm = causal_mask(q.shape[-2], k.shape[-2])  # (n_q, n_k)
        mask = cm if mask is None else mask & cm
    scores = q @ np.swapaxes(k, -1, -2)  # (..., n_q, n_k): o produto escalar de cada par (query, key)
    scores *= scale  # no lugar, como a softmax abaixo: a matriz n_q × n_k existe uma vez só
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # proibido vira -inf, e -inf vira peso 0
    weights = softmax(scores, axis=-1, out=scores)  # (..., n_q, n_k): cada linha soma 1
    output = weights @ v  # (..., n_q, d_v): a média dos values, pesada pela linha de weights
    if single:
        return output[..., 0, :], weights[..., 0, :]  # (..., d_v), (..., n_k)
    return output, weights


def _sum_to_shape(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Soma ``grad`` nos eixos em que a entrada de forma ``shape`` foi estendida por broadcasting."""
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    eixos = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=eixos, keepdims=True) if eixos else grad


def attention_backward(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    grad_out: ArrayLike,
    mask: ArrayLike | None = None,
    *,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[NDArray[np.floating], NDArray[np.floating], NDArray[np.floating]]:
    """O gradiente de :func:`scaled_dot_product_attention` (a saída) em relação a ``q``, ``k`` e ``v``.

    Com ``S = s·Q Kᵀ`` (mascarada), ``P = softmax(S)``, ``O = P V`` e ``dO = grad_out`` (o gradiente
    da perda em relação à saída), a regra da cadeia dá, de trás para frente::

        dV = Pᵀ dO                            (n_k, d_v)
        dP = dO Vᵀ                            (n_q, n_k)
        dS = P ⊙ (dP − rowsum(dP ⊙ P))        o jacobiano da softmax, linha a linha
        dQ = s · dS K                         (n_q, d_k)
        dK = s · dSᵀ Q                        (n_k, d_k)

    Mesmas convenções de :func:`scaled_dot_product_attention` (``q`` 1-D, broadcasting das dimensões
    iniciais, máscara booleana ``True`` = pode olhar, ``causal``, ``scale``). ``grad_out`` tem a forma
    da saída: ``(..., n_q, d_v)`` (ou ``(..., d_v)`` para ``q`` 1-D). Cada gradiente volta com a forma
    da sua entrada (somado nos eixos estendidos por broadcasting). Uma query com todas as keys
    mascaradas tem pesos 0 e, portanto, gradientes 0 (nunca NaN).
    """
    qa, ka, va, mask, s, single = val.attention_args(q, k, v, mask, scale)
    _, P = scaled_dot_product_attention(qa, ka, va, mask, causal=causal, scale=s)  # (..., n_q, n_k)
    lead = np.broadcast_shapes(P.shape[:-2], va.shape[:-2])  # a máscara pode trazer um eixo de lote
    n_q, n_k, d_v = qa.shape[-2], ka.shape[-2], va.shape[-1]
    P = np.broadcast_to(P, (*lead, n_q, n_k))
    dtype = qa.dtype  # o tipo comum de q, k e v (attention_args já converteu os três)
    go = val.as_float(grad_out, "grad_out")
    forma_saida = (*lead, d_v) if single else (*lead, n_q, d_v)
    if go.shape != forma_saida:
        raise ValueError(
            f"grad_out precisa ter a forma da saída da atenção, {forma_saida} = (..., n_q, d_v); "
            f"recebi {go.shape}."
        )
    if single:
        go = go[..., None, :]  # (..., 1, d_v)

    dV = np.matmul(np.swapaxes(P, -1, -2), go)  # (..., n_k, d_v)
    dP = np.matmul(go, np.swapaxes(va, -1, -2))  # (..., n_q, n_k)
    dS = P * (dP - np.sum(dP * P, axis=-1, keepdims=True))  # (..., n_q, n_k); 0 onde P = 0
    dQ = s * np.matmul(dS, ka)  # (..., n_q, d_k)
    dK = s * np.matmul(np.swapaxes(dS, -1, -2), qa)  # (..., n_k, d_k)

    forma_q = np.shape(q) if not single else (*np.shape(q)[:-1], 1, np.shape(q)[-1])
    grad_q = _sum_to_shape(dQ, forma_q).astype(dtype, copy=False)
    if single:
        grad_q = grad_q[..., 0, :]
    grad_k = _sum_to_shape(dK, ka.shape).astype(dtype, copy=False)
    grad_v = _sum_to_shape(dV, va.shape).astype(dtype, copy=False)
    return grad_q.reshape(np.shape(q)), grad_k, grad_v


# ---------------------------------------------------------------------------------------------
# 3. Máscaras: quem pode olhar para quem
# ---------------------------------------------------------------------------------------------


def causal_mask(n_q: int, n_k: int | None = None, *, offset: int = 0) -> NDArray[np.bool_]:
    """Máscara causal ``(n_q, n_k)``: a query ``i`` pode ver as keys ``j <= i + offset``.

    Com ``n_k = None`` usa ``n_k = n_q`` (autoatenção). ``offset = 0`` alinha o canto superior
    esquerdo, como o ``is_causal`` do PyTorch. Numa geração com *KV cache*, em que as ``n_q`` queries
    novas são as últimas de ``n_k`` posições, use ``offset = n_k - n_q``.
    """
    n_q = val.positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else val.positive_int(n_k, "n_k")
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        raise ValueError(f"offset precisa ser um inteiro (recebi {offset!r}).")
    return np.tri(n_q, n_k, k=int(offset), dtype=bool)


def padding_mask(lengths: ArrayLike, n: int) -> NDArray[np.bool_]:
    """Máscara de *padding* ``(b, 1, n)`` a partir dos comprimentos reais ``(b,)``.

    A sequência ``b`` tem ``lengths[b]`` tokens de verdade seguidos de enchimento; nenhuma query
    deve olhar para o enchimento, então ``mask[b, 0, j] = j < lengths[b]``. O eixo do meio (1)
    faz a máscara valer para todas as queries por *broadcasting* contra ``(b, n_q, n)``.
    """
    n = val.positive_int(n, "n")
    lens = np.asarray(lengths)
    if lens.ndim != 1 or lens.dtype.kind not in "iu":
        raise ValueError(f"lengths precisa ser um vetor de inteiros (b,); recebi forma {lens.shape}, dtype {lens.dtype}.")
    if lens.size and (lens.min() < 0 or lens.max() > n):
        raise ValueError(f"cada comprimento precisa estar entre 0 e n={n}; recebi {lens.tolist()}.")
    return (np.arange(n)[None, :] < lens[:, None])[:, None, :]  # (b, 1, n)


# ---------------------------------------------------------------------------------------------
# 4. Várias cabeças: dividir, atender em paralelo, juntar
# ---------------------------------------------------------------------------------------------


def split_heads(x: ArrayLike, n_heads: int) -> NDArray[np.floating]:
    """``(..., n, n_heads·d_head)`` → ``(..., n_heads, n, d_head)``.

    A cabeça ``h`` fica com as colunas ``h·d_head : (h+1)·d_head``.
    """
    arr = np.asarray(x)
    n_heads = val.positive_int(n_heads, "n_heads")
    if arr.ndim < 2:
        raise ValueError(f"split_heads espera forma (..., n, largura); recebi {arr.shape}.")
    width = arr.shape[-1]
    if width % n_heads:
        raise ValueError(
            f"n_heads={n_heads} não divide a largura projetada {width}: cada cabeça precisa de "
            f"d_head = largura / n_heads colunas inteiras."
        )
    arr = arr.reshape(*arr.shape[:-1], n_heads, width // n_heads)  # (..., n, n_heads, d_head)
    return np.swapaxes(arr, -2, -3)  # (..., n_heads, n, d_head)


def merge_heads(x: ArrayLike) -> NDArray[np.floating]:
    """``(..., n_heads, n, d_head)`` → ``(..., n, n_heads·d_head)`` (o inverso de ``split_heads``)."""
    arr = np.asarray(x)
    if arr.ndim < 3:
        raise ValueError(f"merge_heads espera forma (..., n_heads, n, d_head); recebi {arr.shape}.")
    arr = np.swapaxes(arr, -2, -3)  # (..., n, n_heads, d_head)
    return arr.reshape(*arr.shape[:-2], arr.shape[-2] * arr.shape[-1])  # (..., n, n_heads·d_head)


def kv_head_of_query(n_heads: int, n_kv_heads: int) -> list[int]:
    """A cabeça de key/value que cada cabeça de query usa: ``h // (n_heads // n_kv_heads)``.

    ``n_kv_heads = n_heads`` é a atenção de várias cabeças comum (MHA, cada query com a sua);
    ``1 < n_kv_heads < n_heads`` é *grouped-query* (GQA, grupos consecutivos de queries dividem uma);
    ``n_kv_heads = 1`` é *multi-query* (MQA, todas dividem a mesma).
    """
    n_heads = val.positive_int(n_heads, "n_heads")
    n_kv_heads = val.positive_int(n_kv_heads, "n_kv_heads")
    if n_heads % n_kv_heads:
        raise ValueError(
            f"n_kv_heads={n_kv_heads} não divide n_heads={n_heads}: cada grupo de queries precisa do mesmo "
            "número de cabeças."
        )
    group = n_heads // n_kv_heads
    return [h // group for h in range(n_heads)]


def _weights_2d(ws: dict[str, ArrayLike]) -> dict[str, np.ndarray]:
    out = {}
    for name, w in ws.items():
        arr = val.as_float(w, name)
        if arr.ndim != 2:
            raise ValueError(f"{name} precisa ser uma matriz 2-D; recebi forma {arr.shape}.")
        out[name] = arr
    return out


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
    x_kv : ``(..., n_kv, d_model)`` — de onde saem keys e values. Autoatenção: ``x_kv = x_q``;
        atenção cruzada: outra sequência.
    w_q : ``(d_model, n_heads·d_head)``; ``w_k``, ``w_v`` : ``(d_model, n_kv_heads·d_head)``;
    w_o : ``(n_heads·d_head, d_out)``.
    n_heads : número de cabeças de query; ``d_head = largura de w_q / n_heads``.
    n_kv_heads : cabeças de key/value (padrão ``n_heads``). A query ``h`` usa a key/value
        :func:`kv_head_of_query` ``[h]``; ``n_kv_heads = 1`` é *multi-query*.
    mask : booleana, *broadcastable* para ``(..., n_q, n_kv)``; vale igual para todas as cabeças.
    causal : a query ``i`` só vê as posições ``j <= i``.

    Retorna
    -------
    ``(output, weights)``: ``output`` ``(..., n_q, d_out)``, ``weights`` ``(..., n_heads, n_q, n_kv)``.
    """
    xq = val.as_float(x_q, "x_q")
    xkv = val.as_float(x_kv, "x_kv")
    ws = _weights_2d({"w_q": w_q, "w_k": w_k, "w_v": w_v, "w_o": w_o})
    wq, wk, wv, wo = ws["w_q"], ws["w_k"], ws["w_v"], ws["w_o"]
    n_heads = val.positive_int(n_heads, "n_heads")
    n_kv = n_heads if n_kv_heads is None else val.positive_int(n_kv_heads, "n_kv_heads")
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
    kv_of_q = kv_head_of_query(n_heads, n_kv)
    d_head = width // n_heads
    if wk.shape[1] != n_kv * d_head or wv.shape[1] != n_kv * d_head:
        raise ValueError(
            f"w_k {wk.shape} e w_v {wv.shape} precisam ter n_kv_heads·d_head = {n_kv}·{d_head} = "
            f"{n_kv * d_head} colunas."
        )
    if wo.shape[0] != width:
        raise ValueError(f"w_o tem forma {wo.shape}, mas precisa de {width} = n_heads·d_head linhas.")

    qh = split_heads(xq @ wq, n_heads)  # (..., n_heads, n_q, d_head)
    kh = split_heads(xkv @ wk, n_kv)  # (..., n_kv_heads, n_kv, d_head)
    vh = split_heads(xkv @ wv, n_kv)
    if n_kv < n_heads:  # cada cabeça de key/value serve às cabeças de query do seu grupo
        kh = kh[..., kv_of_q, :, :]  # (..., n_heads, n_kv, d_head)
        vh = vh[..., kv_of_q, :, :]
    head_mask = None
    if mask is not None:
        m = np.asarray(mask)
        head_mask = m[..., None, :, :] if m.ndim >= 2 else m  # a mesma máscara em toda cabeça
    # a mesma conta de scaled_dot_product_attention, no caminho feito para n grande (veja helpers._fast)
    out, weights = fast_scaled_dot_product_attention(qh, kh, vh, head_mask, causal=causal)
    return merge_heads(out) @ wo, weights  # (..., n_q, d_out), (..., n_heads, n_q, n_kv)


def kv_cache_bytes(
    n_tokens: int, n_layers: int, n_kv_heads: int, d_head: int, bytes_per_value: int = 2, batch: int = 1
) -> int:
    """Bytes do *KV cache*: ``2 (K e V) · batch · n_layers · n_kv_heads · n_tokens · d_head · bytes_per_value``.

    ``bytes_per_value = 2`` corresponde a float16/bfloat16.
    """
    n_tokens, n_layers, n_kv_heads, d_head, bytes_per_value, batch = (val.positive_int(x, name) for x, name in (
        (n_tokens, "n_tokens"), (n_layers, "n_layers"), (n_kv_heads, "n_kv_heads"),
        (d_head, "d_head"), (bytes_per_value, "bytes_per_value"), (batch, "batch"),
    ))
    return 2 * batch * n_layers * n_kv_heads * n_tokens * d_head * bytes_per_value
