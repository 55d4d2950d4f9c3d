"""Notebook 09_atencao_aprendida: o modelo pequeno, o seu gradiente escrito à mão, Adam e o treino.

O modelo
--------
::

    x₀ = E[tokens] + P[posições]                         (n, d_model)   embeddings de token e de posição
    xₗ₊₁ = xₗ + MHA(xₗ)      (ou só MHA(xₗ) sem residual)  (n, d_model)   l = 0 .. n_camadas-1
    logits = x_L[posição da lacuna] · W_saida + b_saida   (4,)           uma por classe
    perda = entropia cruzada da softmax dos logits

``MHA`` é :func:`helpers.attention.multi_head_attention` (autoatenção, sem máscara causal; as posições
de enchimento de um lote ficam mascaradas). Não há camada MLP nem normalização: o que o modelo sabe
sobre o sujeito só pode chegar à lacuna pela atenção (o token da lacuna é sempre o mesmo).

O gradiente é escrito à mão: a regra da cadeia passa pela leitura, pelas projeções ``W_o`` e
``W_q, W_k, W_v``, e o miolo da atenção (softmax(QKᵀ/√d)V) usa :func:`helpers.attention.attention_backward`.
Tudo em float64, com semente: a mesma :class:`Receita` dá pesos idênticos bit a bit na mesma máquina
(o BLAS roda com uma thread durante o treino).

A *baseline* sem atenção (:func:`treinar_sem_atencao`) troca a atenção pela média dos embeddings da
frase: vê as mesmas palavras, mas não sabe qual sintagma é o sujeito.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from ... import _validation as val
from ..._fast import blas_one_thread
from ...attention import attention_backward, merge_heads, multi_head_attention, split_heads
from .frases import ALVOS, LACUNA, N_MAX, VOCABULARIO, Frase, codificar, gerar_frases

__all__ = [
    "Receita",
    "RECEITA_COMPLETA",
    "RECEITA_AO_VIVO",
    "RECEITA_RAPIDA",
    "ModeloConcordancia",
    "BaseSemAtencao",
    "Treino",
    "Adam",
    "iniciar_modelo",
    "perda_e_gradientes",
    "treinar",
    "treinar_sem_atencao",
]

N_CLASSES = len(ALVOS)


# ---------------------------------------------------------------------------------------------
# 1. A receita: tudo o que define um treino (e nada mais)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Receita:
    """Os hiperparâmetros de um treino. A mesma receita dá os mesmos pesos (na mesma máquina).

    semente : sorteia os pesos iniciais e a ordem dos lotes.
    semente_frases, n_frases : as frases de treino são
        ``gerar_frases(n_frases, semente=semente_frases, conjunto="treino")``.
    d_model, n_camadas, n_cabecas : as dimensões do modelo (``d_model`` divisível por ``n_cabecas``).
    residual : soma a saída da atenção à entrada da camada (``x + MHA(x)``).
    passos, lote : quantos passos de Adam e quantas frases por passo.
    taxa, aquecimento : a taxa de aprendizado máxima; ela sobe linearmente nos primeiros ``aquecimento``
        passos e depois desce como um cosseno até 10% do máximo no último passo.
    beta1, beta2, eps : os parâmetros do Adam.
    """

    semente: int = 0
    semente_frases: int = 1
    n_frases: int = 20_000
    d_model: int = 32
    n_camadas: int = 2
    n_cabecas: int = 2
    residual: bool = True
    passos: int = 1500
    lote: int = 64
    taxa: float = 3e-3
    aquecimento: int = 50
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8

    def __post_init__(self) -> None:
        for nome in ("n_frases", "d_model", "n_camadas", "n_cabecas", "passos", "lote"):
            val.positive_int(getattr(self, nome), nome)
        for nome in ("semente", "semente_frases", "aquecimento"):
            val.positive_int(getattr(self, nome), nome, minimum=0)
        for nome in ("taxa", "eps"):
            val.positive(getattr(self, nome), nome)
        for nome in ("beta1", "beta2"):
            b = getattr(self, nome)
            if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0.0 <= b < 1.0:
                raise ValueError(f"{nome} precisa estar em [0, 1); recebi {b!r}.")
        if not isinstance(self.residual, bool):
            raise ValueError(f"residual precisa ser True ou False; recebi {self.residual!r}.")
        if self.d_model % self.n_cabecas:
            raise ValueError(
                f"d_model={self.d_model} precisa ser divisível por n_cabecas={self.n_cabecas} "
                "(cada cabeça fica com d_model / n_cabecas colunas)."
            )

    def como_dict(self) -> dict:
        """A receita como um dicionário simples (para o JSON que acompanha o modelo)."""
        return asdict(self)


#: a receita do modelo que vem com o repositório (``python -m tools.treinar``)
RECEITA_COMPLETA = Receita()
#: o treino ao vivo do botão "treinar" do painel: chega a ~100% em poucos segundos (a conta; o
#: desenho da curva da perda fica por conta do painel)
RECEITA_AO_VIVO = replace(RECEITA_COMPLETA, passos=400)
#: o treino curto que roda de cima a baixo no notebook (e no nbval): 1–2 s, ~95% de acerto
RECEITA_RAPIDA = replace(RECEITA_COMPLETA, passos=150, n_frases=2_000)


# ---------------------------------------------------------------------------------------------
# 2. Lotes: frases → ids com enchimento e máscara
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Lote:
    ids: NDArray[np.int64]  # (B, n)
    mascara: NDArray[np.bool_]  # (B, n): True onde há palavra de verdade
    posicao_alvo: NDArray[np.int64]  # (B,)
    classes: NDArray[np.int64]  # (B,), -1 se desconhecida


def _lote(frases: Sequence[Frase]) -> _Lote:
    """Empilha frases de comprimentos diferentes: ``(B, n)`` com ``n`` a maior delas."""
    if not len(frases):
        raise ValueError("o lote está vazio: preciso de pelo menos uma frase.")
    n = max(len(f.tokens) for f in frases)
    if n > N_MAX:
        raise ValueError(f"o modelo aceita frases de até {N_MAX} palavras; recebi uma com {n}.")
    ids = np.zeros((len(frases), n), dtype=np.int64)  # o enchimento usa o id 0, mascarado
    mascara = np.zeros((len(frases), n), dtype=bool)
    for b, f in enumerate(frases):
        ids[b, : len(f.tokens)] = codificar(f.tokens)
        mascara[b, : len(f.tokens)] = True
    pos = np.array([f.posicao_alvo for f in frases], dtype=np.int64)
    classes = np.array([f.classe for f in frases], dtype=np.int64)
    return _Lote(ids, mascara, pos, classes)


def _tokens_da_frase(tokens: Sequence[str] | str) -> list[str]:
    """Valida uma frase digitada ou gerada: palavras conhecidas, a lacuna no fim, no máximo N_MAX."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    tokens = list(tokens)
    codificar(tokens)  # palavra desconhecida → ValueError em português
    if tokens[-1] != LACUNA:
        raise ValueError(
            f"a frase precisa terminar com a lacuna {LACUNA!r}, que é onde o modelo escolhe a forma do "
            f"predicado (por exemplo: 'o bolo para as meninas {LACUNA}'); a última palavra é {tokens[-1]!r}."
        )
    if len(tokens) > N_MAX:
        raise ValueError(f"o modelo aceita frases de até {N_MAX} palavras (a lacuna incluída); esta tem {len(tokens)}.")
    return tokens


# ---------------------------------------------------------------------------------------------
# 3. O modelo: a conta de ida (a propagação para a frente)
# ---------------------------------------------------------------------------------------------


def _n_camadas(p: dict[str, np.ndarray]) -> int:
    return sum(1 for nome in p if nome.startswith("w_q"))


def _frente(p: dict[str, np.ndarray], ids: np.ndarray, mascara: np.ndarray | None, n_cabecas: int,
            residual: bool) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """As camadas de atenção. Devolve ``x_L`` ``(B, n, d)``, as entradas de cada camada e os pesos
    ``(B, n_cabecas, n, n)`` de cada camada."""
    n = ids.shape[1]
    x = p["embedding"][ids] + p["posicao"][:n]  # (B, n, d)
    m = None if mascara is None else mascara[:, None, :]  # (B, 1, n): nenhuma query olha o enchimento
    entradas, pesos = [], []
    for camada in range(_n_camadas(p)):
        entradas.append(x)
        a, w = multi_head_attention(x, x, p[f"w_q{camada}"], p[f"w_k{camada}"], p[f"w_v{camada}"],
                                    p[f"w_o{camada}"], n_cabecas, mask=m)  # (B, n, d), (B, H, n, n)
        pesos.append(w)
        x = x + a if residual else a
    return x, entradas, pesos


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


class ModeloConcordancia:
    """O modelo treinado (ou não): embeddings + ``n_camadas`` de atenção com ``n_cabecas`` + leitura.

    ``parametros`` tem ``embedding`` ``(V, d)``, ``posicao`` ``(N_MAX, d)``, ``w_q{l}``, ``w_k{l}``,
    ``w_v{l}``, ``w_o{l}`` ``(d, d)`` para cada camada ``l`` e ``w_saida`` ``(d, 4)``, ``b_saida`` ``(4,)``.
    """

    def __init__(self, parametros: dict[str, np.ndarray], receita: Receita) -> None:
        self.receita = receita
        self.parametros = _validar_parametros(parametros, receita)

    @property
    def n_camadas(self) -> int:
        return self.receita.n_camadas

    @property
    def n_cabecas(self) -> int:
        return self.receita.n_cabecas

    def __repr__(self) -> str:
        r = self.receita
        return (f"ModeloConcordancia(d_model={r.d_model}, n_camadas={r.n_camadas}, n_cabecas={r.n_cabecas}, "
                f"residual={r.residual}, {self.n_parametros()} parâmetros)")

    def n_parametros(self) -> int:
        """Quantos números o modelo aprende."""
        return int(sum(a.size for a in self.parametros.values()))

    # -- frases digitadas -------------------------------------------------------------------------

    def probabilidades(self, tokens: Sequence[str] | str) -> NDArray[np.float64]:
        """As probabilidades ``(4,)`` das formas de :data:`ALVOS` na lacuna (a última palavra)."""
        tokens = _tokens_da_frase(tokens)
        ids = codificar(tokens)[None, :]
        with blas_one_thread():
            x, _, _ = _frente(self.parametros, ids, None, self.n_cabecas, self.receita.residual)
        logits = x[0, -1] @ self.parametros["w_saida"] + self.parametros["b_saida"]
        return np.exp(_log_softmax(logits))

    def prever(self, tokens: Sequence[str] | str) -> str:
        """A forma do predicado que o modelo escolhe para a lacuna, por exemplo ``"estão prontas"``.

        ``tokens``: a lista de palavras (ou o texto, separado por espaços), terminando em ``___``.
        Uma palavra fora do vocabulário levanta ``ValueError`` em português.
        """
        return ALVOS[int(np.argmax(self.probabilidades(tokens)))]

    def atencao(self, tokens: Sequence[str] | str) -> NDArray[np.float64]:
        """Os pesos de atenção ``(n_camadas, n_cabecas, n, n)`` de uma frase de ``n`` palavras.

        ``[l, h, i, j]`` é quanto a palavra ``i`` olha para a palavra ``j`` na cabeça ``h`` da camada
        ``l``; cada linha soma 1.
        """
        tokens = _tokens_da_frase(tokens)
        ids = codificar(tokens)[None, :]
        with blas_one_thread():
            _, _, pesos = _frente(self.parametros, ids, None, self.n_cabecas, self.receita.residual)
        return np.stack([w[0] for w in pesos])  # (L, H, n, n)

    def entradas(self, tokens: Sequence[str] | str) -> NDArray[np.float64]:
        """A entrada ``xₗ`` de cada camada ``l``, ``(n_camadas, n, d_model)``, para uma frase de ``n`` palavras.

        ``[0]`` é ``E[tokens] + P[:n]`` e ``[l + 1]`` é ``xₗ + MHA(xₗ)`` (só ``MHA(xₗ)`` num modelo sem residual).
        As *queries* e as *keys* da cabeça ``h`` da camada ``l`` são ``xₗ · W_qˡ`` e ``xₗ · W_kˡ``, na fatia de
        colunas dessa cabeça (veja :mod:`.qk`).
        """
        tokens = _tokens_da_frase(tokens)
        ids = codificar(tokens)[None, :]
        with blas_one_thread():
            _, entradas, _ = _frente(self.parametros, ids, None, self.n_cabecas, self.receita.residual)
        return np.stack([x[0] for x in entradas])  # (L, n, d_model)

    # -- lotes de frases geradas --------------------------------------------------------------------

    def logits_lote(self, frases: Sequence[Frase]) -> NDArray[np.float64]:
        """Os logits ``(B, 4)`` de um lote de frases."""
        lote = _lote(frases)
        with blas_one_thread():
            logits, _ = _logits(self.parametros, lote, self.n_cabecas, self.receita.residual)
        return logits

    def prever_lote(self, frases: Sequence[Frase]) -> NDArray[np.int64]:
        """As classes previstas ``(B,)`` (ids em :data:`ALVOS`)."""
        return np.argmax(self.logits_lote(frases), axis=-1)

    def atencao_lote(self, frases: Sequence[Frase]) -> NDArray[np.float64]:
        """Os pesos ``(B, n_camadas, n_cabecas, n, n)`` com ``n`` a maior frase (o enchimento tem peso 0)."""
        lote = _lote(frases)
        with blas_one_thread():
            _, _, pesos = _frente(self.parametros, lote.ids, lote.mascara, self.n_cabecas, self.receita.residual)
        return np.stack(pesos, axis=1)


def _validar_parametros(p: dict[str, np.ndarray], r: Receita) -> dict[str, np.ndarray]:
    formas = _formas(r)
    faltam = sorted(set(formas) - set(p))
    sobram = sorted(set(p) - set(formas))
    if faltam or sobram:
        raise ValueError(f"os parâmetros não casam com a receita: faltam {faltam}, sobram {sobram}.")
    saida = {}
    for nome, forma in formas.items():
        arr = val.as_float64(p[nome], nome)
        if arr.shape != forma:
            raise ValueError(f"o parâmetro {nome} precisa ter forma {forma}; tem {arr.shape}.")
        saida[nome] = arr
    return saida


def _formas(r: Receita) -> dict[str, tuple[int, ...]]:
    d = r.d_model
    formas: dict[str, tuple[int, ...]] = {"embedding": (len(VOCABULARIO), d), "posicao": (N_MAX, d)}
    for camada in range(r.n_camadas):
        for w in ("w_q", "w_k", "w_v", "w_o"):
            formas[f"{w}{camada}"] = (d, d)
    formas["w_saida"] = (d, N_CLASSES)
    formas["b_saida"] = (N_CLASSES,)
    return formas


def iniciar_modelo(receita: Receita = RECEITA_COMPLETA) -> ModeloConcordancia:
    """O modelo antes do treino: pesos sorteados a partir de ``receita.semente``.

    Embeddings de token ~ N(0, 1), de posição ~ N(0, 0,5²); cada ``W`` ``(d, d)`` ~ N(0, 1/d) (a
    variância dos vetores se mantém de camada em camada); a leitura ~ N(0, 1/d) e o viés 0.
    """
    rng = np.random.default_rng(receita.semente)
    p: dict[str, np.ndarray] = {}
    for nome, forma in _formas(receita).items():
        if nome == "embedding":
            p[nome] = rng.standard_normal(forma)
        elif nome == "posicao":
            p[nome] = 0.5 * rng.standard_normal(forma)
        elif nome == "b_saida":
            p[nome] = np.zeros(forma)
        else:
            p[nome] = rng.standard_normal(forma) / math.sqrt(forma[0])
    return ModeloConcordancia(p, receita)


# ---------------------------------------------------------------------------------------------
# 4. A perda e o seu gradiente, à mão
# ---------------------------------------------------------------------------------------------


def _logits(p: dict[str, np.ndarray], lote: _Lote, n_cabecas: int, residual: bool) -> tuple[np.ndarray, tuple]:
    """Os logits ``(B, 4)`` e o que a conta de volta (a retropropagação) precisa: ``(x_L, entradas, pesos, h)``."""
    x, entradas, pesos = _frente(p, lote.ids, lote.mascara, n_cabecas, residual)
    h = x[np.arange(len(lote.ids)), lote.posicao_alvo]  # (B, d): o vetor da lacuna
    logits = h @ p["w_saida"] + p["b_saida"]  # (B, 4)
    return logits, (x, entradas, pesos, h)


def _perda_e_grad_modelo(p: dict[str, np.ndarray], lote: _Lote, n_cabecas: int,
                         residual: bool) -> tuple[float, dict[str, np.ndarray]]:
    """A entropia cruzada média do lote e o gradiente de cada parâmetro (mesmas formas)."""
    logits, (x, entradas, pesos, h) = _logits(p, lote, n_cabecas, residual)
    B, n, d = x.shape
    linhas = np.arange(B)
    logp = _log_softmax(logits)  # (B, 4)
    perda = -float(np.mean(logp[linhas, lote.classes]))

    g: dict[str, np.ndarray] = {}
    dlogits = np.exp(logp)  # softmax(logits) − one-hot, dividido por B
    dlogits[linhas, lote.classes] -= 1.0
    dlogits /= B  # (B, 4)
    g["w_saida"] = h.T @ dlogits  # (d, 4)
    g["b_saida"] = dlogits.sum(axis=0)  # (4,)
    dx = np.zeros_like(x)  # (B, n, d): só a lacuna recebe gradiente da leitura
    dx[linhas, lote.posicao_alvo] = dlogits @ p["w_saida"].T

    mascara = lote.mascara[:, None, None, :]  # (B, 1, 1, n), a mesma de multi_head_attention
    for camada in reversed(range(len(entradas))):
        xc, w = entradas[camada], pesos[camada]  # (B, n, d), (B, H, n, n)
        wq, wk, wv, wo = (p[f"{nome}{camada}"] for nome in ("w_q", "w_k", "w_v", "w_o"))
        qh = split_heads(xc @ wq, n_cabecas)  # (B, H, n, d_head)
        kh = split_heads(xc @ wk, n_cabecas)
        vh = split_heads(xc @ wv, n_cabecas)
        juntas = merge_heads(w @ vh)  # (B, n, H·d_head): a saída das cabeças antes de W_o
        da = dx  # o gradiente da saída da atenção, MHA(x)
        g[f"w_o{camada}"] = juntas.reshape(-1, d).T @ da.reshape(-1, d)  # (d, d)
        d_cabecas = split_heads(da @ wo.T, n_cabecas)  # (B, H, n, d_head)
        dqh, dkh, dvh = attention_backward(qh, kh, vh, d_cabecas, mascara)  # o miolo: softmax(QKᵀ/√d)V
        dq, dk, dv = merge_heads(dqh), merge_heads(dkh), merge_heads(dvh)  # (B, n, d) cada
        xr = xc.reshape(-1, d)
        g[f"w_q{camada}"] = xr.T @ dq.reshape(-1, d)
        g[f"w_k{camada}"] = xr.T @ dk.reshape(-1, d)
        g[f"w_v{camada}"] = xr.T @ dv.reshape(-1, d)
        dx_entrada = dq @ wq.T + dk @ wk.T + dv @ wv.T  # (B, n, d)
        dx = dx_entrada + dx if residual else dx_entrada

    g["embedding"] = np.zeros_like(p["embedding"])
    np.add.at(g["embedding"], lote.ids.ravel(), dx.reshape(-1, d))  # o enchimento recebe exatamente 0
    g["posicao"] = np.zeros_like(p["posicao"])
    g["posicao"][:n] = dx.sum(axis=0)
    return perda, g


def perda_e_gradientes(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> tuple[float, dict[str, np.ndarray]]:
    """A perda (entropia cruzada média) num lote de frases e o gradiente de cada parâmetro.

    O gradiente é um dicionário com as mesmas chaves e formas de ``modelo.parametros``.
    """
    lote = _lote(frases)
    with blas_one_thread():
        return _perda_e_grad_modelo(modelo.parametros, lote, modelo.n_cabecas, modelo.receita.residual)


# ---------------------------------------------------------------------------------------------
# 5. A baseline sem atenção: a média dos embeddings
# ---------------------------------------------------------------------------------------------


class BaseSemAtencao:
    """Média dos embeddings (token + posição) da frase → leitura. Vê as palavras, não a estrutura.

    ``parametros``: ``embedding`` ``(V, d)``, ``posicao`` ``(N_MAX, d)``, ``w_saida`` ``(d, 4)``, ``b_saida`` ``(4,)``.
    """

    def __init__(self, parametros: dict[str, np.ndarray], receita: Receita) -> None:
        self.parametros = parametros
        self.receita = receita

    def logits_lote(self, frases: Sequence[Frase]) -> NDArray[np.float64]:
        """Os logits ``(B, 4)`` de um lote de frases."""
        return _logits_base(self.parametros, _lote(frases))[0]

    def prever_lote(self, frases: Sequence[Frase]) -> NDArray[np.int64]:
        """As classes previstas ``(B,)`` (ids em :data:`ALVOS`)."""
        return np.argmax(self.logits_lote(frases), axis=-1)


def _logits_base(p: dict[str, np.ndarray], lote: _Lote) -> tuple[np.ndarray, tuple]:
    """Os logits ``(B, 4)`` da baseline e ``(h, m, conta)``: a média ``(B, d)``, a máscara e o comprimento."""
    n = lote.ids.shape[1]
    x = p["embedding"][lote.ids] + p["posicao"][:n]  # (B, n, d)
    m = lote.mascara[..., None].astype(np.float64)  # (B, n, 1)
    conta = m.sum(axis=1)  # (B, 1)
    h = (x * m).sum(axis=1) / conta  # (B, d): a média das palavras de verdade
    return h @ p["w_saida"] + p["b_saida"], (h, m, conta)


def _perda_e_grad_base(p: dict[str, np.ndarray], lote: _Lote) -> tuple[float, dict[str, np.ndarray]]:
    logits, (h, m, conta) = _logits_base(p, lote)
    B = len(lote.ids)
    linhas = np.arange(B)
    logp = _log_softmax(logits)
    perda = -float(np.mean(logp[linhas, lote.classes]))
    dlogits = np.exp(logp)
    dlogits[linhas, lote.classes] -= 1.0
    dlogits /= B
    g = {"w_saida": h.T @ dlogits, "b_saida": dlogits.sum(axis=0)}
    dx = (dlogits @ p["w_saida"].T)[:, None, :] * m / conta[:, None, :]  # (B, n, d)
    g["embedding"] = np.zeros_like(p["embedding"])
    np.add.at(g["embedding"], lote.ids.ravel(), dx.reshape(-1, dx.shape[-1]))
    g["posicao"] = np.zeros_like(p["posicao"])
    g["posicao"][: dx.shape[1]] = dx.sum(axis=0)
    return perda, g


# ---------------------------------------------------------------------------------------------
# 6. Adam, à mão, e o laço de treino
# ---------------------------------------------------------------------------------------------


class Adam:
    """Adam (Kingma & Ba) com correção de viés: para cada parâmetro ``θ`` com gradiente ``g``::

        m ← β₁ m + (1 − β₁) g          v ← β₂ v + (1 − β₂) g²
        θ ← θ − taxa · m̂ / (√v̂ + ε),   m̂ = m / (1 − β₁ᵗ),  v̂ = v / (1 − β₂ᵗ)

    Atualiza os arrays de ``parametros`` no lugar.
    """

    def __init__(self, parametros: dict[str, np.ndarray], beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8) -> None:
        self.parametros = parametros
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = {k: np.zeros_like(a) for k, a in parametros.items()}
        self.v = {k: np.zeros_like(a) for k, a in parametros.items()}
        self.t = 0

    def passo(self, grads: dict[str, np.ndarray], taxa: float) -> None:
        """Um passo com a taxa ``taxa``; ``grads`` tem as chaves e formas de ``parametros``."""
        self.t += 1
        c1 = 1.0 - self.beta1 ** self.t
        c2 = 1.0 - self.beta2 ** self.t
        for nome, theta in self.parametros.items():
            g = grads[nome]
            m, v = self.m[nome], self.v[nome]
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            theta -= taxa * (m / c1) / (np.sqrt(v / c2) + self.eps)


def _taxa_no_passo(r: Receita, passo: int) -> float:
    """Aquecimento linear e depois cosseno até 10% da taxa máxima (``passo`` começa em 0)."""
    if passo < r.aquecimento:
        return r.taxa * (passo + 1) / r.aquecimento
    resto = max(r.passos - r.aquecimento, 1)
    fracao = (passo - r.aquecimento) / resto
    return r.taxa * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * fracao)))


@dataclass
class Treino:
    """O resultado de :func:`treinar`: o modelo, a perda de cada passo e o tempo que levou (s)."""

    modelo: ModeloConcordancia | BaseSemAtencao
    perdas: NDArray[np.float64] = field(repr=False)
    segundos: float


#: ``ao_passo(passo, perda)`` é chamado depois de cada passo (``passo`` começa em 1); devolver
#: ``False`` interrompe o treino (o botão "parar" do painel)
AoPasso = Callable[[int, float], "bool | None"]


def _laco(p: dict[str, np.ndarray], perda_grad: Callable, r: Receita, frases: Sequence[Frase] | None,
          passos: int | None, ao_passo: AoPasso | None) -> tuple[NDArray[np.float64], float]:
    passos = r.passos if passos is None else val.positive_int(passos, "passos")
    if frases is None:
        frases = gerar_frases(r.n_frases, semente=r.semente_frases, conjunto="treino")
    todas = _lote(frases)  # codifica uma vez; cada passo recorta um lote
    rng = np.random.default_rng([r.semente, 1])  # a ordem dos lotes (independente dos pesos iniciais)
    adam = Adam(p, r.beta1, r.beta2, r.eps)
    perdas = np.empty(passos)
    inicio = time.perf_counter()
    with blas_one_thread():
        for passo in range(passos):
            idx = rng.integers(0, len(todas.ids), size=r.lote)
            comprimento = int(todas.mascara[idx].sum(axis=1).max())
            lote = _Lote(todas.ids[idx, :comprimento], todas.mascara[idx, :comprimento],
                         todas.posicao_alvo[idx], todas.classes[idx])
            perda, grads = perda_grad(p, lote)
            if not math.isfinite(perda):
                raise ValueError(f"a perda virou {perda} no passo {passo + 1}; tente uma taxa de aprendizado menor.")
            adam.passo(grads, _taxa_no_passo(r, passo))
            perdas[passo] = perda
            if ao_passo is not None and ao_passo(passo + 1, perda) is False:
                perdas = perdas[: passo + 1]
                break
    return perdas, time.perf_counter() - inicio


def treinar(receita: Receita = RECEITA_COMPLETA, *, passos: int | None = None, frases: Sequence[Frase] | None = None,
            ao_passo: AoPasso | None = None) -> Treino:
    """Treina um modelo novo a partir de :func:`iniciar_modelo` ``(receita)``, com Adam.

    passos : quantos passos dar (padrão: ``receita.passos``). Os primeiros ``N`` passos de qualquer
        treino com a mesma receita são idênticos, bit a bit, aos de outro (a taxa de aprendizado de
        cada passo depende só de ``receita.passos``, não de ``passos``).
    frases : as frases de treino (padrão: ``gerar_frases(receita.n_frases, semente=receita.semente_frases,
        conjunto="treino")``).
    ao_passo : ``ao_passo(passo, perda)`` depois de cada passo (barra de progresso, curva da perda);
        se devolver ``False``, o treino para ali.
    """
    modelo = iniciar_modelo(receita)
    h, res = modelo.n_cabecas, receita.residual
    perdas, seg = _laco(modelo.parametros, lambda p, lote: _perda_e_grad_modelo(p, lote, h, res),
                        receita, frases, passos, ao_passo)
    return Treino(modelo, perdas, seg)


def treinar_sem_atencao(receita: Receita = RECEITA_COMPLETA, *, passos: int | None = None,
                        frases: Sequence[Frase] | None = None, ao_passo: AoPasso | None = None) -> Treino:
    """Treina a :class:`BaseSemAtencao` com as mesmas frases, lotes, taxa e Adam de :func:`treinar`."""
    completo = iniciar_modelo(receita).parametros  # os mesmos embeddings e leitura iniciais
    p = {k: completo[k] for k in ("embedding", "posicao", "w_saida", "b_saida")}
    perdas, seg = _laco(p, _perda_e_grad_base, receita, frases, passos, ao_passo)
    return Treino(BaseSemAtencao(p, receita), perdas, seg)
