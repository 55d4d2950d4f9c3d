"""Notebook ``atencao_aprendida``: o que o modelo acerta e para onde cada cabeça olha — só o que se mede.

Todas as medidas são médias sobre frases novas (geradas com uma semente diferente da do treino):

- :func:`acuracia` — a fração de lacunas com a forma certa;
- :func:`analisar_cabecas` — para cada camada e cabeça, o peso médio da lacuna no sintagma do sujeito,
  no do atrator e no do distrator, e outros comportamentos medidos em *todas* as palavras (olhar a palavra anterior,
  a primeira palavra, a própria palavra, a vírgula); ao lado, o mesmo número para uma atenção
  uniforme, a referência de "não olha para nada em especial";
- :func:`nomear_cabecas` — um nome para cada cabeça cujo número passa de um limiar declarado;
- :func:`desligar_cabeca` e :func:`acuracia_sem_cada_cabeca` — o que o modelo perde sem uma cabeça
  (peso de atenção não é o mesmo que importância); :func:`acuracia_com_media` — a mesma pergunta com outra
  intervenção (a saída da cabeça trocada pela sua média, em vez de zero);
- :func:`acuracia_sem_atualizar` — um teste causal do revezamento: uma posição deixa de receber a
  atualização de uma camada (o que ela "leu" ali some), e medimos a acurácia de novo;
- :func:`medir_dicas_bertviz` — as dicas de quem lê mapas de atenção (estacionar na primeira palavra
  ou na vírgula, camadas de baixo locais), medidas neste modelo, separando a linha da lacuna (a única
  que a perda lê na última camada) das outras;
- :func:`acuracia_regra_do_artigo` e :func:`acuracia_bigramas` — a pista local da tarefa (a palavra antes de
  cada artigo), medida por uma regra de uma linha e por um saco de bigramas;
- :func:`acuracia_por_atrator` e :func:`erros_de_atracao` — atrator que concorda contra atrator que discorda
  (Linzen, Dupoux & Goldberg, 2016), e quantos erros escolhem a forma do atrator;
- :func:`contrafactuais`, :func:`prever_com_remendo` e :func:`efeito_do_remendo` — o remendo de ativação: a
  saída de uma cabeça, na lacuna, copiada de uma frase com o sujeito em outra forma; quantas previsões seguem;
- :func:`medir_semente` — a linha de um modelo na tabela das sementes (``data/sementes_concordancia.json``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..._fast import blas_one_thread
from ...attention import merge_heads, scaled_dot_product_attention, split_heads
from ...formato import decimal
from .frases import ALVOS, ARTIGOS, PREPOSICOES, PREPOSICOES_ABERTURA, SUBSTANTIVOS, Frase
from .rede import BaseSemAtencao, ModeloConcordancia, _lote

__all__ = ["MEDIDAS", "LIMIARES", "DICAS", "AnaliseCabecas", "DicasBertViz", "acuracia", "acuracia_com_media",
           "acuracia_sem_atualizar", "acuracia_sem_cada_cabeca", "analisar_cabecas", "desligar_cabeca",
           "medir_dicas_bertviz", "nomear_cabecas", "porcento",
           "acuracia_bigramas", "acuracia_por_atrator", "acuracia_regra_do_artigo", "contrafactuais", "contrafactual",
           "efeito_do_remendo", "erros_de_atracao", "fracao_que_segue", "medir_semente", "prever_com_remendo",
           "remendo_na_lacuna", "saidas_das_cabecas"]

#: o que :func:`analisar_cabecas` mede, com a explicação de cada número
MEDIDAS: dict[str, str] = {
    "sujeito": "peso da lacuna no sintagma do sujeito (artigo + substantivo)",
    "atrator": "peso da lacuna no sintagma do atrator (artigo + substantivo)",
    "distrator": "peso da lacuna no distrator, 'segundo as vizinhas ,' (só frases que têm um)",
    "lacuna": "peso da lacuna nela mesma",
    "anterior": "peso de cada palavra (da 2ª em diante) na palavra imediatamente anterior",
    "primeira": "peso de cada palavra na primeira palavra da frase",
    "propria": "peso de cada palavra nela mesma",
    "virgula": "peso de cada palavra nas vírgulas (só frases que têm vírgula)",
}

#: quando uma cabeça ganha um nome em :func:`nomear_cabecas` (média de frases novas)
LIMIARES: dict[str, tuple[str, float]] = {
    "anterior": ("olha a palavra anterior", 0.5),
    "primeira": ("estaciona na primeira palavra", 0.5),
    "propria": ("olha a própria palavra", 0.5),
    "virgula": ("estaciona na vírgula", 0.3),
}


def porcento(x: float, casas: int = 1) -> str:
    """Uma fração como porcentagem para a prosa, com vírgula decimal: ``0.682`` → ``"68,2%"``.

    (Um candidato a :mod:`helpers.formato`, onde mora :func:`~helpers.formato.decimal`.)
    """
    return f"{decimal(100 * x, casas)}%"


def acuracia(modelo: ModeloConcordancia | BaseSemAtencao, frases: Sequence[Frase]) -> float:
    """A fração (0..1) de frases em que o modelo escolhe a forma certa do predicado."""
    classes = np.array([f.classe for f in frases])
    return float(np.mean(modelo.prever_lote(frases) == classes))


@dataclass(frozen=True)
class AnaliseCabecas:
    """As medidas de :data:`MEDIDAS`, cada uma um array ``(n_camadas, n_cabecas)``.

    ``medidas[nome]`` é a média no modelo; ``uniforme[nome]``, a mesma média para uma atenção que
    espalha o peso igualmente pelas palavras da frase (``(n_camadas, n_cabecas)`` também, com o mesmo
    valor em todas as cabeças). ``n_frases`` é quantas frases entraram na média.
    """

    medidas: dict[str, NDArray[np.float64]]
    uniforme: dict[str, NDArray[np.float64]]
    n_frases: int

    def tabela(self) -> str:
        """Uma tabela de texto: uma linha por cabeça, uma coluna por medida (uniforme entre parênteses)."""
        nomes = list(MEDIDAS)
        cab = "camada·cabeça " + " ".join(f"{n:>14}" for n in nomes)
        linhas = [cab]
        n_camadas, n_cabecas = self.medidas[nomes[0]].shape
        for c in range(n_camadas):
            for h in range(n_cabecas):
                cels = " ".join(f"{self.medidas[n][c, h]:6.3f} ({self.uniforme[n][c, h]:5.3f})" for n in nomes)
                linhas.append(f"{c}·{h}{'':10} {cels}")
        return "\n".join(linhas)


def _posicoes(frases: Sequence[Frase], n: int, campo: str) -> NDArray[np.bool_]:
    """``(B, n)``: ``True`` nas posições de ``campo`` (``"posicoes_sujeito"``…) de cada frase."""
    m = np.zeros((len(frases), n), dtype=bool)
    for b, f in enumerate(frases):
        m[b, getattr(f, campo)] = True
    return m


def _linha_da_lacuna(pesos: np.ndarray, alvo: np.ndarray) -> np.ndarray:
    """``(B, L, H, n)``: a linha da lacuna de cada frase."""
    return np.take_along_axis(pesos, alvo[:, None, None, None, None], axis=3)[:, :, :, 0, :]


def _media_nas_linhas(valores: np.ndarray, validas: np.ndarray) -> np.ndarray:
    """``(B, L, H)``: a média de ``valores`` ``(B, L, H, m)`` nas posições ``validas`` ``(B, m)``."""
    return (valores * validas[:, None, None, :]).sum(axis=-1) / validas.sum(axis=-1)[:, None, None]


def _medidas(pesos: np.ndarray, frases: Sequence[Frase]) -> dict[str, NDArray[np.float64]]:
    """As médias de :data:`MEDIDAS` para ``pesos`` ``(B, L, H, n, n)`` (enchimento com peso 0), de uma vez
    para o lote inteiro (cada frase conta igual, seja qual for o comprimento)."""
    B, n = pesos.shape[0], pesos.shape[-1]
    comprimento = np.array([len(f.tokens) for f in frases])
    validas = np.arange(n)[None, :] < comprimento[:, None]  # (B, n)
    lacuna = _linha_da_lacuna(pesos, np.array([f.posicao_alvo for f in frases]))  # (B, L, H, n)
    virgulas = np.array([[t == "," for t in f.tokens] + [False] * (n - len(f.tokens)) for f in frases])

    def no_sintagma(campo: str, linhas: np.ndarray) -> np.ndarray:
        return (linhas * _posicoes(frases, n, campo)[:, None, None, :]).sum(axis=-1)  # (B, L, H)

    por_frase = {
        "sujeito": no_sintagma("posicoes_sujeito", lacuna),
        "atrator": no_sintagma("posicoes_atrator", lacuna),
        "distrator": no_sintagma("posicoes_distrator", lacuna),
        "lacuna": np.take_along_axis(lacuna, (comprimento - 1)[:, None, None, None], axis=-1)[..., 0],
        # diagonal logo abaixo da principal: a entrada k é o peso da palavra k + 1 na palavra k
        "anterior": _media_nas_linhas(np.diagonal(pesos, offset=-1, axis1=3, axis2=4), validas[:, 1:]),
        "primeira": _media_nas_linhas(pesos[..., 0], validas),
        "propria": _media_nas_linhas(np.diagonal(pesos, axis1=3, axis2=4), validas),
        "virgula": _media_nas_linhas((pesos * virgulas[:, None, None, None, :]).sum(axis=-1), validas),
    }
    quais = {"distrator": np.array([bool(f.posicoes_distrator) for f in frases]), "virgula": virgulas.any(axis=-1)}
    medias = {}
    for nome in MEDIDAS:
        sel = quais.get(nome, np.ones(B, dtype=bool))
        medias[nome] = por_frase[nome][sel].mean(axis=0) if sel.any() else np.zeros(pesos.shape[1:3])
    return medias


def _uniforme(frases: Sequence[Frase], forma: tuple[int, int]) -> dict[str, NDArray[np.float64]]:
    """As medidas de uma atenção uniforme (cada palavra espalha o peso igualmente pela frase), com o mesmo
    valor em cada uma das ``forma`` = ``(n_camadas, n_cabecas)`` cabeças."""
    n = max(len(f.tokens) for f in frases)
    w = np.zeros((len(frases), 1, 1, n, n))
    for b, f in enumerate(frases):
        m = len(f.tokens)
        w[b, :, :, :m, :m] = 1.0 / m
    return {nome: np.broadcast_to(valor, forma).copy() for nome, valor in _medidas(w, frases).items()}


def analisar_cabecas(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> AnaliseCabecas:
    """Mede, para cada camada e cabeça, as médias de :data:`MEDIDAS` em ``frases``."""
    if not len(frases):
        raise ValueError("analisar_cabecas precisa de pelo menos uma frase.")
    pesos = modelo.atencao_lote(frases)  # (B, L, H, n, n)
    forma = (modelo.n_camadas, modelo.n_cabecas)
    return AnaliseCabecas(_medidas(pesos, frases), _uniforme(frases, forma), len(frases))


def nomear_cabecas(analise: AnaliseCabecas, *, sujeito_min: float = 0.5,
                   atrator_max: float = 0.2) -> dict[tuple[int, int], list[str]]:
    """Os nomes que cada cabeça ``(camada, cabeça)`` merece pelas medidas (lista vazia: nenhum).

    "faz a concordância" se a lacuna põe em média ``>= sujeito_min`` no sujeito e ``<= atrator_max`` no
    atrator; os outros nomes seguem :data:`LIMIARES`.
    """
    m = analise.medidas
    nomes: dict[tuple[int, int], list[str]] = {}
    n_camadas, n_cabecas = m["sujeito"].shape
    for c in range(n_camadas):
        for h in range(n_cabecas):
            lista = []
            if m["sujeito"][c, h] >= sujeito_min and m["atrator"][c, h] <= atrator_max:
                lista.append("faz a concordância (olha o sujeito, não o atrator)")
            for medida, (nome, limiar) in LIMIARES.items():
                if m[medida][c, h] >= limiar:
                    lista.append(nome)
            nomes[(c, h)] = lista
    return nomes


# ---------------------------------------------------------------------------------------------
# Peso não é importância: desligar uma cabeça
# ---------------------------------------------------------------------------------------------


def desligar_cabeca(modelo: ModeloConcordancia, camada: int, cabeca: int) -> ModeloConcordancia:
    """Uma cópia do modelo em que a cabeça ``(camada, cabeca)`` não contribui: a saída dela é zerada
    antes de ``W_o`` (as linhas ``cabeca·d_head … (cabeca+1)·d_head − 1`` de ``W_o`` viram 0). As outras
    cabeças, e os pesos de atenção de todas, continuam iguais; o modelo original não muda."""
    if not (0 <= camada < modelo.n_camadas and 0 <= cabeca < modelo.n_cabecas):
        raise ValueError(f"o modelo tem camadas 0..{modelo.n_camadas - 1} e cabeças 0..{modelo.n_cabecas - 1}; "
                         f"recebi camada={camada!r}, cabeca={cabeca!r}.")
    d_head = modelo.receita.d_model // modelo.n_cabecas
    p = {nome: a.copy() for nome, a in modelo.parametros.items()}
    p[f"w_o{camada}"][cabeca * d_head:(cabeca + 1) * d_head, :] = 0.0
    return ModeloConcordancia(p, modelo.receita)


def acuracia_sem_cada_cabeca(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> NDArray[np.float64]:
    """``(n_camadas, n_cabecas)``: a acurácia em ``frases`` com cada cabeça desligada, uma de cada vez."""
    return np.array([[acuracia(desligar_cabeca(modelo, c, h), frases) for h in range(modelo.n_cabecas)]
                     for c in range(modelo.n_camadas)])


# ---------------------------------------------------------------------------------------------
# Outras intervenções: a cabeça na média, uma posição sem a atualização de uma camada
# ---------------------------------------------------------------------------------------------


def _confere_camada(modelo: ModeloConcordancia, camada: int, nome: str, limite: int, outro: int) -> None:
    if limite <= 0:
        raise ValueError("a intervenção precisa de pelo menos uma frase.")
    if not (0 <= camada < modelo.n_camadas and 0 <= outro < limite):
        raise ValueError(f"o modelo tem camadas 0..{modelo.n_camadas - 1} e {nome} 0..{limite - 1}; recebi "
                         f"camada={camada!r}, {nome}={outro!r}.")


def _logits_intervindo(modelo: ModeloConcordancia, frases: Sequence[Frase], *,
                       cabeca: tuple[int, int, np.ndarray] | None = None,
                       sem_atualizar: tuple[int, int] | None = None,
                       gancho: tuple[int, Callable[[np.ndarray], np.ndarray]] | None = None,
                       ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """A conta de ida do modelo (a propagação para a frente), camada por camada, com uma intervenção opcional.

    - ``cabeca = (l, h, vetor)``: a saída da cabeça ``h`` da camada ``l`` (antes de ``W_o``) vira ``vetor``
      ``(d_head,)`` em todas as posições;
    - ``sem_atualizar = (l, j)``: a posição ``j`` não recebe a atualização da camada ``l``
      (``x_{l+1}[j] = x_l[j]``: o que ela leria nessa camada some; as outras posições não mudam);
    - ``gancho = (l, f)``: a saída das cabeças da camada ``l`` ``(B, H, n, d_head)`` vira ``f(saída)`` (um
      array da mesma forma) antes de ``W_o`` — é por aqui que entra o remendo de ativação.

    Devolve os logits ``(B, 4)``, a saída das cabeças de cada camada (``(B, H, n, d_head)``, sem a
    intervenção) e a posição da lacuna de cada frase ``(B,)``. Sem intervenção, é a conta de
    :meth:`ModeloConcordancia.logits_lote`.
    """
    p, H = modelo.parametros, modelo.n_cabecas
    lote = _lote(frases)
    n = lote.ids.shape[1]
    x = p["embedding"][lote.ids] + p["posicao"][:n]  # (B, n, d)
    mascara = lote.mascara[:, None, None, :]  # (B, 1, 1, n): ninguém olha o enchimento
    saidas = []
    with blas_one_thread():
        for camada in range(modelo.n_camadas):
            qh, kh, vh = (split_heads(x @ p[f"{w}{camada}"], H) for w in ("w_q", "w_k", "w_v"))  # (B, H, n, d_head)
            cabecas, _ = scaled_dot_product_attention(qh, kh, vh, mascara)  # (B, H, n, d_head)
            saidas.append(cabecas.copy())
            if cabeca is not None and cabeca[0] == camada:
                cabecas[:, cabeca[1]] = cabeca[2]
            if gancho is not None and gancho[0] == camada:
                novas = np.asarray(gancho[1](cabecas.copy()), dtype=np.float64)
                if novas.shape != cabecas.shape:
                    raise ValueError(f"o gancho precisa devolver a saída das cabeças com a forma {cabecas.shape} "
                                     f"(frases, cabeças, posições, d_head); devolveu {novas.shape}.")
                cabecas = novas
            a = merge_heads(cabecas) @ p[f"w_o{camada}"]  # (B, n, d)
            if sem_atualizar is not None and sem_atualizar[0] == camada:
                a[:, sem_atualizar[1]] = 0.0
            x = x + a if modelo.receita.residual else a
    lacuna = x[np.arange(len(frases)), lote.posicao_alvo]  # (B, d)
    return lacuna @ p["w_saida"] + p["b_saida"], saidas, lote.posicao_alvo


def _acerto(logits: np.ndarray, frases: Sequence[Frase]) -> float:
    return float(np.mean(np.argmax(logits, axis=-1) == np.array([f.classe for f in frases])))


def acuracia_com_media(modelo: ModeloConcordancia, frases: Sequence[Frase], camada: int, cabeca: int) -> float:
    """A acurácia em ``frases`` com a saída da cabeça ``(camada, cabeca)`` trocada, em todas as posições, pela
    **média** da saída dela nas linhas da lacuna dessas mesmas frases (antes de ``W_o``).

    É outra forma de "desligar" (a *mean ablation*): zerar (:func:`desligar_cabeca`) põe na camada seguinte um
    vetor que o modelo nunca viu no treino; a média tira só o que a cabeça diz de **cada** frase, e deixa o
    que ela diz igual em todas.
    """
    _confere_camada(modelo, camada, "cabeças", modelo.n_cabecas if len(frases) else 0, cabeca)
    _, saidas, alvo = _logits_intervindo(modelo, frases)
    media = saidas[camada][np.arange(len(frases)), cabeca, alvo].mean(axis=0)  # (d_head,)
    logits, _, _ = _logits_intervindo(modelo, frases, cabeca=(camada, cabeca, media))
    return _acerto(logits, frases)


def acuracia_sem_atualizar(modelo: ModeloConcordancia, frases: Sequence[Frase], camada: int, posicao: int) -> float:
    """A acurácia em ``frases`` quando a posição ``posicao`` não recebe a atualização da camada ``camada``
    (o vetor dela segue para a camada seguinte como entrou: o que ela leu nessa camada some).

    Um teste causal: se a lacuna lê o sujeito **através** dessa posição (um revezamento), a acurácia cai; se
    não, ela não muda.
    """
    _confere_camada(modelo, camada, "posições", min((len(f.tokens) for f in frases), default=0), posicao)
    logits, _, _ = _logits_intervindo(modelo, frases, sem_atualizar=(camada, posicao))
    return _acerto(logits, frases)


# ---------------------------------------------------------------------------------------------
# As dicas de quem lê mapas de atenção, medidas
# ---------------------------------------------------------------------------------------------

#: o que :func:`medir_dicas_bertviz` mede (cada número é uma média sobre frases novas)
DICAS: dict[str, str] = {
    "primeira_lacuna": "peso da lacuna na 1ª palavra (frases em que ela não é do sujeito)",
    "primeira_outras": "peso das outras palavras na 1ª palavra (mesmas frases)",
    "virgula_lacuna": "peso da lacuna nas vírgulas (frases com vírgula)",
    "virgula_outras": "peso das outras palavras nas vírgulas (frases com vírgula)",
    "anterior": "peso de cada palavra (da 2ª em diante) na anterior",
    "entropia_lacuna": "entropia da linha da lacuna ÷ ln n (1 = espalhada por igual, 0 = numa palavra só)",
}


@dataclass(frozen=True)
class DicasBertViz:
    """As medidas de :data:`DICAS`, cada uma ``(n_camadas, n_cabecas)``, e o mesmo número para a
    atenção uniforme (``uniforme``); ``n_frases`` é quantas frases entraram."""

    medidas: dict[str, NDArray[np.float64]]
    uniforme: dict[str, float]
    n_frases: int


def _entropia_relativa(linha: np.ndarray) -> np.ndarray:
    """``H(linha) / ln n`` para linhas ``(..., n)`` que somam 1 (``0·ln 0 = 0``)."""
    n = linha.shape[-1]
    termos = np.where(linha > 0, linha * np.log(np.where(linha > 0, linha, 1.0)), 0.0)
    return -termos.sum(axis=-1) / np.log(n)


def medir_dicas_bertviz(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> DicasBertViz:
    """Mede, em cada cabeça, as dicas de :data:`DICAS`.

    A linha da lacuna e as outras linhas ficam separadas de propósito: na última camada, só a saída da
    lacuna chega à leitura, então as outras linhas dessa camada não recebem gradiente nenhum — são as
    que "não têm o que fazer". "Primeira palavra" só conta as frases em que a 1ª palavra não é o artigo
    do sujeito (senão olhar o sujeito pareceria olhar a 1ª palavra).
    """
    if not len(frases):
        raise ValueError("medir_dicas_bertviz precisa de pelo menos uma frase.")
    pesos = modelo.atencao_lote(frases)  # (B, L, H, n, n)
    n = pesos.shape[-1]
    comprimento = np.array([len(f.tokens) for f in frases])
    alvo = comprimento - 1
    outras = np.arange(n)[None, :] < alvo[:, None]  # (B, n): as linhas antes da lacuna
    validas = np.arange(n)[None, :] < comprimento[:, None]
    virgulas = np.array([[t == "," for t in f.tokens] + [False] * (n - len(f.tokens)) for f in frases])
    n_virgulas = virgulas.sum(axis=-1)
    lacuna = _linha_da_lacuna(pesos, alvo)  # (B, L, H, n)
    nas_virgulas = (pesos * virgulas[:, None, None, None, :]).sum(axis=-1)  # (B, L, H, n): cada linha
    primeira_fora = np.array([0 not in f.posicoes_sujeito for f in frases])
    com_virgula = n_virgulas > 0
    por_frase = {  # nome: (valor por frase (B, L, H), valor uniforme por frase (B,), quais frases contam)
        "primeira_lacuna": (lacuna[..., 0], 1 / comprimento, primeira_fora),
        "primeira_outras": (_media_nas_linhas(pesos[..., 0], outras), 1 / comprimento, primeira_fora),
        "virgula_lacuna": ((lacuna * virgulas[:, None, None, :]).sum(axis=-1), n_virgulas / comprimento,
                           com_virgula),
        "virgula_outras": (_media_nas_linhas(nas_virgulas, outras), n_virgulas / comprimento, com_virgula),
        "anterior": (_media_nas_linhas(np.diagonal(pesos, offset=-1, axis1=3, axis2=4), validas[:, 1:]),
                     1 / comprimento, np.ones(len(frases), dtype=bool)),
        "entropia_lacuna": (_entropia_relativa(lacuna) * np.log(n) / np.log(comprimento)[:, None, None],
                            np.ones(len(frases)), np.ones(len(frases), dtype=bool)),
    }
    medidas, uniforme = {}, {}
    for nome, (valor, ref, sel) in por_frase.items():
        medidas[nome] = valor[sel].mean(axis=0) if sel.any() else np.zeros(pesos.shape[1:3])
        uniforme[nome] = float(ref[sel].mean()) if sel.any() else 0.0
    return DicasBertViz(medidas, uniforme, len(frases))


# ---------------------------------------------------------------------------------------------
# A pista local: o que uma regra de uma linha e um saco de bigramas acertam
# ---------------------------------------------------------------------------------------------

_PREPOSICOES = frozenset(PREPOSICOES) | frozenset(PREPOSICOES_ABERTURA)


def acuracia_regra_do_artigo(frases: Sequence[Frase]) -> float:
    """A acurácia da regra "concorde com o primeiro artigo que **não** vem depois de uma preposição" (o do
    sujeito: o do atrator e o do distrator vêm sempre depois de uma). Mostra a pista local da tarefa: a
    palavra logo antes de cada artigo diz qual sintagma é o sujeito."""
    if not len(frases):
        raise ValueError("a regra precisa de pelo menos uma frase.")
    acertos = 0
    for f in frases:
        artigos = [t for i, t in enumerate(f.tokens) if t in ARTIGOS and (i == 0 or f.tokens[i - 1] not in _PREPOSICOES)]
        acertos += bool(artigos) and ARTIGOS.index(artigos[0]) == f.classe
    return acertos / len(frases)


def _bigramas(f: Frase) -> list[str]:
    toks = ["<início>", *f.tokens]
    return sorted({f"{a} {b}" for a, b in zip(toks, toks[1:])})


def acuracia_bigramas(treino: Sequence[Frase], avaliacao: Sequence[Frase], passos: int = 200) -> float:
    """A acurácia, em ``avaliacao``, de uma regressão logística (softmax, Adam, lote inteiro, ``passos``
    passos a partir de zeros: determinística) sobre o **saco de bigramas** da frase — quais pares de palavras
    vizinhas aparecem, sem a posição — treinada em ``treino``. Um bigrama nunca visto no treino conta 0."""
    if not len(treino) or not len(avaliacao):
        raise ValueError("acuracia_bigramas precisa de frases de treino e de avaliação.")
    indice: dict[str, int] = {}
    for f in treino:
        for b in _bigramas(f):
            indice.setdefault(b, len(indice) + 1)  # 0: o bigrama nunca visto (peso fixo 0)

    def matriz(frases: Sequence[Frase]) -> np.ndarray:
        linhas = [[indice.get(b, 0) for b in _bigramas(f)] for f in frases]
        largura = max(map(len, linhas))
        return np.array([linha + [0] * (largura - len(linha)) for linha in linhas])

    x, y = matriz(treino), np.array([f.classe for f in treino])
    F, B = len(indice) + 1, len(y)
    W = np.zeros((F, len(ALVOS)))
    m, v = np.zeros_like(W), np.zeros_like(W)
    for t in range(1, passos + 1):
        z = W[x].sum(axis=1)  # (B, 4)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(B), y] -= 1.0
        p /= B
        g = np.stack([np.bincount(x.ravel(), weights=np.repeat(p[:, c], x.shape[1]), minlength=F)
                      for c in range(len(ALVOS))], axis=1)
        g[0] = 0.0
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        W -= 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    previstas = W[matriz(avaliacao)].sum(axis=1).argmax(axis=1)
    return float(np.mean(previstas == np.array([f.classe for f in avaliacao])))


# ---------------------------------------------------------------------------------------------
# Atrator que concorda, atrator que discorda, e os erros de atração
# ---------------------------------------------------------------------------------------------


def acuracia_por_atrator(modelo: ModeloConcordancia | BaseSemAtencao, frases: Sequence[Frase]) -> dict[str, float]:
    """A acurácia nas frases cujo atrator **concorda** com o sujeito e nas em que ele **discorda**, e quantas
    frases há em cada grupo: ``{"concorda", "discorda", "n_concorda", "n_discorda"}``. Se faltar um dos dois
    grupos, levanta ``ValueError`` (em vez de devolver NaN calado)."""
    concorda = np.array([f.atrator_concorda for f in frases])
    if concorda.all() or not concorda.any():
        raise ValueError("acuracia_por_atrator precisa de frases com atrator que concorda e com atrator que discorda.")
    certas = modelo.prever_lote(frases) == np.array([f.classe for f in frases])
    return {"concorda": float(certas[concorda].mean()), "discorda": float(certas[~concorda].mean()),
            "n_concorda": int(concorda.sum()), "n_discorda": int((~concorda).sum())}


def erros_de_atracao(modelo: ModeloConcordancia | BaseSemAtencao, frases: Sequence[Frase]) -> dict[str, int]:
    """Os erros do modelo nas frases cujo atrator discorda do sujeito, e quantos deles escolhem justamente a
    forma do atrator (um **erro de atração**): ``{"frases", "erros", "atracao"}``. Se os erros fossem ao
    acaso entre as três formas erradas, 1/3 deles seria de atração."""
    discorda = [f for f in frases if not f.atrator_concorda]
    if not discorda:
        raise ValueError("erros_de_atracao precisa de frases com um atrator que discorda do sujeito.")
    previstas = modelo.prever_lote(discorda)
    classes = np.array([f.classe for f in discorda])
    atrator = np.array([f.classe_atrator for f in discorda])
    erradas = previstas != classes
    return {"frases": len(discorda), "erros": int(erradas.sum()), "atracao": int((previstas[erradas] == atrator[erradas]).sum())}


# ---------------------------------------------------------------------------------------------
# Remendo de ativação: a saída de uma cabeça copiada de uma frase contrafactual
# ---------------------------------------------------------------------------------------------


def contrafactual(frase: Frase, classe: int) -> Frase:
    """A mesma frase com o sujeito em outra forma: o artigo e o substantivo da classe ``classe`` ("o bolo" →
    "os bolos"; entre gêneros, o substantivo de mesmo índice na lista: "o bolo" → "a carta"). Tudo o mais —
    atrator, distrator, trechos, posições — fica igual."""
    if not (isinstance(classe, (int, np.integer)) and 0 <= classe < len(ALVOS)):
        raise ValueError(f"a classe do sujeito contrafactual é um id de 0 a {len(ALVOS) - 1}; recebi {classe!r}.")
    classe = int(classe)
    artigo, substantivo = frase.posicoes_sujeito
    lema = SUBSTANTIVOS[frase.classe].index(frase.tokens[substantivo])
    tokens = list(frase.tokens)
    tokens[artigo], tokens[substantivo] = ARTIGOS[classe], SUBSTANTIVOS[classe][lema]
    return Frase(tokens=tokens, alvo=ALVOS[classe], posicao_alvo=frase.posicao_alvo,
                 posicoes_sujeito=list(frase.posicoes_sujeito), posicoes_atrator=list(frase.posicoes_atrator),
                 posicoes_distrator=list(frase.posicoes_distrator), classe=classe,
                 classe_atrator=frase.classe_atrator, alvo_atrator=frase.alvo_atrator)


def contrafactuais(frases: Sequence[Frase], semente: int = 0) -> list[Frase]:
    """Para cada frase, a :func:`contrafactual` com o sujeito numa das **outras** três classes, sorteada
    (uniforme, a partir de ``semente``)."""
    rng = np.random.default_rng(semente)
    desvios = rng.integers(1, len(ALVOS), size=len(frases))
    return [contrafactual(f, (f.classe + int(d)) % len(ALVOS)) for f, d in zip(frases, desvios)]


def saidas_das_cabecas(modelo: ModeloConcordancia, frases: Sequence[Frase], camada: int) -> NDArray[np.float64]:
    """A saída das cabeças da camada ``camada`` ``(B, n_cabecas, n, d_head)``, antes de ``W_o`` (sem intervenção)."""
    _confere_camada(modelo, camada, "cabeças", len(frases), 0)
    return _logits_intervindo(modelo, frases)[1][camada]


def remendo_na_lacuna(limpa: np.ndarray, contra: np.ndarray, cabeca: int, lacunas: np.ndarray) -> NDArray[np.float64]:
    """O remendo certo: uma cópia de ``limpa`` ``(B, H, n, d_head)`` em que só a cabeça ``cabeca``, só na posição
    da lacuna de cada frase (``lacunas`` ``(B,)``), recebe a saída de ``contra`` (a mesma forma)."""
    saida = np.array(limpa, dtype=np.float64, copy=True)
    linhas = np.arange(saida.shape[0])
    saida[linhas, cabeca, lacunas] = np.asarray(contra)[linhas, cabeca, lacunas]
    return saida


def prever_com_remendo(modelo: ModeloConcordancia, frases: Sequence[Frase], contra: Sequence[Frase], camada: int,
                       remendo: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> NDArray[np.int64]:
    """As classes ``(B,)`` que o modelo prevê em ``frases`` quando a saída das cabeças da camada ``camada`` vira
    ``remendo(limpa, contra_saida)``: ``limpa`` é a saída nas próprias frases e ``contra_saida``, nas frases
    contrafactuais ``contra`` (as mesmas, com o sujeito em outra forma), ambas ``(B, H, n, d_head)``."""
    if len(frases) != len(contra) or any(len(a.tokens) != len(b.tokens) for a, b in zip(frases, contra)):
        raise ValueError("cada frase contrafactual precisa ter o mesmo comprimento da sua frase (troque só o sujeito).")
    outra = saidas_das_cabecas(modelo, contra, camada)
    logits, _, _ = _logits_intervindo(modelo, frases, gancho=(camada, lambda limpa: remendo(limpa, outra)))
    return np.argmax(logits, axis=-1)


def fracao_que_segue(previstas: np.ndarray, classes_contra: np.ndarray) -> float:
    """A fração das previsões que **segue o sujeito contrafactual** (prevê a classe dele)."""
    return float(np.mean(np.asarray(previstas) == np.asarray(classes_contra)))


def efeito_do_remendo(modelo: ModeloConcordancia, frases: Sequence[Frase], camada: int, cabeca: int,
                      semente: int = 0) -> float:
    """Remenda a cabeça ``(camada, cabeca)`` na lacuna com a saída dela numa frase contrafactual
    (:func:`contrafactuais` ``(frases, semente)``) e devolve a fração das previsões que passa a seguir o sujeito
    contrafactual. 1: a cabeça carrega, sozinha, a forma do sujeito até a lacuna; perto de 0: o que ela leva
    não decide a resposta."""
    _confere_camada(modelo, camada, "cabeças", modelo.n_cabecas if len(frases) else 0, cabeca)
    contra = contrafactuais(frases, semente)
    lacunas = np.array([f.posicao_alvo for f in frases])
    previstas = prever_com_remendo(modelo, frases, contra, camada,
                                   lambda limpa, outra: remendo_na_lacuna(limpa, outra, cabeca, lacunas))
    return fracao_que_segue(previstas, np.array([f.classe for f in contra]))


# ---------------------------------------------------------------------------------------------
# Uma linha da tabela das sementes
# ---------------------------------------------------------------------------------------------


def medir_semente(modelo: ModeloConcordancia, frases: Sequence[Frase]) -> dict:
    """O que a tabela das sementes guarda de um modelo, medido em ``frases`` (as de avaliação): a acurácia;
    a cabeça que, da lacuna, mais olha para o sujeito (``"c·h"``), a camada dela, o peso no sujeito e no
    atrator, a acurácia com ela zerada e a fração que segue o sujeito contrafactual com ela remendada; e a
    cabeça cuja remoção mais custa, com a acurácia sem ela."""
    analise = analisar_cabecas(modelo, frases)
    suj, atr = analise.medidas["sujeito"], analise.medidas["atrator"]
    c, h = (int(i) for i in np.unravel_index(int(np.argmax(suj)), suj.shape))
    sem_cada = acuracia_sem_cada_cabeca(modelo, frases)
    cn, hn = (int(i) for i in np.unravel_index(int(np.argmin(sem_cada)), sem_cada.shape))
    return {
        "acuracia": acuracia(modelo, frases),
        "cabeca": f"{c}·{h}",
        "camada": c,
        "sujeito": round(float(suj[c, h]), 4),
        "atrator": round(float(atr[c, h]), 4),
        "acuracia_sem_ela": float(sem_cada[c, h]),
        "segue_com_remendo": efeito_do_remendo(modelo, frases, c, h),
        "mais_necessaria": f"{cn}·{hn}",
        "acuracia_sem_a_mais_necessaria": float(sem_cada[cn, hn]),
    }
