"""Notebook ``custo_quadratico``: o corretor da atenção por blocos, com a softmax online do estudante — ele
confere o resultado e o caminho (``K`` lido em pedaços, ou a ``combinar`` do estudante chamada a cada bloco).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...attention import scaled_dot_product_attention
from ...corretor import Array, Caso, Erro, Exercicio, conferir, corretor_de
from ...efficient import combine_states

__all__ = ["POR_BLOCOS", "check_atencao_por_blocos"]


def _blocos_com(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int, *, escala: bool = True,
                ultimo: bool = True, acumular: bool = True, maximo_no_bloco: bool = True, m0: float = -math.inf,
                dividir: bool = True, media_das_saidas: bool = False) -> np.ndarray:
    """A atenção de uma query, bloco a bloco, com um "defeito" escolhido (para os erros clássicos)."""
    q, K, V = (np.asarray(a) for a in (q, K, V))
    n, d = K.shape
    fator = 1 / math.sqrt(d) if escala else 1.0
    fim = n if ultimo else (n // tamanho_bloco) * tamanho_bloco
    estado = (m0, 0.0, np.zeros(V.shape[-1]))
    saidas = []
    for i in range(0, fim, tamanho_bloco):
        z = (K[i:i + tamanho_bloco] @ q) * fator
        m = float(z.max()) if maximo_no_bloco else 0.0
        e = np.exp(z - m)
        novo = (m, float(e.sum()), e @ V[i:i + tamanho_bloco])
        saidas.append(novo[2] / novo[1])
        estado = combine_states(estado, novo) if acumular else novo
    if media_das_saidas:
        return np.mean(saidas, axis=0)
    return estado[2] / estado[1] if dividir else estado[2]


# O caminho, não só o resultado: qualquer conta exata (até a atenção pronta, de uma vez) dá a mesma saída. Para
# reconhecer quem percorre as keys em blocos, K chega à função do estudante vigiado: cada fatia de linhas tirada
# dele fica registrada. E check_atencao_por_blocos conta as chamadas à combinar do estudante (a do Exercício 1).

#: a vigia da última cópia de K entregue a uma função (o corretor faz uma cópia por chamada, logo antes dela)
_VIGIA: dict[str, int] = {"fatias": 0, "maior": 0, "combinar": 0}


class _KeysVigiadas(np.ndarray):
    """``K`` vigiado: cada fatia de linhas tirada dele (``K[i:j]``, ``K[i]``, um laço ``for k in K``) fica
    registrada em ``vigia`` (quantas fatias e quantas linhas tinha a maior). Cópias inteiras (``K.copy()``,
    ``K.astype(...)``) continuam vigiadas; as fatias e o que sai das contas, não. Uma cópia profunda (a que o
    corretor faz antes de cada chamada) começa uma vigia nova, que passa a ser a :data:`_VIGIA`."""

    vigia: dict[str, int] | None = None

    def __array_finalize__(self, obj: Any) -> None:
        origem = getattr(obj, "vigia", None)
        self.vigia = origem if origem is not None and self.shape == getattr(obj, "shape", None) else None

    def __getitem__(self, indice: Any) -> Any:
        pedaco = super().__getitem__(indice)
        if self.vigia is not None:
            linhas = pedaco.shape[0] if isinstance(pedaco, np.ndarray) and pedaco.ndim == self.ndim else 1
            self.vigia["fatias"] += 1
            self.vigia["maior"] = max(self.vigia["maior"], linhas)
        return pedaco

    def __deepcopy__(self, memo: dict) -> _KeysVigiadas:
        global _VIGIA
        copia = np.array(self, copy=True, subok=False).view(_KeysVigiadas)
        copia.vigia = _VIGIA = {"fatias": 0, "maior": 0, "combinar": 0}
        return copia


def _vigiado(K: np.ndarray) -> _KeysVigiadas:
    vigiado = np.array(K, copy=True).view(_KeysVigiadas)
    vigiado.vigia = {"fatias": 0, "maior": 0, "combinar": 0}
    return vigiado


def _sem_blocos(_bruta: Any, _certo: Any, caso: Caso) -> bool:
    """A função respondeu sem que o corretor a visse percorrer as keys em blocos (só nos casos com 2 blocos ou mais):
    nenhuma fatia de K com até ``tamanho_bloco`` linhas, e a combinar do estudante chamada menos de uma vez por
    bloco (o primeiro bloco pode virar o estado sem combinar)."""
    n, bloco = caso.entradas["K"].shape[0], caso.entradas["tamanho_bloco"]
    if n <= bloco:
        return False
    fatiou = _VIGIA["fatias"] > 0 and _VIGIA["maior"] <= bloco
    combinou = _VIGIA["combinar"] >= -(-n // bloco) - 1
    return not (fatiou or combinou)


def _contando_combinar(fn: Any) -> Any:
    """``fn``, com as chamadas à ``combinar`` do estudante (a global do notebook que ``fn`` usa) contadas em
    :data:`_VIGIA` durante cada chamada; a ``combinar`` original volta ao lugar depois."""
    globais = getattr(fn, "__globals__", None)
    if not callable(fn) or not isinstance(globais, dict) or not callable(globais.get("combinar")):
        return fn

    @functools.wraps(fn)
    def vigiada(*args: Any, **kwargs: Any) -> Any:
        original = globais["combinar"]
        chamadas = [0]

        def contando(*a: Any, **k: Any) -> Any:
            chamadas[0] += 1
            return original(*a, **k)

        globais["combinar"] = contando
        try:
            return fn(*args, **kwargs)
        finally:
            globais["combinar"] = original
            _VIGIA["combinar"] = chamadas[0]

    return vigiada


def _casos_por_blocos() -> list[Caso]:
    rng = np.random.default_rng(11)
    casos = []
    for n, d, d_v, bloco, ganho, centro, tipo, descricao in (
        (7, 4, 2, 3, 1.0, 0.0, float, "com 7 keys em blocos de 3 (o último bloco tem 1 key)"),
        (8, 4, 3, 8, 1.0, 0.0, float, "com 8 keys num bloco só"),
        (5, 2, 2, 1, 1.0, 0.0, float, "com 5 keys em blocos de 1"),
        (9, 4, 2, 4, 1.0, 1000.0, float, "com escores perto de +1000 (9 keys em blocos de 4)"),
        (9, 4, 2, 4, 1.0, -1000.0, float, "com escores perto de −1000 (9 keys em blocos de 4)"),
        (6, 4, 2, 2, 300.0, 0.0, float, "com escores muito espalhados (centenas de distância entre eles)"),
        (7, 4, 2, 3, 3.0, 0.0, np.float32, "com q, K e V em float32"),
    ):
        q = rng.normal(size=d)
        K = ganho * rng.normal(size=(n, d))
        if centro:
            # um componente comum a todas as keys, alinhado com q: todos os escores perto de `centro`
            K = K * 0.3 + np.outer(np.ones(n), q) * centro * math.sqrt(d) / (q @ q)
        V = rng.normal(size=(n, d_v))
        casos.append(Caso(descricao, {"q": q.astype(tipo), "K": _vigiado(K.astype(tipo)), "V": V.astype(tipo),
                                      "tamanho_bloco": bloco}))
    return casos


def _por_blocos_certo(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
    saida, _ = scaled_dot_product_attention(np.asarray(q, dtype=float), np.asarray(K, dtype=float),
                                            np.asarray(V, dtype=float))
    return saida


def _blocos_errado(**opcoes: Any) -> Callable[..., np.ndarray]:
    def errada(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
        return _blocos_com(*(np.asarray(a, dtype=float) for a in (q, K, V)), tamanho_bloco, **opcoes)
    return errada


def _blocos_instavel(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _blocos_com(q, K, V, tamanho_bloco, maximo_no_bloco=False)


def _blocos_m0(q: np.ndarray, K: np.ndarray, V: np.ndarray, tamanho_bloco: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _blocos_com(q, K, V, tamanho_bloco, m0=0.0)


POR_BLOCOS = Exercicio(
    nome="a atenção por blocos",
    casos=_casos_por_blocos,
    certo=_por_blocos_certo,
    formato=Array(tol=1e-5),
    acerto="Correto! A saída bate com a atenção exata em todos os casos — último bloco menor, blocos de uma key, "
           "escores perto de ±1000 (em que e^(escore) nem cabe num float64), escores muito espalhados e float32 —, e "
           "a sua função percorreu as keys em blocos. (O corretor confere o resultado e o caminho — K lido em "
           "pedaços, ou a sua combinar chamada a cada bloco —, não a memória: quem garante que só os escores de um "
           "bloco existem por vez é o seu código.)",
    erros=[
        Erro("sem percorrer em blocos",
             "A saída está certa, mas o corretor não viu a sua função percorrer as keys em blocos: K não foi fatiado "
             "em pedaços de até tamanho_bloco linhas (K[inicio:inicio + tamanho_bloco]), e a sua combinar não foi "
             "chamada a cada bloco. Calcular todos os escores de uma vez (ou chamar a atenção pronta) dá o mesmo "
             "número — e é justamente o que a atenção por blocos evita. Percorra K em blocos e junte o estado de "
             "cada bloco ao acumulado com a sua combinar.",
             quando=_sem_blocos, sempre=True),
        Erro("sem a escala √d",
             "Faltou dividir os escores por √d (d = o tamanho de q) antes de montar o estado do bloco.",
             resposta=_blocos_errado(escala=False)),
        Erro("perdeu o último bloco",
             "As keys do fim ficaram de fora: quando o número de keys não é múltiplo do tamanho do bloco, o último "
             "bloco é menor, mas existe. Percorra range(0, n, tamanho_bloco) e corte K[i:i + tamanho_bloco] (o "
             "fatiamento do numpy já para no fim).",
             resposta=_blocos_errado(ultimo=False)),
        Erro("só o último bloco",
             "A saída só enxerga o **último** bloco: o estado foi substituído a cada passo em vez de combinado. "
             "Guarde estado = combinar(estado, estado_do_bloco) — o estado carrega tudo o que já foi visto.",
             resposta=_blocos_errado(acumular=False)),
        Erro("média das saídas dos blocos",
             "Você fez a softmax de cada bloco separadamente e tirou a média das saídas. Cada bloco normalizado sozinho "
             "dá peso total 1 ao bloco, por menores que sejam os escores dele; a softmax de verdade compara os escores "
             "de **todos** os blocos. Carregue (m, l, acc) e divida uma vez só, no fim.",
             resposta=_blocos_errado(media_das_saidas=True)),
        Erro("sem dividir por l",
             "Você devolveu acc sem dividir por l: acc é a soma dos values pesados por e^(z − m), ainda não "
             "normalizada. A saída é acc / l, uma vez, depois do último bloco.",
             resposta=_blocos_errado(dividir=False)),
        Erro("estado vazio com m = 0",
             "Com escores perto de −1000 a resposta saiu NaN: o estado inicial começou com m = 0 em vez de −inf. "
             "Aí o máximo corrido nunca desce abaixo de 0, e e^(−1000 − 0) vira 0 em l e em acc (0/0 no fim). O "
             "estado vazio é (−inf, 0, 0): e^(−inf) = 0 faz ele sumir sozinho na primeira combinação.",
             resposta=_blocos_m0),
        Erro("bloco sem subtrair o máximo (instável)",
             "A resposta tem NaN ou inf: o estado de cada bloco foi calculado com e^z, sem subtrair o máximo do "
             "bloco, e e^1000 estoura. O estado do bloco é m = max(z), l = Σ e^(z − m), acc = Σ e^(z − m) v.",
             resposta=_blocos_instavel),
    ],
    dica_de_forma="A saída de uma query é um vetor com o tamanho de um value: forma (d_v,).",
)


@corretor_de(POR_BLOCOS)
def check_atencao_por_blocos(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(q, K, V, tamanho_bloco)`` = a atenção exata de **uma** query ``q`` ``(d,)`` contra
    ``K`` ``(n, d)`` e ``V`` ``(n, d_v)``, calculada bloco de keys a bloco de keys com a softmax online
    (a referência é :func:`helpers.attention.scaled_dot_product_attention`).

    Casos: último bloco menor, um bloco só, blocos de 1, escores perto de +1000 e de −1000, escores muito
    espalhados e entrada em float32. Reconhece cada erro de :data:`POR_BLOCOS`, inclusive a resposta certa
    calculada sem percorrer as keys em blocos (nem ``K`` fatiado em pedaços de até ``tamanho_bloco`` linhas, nem a
    ``combinar`` do estudante, a global do notebook, chamada a cada bloco).
    """
    return conferir(POR_BLOCOS, _contando_combinar(fn))

