"""Frases sintéticas em português com concordância nominal através de um atrator (notebook 09).

A tarefa
--------
Cada frase termina numa lacuna ``___`` onde entra o predicado, e o predicado tem quatro formas, uma
por combinação de gênero × número do **sujeito**::

    "o bolo para as meninas ___"          → "está pronto"      (masculino singular)
    "a carta sem os livros ___"           → "está pronta"      (feminino singular)
    "os quadros com a menina ___"         → "estão prontos"    (masculino plural)
    "as caixas para o aluno ___"          → "estão prontas"    (feminino plural)

Entre o sujeito e a lacuna fica sempre um **atrator**: outro sintagma nominal (preposição + artigo +
substantivo), de classe sorteada uniformemente entre as quatro, sem olhar o sujeito. Em 1/4 das frases ele
**concorda** com o sujeito (concordar com o mais próximo acerta por sorte); nas outras 3/4 ele discorda em
gênero, em número ou nos dois, e concordar com ele dá a resposta errada — o contraste entre os dois casos é o
de Linzen, Dupoux & Goldberg (2016), que mediram os erros de atração de uma rede recorrente em inglês.

- O sujeito é um *sintagma*: o artigo (``o/a/os/as``) já carrega gênero e número, e o substantivo
  também. ``posicoes_sujeito`` são as posições do artigo e do substantivo; ``posicoes_atrator``, as do
  artigo e do substantivo do atrator (a preposição não carrega gênero nem número e fica de fora).
- A posição do sujeito varia: antes dele podem vir uma abertura ("hoje", "por sorte ,") e um relato
  ("eu acho que"); depois dele, um modificador invariável ("de ontem", "lá de casa"); depois do
  atrator, um complemento ("da escola") e um advérbio ("já"). Nenhuma cabeça acerta olhando para uma
  posição fixa.
- Em 1/4 das frases a abertura é ela mesma um sintagma nominal ("segundo as vizinhas ,"), de classe
  sorteada sem olhar o sujeito (``posicoes_distrator``). Assim nem "concorde com o sintagma mais
  próximo" (o atrator: certo só quando concorda, 1/4) nem "concorde com o primeiro sintagma" (certo em
  ~81%) resolvem.
- **Sem vazamento.** Nada antes da lacuna entrega a resposta além do sujeito: não há verbo flexionado
  que concorde com o sujeito (a cópula "está/estão" faz parte da resposta, não da entrada), os
  modificadores são invariáveis e todas as escolhas fora do sujeito (o atrator inclusive) são sorteadas
  independentemente da classe: sem olhar o sujeito, o melhor acerto possível é 1/4.
- **Mas há uma pista local.** Achar *qual* artigo é o do sujeito é fácil: ele é o único que não vem depois
  de uma preposição. Uma regra de uma linha ("o artigo que não vem depois de uma preposição") e um
  classificador linear sobre pares de palavras vizinhas (um saco de bigramas) acertam tudo — veja
  :func:`helpers.licoes.aprendida.analise.acuracia_regra_do_artigo` e
  :func:`~helpers.licoes.aprendida.analise.acuracia_bigramas`. A tarefa mede se a atenção aprende a levar o
  sujeito até a lacuna, não se ela é difícil.

As classes vêm balanceadas (as contagens diferem no máximo em 1).

**Treino e avaliação sem frases em comum.** ``gerar_frases(..., conjunto="treino")`` só devolve frases
cuja impressão digital (SHA-256 do texto) cai nos 9/10 do treino, e ``conjunto="avaliacao"``, só as do
1/10 restante (:func:`conjunto_da_frase`): nenhuma frase de avaliação pode estar no treino, seja qual
for a semente ou o tamanho dos dois conjuntos.

API (posições começam em 0)
---------------------------
- :func:`gerar_frases` ``(n, *, semente=0, conjunto=None)`` → lista de :class:`Frase`.
- :func:`conjunto_da_frase` ``(tokens)`` → ``"treino"`` ou ``"avaliacao"``.
- :data:`VOCABULARIO` / :func:`vocabulario` — as palavras que o modelo conhece (o índice é o id).
- :func:`codificar` ``(tokens)`` → ids ``(n,)``; uma palavra desconhecida levanta ``ValueError``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import NDArray

from ... import _validation as val

__all__ = [
    "ALVOS",
    "CLASSES",
    "LACUNA",
    "N_MAX",
    "VOCABULARIO",
    "Frase",
    "classe_do_alvo",
    "codificar",
    "N_AVALIACAO",
    "SEMENTE_AVALIACAO",
    "conjunto_da_frase",
    "frases_de_avaliacao",
    "gerar_frases",
    "vocabulario",
]

#: o marcador da lacuna: o modelo lê a sua posição e escolhe a forma do predicado
LACUNA = "___"

#: as quatro classes, na ordem dos ids: gênero × número do sujeito
CLASSES: tuple[str, ...] = ("masculino singular", "feminino singular", "masculino plural", "feminino plural")

#: a forma certa do predicado para cada classe (o ``alvo`` de uma frase)
ALVOS: tuple[str, ...] = ("está pronto", "está pronta", "estão prontos", "estão prontas")

#: o artigo definido de cada classe
ARTIGOS: tuple[str, ...] = ("o", "a", "os", "as")

_LEMAS_MASCULINOS = ("bolo", "livro", "presente", "menino", "vizinho", "quadro", "relatório", "aluno")
_LEMAS_FEMININOS = ("carta", "caixa", "menina", "vizinha", "sala", "mesa", "festa", "aluna")

#: os substantivos de cada classe (os mesmos servem ao sujeito e ao atrator)
SUBSTANTIVOS: tuple[tuple[str, ...], ...] = (
    _LEMAS_MASCULINOS,
    _LEMAS_FEMININOS,
    tuple(p + "s" for p in _LEMAS_MASCULINOS),
    tuple(p + "s" for p in _LEMAS_FEMININOS),
)

#: preposições do atrator: nenhuma se contrai com o artigo, que fica igual ao do sujeito
PREPOSICOES: tuple[str, ...] = ("para", "com", "sem")
#: preposições da abertura nominal ("segundo a professora ,"); também não se contraem
PREPOSICOES_ABERTURA: tuple[str, ...] = ("segundo", "para")

#: probabilidade de a frase abrir com um sintagma nominal distrator ("segundo os alunos ,")
P_ABERTURA_NOMINAL = 0.25

# Os trechos opcionais. Cada um aparece com probabilidade 1/2 e, quando aparece, é sorteado
# uniformemente na sua lista, sempre independentemente da classe. (A abertura aparece com
# probabilidade 1/2 como abertura simples, a menos que a frase abra com um sintagma nominal.)
ABERTURAS: tuple[tuple[str, ...], ...] = (
    ("hoje",), ("agora",), ("por", "sorte", ","), ("sem", "dúvida", ","), ("felizmente", ","), ("pelo", "jeito", ","),
)
RELATOS: tuple[tuple[str, ...], ...] = (
    ("eu", "acho", "que"), ("dizem", "que"), ("ela", "disse", "que"), ("ainda", "bem", "que"), ("parece", "que"),
)
MODIFICADORES_SUJEITO: tuple[tuple[str, ...], ...] = (
    ("de", "ontem"), ("daqui",), ("lá", "de", "casa"), ("de", "sempre"),
)
COMPLEMENTOS_ATRATOR: tuple[tuple[str, ...], ...] = (
    ("da", "escola"), ("do", "bairro"), ("das", "férias"), ("dos", "primos"),
)
ADVERBIOS: tuple[tuple[str, ...], ...] = (("já",), ("agora",), ("ainda",), ("finalmente",), ("também",))

_TRECHOS = (ABERTURAS, RELATOS, MODIFICADORES_SUJEITO, COMPLEMENTOS_ATRATOR, ADVERBIOS)


def _montar_vocabulario() -> tuple[str, ...]:
    palavras: list[str] = [LACUNA, ",", *ARTIGOS, *PREPOSICOES, *PREPOSICOES_ABERTURA]
    for classe in SUBSTANTIVOS:
        palavras += classe
    for lista in _TRECHOS:
        for trecho in lista:
            palavras += trecho
    return tuple(dict.fromkeys(palavras))  # sem repetições, na ordem em que aparecem


#: todas as palavras que as frases usam; o índice de uma palavra é o seu id
VOCABULARIO: tuple[str, ...] = _montar_vocabulario()
_ID = {palavra: i for i, palavra in enumerate(VOCABULARIO)}

#: o maior número de tokens de uma frase gerada (todos os trechos opcionais presentes e longos)
N_MAX: int = (
    max(4, max(len(t) for t in ABERTURAS))  # a abertura nominal tem 4: preposição, artigo, substantivo, vírgula
    + sum(max(len(t) for t in lista) for lista in _TRECHOS[1:])
    + 2 + 3 + 1  # sujeito, atrator, lacuna
)


def vocabulario() -> tuple[str, ...]:
    """As palavras que o modelo conhece, na ordem dos ids (o mesmo que :data:`VOCABULARIO`)."""
    return VOCABULARIO


@dataclass(frozen=True)
class Frase:
    """Um exemplo da tarefa. Lê-se por atributo (``f.tokens``) ou por chave (``f["tokens"]``).

    Campos
    ------
    tokens : as palavras, ``n`` ao todo; a última é a lacuna ``___``.
    alvo : a forma certa do predicado (uma de :data:`ALVOS`), a que concorda com o sujeito.
    posicao_alvo : onde o modelo faz a previsão (a posição da lacuna, ``n - 1``).
    posicoes_sujeito : as posições do artigo e do substantivo do sujeito.
    posicoes_atrator : as posições do artigo e do substantivo do atrator.
    posicoes_distrator : as posições do artigo e do substantivo da abertura nominal ("segundo as
        vizinhas ,"), ou ``[]`` se a frase não abre assim.
    classe : o id do alvo em :data:`ALVOS` (0..3).
    classe_atrator : a classe com que o atrator concordaria (igual a ``classe`` em 1/4 das frases).
    alvo_atrator : a forma que concorda com o atrator (errada, a menos que ele concorde com o sujeito).
    """

    tokens: list[str]
    alvo: str
    posicao_alvo: int
    posicoes_sujeito: list[int]
    posicoes_atrator: list[int]
    posicoes_distrator: list[int]
    classe: int
    classe_atrator: int
    alvo_atrator: str

    def __getitem__(self, chave: str):
        if chave not in self.__dataclass_fields__:
            nomes = ", ".join(f.name for f in fields(self))
            raise KeyError(f"uma Frase não tem o campo {chave!r}; os campos são: {nomes}.")
        return getattr(self, chave)

    def __str__(self) -> str:
        return " ".join(self.tokens)

    @property
    def atrator_concorda(self) -> bool:
        """O atrator tem o gênero e o número do sujeito (concordar com ele acerta por sorte)."""
        return self.classe_atrator == self.classe


def classe_do_alvo(alvo: str) -> int:
    """O id (0..3) de uma forma do predicado, por exemplo ``"estão prontas"`` → 3."""
    try:
        return ALVOS.index(alvo)
    except ValueError:
        raise ValueError(f"{alvo!r} não é uma das formas do predicado: {', '.join(map(repr, ALVOS))}.") from None


def _opcional(rng: np.random.Generator, n: int, lista: Sequence[tuple[str, ...]]) -> NDArray[np.int64]:
    """Para cada frase, -1 (trecho ausente, probabilidade 1/2) ou o índice sorteado em ``lista``."""
    presente = rng.random(n) < 0.5
    escolha = rng.integers(0, len(lista), size=n)
    return np.where(presente, escolha, -1)


#: as frases cuja impressão digital cai neste resto (de 10) são de avaliação; as outras, de treino
_RESTO_AVALIACAO = 0
CONJUNTOS: tuple[str, ...] = ("treino", "avaliacao")


#: as frases de avaliação de todas as medidas do notebook e de ``data/`` (as de treino usam a semente 1)
SEMENTE_AVALIACAO = 2024
N_AVALIACAO = 1000


def frases_de_avaliacao(n: int = N_AVALIACAO, semente: int = SEMENTE_AVALIACAO) -> list[Frase]:
    """As frases novas das medidas: ``gerar_frases(n, semente=semente, conjunto="avaliacao")`` — nenhuma
    delas está entre as frases de treino, seja qual for a semente do treino."""
    return gerar_frases(n, semente=semente, conjunto="avaliacao")


def conjunto_da_frase(tokens: Sequence[str]) -> str:
    """``"avaliacao"`` para 1/10 das frases possíveis, ``"treino"`` para as outras: decide pelo SHA-256 do
    texto, então a mesma frase cai sempre no mesmo conjunto, venha de que semente vier."""
    digital = hashlib.sha256(" ".join(tokens).encode("utf-8")).digest()
    return "avaliacao" if int.from_bytes(digital[:4], "little") % 10 == _RESTO_AVALIACAO else "treino"


def _montar(rng: np.random.Generator, classes: NDArray[np.int64]) -> list[Frase]:
    """Uma frase para cada classe de ``classes``, com todo o resto sorteado sem olhar a classe."""
    n = len(classes)
    classes_atrator = rng.integers(0, len(ALVOS), size=n)  # uniforme: concorda com o sujeito em 1/4
    subst_sujeito = rng.integers(0, len(SUBSTANTIVOS[0]), size=n)
    subst_atrator = rng.integers(0, len(SUBSTANTIVOS[0]), size=n)
    preposicao = rng.integers(0, len(PREPOSICOES), size=n)
    trechos = [_opcional(rng, n, lista) for lista in _TRECHOS]  # 5 × (n,)
    nominal = rng.random(n) < P_ABERTURA_NOMINAL  # abre com "segundo as vizinhas ,"?
    classes_distrator = rng.integers(0, len(ALVOS), size=n)  # independente da classe do sujeito
    subst_distrator = rng.integers(0, len(SUBSTANTIVOS[0]), size=n)
    prep_distrator = rng.integers(0, len(PREPOSICOES_ABERTURA), size=n)

    frases = []
    for i in range(n):
        c, ca = int(classes[i]), int(classes_atrator[i])
        abertura, relato, mod_sujeito, compl_atrator, adverbio = (
            list(lista[t[i]]) if t[i] >= 0 else [] for lista, t in zip(_TRECHOS, trechos)
        )
        distrator: list[int] = []
        if nominal[i]:
            cd = int(classes_distrator[i])
            abertura = [PREPOSICOES_ABERTURA[prep_distrator[i]], ARTIGOS[cd], SUBSTANTIVOS[cd][subst_distrator[i]], ","]
            distrator = [1, 2]
        tokens = abertura + relato
        inicio_sujeito = len(tokens)
        tokens += [ARTIGOS[c], SUBSTANTIVOS[c][subst_sujeito[i]]]
        tokens += mod_sujeito
        tokens.append(PREPOSICOES[preposicao[i]])
        inicio_atrator = len(tokens)
        tokens += [ARTIGOS[ca], SUBSTANTIVOS[ca][subst_atrator[i]]]
        tokens += compl_atrator + adverbio + [LACUNA]
        frases.append(Frase(
            tokens=tokens,
            alvo=ALVOS[c],
            posicao_alvo=len(tokens) - 1,
            posicoes_sujeito=[inicio_sujeito, inicio_sujeito + 1],
            posicoes_atrator=[inicio_atrator, inicio_atrator + 1],
            posicoes_distrator=distrator,
            classe=c,
            classe_atrator=ca,
            alvo_atrator=ALVOS[ca],
        ))
    return frases


def gerar_frases(n: int, *, semente: int = 0, conjunto: str | None = None) -> list[Frase]:
    """``n`` frases da tarefa de concordância, sorteadas a partir de ``semente`` (determinístico).

    As classes saem balanceadas (``n // 4`` ou ``n // 4 + 1`` de cada) e embaralhadas; a classe do
    atrator é uniforme entre as quatro (em 1/4 das frases ele concorda com o sujeito); todo o resto
    (inclusive a classe da abertura nominal) é sorteado sem olhar a classe.

    conjunto : ``None`` (qualquer frase), ``"treino"`` ou ``"avaliacao"`` — só frases desse lado da
        divisão de :func:`conjunto_da_frase` (uma frase sorteada do outro lado é sorteada de novo, com a
        mesma classe). Assim as frases de avaliação nunca estão no treino.
    """
    n = val.positive_int(n, "n")
    semente = val.positive_int(semente, "semente", minimum=0)
    if conjunto is not None and conjunto not in CONJUNTOS:
        raise ValueError(f"conjunto precisa ser None, 'treino' ou 'avaliacao'; recebi {conjunto!r}.")
    rng = np.random.default_rng(semente)
    classes = rng.permutation(np.arange(n) % len(ALVOS))  # (n,) balanceadas
    frases: list[Frase | None] = [None] * n
    faltam = np.arange(n)
    while len(faltam):
        novas = _montar(rng, classes[faltam])
        aceitas = [conjunto is None or conjunto_da_frase(f.tokens) == conjunto for f in novas]
        for i, f, ok in zip(faltam, novas, aceitas):
            if ok:
                frases[i] = f
        faltam = faltam[~np.array(aceitas)]
    return frases  # type: ignore[return-value]


def codificar(tokens: Sequence[str]) -> NDArray[np.int64]:
    """Os ids ``(n,)`` das palavras de ``tokens`` em :data:`VOCABULARIO`.

    Levanta ``ValueError`` em português para uma palavra fora do vocabulário (dizendo qual e em que
    posição) ou para uma sequência vazia.
    """
    if isinstance(tokens, str):
        raise ValueError(
            "codificar espera uma lista de palavras, não um texto; use frase.split() "
            f"(recebi o texto {tokens!r})."
        )
    tokens = list(tokens)
    if not tokens:
        raise ValueError("a frase está vazia: preciso de pelo menos uma palavra.")
    ids = []
    for i, palavra in enumerate(tokens):
        if palavra not in _ID:
            dica = ""
            if isinstance(palavra, str) and palavra.lower() in _ID:
                dica = f" (tente em minúsculas: {palavra.lower()!r})"
            raise ValueError(
                f"a palavra {palavra!r} (posição {i}) não está no vocabulário do modelo{dica}. "
                f"O modelo conhece {len(VOCABULARIO)} palavras; veja helpers.licoes.aprendida.VOCABULARIO."
            )
        ids.append(_ID[palavra])
    return np.asarray(ids, dtype=np.int64)
